#include "mroce/endpoint/congestion_controller.h"
#include "mroce/endpoint/rate_hint_allocator.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

CongestionConfig Cfg() {
  CongestionConfig c;
  c.mtu = 1000;
  c.full_packet_ip_bytes = 1000;
  return c;
}

TEST(CongestionController, InitialWindowIsFourMtu) {
  CongestionController cc(Cfg(), 2);
  EXPECT_EQ(cc.cwnd_bytes(0), 4000u);  // MROCE-CC-002
}

TEST(CongestionController, AdditiveIncreaseFloorMtuTimesBytesOverCwnd) {
  CongestionController cc(Cfg(), 2);
  cc.OnAck(0, 4000, false, 1000, 0);  // a whole window acked: + 1 MTU
  EXPECT_EQ(cc.cwnd_bytes(0), 5000u);
  cc.OnAck(0, 4, false, 1000, 0);  // floor(1000 * 4 / 5000) = 0 (MROCE-CC-004)
  EXPECT_EQ(cc.cwnd_bytes(0), 5000u);
  EXPECT_EQ(cc.cwnd_bytes(1), 4000u);  // per path
}

TEST(CongestionController, HalvesOnCongestionAtMostOncePerSrtt) {
  CongestionController cc(Cfg(), 1);
  for (int i = 0; i < 4; ++i) cc.OnAck(0, 100000, false, 1, 0);
  const uint64_t w = cc.cwnd_bytes(0);
  EXPECT_TRUE(cc.OnAck(0, 1000, true, 10000, 100000));
  EXPECT_EQ(cc.cwnd_bytes(0), w / 2);
  EXPECT_FALSE(cc.OnAck(0, 1000, true, 10000, 105000));  // same SRTT
  EXPECT_FALSE(cc.OnLoss(0, 10000, 105000));
  EXPECT_EQ(cc.cwnd_bytes(0), w / 2);
  EXPECT_TRUE(cc.OnLoss(0, 10000, 110000));  // next SRTT: a loss halves too
  EXPECT_EQ(cc.cwnd_bytes(0), w / 4);
}

TEST(CongestionController, RtoSetsOneMtu) {
  CongestionController cc(Cfg(), 1);
  EXPECT_TRUE(cc.OnRto(0, 5));
  EXPECT_EQ(cc.cwnd_bytes(0), 1000u);  // MROCE-CC-006
  EXPECT_FALSE(cc.OnRto(0, 6));
}

TEST(CongestionController, IgnoreEcnQuirk) {
  CongestionConfig c = Cfg();
  c.ignore_ecn = true;
  CongestionController cc(c, 1);
  cc.OnAck(0, 1000, true, 10000, 100000);
  EXPECT_GE(cc.cwnd_bytes(0), 4000u);
}

TEST(CongestionController, WindowNeverBelowOneMtuNorAbove256) {
  CongestionController cc(Cfg(), 1);
  for (int i = 0; i < 20; ++i) cc.OnAck(0, 1000, true, 1, i * 10);
  EXPECT_EQ(cc.cwnd_bytes(0), 1000u);
  for (int i = 0; i < 100000; ++i) cc.OnAck(0, 100000, false, 1, 0);
  EXPECT_EQ(cc.cwnd_bytes(0), 256000u);
}

TEST(CongestionController, WindowAllowsPerCc003) {
  CongestionController cc(Cfg(), 1);
  EXPECT_TRUE(cc.WindowAllows(0, 0, 9000));     // nothing in flight
  EXPECT_TRUE(cc.WindowAllows(0, 3000, 1000));  // exactly cwnd
  EXPECT_FALSE(cc.WindowAllows(0, 3001, 1000));
}

TEST(CongestionController, PacerSpacesPacketsAtTheHint) {
  CongestionController cc(Cfg(), 1);
  cc.OnRateHint(8000, 0);  // 8 Gb/s: 1000 bytes = 1 us
  EXPECT_TRUE(cc.PacerAllows(0));
  cc.OnPacketSent(1000, 0);  // the bucket (one full packet) empties
  EXPECT_TRUE(cc.PacerAllows(0));
  cc.OnPacketSent(1000, 0);  // one packet of debt: now paced
  EXPECT_EQ(cc.NextSendTime(0), 1000);
  EXPECT_FALSE(cc.PacerAllows(999));
  EXPECT_TRUE(cc.PacerAllows(1000));
  cc.OnPacketSent(1000, 1000);
  EXPECT_EQ(cc.NextSendTime(1000), 2000);
  // Long idle: the bucket holds one full packet only.
  cc.OnPacketSent(1000, 1000000);
  cc.OnPacketSent(1000, 1000000);
  EXPECT_EQ(cc.NextSendTime(1000000), 1001000);
}

// The burst_to_b variant: a bucket of B - one packet, so a burst after idle is at most 10.4's
// B = max(16384, 2 full packets) bytes, then the hint's rate.
TEST(CongestionController, BucketDepthBoundsTheBurstByB) {
  CongestionConfig c = Cfg();
  c.bucket_bytes = 16384 - 1000;
  CongestionController cc(c, 1);
  cc.OnRateHint(8000, 0);  // 8 Gb/s: 1000 bytes = 1 us
  int burst = 0;
  for (; cc.PacerAllows(0) && burst < 100; ++burst) cc.OnPacketSent(1000, 0);
  EXPECT_EQ(burst, 16);  // 16 x 1000 <= 16384 < 17 x 1000
  EXPECT_EQ(cc.NextSendTime(0), 1000 - 384);  // the 384 bytes of debt beyond an empty bucket: 0.384 us
  // After a long idle the bucket is full again: at most B bytes at once.
  burst = 0;
  for (; cc.PacerAllows(1000000) && burst < 100; ++burst) cc.OnPacketSent(1000, 1000000);
  EXPECT_EQ(burst, 16);
}

TEST(CongestionController, HigherHintAppliesOneMicrosecondLater) {
  CongestionController cc(Cfg(), 1);
  cc.OnRateHint(1000, 0);
  EXPECT_EQ(cc.pacing_rate_mbps(0), 1000u);
  cc.OnRateHint(4000, 10000);
  EXPECT_EQ(cc.pacing_rate_mbps(10500), 1000u);
  EXPECT_EQ(cc.pacing_rate_mbps(11000), 4000u);
  cc.OnRateHint(10, 20000);  // lower: at once
  EXPECT_EQ(cc.pacing_rate_mbps(20000), 10u);
  cc.OnRateHint(0, 30000);  // 0 is taken as 1 Mb/s
  EXPECT_EQ(cc.pacing_rate_mbps(30000), 1u);
}

TEST(CongestionController, PeerMaxRateCapsAndSeedsTheHint) {
  CongestionController cc(Cfg(), 1);
  cc.SetPeerMaxRate(2000);
  EXPECT_EQ(cc.latest_hint_mbps(), 2000u);
  cc.OnRateHint(50000, 0);
  EXPECT_EQ(cc.pacing_rate_mbps(5000), 2000u);
}

TEST(CongestionController, IgnoreRateHintQuirkUsesLinkRate) {
  CongestionConfig c = Cfg();
  c.ignore_rate_hint = true;
  CongestionController cc(c, 1);
  cc.OnRateHint(10, 0);
  EXPECT_EQ(cc.pacing_rate_mbps(0), 100000u);
}

TEST(RateHintAllocator, FairShareOfActiveSenders) {
  RateHintAllocator a(100000, 100000);
  a.OnData(1, 0);
  EXPECT_EQ(a.Hint(0), 95000u);
  a.OnData(2, 10);
  a.OnData(3, 20);
  a.OnData(4, 30);
  EXPECT_EQ(a.Hint(30), 23750u);
  // Senders 2..4 go quiet; 100 us after their last packet they stop counting (MROCE-HINT-002).
  a.OnData(1, 100020);
  EXPECT_EQ(a.Hint(100029), 47500u);  // 1 and 4 still count
  EXPECT_EQ(a.Hint(100030), 95000u);
  RateHintAllocator b(100000, 100000);
  for (ConnId c = 1; c <= 32; ++c) b.OnData(c, 0);
  EXPECT_EQ(b.Hint(0), 2968u);  // the example of section 10.3
}

TEST(RateHintAllocator, ExpiryIsScheduledAndReleasesTheRecords) {
  RateHintAllocator a(100000, 100000);
  EXPECT_EQ(a.NextExpiry(), kNever);
  EXPECT_EQ(a.StateBytes(), 0u);
  a.OnData(7, 50);
  a.OnData(3, 10);
  a.OnData(7, 60);  // a newer arrival moves connection 7's expiry, it does not add a record
  EXPECT_EQ(a.NextExpiry(), 100010);
  EXPECT_EQ(a.CountActive(100009), 2u);
  EXPECT_EQ(a.CountActive(100010), 1u);
  a.Expire(100010);
  EXPECT_EQ(a.NextExpiry(), 100060);
  a.Forget(7);
  EXPECT_EQ(a.NextExpiry(), kNever);
  EXPECT_EQ(a.StateBytes(), 0u);  // MROCE-LIM-007: an idle receiver holds no activity records
}

TEST(RateHintAllocator, ConstantQuirk) {
  RateHintAllocator a(100000, 100000, /*constant=*/true);
  for (ConnId c = 1; c < 5; ++c) a.OnData(c, 0);
  EXPECT_EQ(a.Hint(0), 95000u);
}

// MROCE-HINT-003 (variant max_min_hints): the busy sender gets what the light one leaves, the sum
// of the latest hints stays within max(floor(C x U), N), and when no room is left the equal share
// of HINT-001 is sent; idle connections are forgotten with their arrivals and hints.
TEST(RateHintAllocator, MaxMinWithinHint003) {
  RateHintAllocator a(100000, 100000, /*constant=*/false, 950, /*max_min=*/true);
  for (int i = 0; i < 100; ++i) a.OnData(1, 40000 + i * 100, 1000);  // 100 kB in 100 us: 8000 Mb/s
  a.OnData(2, 45000, 1000);                                           // 80 Mb/s
  EXPECT_EQ(a.ArrivalRateMbps(1, 50000), 8000u);
  EXPECT_EQ(a.ArrivalRateMbps(2, 50000), 80u);
  EXPECT_EQ(a.Hint(50000), 47500u);          // the equal share of 2
  EXPECT_EQ(a.HintFor(1, 50000), 94840u);    // 95000 less the light sender's demand (2 x 80)
  EXPECT_EQ(a.HintFor(2, 50000), 160u);      // 95000 - 94840: (a); at least min(47500, 80): (b)
  EXPECT_EQ(a.HintFor(1, 50000), 94840u);
  a.OnData(3, 50000, 1000);
  EXPECT_EQ(a.HintFor(3, 50000), 31666u);    // no room left under (a): the equal share of 3
  EXPECT_GT(a.StateBytes(), 0u);
  EXPECT_EQ(a.ActiveSenders(50000 + 100000), 0u);
  EXPECT_EQ(a.StateBytes(), 0u);             // arrivals and latest hints went with the connections
  RateHintAllocator plain(100000, 100000);
  plain.OnData(1, 0, 1000);
  plain.OnData(2, 0, 1000);
  EXPECT_EQ(plain.HintFor(1, 10), plain.Hint(10));
}

}  // namespace
}  // namespace mroce::ref
