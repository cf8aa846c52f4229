// Readdress and ClassifyWireFrame: the process and dpdk adapters move a fabric frame to on-wire
// addresses without repairing (or breaking) its checksums, and classify what a DUT's port sends.
#include "mroce/dut/udp_io.h"

#include <gtest/gtest.h>

#include <cstring>

#include "mroce/wire/ip.h"
#include "mroce/wire/udp.h"

namespace mroce::dut {
namespace {

const wire::Ipv4Address kFabricSrc{10, 0, 0, 2}, kFabricDst{10, 0, 0, 1};
const wire::Ipv4Address kWireSrc{198, 18, 1, 2}, kWireDst{198, 18, 1, 1};
const std::vector<uint8_t> kPayload = {0x11, 0x18, 0x1f, 0x26, 0x01, 0x02, 0x03};

uint16_t Get16(const std::vector<uint8_t>& f, size_t at) { return static_cast<uint16_t>(f[at] << 8 | f[at + 1]); }
void Put16(std::vector<uint8_t>& f, size_t at, uint16_t v) {
  f[at] = static_cast<uint8_t>(v >> 8);
  f[at + 1] = static_cast<uint8_t>(v);
}
uint16_t UdpSum(const std::vector<uint8_t>& f, size_t udp, const wire::Ipv4Address& s, const wire::Ipv4Address& d) {
  return wire::UdpChecksumIpv4(s, d, std::span<const uint8_t>(f).subspan(udp, 8 + kPayload.size()));
}
bool IpHeaderVerifies(const std::vector<uint8_t>& f, size_t l3) {
  std::vector<uint8_t> h(f.begin() + static_cast<long>(l3), f.begin() + static_cast<long>(l3) + 20);
  const uint16_t stored = Get16(h, 10);
  h[10] = h[11] = 0;
  return wire::Ipv4HeaderChecksum(h) == stored;
}

TEST(Readdress, ChecksumsThatVerifiedStillDoAndAZeroUdpChecksumStaysZero) {
  std::vector<uint8_t> f = FrameFor({2, 0, 0, 0, 0, 2}, {2, 0, 0, 0, 0, 1}, kFabricSrc, kFabricDst, 49152, 4797, 0x02, kPayload);
  Readdress(f, 14, 34, kWireSrc, kWireDst);
  EXPECT_TRUE(std::equal(kWireSrc.begin(), kWireSrc.end(), f.begin() + 26));
  EXPECT_TRUE(std::equal(kWireDst.begin(), kWireDst.end(), f.begin() + 30));
  EXPECT_TRUE(IpHeaderVerifies(f, 14));
  EXPECT_EQ(Get16(f, 40), 0) << "no UDP checksum stays none";

  std::vector<uint8_t> g = FrameFor({2, 0, 0, 0, 0, 2}, {2, 0, 0, 0, 0, 1}, kFabricSrc, kFabricDst, 49152, 4797, 0x02, kPayload);
  Put16(g, 40, UdpSum(g, 34, kFabricSrc, kFabricDst));
  Readdress(g, 14, 34, kWireSrc, kWireDst);
  EXPECT_EQ(Get16(g, 40), UdpSum(g, 34, kWireSrc, kWireDst));
  EXPECT_TRUE(IpHeaderVerifies(g, 14));
}

TEST(Readdress, ABadChecksumStaysBadByTheSameAmountBehindAVlanTag) {
  std::vector<uint8_t> f = FrameFor({2, 0, 0, 0, 0, 2}, {2, 0, 0, 0, 0, 1}, kFabricSrc, kFabricDst, 49153, 4797, 0, kPayload);
  const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};
  f.insert(f.begin() + 12, tag, tag + 4);  // IPv4 at 18, UDP at 38
  const uint16_t good_before = UdpSum(f, 38, kFabricSrc, kFabricDst);
  Put16(f, 44, 4660);  // what framing.udp.bad-checksum-dropped injects
  Put16(f, 28, static_cast<uint16_t>(Get16(f, 28) ^ 0x0100));  // and a wrong IPv4 header checksum
  ASSERT_FALSE(IpHeaderVerifies(f, 18));
  Readdress(f, 18, 38, kWireSrc, kWireDst);
  EXPECT_FALSE(IpHeaderVerifies(f, 18)) << "a wrong header checksum is not repaired";
  const uint16_t good_after = UdpSum(f, 38, kWireSrc, kWireDst);
  EXPECT_NE(Get16(f, 44), good_after);
  // One's-complement distance from the right checksum, before and after: unchanged.
  auto distance = [](uint16_t a, uint16_t b) {
    uint32_t s = a + static_cast<uint16_t>(~b);
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return static_cast<uint16_t>(s);
  };
  EXPECT_EQ(distance(Get16(f, 44), good_after), distance(4660, good_before));
}

TEST(Readdress, AFrameTooShortForItsOffsetsIsLeftAlone) {
  std::vector<uint8_t> f(40, 0xab);
  const std::vector<uint8_t> before = f;
  Readdress(f, 14, 34, kWireSrc, kWireDst);
  EXPECT_EQ(f, before);
}

TEST(ClassifyWireFrame, AUdpDatagramUntaggedOrWithOneTagAndNothingElse) {
  const std::vector<uint8_t> f = FrameFor({2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2}, kWireDst, kWireSrc, 50000, 4797, 0x02, kPayload);
  WireFrame w = ClassifyWireFrame(f);
  ASSERT_EQ(w.kind, WireFrame::Kind::kUdp);
  EXPECT_EQ(w.src, kWireDst);
  EXPECT_EQ(w.dst, kWireSrc);
  EXPECT_EQ(w.sport, 50000);
  EXPECT_EQ(w.dport, 4797);
  EXPECT_EQ(w.tos, 0x02);
  EXPECT_EQ((wire::MacAddress{2, 0, 0, 0, 0, 1}), w.src_mac);
  EXPECT_EQ(std::vector<uint8_t>(w.payload.begin(), w.payload.end()), kPayload) << "the UDP length, not the padding";

  std::vector<uint8_t> tagged = f;
  const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};
  tagged.insert(tagged.begin() + 12, tag, tag + 4);
  w = ClassifyWireFrame(tagged);
  ASSERT_EQ(w.kind, WireFrame::Kind::kUdp);
  EXPECT_EQ(std::vector<uint8_t>(w.payload.begin(), w.payload.end()), kPayload);

  std::vector<uint8_t> two_tags = tagged;
  two_tags.insert(two_tags.begin() + 12, tag, tag + 4);
  EXPECT_EQ(ClassifyWireFrame(two_tags).kind, WireFrame::Kind::kOther);

  std::vector<uint8_t> fragment = f;
  fragment[14 + 6] |= 0x20;  // MF
  EXPECT_EQ(ClassifyWireFrame(fragment).kind, WireFrame::Kind::kOther);
  std::vector<uint8_t> long_udp = f;
  Put16(long_udp, 38, static_cast<uint16_t>(f.size()));  // a UDP length beyond the frame
  EXPECT_EQ(ClassifyWireFrame(long_udp).kind, WireFrame::Kind::kOther);
  for (size_t n = 0; n < 42; ++n) {  // every truncation of a frame too short for its headers
    EXPECT_EQ(ClassifyWireFrame(std::span<const uint8_t>(f.data(), n)).kind, WireFrame::Kind::kOther) << n;
  }
}

TEST(ClassifyWireFrame, AnArpPacket) {
  std::vector<uint8_t> a(60, 0);
  std::memset(a.data(), 0xff, 6);
  const wire::MacAddress sha{2, 0xd0, 0, 0, 0, 1};
  std::memcpy(&a[6], sha.data(), 6);
  a[12] = 0x08, a[13] = 0x06, a[15] = 1, a[16] = 0x08, a[18] = 6, a[19] = 4, a[21] = 1;
  std::memcpy(&a[22], sha.data(), 6);
  std::memcpy(&a[28], kWireDst.data(), 4);
  std::memcpy(&a[38], kWireSrc.data(), 4);
  const WireFrame w = ClassifyWireFrame(a);
  ASSERT_EQ(w.kind, WireFrame::Kind::kArp);
  EXPECT_EQ(w.arp_op, 1);
  EXPECT_EQ(w.arp_sha, sha);
  EXPECT_EQ(w.arp_spa, kWireDst);
  EXPECT_EQ(w.arp_tpa, kWireSrc);
  EXPECT_EQ(ClassifyWireFrame(std::span<const uint8_t>(a.data(), 41)).kind, WireFrame::Kind::kOther);
}

}  // namespace
}  // namespace mroce::dut
