#include "mroce/endpoint/sack_scoreboard.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

std::bitset<256> Bits(std::initializer_list<int> set) {
  std::bitset<256> b;
  for (int i : set) b.set(static_cast<size_t>(i));
  return b;
}

void SendN(SackScoreboard& sb, int n, TimeNs at = 0) {
  for (int i = 0; i < n; ++i) (void)sb.OnSent(at, PacketRef{0, 0, 0, 100});
}

TEST(SackScoreboard, CumulativeAckSlides) {
  SackScoreboard sb(0);
  SendN(sb, 4);
  AckOutcome out = sb.OnAck(4, {}, 3, false);
  EXPECT_EQ(out.newly_acked.size(), 4u);
  EXPECT_TRUE(out.newly_lost.empty());
  EXPECT_EQ(sb.snd_una(), 4u);
  EXPECT_EQ(sb.unacked_count(), 0u);
  EXPECT_EQ(out.rtt_sent_at, 0);  // trigger 3 acked for the first time, sent once
  EXPECT_EQ(out.acked_payload, 400u);
}

TEST(SackScoreboard, SpecExampleOfSection91) {
  // 9.1: sent 100..107, ACK epsn=102 with bits 0 (103) and 3 (106): H = 106, lost 102, 104, 105.
  SackScoreboard sb(100);
  SendN(sb, 8);
  (void)sb.OnAck(102, {}, 101, false);
  AckOutcome out = sb.OnAck(102, Bits({0, 3}), 106, false);
  EXPECT_EQ(out.newly_lost, (std::vector<Psn>{102, 104, 105}));
  EXPECT_EQ(sb.inflight_bytes(), 100u);  // 107: the only unacknowledged PSN not deemed lost
}

TEST(SackScoreboard, HoleBelowHighestSackIsLostExactlyOnce) {
  SackScoreboard sb(0);
  SendN(sb, 5);
  // epsn 1 (PSN 0 received), SACK PSN 3 (bit 1): PSN 1 and 2 are lost, 4 is not.
  AckOutcome out = sb.OnAck(1, Bits({1}), 3, false);
  EXPECT_EQ(out.newly_lost, (std::vector<Psn>{1, 2}));
  // The same ACK again declares nothing new (MROCE-DUP-002).
  out = sb.OnAck(1, Bits({1}), 3, false);
  EXPECT_TRUE(out.newly_lost.empty());
}

TEST(SackScoreboard, RetransmissionLostAgainOnlyWhenLaterPacketAcked) {
  SackScoreboard sb(0);
  SendN(sb, 3);
  AckOutcome out = sb.OnAck(0, Bits({0}), 1, false);  // PSN 1 acked: PSN 0 lost
  ASSERT_EQ(out.newly_lost, (std::vector<Psn>{0}));
  ASSERT_TRUE(sb.OnRetransmitted(0, 20));
  out = sb.OnAck(0, Bits({0, 1}), 2, false);  // PSN 2 acked but sent before the retransmission
  EXPECT_TRUE(out.newly_lost.empty());
  (void)sb.OnSent(40, PacketRef{});  // PSN 3, after the retransmission
  out = sb.OnAck(0, Bits({0, 1, 2}), 3, false);
  EXPECT_EQ(out.newly_lost, (std::vector<Psn>{0}));  // MROCE-LOSS-007
}

TEST(SackScoreboard, KarnSamplesOnlyUnambiguousTrigger) {
  SackScoreboard sb(0);
  SendN(sb, 1);
  (void)sb.OnRto();
  ASSERT_TRUE(sb.OnRetransmitted(0, 100));
  AckOutcome out = sb.OnAck(1, {}, 0, /*trtx=*/false);  // TRTX 0 but sent twice: no sample
  EXPECT_EQ(out.rtt_sent_at, kNever);
  SackScoreboard sb2(0);
  SendN(sb2, 1);
  (void)sb2.OnRto();
  ASSERT_TRUE(sb2.OnRetransmitted(0, 100));
  out = sb2.OnAck(1, {}, 0, /*trtx=*/true);  // TRTX 1 and sent exactly twice: sample
  EXPECT_EQ(out.rtt_sent_at, 100);
}

TEST(SackScoreboard, BadAckBeyondSndNxt) {
  SackScoreboard sb(0);
  SendN(sb, 2);
  EXPECT_FALSE(sb.OnAck(50, {}, 0, false).valid);     // epsn above snd_nxt
  EXPECT_FALSE(sb.OnAck(0, Bits({5}), 0, false).valid);  // SACK bit for PSN 6 >= snd_nxt
  EXPECT_EQ(sb.unacked_count(), 2u);
}

TEST(SackScoreboard, WindowIs256) {
  SackScoreboard sb(0xFFFFFF00u);
  SendN(sb, 256);
  EXPECT_FALSE(sb.HasRoom());
  (void)sb.OnAck(0xFFFFFF01u, {}, 0xFFFFFF00u, false);
  EXPECT_TRUE(sb.HasRoom());
}

TEST(SackScoreboard, RtoLosesAllUnackedButHeld) {
  SackScoreboard sb(0);
  SendN(sb, 4);
  (void)sb.OnAck(0, Bits({0}), 1, false);  // 0 lost now
  ASSERT_TRUE(sb.Hold(3, 1000));
  EXPECT_EQ(sb.OnRto(), (std::vector<Psn>{2}));  // 0 already pending, 3 held
  EXPECT_FALSE(sb.HasUnheldOutstanding() == false);
}

TEST(SackScoreboard, HeldPsnNotLostFromGapsAndReleased) {
  SackScoreboard sb(0);
  SendN(sb, 3);
  ASSERT_TRUE(sb.Hold(0, 500));
  AckOutcome out = sb.OnAck(0, Bits({1}), 2, false);  // PSN 2 acked, 0 held, 1 lost
  EXPECT_EQ(out.newly_lost, (std::vector<Psn>{1}));
  EXPECT_EQ(sb.NextHoldEnd(), 500);
  EXPECT_TRUE(sb.ReleaseHolds(499).empty());
  EXPECT_EQ(sb.ReleaseHolds(500), (std::vector<Psn>{0}));
}

TEST(SackScoreboard, ReorderIsLossHelperUsesSendTime) {
  SackScoreboard sb(0);
  (void)sb.OnSent(5, PacketRef{});
  (void)sb.OnSent(9, PacketRef{});
  EXPECT_EQ(sb.LoseSentBefore(7), (std::vector<Psn>{0}));
}

}  // namespace
}  // namespace mroce::ref
