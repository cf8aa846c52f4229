// ClassifyWireFrame: what the dpdk adapter makes of the raw frames a DUT's port sends. (Its frames
// to the DUT are readdressed by FrameView::set_ipv4_addrs, tested in reference/wire.)
#include "mroce/dut/udp_io.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

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


// Datagram::waited_ns: how long a datagram sat in the socket before it was read (a starved reader),
// from the kernel's arrival stamp: a prompt read waits little, one 30 ms late at least that long.
TEST(UdpIo, ADatagramReadLateSaysHowLongItWaited) {
  const wire::Ipv4Address lo{127, 0, 0, 1};
  const uint16_t port = static_cast<uint16_t>(40000 + ::getpid() % 10000 * 2);  // parallel ctest runs differ
  auto rx = UdpIo::Open(lo, port);
  ASSERT_TRUE(rx.ok()) << rx.error().message;
  auto tx = UdpIo::Open(lo, static_cast<uint16_t>(port + 1));
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  auto send = [&] {
    const std::vector<uint8_t> f =
        FrameFor({2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2}, lo, lo, static_cast<uint16_t>(port + 1), port, 0, kPayload);
    ASSERT_TRUE(tx.value()->SendFrame(f, lo).ok());
  };
  auto read_one = [&](int64_t* waited) {
    size_t got = 0;
    for (int i = 0; i < 1000 && got == 0; ++i) {
      got = rx.value()->Receive([&](const Datagram& d) { *waited = d.waited_ns; });
      if (got == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return got;
  };
  // The datagram is in the socket once poll says so (a loaded host may deliver a loopback datagram
  // late): its arrival stamp is then no later than now.
  auto arrived = [&] {
    pollfd p{rx.value()->fd(), POLLIN, 0};
    return ::poll(&p, 1, 5000) == 1 && (p.revents & POLLIN) != 0;
  };
  send();
  ASSERT_TRUE(arrived());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  int64_t late = -1;
  ASSERT_EQ(read_one(&late), 1u);
  EXPECT_GE(late, 29'000'000) << "read 30 ms after it arrived";
  EXPECT_LT(late, 10'000'000'000) << "not an absolute timestamp";
  EXPECT_EQ(rx.value()->longest_wait_ns(), late);
  send();
  ASSERT_TRUE(arrived());
  int64_t prompt = -1;
  ASSERT_EQ(read_one(&prompt), 1u);
  EXPECT_GE(prompt, 0);
  // Read at once, but a loaded host may deschedule this thread for longer than 30 ms: the longest
  // wait is the larger of the two.
  EXPECT_EQ(rx.value()->longest_wait_ns(), std::max(late, prompt)) << "the longest wait stays";
}

}  // namespace
}  // namespace mroce::dut
