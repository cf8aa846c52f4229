// Receiver (receiver.cc) through the narrowest public seam: an Endpoint whose peer the test plays
// by hand (scripted_peer.h). The test sends data packets, PROBEs and receives as it likes; the
// ACKs, NACKs and PROBE_ACKs the receiver sends, what it places and completes, and exactly which
// chapter 17 counters move are checked against the clause named in each test.
#include <gtest/gtest.h>

#include "scripted_peer.h"

namespace mroce::ref {
namespace {

using namespace testing_peer;  // NOLINT
using wire::Opcode;
using Strings = std::vector<std::string>;

constexpr TimeNs kUs = kMicrosecond;

class ReceiverTest : public ::testing::Test {
 protected:
  void Start(uint8_t paths = 1, const char* quirks = "") {
    EndpointConfig cfg = OnePathConfig();
    cfg.quirks = Quirks::Parse(quirks).value();
    cfg.num_paths = paths;
    cfg.num_planes = paths;
    peer_.emplace(cfg);
    peer_->Establish();
  }
  ScriptedPeer& peer() { return *peer_; }
  void Deliver(const DataArgs& d) { peer().Deliver(peer().Data(d)); }
  // What the receiver sent since the last look (replies to a delivery come at once, same time).
  std::vector<Emitted> Replies() { return peer().Take(); }
  std::vector<Completion> Completions() { return peer().ep().PollCompletions(); }
  void PostRecv(uint16_t stream, uint32_t len, uint64_t wr_id) {
    recv_.resize(8192);
    ASSERT_TRUE(peer().ep().PostRecv(peer().conn(), stream, recv_.data(), len, wr_id).ok());
  }
  // A SEND segment from the peer: stream 0, msn, recv_seq 0, `seg` bytes at `offset` of `len`.
  DataArgs Send(Psn psn, Msn msn, uint32_t offset, uint32_t seg, uint32_t len, uint8_t fill) {
    DataArgs d;
    d.op = Opcode::kSend;
    d.psn = psn;
    d.msn = msn;
    d.offset = offset;
    d.msg_len = len;
    d.payload.assign(seg, fill);
    return d;
  }

  std::optional<ScriptedPeer> peer_;
  std::vector<uint8_t> recv_;
};

const wire::AckHeader& AckOf(const Emitted& e) { return *e.meta().ack(); }

// SACK bit i set <=> PSN epsn + 1 + i recorded: the list of set bits.
std::vector<int> SackBits(const wire::AckHeader& a) {
  std::vector<int> bits;
  for (int i = 0; i < 256; ++i) {
    if (a.SackBit(i)) bits.push_back(i);
  }
  return bits;
}

// --- ACK contents -------------------------------------------------------------------------------

// The figure of section 8.2: epsn 1000, 998 999 1001 1002 1005 recorded -> SACK bits 0 1 4, ACKH
// byte 16 = 0xC8 (MROCE-ACK-002, MROCE-ACK-003). A PROBE of the next epoch sets epsn to its PSN
// (MROCE-PATH-019); every packet that arrives off epsn is acknowledged at once (MROCE-ACK-007).
TEST_F(ReceiverTest, SackMapOfTheSection82Figure) {
  Start();
  peer().Deliver(peer().Probe(0, 1, 998, 1, 5));
  EXPECT_EQ(Briefs(Replies()), (Strings{"PROBE_ACK p0 e1 seq=1"}));
  Msn msn = 0;
  for (Psn psn : {998u, 999u}) {
    DataArgs d = peer().Write(psn, msn++);
    d.epoch = 1;
    Deliver(d);
  }
  EXPECT_TRUE(Replies().empty()) << "two in-order packets without AR wait";
  for (Psn psn : {1001u, 1002u, 1005u}) {
    DataArgs d = peer().Write(psn, msn++);
    d.epoch = 1;
    Deliver(d);
  }
  const std::vector<Emitted> acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p0 e1 epsn=1000 trig=1001", "ACK p0 e1 epsn=1000 trig=1002",
                                   "ACK p0 e1 epsn=1000 trig=1005"}));
  EXPECT_EQ(SackBits(AckOf(acks[0])), (std::vector<int>{0}));
  EXPECT_EQ(SackBits(AckOf(acks[1])), (std::vector<int>{0, 1}));
  const wire::AckHeader& last = AckOf(acks[2]);
  EXPECT_EQ(SackBits(last), (std::vector<int>{0, 1, 4}));
  std::array<uint8_t, 32> sack{};
  sack[0] = 0xC8;
  EXPECT_EQ(last.sack, sack);
  for (const Emitted& e : acks) {
    EXPECT_EQ(e.ch().psn, 0u);
    EXPECT_EQ(AckOf(e).ack_delay, 0);
    EXPECT_EQ(AckOf(e).ce_count, 0);
  }
}

// MROCE-ACK-009: an ACK as soon as 4 recorded packets are unacknowledged, not at the third;
// MROCE-ACK-004 (trigger = the latest arrival), MROCE-HINT-001 (C 100000 x U 0.95 / N 1),
// MROCE-HINT-004 (rate_hint_tx per ACK), MROCE-TEL-003 (exact counters).
TEST_F(ReceiverTest, TheFourthUnacknowledgedPacketIsAckedAtOnce) {
  Start();
  const CounterMap before = peer().Counters();
  for (Psn psn = 0; psn < 3; ++psn) Deliver(peer().Write(psn, psn));
  EXPECT_TRUE(Replies().empty());
  Deliver(peer().Write(3, 3));
  const std::vector<Emitted> acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p0 e0 epsn=4 trig=3"}));
  EXPECT_EQ(AckOf(acks[0]).rate_hint, 95000u);
  EXPECT_TRUE(SackBits(AckOf(acks[0])).empty());
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.rate_hint_tx", 1}, {"conn.rx_bytes", 4 * IpLen(4)}, {"conn.rx_pkts", 4},
                   {"conn.x_messages_rx", 4}, {"path0.rx.acks_tx", 1}, {"path0.rx.rx_bytes", 4 * IpLen(4)},
                   {"path0.rx.rx_pkts", 4}}));
  for (Msn msn = 0; msn < 4; ++msn) {
    EXPECT_EQ(peer().region_bytes()[msn * 64], msn + 1) << "msn " << msn << " placed";
  }
  peer().RunFor(100 * kUs);
  EXPECT_TRUE(Replies().empty()) << "MROCE-ACK-009: no ACK without a new arrival";
}

// MROCE-ACK-009: an unacknowledged packet is acknowledged 4 us after the arrival of the OLDEST
// unacknowledged one, not of the latest; MROCE-ACK-004: ack_delay = time since the trigger (the
// latest) arrived, in 64 ns units rounded down.
TEST_F(ReceiverTest, CoalescedAckLeavesFourMicrosecondsAfterTheOldestArrival) {
  Start();
  peer().RunUntil(10 * kUs);
  Deliver(peer().Write(0, 0));
  peer().RunUntil(13 * kUs);
  Deliver(peer().Write(1, 1));
  peer().RunUntil(14 * kUs - 1);
  EXPECT_TRUE(Replies().empty());
  peer().RunUntil(14 * kUs);
  std::vector<Emitted> acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p0 e0 epsn=2 trig=1"}));
  EXPECT_EQ(acks[0].at, 14 * kUs);
  EXPECT_EQ(AckOf(acks[0]).ack_delay, 1000 / 64);  // 15.6 -> 15
  // A lone packet: 4 us later, ack_delay 4000 / 64 = 62.5 -> 62.
  Deliver(peer().Write(2, 2));
  peer().RunUntil(18 * kUs);
  acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p0 e0 epsn=3 trig=2"}));
  EXPECT_EQ(AckOf(acks[0]).ack_delay, 62);
  peer().RunFor(100 * kUs);
  EXPECT_TRUE(Replies().empty());
}

// MROCE-ACK-006 (AR), MROCE-ACK-007 (opening and filling a gap, every duplicate with trigger = its
// PSN), MROCE-DUP-001 (a duplicate is not placed: dup_rx, dup_rtx_rx with RTX), MROCE-LOSS-009
// (RTX only echoed in TRTX).
TEST_F(ReceiverTest, ArGapFillAndDuplicateAreAckedAtOnce) {
  Start();
  DataArgs d0 = peer().Write(0, 0);
  d0.ar = true;
  Deliver(d0);
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=1 trig=0"}));
  Deliver(peer().Write(2, 2));  // opens a gap
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=1 trig=2"}));
  DataArgs d1 = peer().Write(1, 1);
  d1.rtx = true;
  Deliver(d1);  // fills it
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=3 trig=1 TRTX"}));

  const CounterMap before = peer().Counters();
  DataArgs dup = peer().Write(0, 0);
  dup.payload = {0xEE, 0xEE, 0xEE, 0xEE};
  dup.rtx = true;
  Deliver(dup);
  DataArgs dup2 = peer().Write(2, 2);
  Deliver(dup2);
  const std::vector<Emitted> acks = Replies();
  EXPECT_EQ(Briefs(acks), (Strings{"ACK p0 e0 epsn=3 trig=0 TRTX", "ACK p0 e0 epsn=3 trig=2"}));
  EXPECT_EQ(peer().region_bytes()[0], 1) << "a duplicate is never placed";
  EXPECT_TRUE(Completions().empty());
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.rate_hint_tx", 2}, {"conn.rx_bytes", 2 * IpLen(4)}, {"conn.rx_pkts", 2},
                   {"path0.rx.acks_tx", 2}, {"path0.rx.dup_rtx_rx", 1}, {"path0.rx.dup_rx", 2},
                   {"path0.rx.rx_bytes", 2 * IpLen(4)}, {"path0.rx.rx_pkts", 2}}));
}

// MROCE-ACK-004 (ECE iff the trigger was CE-marked; ce_count = CE packets since the previous ACK,
// restarting after each), MROCE-ACK-008 (a change of CE mark is acknowledged at once), MROCE-CC-001
// (ecn_ce_rx).
TEST_F(ReceiverTest, CeCountRestartsAfterEachAckAndAChangeOfMarkIsAckedAtOnce) {
  Start();
  Deliver(peer().Write(0, 0));  // not CE: no change (first packet), waits
  EXPECT_TRUE(Replies().empty());
  DataArgs d = peer().Write(1, 1);
  d.ce = true;
  Deliver(d);  // CE after not-CE
  std::vector<Emitted> acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p0 e0 epsn=2 trig=1 ECE"}));
  EXPECT_EQ(AckOf(acks[0]).ce_count, 1);
  d = peer().Write(2, 2);
  d.ce = true;
  Deliver(d);  // CE after CE: no change, waits
  EXPECT_TRUE(Replies().empty());
  Deliver(peer().Write(3, 3));  // not CE after CE
  acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p0 e0 epsn=4 trig=3"}));
  EXPECT_EQ(AckOf(acks[0]).ce_count, 1) << "PSN 2 only: PSN 1 was reported by the previous ACK";
  EXPECT_EQ(peer().path(0).rx_counters.Get(PathRxCounter::kEcnCeRx), 2u);
}

// MROCE-CC-001: CE marks of one path are reported in that path's ACKs only.
TEST_F(ReceiverTest, CeMarksStayWithTheirPath) {
  Start(2);
  DataArgs d = peer().Write(0, 0);
  d.ce = true;
  Deliver(d);
  d = peer().Write(0, 1);
  d.path = 1;
  d.ar = true;
  Deliver(d);
  const std::vector<Emitted> acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p1 e0 epsn=1 trig=0"}));
  EXPECT_EQ(AckOf(acks[0]).ce_count, 0);
  EXPECT_EQ(acks[0].plane, 1);
  EXPECT_EQ(acks[0].frame.udp.sport, peer().path(1).entropy) << "MROCE-ACK-011: own path 1, ACTIVE";
}

// --- PSN window, wrap, epochs ---------------------------------------------------------------------

// MROCE-PATH-007: epsn + 255 is inside the window, epsn + 256 is refused with NACK
// PSN_OUT_OF_WINDOW (info = epsn, stream and msn 0: MROCE-ERR-001) and not recorded (MROCE-ACK-001).
TEST_F(ReceiverTest, PsnWindowAcceptsEpsnPlus255AndRefusesEpsnPlus256) {
  Start();
  Deliver(peer().Write(255, 1));
  std::vector<Emitted> out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"ACK p0 e0 epsn=0 trig=255"}));
  EXPECT_EQ(SackBits(AckOf(out[0])), (std::vector<int>{254}));
  const CounterMap before = peer().Counters();
  DataArgs d = peer().Write(256, 2);
  d.stream = 3;
  Deliver(d);
  out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"NACK p0 e0 PSN_OUT_OF_WINDOW #256 info=0"}));
  EXPECT_EQ(out[0].meta().nack()->stream_id, 0);
  EXPECT_EQ(out[0].meta().nack()->msn, 0u);
  EXPECT_EQ(peer().region_bytes()[2 * 64], 0) << "not placed";
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.nack_tx", 1}, {"conn.nack_tx_psn_out_of_window", 1}, {"conn.rx_bytes", IpLen(4)},
                   {"conn.rx_pkts", 1}, {"path0.rx.rx_bytes", IpLen(4)}, {"path0.rx.rx_pkts", 1}}));
  Deliver(peer().Write(0, 0));
  out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"ACK p0 e0 epsn=1 trig=0"}));
  EXPECT_EQ(SackBits(AckOf(out[0])), (std::vector<int>{253})) << "PSN 256 was never recorded";
}

// MROCE-PATH-006: PSN arithmetic wraps from 0xFFFFFFFF to 0 with no change of behaviour: gaps, SACK
// bits, fills, duplicates and the window across the wrap.
TEST_F(ReceiverTest, PsnArithmeticWrapsAt2To32) {
  Start();
  peer().Deliver(peer().Probe(0, 1, 0xFFFFFFFE, 1, 0));  // epoch 1 starts at 2^32 - 2
  (void)Replies();
  auto data = [&](Psn psn, Msn msn, bool ar = false) {
    DataArgs d = peer().Write(psn, msn);
    d.epoch = 1;
    d.ar = ar;
    Deliver(d);
  };
  data(0xFFFFFFFE, 0, true);
  data(0, 2);  // 0xFFFFFFFF missing
  data(0xFFFFFFFF, 1);
  data(0xFFFFFFFE, 0);  // serially below epsn now
  const std::vector<Emitted> acks = Replies();
  ASSERT_EQ(Briefs(acks), (Strings{"ACK p0 e1 epsn=4294967295 trig=4294967294", "ACK p0 e1 epsn=4294967295 trig=0",
                                   "ACK p0 e1 epsn=1 trig=4294967295", "ACK p0 e1 epsn=1 trig=4294967294"}));
  EXPECT_EQ(SackBits(AckOf(acks[1])), (std::vector<int>{0}));
  EXPECT_TRUE(SackBits(AckOf(acks[2])).empty());
  EXPECT_EQ(peer().path(0).rx_counters.Get(PathRxCounter::kDupRx), 1u);
  data(256, 3);  // epsn 1 + 255
  data(257, 4);  // epsn 1 + 256
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e1 epsn=1 trig=256", "NACK p0 e1 PSN_OUT_OF_WINDOW #257 info=1"}));
}

// MROCE-DUP-003 (an older epoch: dropped, no reply, stale_epoch_rx), MROCE-PATH-009 (a newer epoch
// without a PROBE: dropped, no reply, bad_epoch_rx); neither is placed nor recorded.
TEST_F(ReceiverTest, DataOfAnOlderOrNewerEpochIsDroppedWithoutReply) {
  Start();
  peer().Deliver(peer().Probe(0, 1, 0, 1, 0));
  (void)Replies();
  const CounterMap before = peer().Counters();
  DataArgs d = peer().Write(0, 0);
  d.ar = true;
  d.epoch = 0;
  Deliver(d);
  d.epoch = 2;
  Deliver(d);
  peer().RunFor(100 * kUs);
  EXPECT_TRUE(Replies().empty());
  EXPECT_EQ(peer().region_bytes()[0], 0);
  EXPECT_EQ(peer().path(0).rx.epsn(), 0u);
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.rx_bytes", 2 * IpLen(4)}, {"conn.rx_pkts", 2}, {"path0.rx.bad_epoch_rx", 1},
                   {"path0.rx.rx_bytes", 2 * IpLen(4)}, {"path0.rx.rx_pkts", 2}, {"path0.rx.stale_epoch_rx", 1}}));
}

// MROCE-PATH-019: a PROBE of the current epoch is answered without changing path state, one of a
// newer epoch sets epoch and epsn and clears the map, one of an older epoch is dropped and counted
// (stale_epoch_rx of table 17.3). MROCE-PATH-020: PROBE_ACK echoes path, epoch, probe_seq and
// tx_time, CH.psn 0, with path p's own entropy and plane.
TEST_F(ReceiverTest, ProbesOfTheSameNewerAndOlderEpoch) {
  Start(2);
  Deliver(peer().Write(0, 0));
  Deliver(peer().Write(2, 2));  // a gap: SACK bit 0 set
  (void)Replies();
  const CounterMap before = peer().Counters();
  peer().Deliver(peer().Probe(1, 0, 77, 5, 123456789));
  std::vector<Emitted> out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"PROBE_ACK p1 e0 seq=5"}));
  EXPECT_EQ(out[0].meta().prh()->tx_time, 123456789u);
  EXPECT_EQ(out[0].ch().psn, 0u);
  EXPECT_EQ(out[0].plane, 1);
  EXPECT_EQ(out[0].frame.udp.sport, peer().path(1).entropy);
  peer().Deliver(peer().Probe(0, 0, 500, 6, 1));
  EXPECT_EQ(Briefs(Replies()), (Strings{"PROBE_ACK p0 e0 seq=6"}));
  EXPECT_EQ(peer().path(0).rx.epsn(), 1u) << "same epoch: no state change";
  EXPECT_TRUE(peer().path(0).rx.HasGap());
  peer().Deliver(peer().Probe(0, 1, 500, 7, 2));
  EXPECT_EQ(Briefs(Replies()), (Strings{"PROBE_ACK p0 e1 seq=7"}));
  EXPECT_EQ(peer().path(0).rx.epoch(), 1);
  EXPECT_EQ(peer().path(0).rx.epsn(), 500u);
  EXPECT_FALSE(peer().path(0).rx.HasGap());
  peer().Deliver(peer().Probe(0, 0, 500, 8, 3));
  EXPECT_TRUE(Replies().empty());
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"path0.rx.probes_rx", 2}, {"path0.stale_epoch_rx", 1}, {"path1.rx.probes_rx", 1}}));
  DataArgs d = peer().Write(500, 3);
  d.epoch = 1;
  d.ar = true;
  Deliver(d);
  out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"ACK p0 e1 epsn=501 trig=500"}));
  EXPECT_TRUE(SackBits(AckOf(out[0])).empty()) << "MROCE-ACK-002: nothing of the old epoch";
}

// MROCE-PATH-019 (v0.2 epoch window): only the current epoch or the next one is answered. A PROBE 2
// or more epochs ahead (forged: no conformant sender gets there) is dropped, counted in
// bad_epoch_rx, and moves nothing: data of the real epoch is still acknowledged. The quirk
// accept_epoch_jump (the v0.1 reading) adopts it, after which the real data is stale for good.
TEST_F(ReceiverTest, ProbeEpochWindow) {
  for (const char* quirk : {"", "accept_epoch_jump"}) {
    SCOPED_TRACE(*quirk ? quirk : "spec");
    Start(1, quirk);
    Deliver(peer().Write(0, 0));
    (void)Replies();
    const CounterMap before = peer().Counters();
    for (uint8_t jump : {2, 127}) peer().Deliver(peer().Probe(0, jump, 9000, 1, 1));  // 127: the far edge
    std::vector<Emitted> out = Replies();
    DataArgs d = peer().Write(1, 1);
    d.ar = true;
    if (*quirk == 0) {
      EXPECT_TRUE(out.empty());
      EXPECT_EQ(peer().path(0).rx.epoch(), 0);
      EXPECT_EQ(peer().path(0).rx.epsn(), 1u);
      EXPECT_EQ(peer().MovedSince(before), (Moved{{"path0.rx.bad_epoch_rx", 2}}));
      Deliver(d);
      EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=2 trig=1"}));
      peer().Deliver(peer().Probe(0, 1, 2, 2, 2));  // the next epoch is still adopted
      EXPECT_EQ(Briefs(Replies()), (Strings{"PROBE_ACK p0 e1 seq=2"}));
      EXPECT_EQ(peer().path(0).rx.epoch(), 1);
    } else {
      EXPECT_EQ(Briefs(out), (Strings{"PROBE_ACK p0 e2 seq=1", "PROBE_ACK p0 e127 seq=1"}));
      EXPECT_EQ(peer().path(0).rx.epoch(), 127);
      Deliver(d);
      EXPECT_TRUE(Replies().empty()) << "the real epoch 0 is now stale";
    }
  }
}

// --- stale and duplicate data, RNR, fatal errors ---------------------------------------------------

// MROCE-DUP-004: a packet of a finished message (msn below the stream base) is recorded and
// acknowledged but not placed, no completion, stale_msg_rx.
TEST_F(ReceiverTest, StaleMessageIsRecordedAndAckedButNotPlaced) {
  Start();
  DataArgs d = peer().Write(0, 0);
  d.ar = true;
  Deliver(d);
  (void)Replies();
  const CounterMap before = peer().Counters();
  DataArgs stale = peer().Write(1, 0);
  stale.payload = {0xEE, 0xEE, 0xEE, 0xEE};
  stale.ar = true;
  Deliver(stale);
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=2 trig=1"}));
  EXPECT_EQ(peer().region_bytes()[0], 1);
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.rate_hint_tx", 1}, {"conn.rx_bytes", IpLen(4)}, {"conn.rx_pkts", 1},
                   {"conn.stale_msg_rx", 1}, {"path0.rx.acks_tx", 1}, {"path0.rx.rx_bytes", IpLen(4)},
                   {"path0.rx.rx_pkts", 1}}));
}

// MROCE-DUP-005: a segment received twice under two PSNs (a copy re-sent on another path) counts
// once towards completion and in dup_segment_rx; MROCE-PLACE-007 / MROCE-CMPL-009: the receive
// completes once with byte_len = msg_len.
TEST_F(ReceiverTest, DuplicateSegmentCountsOnceTowardsCompletion) {
  Start(2);
  PostRecv(0, 4096, 7);
  Deliver(Send(0, 0, 0, 1024, 2048, 0x11));
  DataArgs copy = Send(0, 0, 0, 1024, 2048, 0x11);
  copy.path = 1;
  copy.rtx = true;
  Deliver(copy);
  EXPECT_TRUE(Completions().empty());
  EXPECT_EQ(peer().c().counters().Get(ConnCounter::kDupSegmentRx), 1u);
  Deliver(Send(1, 0, 1024, 1024, 2048, 0x22));
  const std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 7u);
  EXPECT_EQ(cs[0].op, CompletionOp::kRecv);
  EXPECT_EQ(cs[0].byte_len, 2048u);
  EXPECT_EQ(recv_[0], 0x11);
  EXPECT_EQ(recv_[2047], 0x22);
  EXPECT_EQ(recv_[2048], 0);
  EXPECT_EQ(peer().c().counters().Get(ConnCounter::kDupSegmentRx), 1u);
  EXPECT_EQ(peer().c().counters().Get(ConnCounter::kXMessagesRx), 1u);
  EXPECT_EQ(peer().path(1).rx_counters.Get(PathRxCounter::kDupRx), 0u) << "a new PSN of path 1";
}

// MROCE-RNR-001 (NACK RNR with stream, msn, psn, info 20 us), MROCE-ACK-001 (refused: not recorded,
// no ACK, epsn stays), MROCE-RNR-004 / MROCE-ERR-004 (counted), MROCE-RNR-002 (the retransmission
// is placed once the receive is posted).
TEST_F(ReceiverTest, RnrRefusedPacketIsNotRecordedAndItsRetransmissionIs) {
  Start();
  CounterMap before = peer().Counters();
  DataArgs d = Send(0, 0, 0, 100, 100, 0x33);
  d.ar = true;
  Deliver(d);
  std::vector<Emitted> out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"NACK p0 e0 RNR #0 info=20"}));
  EXPECT_EQ(out[0].meta().nack()->stream_id, 0);
  EXPECT_EQ(out[0].meta().nack()->msn, 0u);
  EXPECT_EQ(peer().path(0).rx.epsn(), 0u);
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.nack_tx", 1}, {"conn.nack_tx_rnr", 1}, {"conn.rnr_nack_tx", 1}, {"conn.rx_bytes", IpLen(100)},
                   {"conn.rx_pkts", 1}, {"path0.rx.rx_bytes", IpLen(100)}, {"path0.rx.rx_pkts", 1}}));
  PostRecv(0, 100, 9);
  d.rtx = true;
  Deliver(d);
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=1 trig=0 TRTX"}));
  const std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 9u);
  EXPECT_EQ(recv_[99], 0x33);
}

// MROCE-ERR-009: a SEND longer than its receive: LOC_LEN_ERR for the receive, NACK INVALID_REQUEST,
// ERROR, DISCONNECT ERROR. MROCE-ERR-010: afterwards every data packet gets a copy of the fatal NACK
// (same code, stream, msn; its own PSN) and nothing is placed.
TEST_F(ReceiverTest, FatalNackThenEveryLaterDataPacketGetsItsCopy) {
  Start();
  PostRecv(0, 10, 5);
  DataArgs d = Send(0, 0, 0, 100, 100, 0x44);
  d.stream = 2;
  PostRecv(2, 10, 6);
  Deliver(d);
  std::vector<Emitted> out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"NACK p0 e0 INVALID_REQUEST #0 info=0", "DISCONNECT ERROR"}));
  EXPECT_EQ(out[0].meta().nack()->stream_id, 2);
  std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].wr_id, 6u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kLocalLength);
  EXPECT_EQ(cs[1].wr_id, 5u);
  EXPECT_EQ(cs[1].status, CompletionStatus::kFlushed);
  EXPECT_EQ(peer().c().state(), ConnState::kError);
  Deliver(peer().Write(1, 1));
  out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"NACK p0 e0 INVALID_REQUEST #1 info=0"}));
  EXPECT_EQ(out[0].meta().nack()->stream_id, 2);
  EXPECT_EQ(out[0].meta().nack()->msn, 0u);
  EXPECT_EQ(peer().region_bytes()[64], 0);
  EXPECT_EQ(peer().ep().counters().Get(EndpointCounter::kConnErrors), 1u);
}

// MROCE-PLACE-009 (the READ_RESP of msn 1 waits until msn 0 is received, so it returns what msn 0
// wrote), MROCE-PLACE-008 (READ_RESP on the responder's own path with its own PSN, echoing stream,
// msn and msg_len), MROCE-PLACE-010 (a copy of the READ_REQ is recorded and answered no more).
TEST_F(ReceiverTest, ReadRequestIsAnsweredOnceAfterEarlierMessagesOfItsStream) {
  Start();
  DataArgs read;
  read.op = Opcode::kReadReq;
  read.psn = 1;
  read.msn = 1;
  read.msg_len = 4;
  read.payload.clear();
  read.rkey = peer().region().rkey;
  read.va = peer().region().va;  // where msn 0 writes
  read.ar = true;
  Deliver(read);
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=0 trig=1"})) << "no READ_RESP before msn 0";
  Deliver(peer().Write(0, 0));  // fills the gap, writes {1, A5, 5A, 0} at va
  std::vector<Emitted> out = Replies();
  ASSERT_EQ(Briefs(out), (Strings{"ACK p0 e0 epsn=2 trig=0", "READ_RESP p0 e0 #0 F L AR"}));
  const wire::MessageExt& meh = *out[1].meta().meh();
  EXPECT_EQ(meh.stream_id, 0);
  EXPECT_EQ(meh.msn, 1u);
  EXPECT_EQ(meh.msg_len, 4u);
  EXPECT_EQ(out[1].meta().payload, (std::vector<uint8_t>{1, 0xA5, 0x5A, 0}));
  read.psn = 2;
  read.rtx = true;
  Deliver(read);  // a copy, re-sent
  EXPECT_EQ(Briefs(Replies()), (Strings{"ACK p0 e0 epsn=3 trig=2 TRTX"}));
  peer().RunFor(20 * kUs);
  EXPECT_TRUE(ScriptedPeer::Only(Replies(), Opcode::kReadResp).empty());
}

}  // namespace
}  // namespace mroce::ref
