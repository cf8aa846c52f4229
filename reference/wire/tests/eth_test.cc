// Ethernet / 802.1Q header codec.
#include "mroce/wire/eth.h"

#include <gtest/gtest.h>

#include "mroce/wire/dump.h"

namespace mroce::wire {
namespace {

TEST(EthTest, UntaggedAndTagged) {
  const auto plain = ParseHex("0a0b0c0d0e0f 010203040506 0800").value();
  auto e = ParseEth(plain);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->dst, (MacAddress{0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}));
  EXPECT_EQ(e->src, (MacAddress{1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(e->vlan_tci);
  EXPECT_EQ(e->ethertype, kEtherTypeIpv4);
  EXPECT_EQ(e->size(), 14u);

  const auto tagged = ParseHex("0a0b0c0d0e0f 010203040506 8100 6064 86dd").value();
  auto t = ParseEth(tagged);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->vlan_tci, 0x6064);
  EXPECT_EQ(t->ethertype, kEtherTypeIpv6);
  EXPECT_EQ(t->size(), 18u);
  std::vector<uint8_t> out(18);
  WriteEth(*t, out);
  EXPECT_EQ(out, tagged);
}

TEST(EthTest, TruncationNamesField) {
  const auto tagged = ParseHex("0a0b0c0d0e0f 010203040506 8100 6064 86dd").value();
  const char* want[] = {"eth.dst", "eth.dst", "eth.dst", "eth.dst", "eth.dst", "eth.dst",
                        "eth.src", "eth.src", "eth.src", "eth.src", "eth.src", "eth.src",
                        "eth.type", "eth.type", "eth.vlan_tci", "eth.vlan_tci", "eth.type", "eth.type"};
  for (size_t len = 0; len < tagged.size(); ++len) {
    auto r = ParseEth(std::span(tagged).first(len), 100);
    ASSERT_FALSE(r) << len;
    EXPECT_EQ(r.error().code, want[len]) << len;
    EXPECT_GE(r.error().offset, 100u);
  }
}

}  // namespace
}  // namespace mroce::wire
