// ClassifyWireFrame: what the dpdk adapter makes of the raw frames a DUT's port sends. (Its frames
// to the DUT are readdressed by FrameView::set_ipv4_addrs, tested in reference/wire.)
#include "mroce/dut/udp_io.h"

#include <gtest/gtest.h>

#include <cstring>

#include "mroce/wire/byte_order.h"

namespace mroce::dut {
namespace {

const wire::Ipv4Address kWireSrc{198, 18, 1, 2}, kWireDst{198, 18, 1, 1};
const std::vector<uint8_t> kPayload = {0x11, 0x18, 0x1f, 0x26, 0x01, 0x02, 0x03};

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
  wire::internal::Store16(long_udp.data() + 38, static_cast<uint16_t>(f.size()));  // a UDP length beyond the frame
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
