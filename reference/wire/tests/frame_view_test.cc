// FrameView: offsets, 5-tuple, ECN marking, source-port and address rewrites keep checksums valid.
#include "mroce/wire/frame_view.h"

#include <gtest/gtest.h>

#include "mroce/wire/byte_order.h"
#include "mroce/wire/wire.h"
#include "test_util.h"

namespace mroce::wire {
namespace {

TEST(FrameViewTest, MatchesParsedFrame) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  for (int n = 0; n < 5000; ++n) {
    const Frame f = gen.AnyFrame();
    auto bytes = SerializeFrame(f);
    auto v = FrameView::Locate(std::span<uint8_t>(bytes));
    ASSERT_TRUE(v) << "seed " << seed << " n " << n << ": " << v.error().ToString();
    EXPECT_EQ(v->ip_version(), f.is_ipv4() ? 4 : 6);
    EXPECT_EQ(v->l3_offset(), f.eth.size());
    EXPECT_EQ(v->ecn(), f.ecn());
    EXPECT_EQ(v->sport(), f.udp.sport);
    EXPECT_EQ(v->dport(), f.udp.dport);
    EXPECT_EQ(v->ip_end(), bytes.size() - f.padding.size());
    if (const Ipv4Header* ip = f.ip4()) {
      EXPECT_TRUE(std::equal(ip->src.begin(), ip->src.end(), v->src_addr().begin()));
      EXPECT_TRUE(std::equal(ip->dst.begin(), ip->dst.end(), v->dst_addr().begin()));
      EXPECT_EQ(v->dscp(), ip->dscp);
      EXPECT_EQ(v->ttl(), ip->ttl);
    } else {
      EXPECT_EQ(v->src_addr().size(), 16u);
      EXPECT_TRUE(std::equal(f.ip6()->dst.begin(), f.ip6()->dst.end(), v->dst_addr().begin()));
      EXPECT_EQ(v->dscp(), f.ip6()->dscp);
    }
    if (const MetaPacket* m = f.meta()) {
      ASSERT_TRUE(v->is_meta());
      EXPECT_EQ(v->meta_opcode(), static_cast<uint8_t>(m->ch.opcode));
      EXPECT_EQ(v->meta_version(), m->ch.ver);
      EXPECT_EQ(v->meta_flags(), m->ch.flags);
      EXPECT_EQ(v->meta_path_id(), m->ch.path_id);
      EXPECT_EQ(v->meta_path_epoch(), m->ch.path_epoch);
      EXPECT_EQ(v->meta_psn(), m->ch.psn);
      EXPECT_EQ(v->meta_dst_conn_id(), m->ch.dst_conn_id);
    } else {
      EXPECT_FALSE(v->is_meta());
    }
    // ECN marking and entropy re-roll keep the frame valid (IP checksum, UDP checksum, CRC, ICRC).
    const uint8_t ecn = static_cast<uint8_t>(gen.Bits(2));
    v->set_ecn(ecn);
    EXPECT_EQ(v->ecn(), ecn);
    // The ICRC covers the UDP ports: only MetaRoCE and raw UDP frames get their entropy re-rolled.
    const uint16_t sport = f.roce() ? f.udp.sport : static_cast<uint16_t>(gen.Bits(16));
    if (f.roce() == nullptr) v->set_sport(sport);
    auto r = ParseFrame(bytes, ParseOptions{.verify_udp_checksum = true});
    ASSERT_TRUE(r) << "seed " << seed << " n " << n << ": " << r.error().ToString();
    EXPECT_EQ(r->ecn(), ecn);
    EXPECT_EQ(r->udp.sport, sport);
    if (const Ipv4Header* ip = r->ip4()) {
      EXPECT_EQ(ip->checksum, Ipv4HeaderChecksum(std::span(bytes).subspan(v->l3_offset(), 20)));
    }
  }
}

TEST(FrameViewTest, NewIpv4AddressesKeepValidChecksumsValid) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  int done = 0;
  for (int n = 0; n < 5000; ++n) {
    const Frame f = gen.AnyFrame();
    if (!f.is_ipv4() || f.roce() != nullptr) continue;  // a RoCEv2 ICRC covers the addresses
    auto bytes = SerializeFrame(f);
    auto v = FrameView::Locate(std::span<uint8_t>(bytes));
    ASSERT_TRUE(v);
    Ipv4Address src{}, dst{};
    for (auto& b : src) b = static_cast<uint8_t>(gen.Bits(8));
    for (auto& b : dst) b = static_cast<uint8_t>(gen.Bits(8));
    const uint16_t udp_before = internal::Load16(bytes.data() + v->udp_offset() + 6);
    v->set_ipv4_addrs(src, dst);
    auto r = ParseFrame(bytes, ParseOptions{.verify_udp_checksum = true});
    ASSERT_TRUE(r) << "seed " << seed << " n " << n << ": " << r.error().ToString();
    EXPECT_EQ(r->ip4()->src, src);
    EXPECT_EQ(r->ip4()->dst, dst);
    EXPECT_EQ(r->ip4()->checksum, Ipv4HeaderChecksum(std::span(bytes).subspan(v->l3_offset(), 20)));
    if (udp_before == 0) {
      EXPECT_EQ(internal::Load16(bytes.data() + v->udp_offset() + 6), 0) << "none stays none";
    }
    ++done;
  }
  EXPECT_GT(done, 500);
}

TEST(FrameViewTest, NewIpv4AddressesKeepAWrongChecksumWrongByTheSameAmount) {
  // What framing.udp.bad-checksum-dropped injects (UDP checksum 4660), behind a VLAN tag, with a
  // wrong IPv4 header checksum too: the dpdk adapter's readdressing must not repair either.
  const Ipv4Address a{10, 0, 0, 2}, b{10, 0, 0, 1}, wa{198, 18, 1, 2}, wb{198, 18, 1, 1};
  const std::vector<uint8_t> payload = {0x11, 0x18, 0x1f, 0x26, 1, 2, 3};
  std::vector<uint8_t> f(18 + 20 + 8 + payload.size(), 0);
  f[12] = 0x81, f[14] = 0x00, f[15] = 0x05, f[16] = 0x08;  // 802.1Q VLAN 5, IPv4
  uint8_t* ip = f.data() + 18;
  ip[0] = 0x45, ip[3] = static_cast<uint8_t>(20 + 8 + payload.size()), ip[8] = 64, ip[9] = 17;
  std::copy(a.begin(), a.end(), ip + 12);
  std::copy(b.begin(), b.end(), ip + 16);
  internal::Store16(ip + 10, Ipv4HeaderChecksum(std::span<const uint8_t>(ip, 20)) ^ 0x0100);
  uint8_t* udp = ip + 20;
  internal::Store16(udp, 49153), internal::Store16(udp + 2, 4797), internal::Store16(udp + 4, static_cast<uint16_t>(8 + payload.size()));
  std::copy(payload.begin(), payload.end(), udp + 8);
  const auto segment = std::span<const uint8_t>(udp, 8 + payload.size());
  const uint16_t good_before = UdpChecksumIpv4(a, b, segment);
  internal::Store16(udp + 6, 4660);
  auto v = FrameView::Locate(std::span<uint8_t>(f));
  ASSERT_TRUE(v);
  v->set_ipv4_addrs(wa, wb);
  auto header_verifies = [&] {
    std::vector<uint8_t> h(ip, ip + 20);
    h[10] = h[11] = 0;
    return Ipv4HeaderChecksum(h) == internal::Load16(ip + 10);
  };
  EXPECT_FALSE(header_verifies()) << "a wrong header checksum is not repaired";
  const uint16_t good_after = UdpChecksumIpv4(wa, wb, segment);
  EXPECT_NE(internal::Load16(udp + 6), good_after);
  auto distance = [](uint16_t x, uint16_t y) {  // one's-complement x - y
    uint32_t sum = x + static_cast<uint16_t>(~y);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    return static_cast<uint16_t>(sum);
  };
  EXPECT_EQ(distance(internal::Load16(udp + 6), good_after), distance(4660, good_before));
}

TEST(FrameViewTest, MarkCeOnlyWhenEcnCapable) {
  Frame f;
  f.ip = Ipv4Header{};
  f.l4 = MetaPacket{};
  auto bytes = SerializeFrame(f);
  auto v = FrameView::Locate(std::span<uint8_t>(bytes)).value();
  EXPECT_EQ(v.ecn(), kEcnEct0);
  EXPECT_TRUE(v.MarkCe());
  EXPECT_EQ(v.ecn(), kEcnCe);
  EXPECT_TRUE(ParseFrame(bytes));
  v.set_ecn(kEcnNotEct);
  EXPECT_FALSE(v.MarkCe());
  EXPECT_EQ(v.ecn(), kEcnNotEct);
  EXPECT_TRUE(ParseFrame(bytes));
}

TEST(FrameViewTest, ReadOnlyAndErrors) {
  Frame f;
  f.ip = Ipv6Header{};
  f.l4 = MetaPacket{};
  const auto bytes = SerializeFrame(f);
  auto v = FrameView::Locate(std::span<const uint8_t>(bytes));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->ip_version(), 6);
  EXPECT_EQ(v->udp_payload().size(), 16u + 40 + 4);
  for (size_t len = 0; len < 14 + 40 + 8; ++len) {
    auto r = FrameView::Locate(std::span(bytes).first(len));
    ASSERT_FALSE(r) << len;
    EXPECT_FALSE(r.error().code.empty());
  }
}

// TryLocate (the allocation-free path the DPDK bridge uses) accepts exactly what Locate accepts and
// finds the same offsets; each rejection Locate gives still names the field and the figures.
TEST(FrameViewTest, TryLocateAgreesWithLocate) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  int rejected = 0;
  for (int n = 0; n < 3000; ++n) {
    auto bytes = SerializeFrame(gen.AnyFrame());
    // Every third frame: one random byte of the first 60 changed, or the frame cut short.
    if (n % 3 == 1) bytes[gen.Bits(16) % std::min<size_t>(60, bytes.size())] = static_cast<uint8_t>(gen.Bits(8));
    if (n % 3 == 2) bytes.resize(gen.Bits(16) % bytes.size());
    auto full = FrameView::Locate(std::span<const uint8_t>(bytes));
    FrameView fast;
    const bool ok = FrameView::TryLocate(bytes, &fast);
    ASSERT_EQ(ok, full.ok()) << "seed " << seed << " n " << n << (full ? "" : ": " + full.error().ToString());
    if (!ok) {
      ++rejected;
      EXPECT_FALSE(full.error().code.empty());
      EXPECT_FALSE(full.error().message.empty());
      continue;
    }
    EXPECT_EQ(fast.ip_version(), full->ip_version());
    EXPECT_EQ(fast.l3_offset(), full->l3_offset());
    EXPECT_EQ(fast.udp_offset(), full->udp_offset());
    EXPECT_EQ(fast.ip_end(), full->ip_end());
  }
  EXPECT_GT(rejected, 500);  // The damaged frames did exercise the rejections.
}

TEST(FrameViewTest, LocateErrorMessages) {
  Frame f;
  f.ip = Ipv4Header{};
  f.l4 = MetaPacket{};
  auto bytes = SerializeFrame(f);
  bytes[14] = 0x46;  // IHL 6.
  auto r = FrameView::Locate(std::span<const uint8_t>(bytes));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().ToString(), "ip4.ihl @14: version/IHL byte 0x46, expected 0x45");
  bytes[14] = 0x45;
  bytes[23] = 6;  // TCP.
  r = FrameView::Locate(std::span<const uint8_t>(bytes));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().ToString(), "ip4.protocol @23: IP protocol 6 is not UDP");
  bytes[12] = 0x88;
  bytes[13] = 0x47;
  r = FrameView::Locate(std::span<const uint8_t>(bytes));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().ToString(), "eth.type @12: EtherType 0x8847 is neither IPv4 nor IPv6");
  bytes[12] = 0x08;
  bytes[13] = 0x00;
  r = FrameView::Locate(std::span<const uint8_t>(bytes).first(30));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().ToString(), "ip4.version @14: IPv4 header overflows packet: need 20 bytes at offset 14, have 16");
}

}  // namespace
}  // namespace mroce::wire
