// IPv4 / IPv6 / UDP header codecs and checksums.
#include <gtest/gtest.h>

#include "mroce/wire/wire.h"

namespace mroce::wire {
namespace {

std::vector<uint8_t> Hex(std::string_view h) { return ParseHex(h).value(); }

TEST(Ipv4Test, KnownAnswer) {
  const auto h = Hex("45 6a 00 73 12 34 40 00 11 11 00 00 0a 00 00 01 0a 00 00 02");
  auto with_sum = h;
  const uint16_t c = Ipv4HeaderChecksum(h);
  with_sum[10] = static_cast<uint8_t>(c >> 8);
  with_sum[11] = static_cast<uint8_t>(c);
  auto r = ParseIpv4(with_sum);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->dscp, 26);
  EXPECT_EQ(r->ecn, kEcnEct0);
  EXPECT_EQ(r->total_len, 0x73);
  EXPECT_EQ(r->id, 0x1234);
  EXPECT_TRUE(r->df());
  EXPECT_EQ(r->frag_offset, 0);
  EXPECT_EQ(r->ttl, 17);
  EXPECT_EQ(r->protocol, 17);
  EXPECT_EQ(r->src, (Ipv4Address{10, 0, 0, 1}));
  std::vector<uint8_t> out(20);
  WriteIpv4(*r, out);
  EXPECT_EQ(out, with_sum);
}

TEST(Ipv4Test, Rejections) {
  auto h = Hex("45 00 00 1c 00 00 40 00 40 11 00 00 0a 00 00 01 0a 00 00 02");
  auto bad = ParseIpv4(h);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "ip4.checksum");
  EXPECT_EQ(bad.error().offset, 10u);
  EXPECT_TRUE(ParseIpv4(h, 0, /*verify_checksum=*/false));
  h[0] = 0x46;
  EXPECT_EQ(ParseIpv4(h).error().code, "ip4.ihl");
  h[0] = 0x65;
  EXPECT_EQ(ParseIpv4(h).error().code, "ip4.version");
  for (size_t len = 0; len < 20; ++len) {
    auto h5 = Hex("45 00 00 1c 00 00 40 00 40 11 00 00 0a 00 00 01 0a 00 00 02");
    auto r = ParseIpv4(std::span(h5).first(len), 14, false);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code.rfind("ip4.", 0), 0u) << r.error().code;
  }
}

TEST(Ipv6Test, KnownAnswer) {
  // Traffic class 0x6a (DSCP 26, ECT(0)), flow label 0x12345, payload 8, UDP, hop limit 64.
  const auto h = Hex("66 a1 23 45 00 08 11 40"
                     "fd 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01"
                     "fd 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02");
  auto r = ParseIpv6(h);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->dscp, 26);
  EXPECT_EQ(r->ecn, kEcnEct0);
  EXPECT_EQ(r->traffic_class(), 0x6a);
  EXPECT_EQ(r->flow_label, 0x12345u);
  EXPECT_EQ(r->payload_len, 8);
  EXPECT_EQ(r->hop_limit, 64);
  EXPECT_EQ(r->dst[15], 2);
  std::vector<uint8_t> out(40);
  WriteIpv6(*r, out);
  EXPECT_EQ(out, h);
  auto v4 = h;
  v4[0] = 0x46;
  EXPECT_EQ(ParseIpv6(v4).error().code, "ip6.version");
}

TEST(UdpTest, KnownAnswerAndChecksums) {
  const auto u = Hex("c0 00 12 bd 00 0c 00 00 01 02 03 04");
  auto r = ParseUdp(u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sport, 49152);
  EXPECT_EQ(r->dport, kMetaUdpPort);
  EXPECT_EQ(r->length, 12);
  // Verify the checksum property: summing with the checksum inserted yields 0xffff.
  const Ipv6Address a{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const Ipv6Address b{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  auto seg = u;
  const uint16_t c6 = UdpChecksumIpv6(a, b, seg);
  seg[6] = static_cast<uint8_t>(c6 >> 8);
  seg[7] = static_cast<uint8_t>(c6);
  EXPECT_EQ(UdpChecksumIpv6(a, b, seg), c6);  // its own field is ignored
  // Independent computation.
  uint32_t sum = 0xfd00 + 1 + 0xfd00 + 2 + 12 + 17;
  for (size_t i = 0; i < seg.size(); i += 2) sum += static_cast<uint32_t>(seg[i] << 8 | seg[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  EXPECT_EQ(sum, 0xffffu);
  EXPECT_EQ(ParseUdp(std::span(u).first(5)).error().code, "udp.length");
}

}  // namespace
}  // namespace mroce::wire
