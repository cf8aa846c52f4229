#include "mroce/dut/dut_spec.h"

#include <gtest/gtest.h>

#include "mroce/endpoint/quirks.h"
#include "mroce/endpoint/variants.h"

namespace mroce::dut {
namespace {

TEST(DutSpecTest, KindOnly) {
  auto s = DutSpec::Parse("reference");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().kind, "reference");
  EXPECT_TRUE(s.value().options.empty());
}

TEST(DutSpecTest, OptionsInOrder) {
  auto s = DutSpec::Parse("reference:quirk=go_back_n,quirk=ignore_ecn");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().Values("quirk"), (std::vector<std::string>{"go_back_n", "ignore_ecn"}));
}

TEST(DutSpecTest, ErrorsNameTheProblem) {
  auto empty_kind = DutSpec::Parse(":quirk=x");
  ASSERT_FALSE(empty_kind.ok());
  EXPECT_NE(empty_kind.error().message.find("missing kind"), std::string::npos);
  auto no_eq = DutSpec::Parse("reference:quirk");
  ASSERT_FALSE(no_eq.ok());
  EXPECT_NE(no_eq.error().message.find("'quirk' is not key=value"), std::string::npos);
  auto trailing = DutSpec::Parse("reference:");
  ASSERT_FALSE(trailing.ok());
}

TEST(DutSpecTest, MakeDutRejectsUnknownKindAndOption) {
  auto unknown = MakeDut(DutSpec::Parse("nic0").value());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown kind 'nic0'"), std::string::npos);
  auto bad_opt = MakeDut(DutSpec::Parse("reference:speed=1").value());
  ASSERT_FALSE(bad_opt.ok());
  EXPECT_NE(bad_opt.error().message.find("unknown option 'speed'"), std::string::npos);
  auto bad_quirk = MakeDut(DutSpec::Parse("reference:quirk=no_such_quirk").value());
  ASSERT_FALSE(bad_quirk.ok());
  EXPECT_NE(bad_quirk.error().message.find("no_such_quirk"), std::string::npos);
}

TEST(DutSpecTest, MakeDutReferenceWithQuirkHasIdentity) {
  auto d = MakeDut(DutSpec::Parse("reference:quirk=go_back_n").value());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d.value()->Identity(), "reference:quirk=go_back_n");
  auto p = MakeDut(DutSpec::Parse("reference").value());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.value()->Identity(), "reference");
}

// Legal variants: '+' joins them, 'all' is every compatible one; the identity names them, so a
// report and a reproduce command say exactly which choices the reference made.
TEST(DutSpecTest, MakeDutReferenceWithVariantsHasIdentityAndRefusesBadOnes) {
  auto d = MakeDut(DutSpec::Parse("reference:variant=se_on_messages+ack_every_packet").value());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d.value()->Identity(), "reference:variant=ack_every_packet+se_on_messages");
  auto q = MakeDut(DutSpec::Parse("reference:quirk=go_back_n,variant=nonce_counter").value());
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q.value()->Identity(), "reference:quirk=go_back_n,variant=nonce_counter");
  auto all = MakeDut(DutSpec::Parse("reference:variant=all").value());
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all.value()->Identity(), "reference:variant=" + ref::Variants::AllCompatible().ToString());
  auto unknown = MakeDut(DutSpec::Parse("reference:variant=ack_every_packet+nope").value());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown variant 'nope'"), std::string::npos);
  auto clash = MakeDut(DutSpec::Parse("reference:variant=entropy_sequential,variant=entropy_descending").value());
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.error().message.find("alternatives for the same choice"), std::string::npos) << clash.error().message;
}

// An unknown name lists the valid ones; an empty value is an error, never the pristine reference.
TEST(DutSpecTest, ReferenceQuirkAndVariantErrorsListTheNamesAndEmptyValuesAreRefused) {
  auto unknown = MakeDut(DutSpec::Parse("reference:quirk=teleport").value());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown quirk 'teleport' (known: "), std::string::npos) << unknown.error().message;
  for (const auto& q : ref::AllQuirks()) {
    EXPECT_NE(unknown.error().message.find(std::string(q.name)), std::string::npos) << q.name;
  }
  auto unknown_variant = MakeDut(DutSpec::Parse("reference:variant=nope").value());
  ASSERT_FALSE(unknown_variant.ok());
  EXPECT_NE(unknown_variant.error().message.find("ack_every_packet"), std::string::npos) << unknown_variant.error().message;
  for (const char* text : {"reference:quirk=", "reference:quirk=,", "reference:quirk= ", "reference:variant=",
                           "reference:variant=+", "reference:quirk=go_back_n,quirk="}) {
    auto spec = DutSpec::Parse(text);
    ASSERT_TRUE(spec.ok()) << text;
    auto d = MakeDut(spec.value());
    ASSERT_FALSE(d.ok()) << text << " was accepted as " << d.value()->Identity();
    EXPECT_NE(d.error().message.find("names no"), std::string::npos) << d.error().message;
    EXPECT_NE(d.error().message.find(text), std::string::npos) << d.error().message;
    EXPECT_NE(d.error().message.find("(known: "), std::string::npos) << d.error().message;
  }
}

// `dpdk:` keeps its text whole (devargs and the control command hold ',' and '='); a program that
// did not register the adapter (this test, or a build without DPDK) says it was not built.
TEST(DutSpecTest, DpdkTextIsKeptWholeAndAnUnregisteredDpdkSaysItWasNotBuilt) {
  auto spec = DutSpec::Parse("dpdk:port=net_af_packet0,iface=v0,net=10.1.0.0,control=ssh dut a=b,c");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec.value().kind, "dpdk");
  EXPECT_EQ(spec.value().Values("spec"),
            std::vector<std::string>{"port=net_af_packet0,iface=v0,net=10.1.0.0,control=ssh dut a=b,c"});
  auto d = MakeDut(spec.value());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("dpdk adapter was not built"), std::string::npos) << d.error().message;
}

}  // namespace
}  // namespace mroce::dut
