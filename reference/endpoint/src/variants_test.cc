#include "mroce/endpoint/variants.h"

#include <gtest/gtest.h>

#include <set>

namespace mroce::ref {
namespace {

TEST(Variants, AtLeastTwentyNamedEachWithItsClause) {
  EXPECT_GE(AllVariants().size(), 20u);
  std::set<std::string_view> names;
  for (size_t i = 0; i < AllVariants().size(); ++i) {
    const VariantInfo& v = AllVariants()[i];
    EXPECT_EQ(static_cast<size_t>(v.variant), i);
    EXPECT_FALSE(v.description.empty()) << v.name;
    EXPECT_EQ(v.clause.rfind("MROCE-", 0), 0u) << v.name << " names no clause";
    names.insert(v.name);
  }
  EXPECT_EQ(names.size(), AllVariants().size());
}

TEST(Variants, ParsePlusOrCommaAndPrintInTableOrder) {
  auto v = Variants::Parse("se_on_messages+ack_every_packet, nonce_counter");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_TRUE(v->Has(Variant::kAckEveryPacket));
  EXPECT_TRUE(v->Has(Variant::kSeOnMessages));
  EXPECT_TRUE(v->Has(Variant::kNonceCounter));
  EXPECT_FALSE(v->Has(Variant::kArEveryPacket));
  EXPECT_EQ(v->ToString(), "ack_every_packet+se_on_messages+nonce_counter");
  EXPECT_EQ(Variants::Parse(v->ToString()).value(), v.value());
  EXPECT_TRUE(Variants::Parse("")->Empty());
}

TEST(Variants, UnknownAndAlternativesOfOneChoiceAreErrors) {
  auto bad = Variants::Parse("ack_every_packet+nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown variant 'nope'"), std::string::npos);
  auto both = Variants::Parse("segments_reverse+segments_odd_first");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().message.find("alternatives for the same choice (segment-order)"), std::string::npos)
      << both.error().message;
}

TEST(Variants, AllCompatibleTakesEveryUngroupedVariantAndOnePerGroup) {
  const Variants all = Variants::AllCompatible();
  std::set<std::string_view> groups;
  for (const VariantInfo& v : AllVariants()) {
    if (v.group.empty()) {
      EXPECT_TRUE(all.Has(v.variant)) << v.name;
    } else if (groups.insert(v.group).second) {
      EXPECT_TRUE(all.Has(v.variant)) << v.name << " is the first of its group";
    } else {
      EXPECT_FALSE(all.Has(v.variant)) << v.name;
    }
  }
  EXPECT_TRUE(Variants::Parse(all.ToString()).ok());
}

}  // namespace
}  // namespace mroce::ref
