// Sender (sender.cc) through the narrowest public seam: an Endpoint whose peer the test plays by
// hand (scripted_peer.h). Work is posted with the verbs; ACKs, NACKs and PROBE_ACKs are built by
// the test; what the sender does is read off the wire and the chapter 17 counters, exactly. Each
// test names the clauses it checks.
#include <algorithm>

#include <gtest/gtest.h>

#include "scripted_peer.h"

namespace mroce::ref {
namespace {

using namespace testing_peer;  // NOLINT
using wire::Opcode;
using Strings = std::vector<std::string>;

constexpr TimeNs kUs = kMicrosecond;
constexpr TimeNs kMs = kMillisecond;

class SenderTest : public ::testing::Test {
 protected:
  // An endpoint with `paths` paths, each on a plane of its own, connected to the scripted peer.
  void Start(uint8_t paths = 1, const char* quirks = "", const char* variants = "") {
    EndpointConfig cfg = OnePathConfig();
    cfg.quirks = Quirks::Parse(quirks).value();
    cfg.variants = Variants::Parse(variants).value();
    cfg.num_paths = paths;
    cfg.num_planes = paths;
    peer_.emplace(cfg);
    peer_->Establish();
    src_.resize(64 * 1024);
    for (size_t i = 0; i < src_.size(); ++i) src_[i] = static_cast<uint8_t>(i * 7 + 3);
  }
  ScriptedPeer& peer() { return *peer_; }

  // A WRITE of `len` bytes of src_ from offset `at`.
  void Write(uint32_t len, uint64_t wr_id, uint16_t stream = 0, uint32_t at = 0) {
    const Status st = peer().Call([&](Endpoint& ep) {
      return ep.PostWrite(peer().conn(), stream, src_.data() + at, len, 0x10000 + at, 0x77, wr_id, std::nullopt,
                          peer().now());
    });
    ASSERT_TRUE(st.ok()) << st.error().message;
  }
  void Send(uint32_t len, uint64_t wr_id, uint16_t stream = 0) {
    const Status st = peer().Call([&](Endpoint& ep) {
      return ep.PostSend(peer().conn(), stream, src_.data(), len, wr_id, std::nullopt, peer().now());
    });
    ASSERT_TRUE(st.ok()) << st.error().message;
  }
  // Lets the paced sender send what it may (20 us: far below any RTO), returns what it sent.
  std::vector<Emitted> Settle() {
    peer().RunFor(20 * kUs);
    return peer().Take();
  }
  void Deliver(const wire::Frame& f) { peer().Deliver(f); }
  std::vector<Completion> Completions() { return peer().ep().PollCompletions(); }
  // Answers `n` PROBEs of `path` (the first is the latest one sent), each 10 us after it left; while
  // the path is still probing, runs on to the next PROBE 100 us after each answer. Returns every
  // other frame sent meanwhile.
  std::vector<Emitted> AnswerProbes(uint8_t path, uint8_t epoch, int n) {
    std::vector<Emitted> others;
    std::optional<Emitted> probe;
    for (const Emitted& e : peer().out()) {
      if (e.op() == wire::Opcode::kProbe && e.ch().path_id == path) probe = e;
    }
    for (int i = 0; i < n; ++i) {
      if (!probe) {
        ADD_FAILURE() << "no PROBE to answer (answer " << i + 1 << " of " << n << ")";
        break;
      }
      const TimeNs answer_at = std::max(peer().now(), probe->at + 10 * kUs);
      peer().RunUntil(answer_at);
      Deliver(peer().ProbeAck(path, epoch, probe->meta().prh()->probe_seq, probe->meta().prh()->tx_time));
      if (peer().path(path).machine.Probes()) peer().RunUntil(answer_at + 100 * kUs);
      probe.reset();
      for (const Emitted& e : peer().Take()) {
        if (e.op() == wire::Opcode::kProbe && e.ch().path_id == path) {
          probe = e;
        } else {
          others.push_back(e);
        }
      }
    }
    return others;
  }
  // With one WRITE outstanding on path 0 of two since t = 0: three RTOs fail path 0 at 7 ms (see
  // RtoBacksOff1To2To4MsAndTheThirdFailsThePathOver); the content went to path 1, whose ACK
  // completes it. Returns the first PROBE.
  Emitted FailPathZero() {
    peer().RunUntil(7 * kMs);
    std::vector<Emitted> out = ScriptedPeer::Only(peer().Take(), wire::Opcode::kProbe);
    EXPECT_EQ(out.size(), 1u);
    EXPECT_EQ(peer().path(0).state(), PathState::kFailed);
    Deliver(peer().Ack({.path = 1, .epsn = 1}));
    return out.at(0);
  }

  std::optional<ScriptedPeer> peer_;
  std::vector<uint8_t> src_;
};

std::vector<uint64_t> Ids(const std::vector<Completion>& cs) {
  std::vector<uint64_t> ids;
  for (const Completion& c : cs) ids.push_back(c.wr_id);
  return ids;
}

// --- segmentation, AR, windows ----------------------------------------------------------------

// MROCE-PATH-006 (PSNs from 0, +1 per packet), MROCE-HDR-006 (FIRST / LAST), MROCE-ACK-014 (AR on
// the last packet), MROCE-TEL-003 (exact counters).
TEST_F(SenderTest, SegmentsAMessageIntoMtuPacketsWithArOnlyOnTheLast) {
  Start();
  const CounterMap before = peer().Counters();
  Write(3000, 1);
  const std::vector<Emitted> out = Settle();
  EXPECT_EQ(Briefs(out), (Strings{"WRITE p0 e0 #0 F", "WRITE p0 e0 #1", "WRITE p0 e0 #2 L AR"}));
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const wire::MessageExt& meh = *out[i].meta().meh();
    const uint32_t off = static_cast<uint32_t>(i) * 1024;
    EXPECT_EQ(meh.msn, 0u);
    EXPECT_EQ(meh.msg_len, 3000u);
    EXPECT_EQ(meh.msg_offset, off);
    EXPECT_EQ(meh.va, 0x10000u);
    EXPECT_EQ(out[i].meta().payload,
              std::vector<uint8_t>(src_.begin() + off, src_.begin() + std::min<uint32_t>(off + 1024, 3000)));
    EXPECT_EQ(out[i].frame.udp.sport, peer().path(0).entropy);
    EXPECT_EQ(out[i].plane, 0);
  }
  const uint64_t bytes = 2 * IpLen(1024) + IpLen(952);
  EXPECT_EQ(peer().MovedSince(before), (Moved{{"conn.tx_pkts", 3}, {"conn.tx_bytes", bytes},
                                              {"conn.x_messages_tx", 1}, {"path0.tx_pkts", 3},
                                              {"path0.tx_bytes", bytes}}));
}

// MROCE-CC-002 (cwnd starts at 4 MTU), MROCE-CC-003 (no new packet beyond cwnd), MROCE-ACK-014 (AR
// on the packet that fills the window, although it is not the last of its message).
TEST_F(SenderTest, ThePacketThatFillsTheWindowAsksForAnAckAndTheNextWaits) {
  Start();
  Write(5 * 1024, 1);
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #0 F", "WRITE p0 e0 #1", "WRITE p0 e0 #2", "WRITE p0 e0 #3 AR"}));
  EXPECT_TRUE(Settle().empty()) << "a fifth MTU beyond cwnd = 4 MTU";
  Deliver(peer().Ack({.epsn = 1}));
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #4 L AR"}));
}

// MROCE-PATH-007: a new PSN p only while p - snd_una < 256. Zero-length WRITEs carry no payload, so
// cwnd never holds them back and the PSN window is the only limit.
TEST_F(SenderTest, NoNewPsnAt256AboveSndUna) {
  Start();
  for (uint64_t wr = 1; wr <= 300; ++wr) Write(0, wr);
  peer().RunFor(100 * kUs);
  std::vector<Emitted> out = peer().Take();
  ASSERT_EQ(out.size(), 256u);
  EXPECT_EQ(out.front().ch().psn, 0u);
  EXPECT_EQ(out.back().ch().psn, 255u);
  Deliver(peer().Ack({.epsn = 1}));
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #256 F L AR"}));
  EXPECT_EQ(Ids(Completions()), (std::vector<uint64_t>{1}));
  Deliver(peer().Ack({.epsn = 3}));
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #257 F L AR", "WRITE p0 e0 #258 F L AR"}));
}

// --- loss inference and retransmission --------------------------------------------------------

// The example of section 9.1 on path 1 of two: MROCE-LOSS-001 (lost = unacked below H, 7 above H
// is not), MROCE-LOSS-002 (exactly once, same path, same PSN and content, RTX + AR), MROCE-LOSS-003
// (path 0 untouched by an ACK of path 1), MROCE-LOSS-005 (counted on the path), MROCE-LOSS-006
// (within 1 us), MROCE-CC-005 (one halving), MROCE-DUP-002 and MROCE-ACK-012 (a repeated or older
// ACK changes nothing).
TEST_F(SenderTest, RetransmitsExactlyTheLostPsnsOnThePathThatLostThem) {
  Start(2);
  for (uint64_t wr = 0; wr < 16; ++wr) Write(100, wr, 0, static_cast<uint32_t>(wr) * 100);
  const std::vector<Emitted> first = Settle();
  ASSERT_EQ(first.size(), 16u);
  std::map<Psn, Emitted> on_path1;
  for (const Emitted& e : first) {
    if (e.ch().path_id == 1) on_path1.emplace(e.ch().psn, e);
  }
  ASSERT_EQ(on_path1.size(), 8u) << "the sprayer alternates between two equal windows";
  ASSERT_EQ(on_path1.rbegin()->first, 7u);

  CounterMap before = peer().Counters();
  const TimeNs ack_at = peer().now();
  Deliver(peer().Ack({.path = 1, .epsn = 2, .sacked = {3, 6}}));  // H = 6
  const std::vector<Emitted> rtx = Settle();
  EXPECT_EQ(Briefs(rtx), (Strings{"WRITE p1 e0 #2 F L AR RTX", "WRITE p1 e0 #4 F L AR RTX", "WRITE p1 e0 #5 F L AR RTX"}));
  for (const Emitted& e : rtx) {
    const Emitted& orig = on_path1.at(e.ch().psn);
    EXPECT_EQ(*e.meta().meh(), *orig.meta().meh()) << "PSN " << e.ch().psn;
    EXPECT_EQ(e.meta().payload, orig.meta().payload) << "PSN " << e.ch().psn;
    EXPECT_EQ(e.plane, 1);
    EXPECT_LE(e.at - ack_at, 1 * kUs) << "MROCE-LOSS-006";
  }
  const uint64_t bytes = 3 * IpLen(100);
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.rate_hint_rx", 1}, {"conn.retransmits", 3}, {"conn.tx_bytes", bytes}, {"conn.tx_pkts", 3},
                   {"path1.acks_rx", 1}, {"path1.cwnd_decreases", 1}, {"path1.loss_inferred", 3},
                   {"path1.retransmits", 3}, {"path1.tx_bytes", bytes}, {"path1.tx_pkts", 3}}));

  before = peer().Counters();
  Deliver(peer().Ack({.path = 1, .epsn = 2, .sacked = {3, 6}}));  // the same ACK again
  Deliver(peer().Ack({.path = 1, .epsn = 1}));                    // an older one, late
  EXPECT_TRUE(Settle().empty());
  EXPECT_EQ(peer().MovedSince(before), (Moved{{"conn.rate_hint_rx", 2}, {"path1.acks_rx", 2}}));
  EXPECT_EQ(peer().path(1).board.snd_una(), 2u) << "acknowledgements only accumulate";
}

// MROCE-LOSS-007: a retransmitted PSN is lost again only when a packet sent after its
// retransmission is acknowledged; an ACK of older packets does not retransmit it again.
TEST_F(SenderTest, ALostRetransmissionGoesAgainOnlyAfterALaterPacketIsAcked) {
  Start();
  for (uint64_t wr = 0; wr < 3; ++wr) Write(100, wr);
  ASSERT_EQ(Settle().size(), 3u);
  Deliver(peer().Ack({.epsn = 0, .sacked = {1}}));
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #0 F L AR RTX"}));
  Deliver(peer().Ack({.epsn = 0, .sacked = {1, 2}}));  // PSN 2 left before the retransmission
  EXPECT_TRUE(Settle().empty());
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kLossInferred), 1u);
  Write(100, 3);
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #3 F L AR"}));
  Deliver(peer().Ack({.epsn = 0, .sacked = {1, 2, 3}}));  // PSN 3 left after it
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #0 F L AR RTX"}));
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kLossInferred), 2u);
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kRetransmits), 2u);
}

// MROCE-LOSS-008: seven retransmissions of one content, never an eighth: the work request
// completes RETRY_EXC_ERR, the connection enters ERROR (MROCE-ERR-011: counted), the others are
// flushed after it in msn order (MROCE-CMPL-011), DISCONNECT reason ERROR (MROCE-CONN-016).
TEST_F(SenderTest, SevenRetransmissionsThenRetryExceededAndError) {
  Start();
  Write(100, 100);  // PSN 0: every copy of it is lost
  Write(100, 101);  // PSN 1
  ASSERT_EQ(Settle().size(), 2u);
  std::vector<Psn> sacked = {1};
  int rtx_of_psn0 = 0;
  for (int round = 1; round <= 8; ++round) {
    Deliver(peer().Ack({.epsn = 0, .sacked = sacked}));
    for (const Emitted& e : Settle()) {
      if (e.op() == Opcode::kWrite && e.ch().psn == 0) {
        EXPECT_TRUE(e.ch().Has(wire::kFlagRtx));
        ++rtx_of_psn0;
      }
    }
    if (round == 8) break;
    EXPECT_EQ(rtx_of_psn0, round);
    Write(100, 101 + static_cast<uint64_t>(round));  // PSN round + 1 leaves after the retransmission
    ASSERT_EQ(Settle().size(), 1u);
    sacked.push_back(static_cast<Psn>(round + 1));
  }
  EXPECT_EQ(rtx_of_psn0, 7);
  const std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 9u);
  EXPECT_EQ(cs[0].wr_id, 100u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kRetryExceeded);
  for (size_t i = 1; i < cs.size(); ++i) {
    EXPECT_EQ(cs[i].wr_id, 100 + i);
    EXPECT_EQ(cs[i].status, CompletionStatus::kFlushed);
  }
  EXPECT_EQ(peer().c().state(), ConnState::kError);
  EXPECT_EQ(peer().ep().counters().Get(EndpointCounter::kConnErrors), 1u);
  const std::vector<Emitted> disc = ScriptedPeer::Only(peer().out(), Opcode::kDisconnect);
  ASSERT_EQ(disc.size(), 1u);
  EXPECT_EQ(disc[0].meta().cmh()->reason, wire::ConnReason::kError);
}

// --- ACK validity -------------------------------------------------------------------------------

// MROCE-ACK-013 at both edges: epsn = snd_nxt is valid (all acked), snd_nxt + 1 is not; a SACK bit
// for snd_nxt - 1 is valid, for snd_nxt not. A bad ACK is counted, acknowledges nothing and its
// rate hint is not used (MROCE-HINT-007: rate_hint_rx only counts used hints).
TEST_F(SenderTest, AckBeyondSndNxtIsDroppedAndCounted) {
  Start();
  for (uint64_t wr = 0; wr < 3; ++wr) Write(100, wr);  // PSN 0..2, snd_nxt 3
  ASSERT_EQ(Settle().size(), 3u);
  CounterMap before = peer().Counters();
  Deliver(peer().Ack({.epsn = 4, .rate_hint = 1234}));
  Deliver(peer().Ack({.epsn = 0, .sacked = {3}, .rate_hint = 1234}));
  EXPECT_TRUE(Settle().empty());
  EXPECT_TRUE(Completions().empty());
  EXPECT_EQ(peer().MovedSince(before), (Moved{{"path0.acks_rx", 2}, {"path0.bad_ack_rx", 2}}));
  EXPECT_EQ(peer().c().cc().latest_hint_mbps(), kRateHintUnlimited);  // max_rate 0, no valid ACK yet

  before = peer().Counters();
  Deliver(peer().Ack({.epsn = 0, .sacked = {2}}));  // bit for snd_nxt - 1: valid, H = 2
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #0 F L AR RTX", "WRITE p0 e0 #1 F L AR RTX"}));
  Deliver(peer().Ack({.epsn = 3}));  // epsn = snd_nxt: valid
  EXPECT_EQ(Ids(Completions()), (std::vector<uint64_t>{0, 1, 2}));
  const Moved moved = peer().MovedSince(before);
  EXPECT_EQ(moved.count("path0.bad_ack_rx"), 0u);
  EXPECT_EQ(moved.at("path0.acks_rx"), 2u);
  EXPECT_EQ(moved.at("conn.rate_hint_rx"), 2u);
}

// MROCE-PATH-009: an ACK of another epoch acknowledges nothing (stale_epoch_rx) but its rate hint
// is used, from any path and epoch (MROCE-HINT-005, MROCE-HINT-007).
TEST_F(SenderTest, AckOfAnotherEpochOnlyDeliversItsHint) {
  Start();
  Write(100, 7);
  ASSERT_EQ(Settle().size(), 1u);
  const CounterMap before = peer().Counters();
  Deliver(peer().Ack({.epoch = 1, .epsn = 1, .rate_hint = 5000}));
  EXPECT_TRUE(Completions().empty());
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.rate_hint_rx", 1}, {"path0.acks_rx", 1}, {"path0.stale_epoch_rx", 1}}));
  EXPECT_EQ(peer().c().cc().latest_hint_mbps(), 5000u);
  Deliver(peer().Ack({.epsn = 1}));
  EXPECT_EQ(Ids(Completions()), (std::vector<uint64_t>{7}));
}

// --- RTO, fail-over, probing --------------------------------------------------------------------

// MROCE-RTO-004 (1 ms before any sample), MROCE-RTO-006 (x2 each expiry, lowest PSN again with RTX
// + AR, cwnd 1 MTU), MROCE-PATH-004 (new entropy on every RTO), MROCE-PATH-012 (SUSPECT at the
// first, FAILED at the third), MROCE-PATH-014 (content re-sent on the other ACTIVE path with a new
// PSN, failover_resends on the failed path, retransmits on the carrying one), MROCE-PATH-016 (first
// PROBE at once: next_epoch, the PSN the sequence continues with, probe_seq 1).
TEST_F(SenderTest, RtoBacksOff1To2To4MsAndTheThirdFailsThePathOver) {
  Start(2);
  const CounterMap before = peer().Counters();
  Write(100, 1);  // at t = 0
  std::vector<Emitted> out = Settle();
  ASSERT_EQ(Briefs(out), (Strings{"WRITE p0 e0 #0 F L AR"}));
  uint16_t port = out[0].frame.udp.sport;

  peer().RunUntil(1 * kMs - 1);
  EXPECT_TRUE(peer().Take().empty());
  peer().RunUntil(1 * kMs);
  out = peer().Take();
  ASSERT_EQ(Briefs(out), (Strings{"WRITE p0 e0 #0 F L AR RTX"}));
  EXPECT_EQ(out[0].at, 1 * kMs);
  EXPECT_NE(out[0].frame.udp.sport, port);
  port = out[0].frame.udp.sport;
  EXPECT_EQ(peer().path(0).state(), PathState::kSuspect);
  EXPECT_EQ(peer().c().cc().cwnd_bytes(0), 1024u);
  EXPECT_EQ(peer().path(0).rtt.rto(), 2 * kMs);

  peer().RunUntil(3 * kMs - 1);
  EXPECT_TRUE(peer().Take().empty());
  peer().RunUntil(3 * kMs);
  out = peer().Take();
  ASSERT_EQ(Briefs(out), (Strings{"WRITE p0 e0 #0 F L AR RTX"}));
  EXPECT_NE(out[0].frame.udp.sport, port);
  EXPECT_EQ(peer().path(0).state(), PathState::kSuspect);
  EXPECT_EQ(peer().path(0).rtt.rto(), 4 * kMs);

  peer().RunUntil(7 * kMs - 1);
  EXPECT_TRUE(peer().Take().empty());
  peer().RunUntil(7 * kMs);
  out = peer().Take();
  EXPECT_EQ(Briefs(out), (Strings{"PROBE p0 e1 #1 seq=1", "WRITE p1 e0 #0 F L AR RTX"}));
  for (const Emitted& e : out) EXPECT_EQ(e.at, 7 * kMs);
  EXPECT_EQ(peer().path(0).state(), PathState::kFailed);
  const uint64_t b = IpLen(100);
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.retransmits", 3}, {"conn.tx_bytes", 4 * b}, {"conn.tx_pkts", 4}, {"conn.x_messages_tx", 1},
                   {"path0.cwnd_decreases", 1}, {"path0.entropy_rerolls", 3}, {"path0.failover_resends", 1},
                   {"path0.loss_inferred", 3}, {"path0.path_state_changes", 2}, {"path0.probes_tx", 1},
                   {"path0.retransmits", 2}, {"path0.rto_events", 3}, {"path0.tx_bytes", 3 * b},
                   {"path0.tx_pkts", 3}, {"path1.retransmits", 1}, {"path1.tx_bytes", b}, {"path1.tx_pkts", 1}}));
  // A late ACK of the failed path's old epoch is ignored (MROCE-PATH-014); the copy on path 1 counts.
  Deliver(peer().Ack({.path = 0, .epsn = 1}));
  EXPECT_TRUE(Completions().empty());
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kStaleEpochRx), 1u);
  EXPECT_EQ(peer().path(0).state(), PathState::kFailed);
  Deliver(peer().Ack({.path = 1, .epsn = 1}));
  EXPECT_EQ(Ids(Completions()), (std::vector<uint64_t>{1}));
}

// MROCE-RTO-005 (restart with the current RTO on ACK progress), MROCE-RTO-001 (R = now - t_send -
// 64 ns x ack_delay), MROCE-RTO-002 (first sample: SRTT = R, RTTVAR = R / 2), MROCE-RTO-004
// (RTO = SRTT + max(1 us, 4 RTTVAR)).
TEST_F(SenderTest, AckProgressRestartsTheTimerWithTheSampledRto) {
  Start();
  Write(100, 1);
  Write(100, 2);
  ASSERT_EQ(Settle().size(), 2u);
  peer().RunUntil(500 * kUs);
  Deliver(peer().Ack({.epsn = 1, .ack_delay = 100}));  // R = 500 us - 6.4 us = 493.6 us
  EXPECT_EQ(peer().path(0).rtt.srtt(), 493'600);
  EXPECT_EQ(peer().path(0).rtt.rttvar(), 246'800);
  EXPECT_EQ(peer().path(0).rtt.rto(), 493'600 + 4 * 246'800);
  const TimeNs expiry = 500 * kUs + 493'600 + 4 * 246'800;  // 1.9808 ms, not the 1 ms of the first timer
  peer().RunUntil(expiry - 1);
  EXPECT_TRUE(peer().Take().empty());
  peer().RunUntil(expiry);
  const std::vector<Emitted> out = peer().Take();
  EXPECT_EQ(Briefs(out), (Strings{"WRITE p0 e0 #1 F L AR RTX"}));
  EXPECT_EQ(peer().path(0).rtt.rto(), 2 * (493'600 + 4 * 246'800));
}

// MROCE-RTO-001 (Karn): an ACK whose trigger was sent twice gives a sample only with TRTX = 1 (then
// from the retransmission); without one the backed-off RTO stays (MROCE-RTO-006).
TEST_F(SenderTest, KarnTakesASampleOfARetransmittedTriggerOnlyWithTrtx) {
  for (const bool trtx : {false, true}) {
    SCOPED_TRACE(trtx ? "TRTX 1" : "TRTX 0");
    Start();
    Write(100, 1);
    ASSERT_EQ(Settle().size(), 1u);
    peer().RunUntil(1 * kMs);  // RTO: PSN 0 again at 1 ms, RTO 2 ms
    ASSERT_EQ(Briefs(peer().Take()), (Strings{"WRITE p0 e0 #0 F L AR RTX"}));
    peer().RunUntil(1 * kMs + 100 * kUs);
    Deliver(peer().Ack({.epsn = 1, .trtx = trtx}));
    EXPECT_EQ(Ids(Completions()), (std::vector<uint64_t>{1}));
    if (trtx) {
      EXPECT_EQ(peer().path(0).rtt.srtt(), 100 * kUs);  // from the retransmission at 1 ms
      EXPECT_EQ(peer().path(0).rtt.rto(), 100 * kUs + 4 * 50 * kUs);
    } else {
      EXPECT_FALSE(peer().path(0).rtt.has_sample());
      EXPECT_EQ(peer().path(0).rtt.rto(), 2 * kMs);
    }
  }
}

// MROCE-PATH-011 (new data only on ACTIVE paths, a SUSPECT path carries its own retransmissions),
// MROCE-PATH-012 (ACK progress makes a SUSPECT path ACTIVE again).
TEST_F(SenderTest, NewDataAvoidsASuspectPathUntilItsAckProgress) {
  Start(2);
  Write(100, 1);
  ASSERT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #0 F L AR"}));
  peer().RunUntil(1 * kMs);
  ASSERT_EQ(Briefs(peer().Take()), (Strings{"WRITE p0 e0 #0 F L AR RTX"}));
  ASSERT_EQ(peer().path(0).state(), PathState::kSuspect);
  Write(100, 2);
  Write(100, 3);
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p1 e0 #0 F L AR", "WRITE p1 e0 #1 F L AR"}));
  Deliver(peer().Ack({.path = 0, .epsn = 1, .trtx = true}));
  EXPECT_EQ(peer().path(0).state(), PathState::kActive);
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kPathStateChanges), 2u);
  // Path 0 restarts from cwnd 1 MTU (+100 B from the ACK), path 1 has about 4 MTU free: three
  // 1000-byte WRITEs fit path 1 better, the fourth goes to path 0 again.
  for (uint64_t wr = 4; wr < 8; ++wr) Write(1000, wr);
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p1 e0 #2 F L AR", "WRITE p1 e0 #3 F L AR", "WRITE p1 e0 #4 F L AR",
                                       "WRITE p0 e0 #1 F L AR"}));
}

// MROCE-PATH-016 (next PROBE 100 us after each matching PROBE_ACK, same epoch and PSN, probe_seq
// + 1), MROCE-PATH-017 (ACTIVE only at the third; no data on the path before), MROCE-PATH-018 (new
// epoch, the PROBEs' PSN, cwnd initial, SRTT from the probe samples, reintroductions), MROCE-PATH-009
// (a PROBE_ACK of another epoch is counted and ignored), MROCE-PATH-021 (PROBEs outside cwnd).
TEST_F(SenderTest, ThreeMatchingProbeAcksReintroduceThePathInTheNextEpoch) {
  Start(2);
  Write(100, 1);
  ASSERT_EQ(Settle().size(), 1u);
  const Emitted probe1 = FailPathZero();
  EXPECT_EQ(probe1.meta().prh()->tx_time, static_cast<uint64_t>(7 * kMs));
  EXPECT_EQ(probe1.frame.udp.sport, peer().path(0).entropy);
  EXPECT_EQ(probe1.plane, 0);
  const CounterMap before = peer().Counters();
  TimeNs t = 7 * kMs;
  for (uint32_t seq = 1; seq <= 3; ++seq) {
    t += 10 * kUs;  // the PROBE's round trip
    peer().RunUntil(t);
    Deliver(peer().ProbeAck(0, 0, seq, static_cast<uint64_t>(t - 10 * kUs)));  // old epoch: ignored
    Deliver(peer().ProbeAck(0, 1, seq, static_cast<uint64_t>(t - 10 * kUs)));
    if (seq == 3) break;
    EXPECT_EQ(peer().path(0).state(), PathState::kProbing);
    Write(100, 10 + seq);  // new data meanwhile: path 1 only
    EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p1 e0 #" + std::to_string(seq) + " F L AR"}));
    Deliver(peer().Ack({.path = 1, .epsn = seq + 1}));
    t += 100 * kUs;
    peer().RunUntil(t - 1);
    EXPECT_TRUE(peer().Take().empty());
    peer().RunUntil(t);
    EXPECT_EQ(Briefs(peer().Take()), (Strings{"PROBE p0 e1 #1 seq=" + std::to_string(seq + 1)}));
  }
  EXPECT_EQ(peer().path(0).state(), PathState::kActive);
  EXPECT_EQ(peer().path(0).epoch, 1);
  EXPECT_EQ(peer().path(0).rtt.srtt(), 10 * kUs);
  EXPECT_EQ(peer().c().cc().cwnd_bytes(0), 4 * 1024u);
  EXPECT_TRUE(Settle().empty()) << "nothing after the third PROBE_ACK";
  const Moved moved = peer().MovedSince(before);
  EXPECT_EQ(moved.at("path0.probe_acks_rx"), 3u);
  EXPECT_EQ(moved.at("path0.probes_tx"), 2u);
  EXPECT_EQ(moved.at("path0.stale_epoch_rx"), 3u);
  EXPECT_EQ(moved.at("path0.reintroductions"), 1u);
  EXPECT_EQ(moved.at("path0.path_state_changes"), 2u);  // FAILED -> PROBING -> ACTIVE
  EXPECT_EQ(moved.count("path0.probe_timeouts"), 0u);
  // Path 1's window grew with its ACKs: the first of two WRITEs goes there, the second to path 0,
  // whose PSN sequence continues in epoch 1 where the PROBEs said.
  Write(1000, 20);
  Write(1000, 21);
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p1 e0 #3 F L AR", "WRITE p0 e1 #1 F L AR"}));
}

// MROCE-PATH-016 (a new PROBE, probe_seq + 1, after each 1 ms probe timeout), MROCE-PATH-004
// (re-roll on every probe timeout), table 7.6 row 11 (a timeout in PROBING starts the count again:
// three matching PROBE_ACKs without a timeout in between).
TEST_F(SenderTest, ProbeTimeoutRerollsReprobesAndRestartsTheCount) {
  Start(2);
  Write(100, 1);
  ASSERT_EQ(Settle().size(), 1u);
  const Emitted probe1 = FailPathZero();
  peer().RunUntil(8 * kMs - 1);
  EXPECT_TRUE(peer().Take().empty());
  peer().RunUntil(8 * kMs);
  std::vector<Emitted> out = peer().Take();
  ASSERT_EQ(Briefs(out), (Strings{"PROBE p0 e1 #1 seq=2"}));
  EXPECT_NE(out[0].frame.udp.sport, probe1.frame.udp.sport);
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kProbeTimeouts), 1u);
  // seq 2 answered: PROBING; seq 3 unanswered: probe timeout, FAILED, seq 4 at once.
  peer().RunUntil(8 * kMs + 10 * kUs);
  Deliver(peer().ProbeAck(0, 1, 2, 8 * kMs));
  ASSERT_EQ(peer().path(0).state(), PathState::kProbing);
  peer().RunUntil(8 * kMs + 110 * kUs);
  ASSERT_EQ(Briefs(peer().Take()), (Strings{"PROBE p0 e1 #1 seq=3"}));
  peer().RunUntil(9 * kMs + 110 * kUs);
  ASSERT_EQ(Briefs(peer().Take()), (Strings{"PROBE p0 e1 #1 seq=4"}));
  EXPECT_EQ(peer().path(0).state(), PathState::kFailed);
  // Three more answers are needed now: seq 4 and 5 leave the path PROBING, seq 6 reintroduces it.
  TimeNs t = 9 * kMs + 110 * kUs;
  for (uint32_t seq = 4; seq <= 6; ++seq) {
    EXPECT_NE(peer().path(0).state(), PathState::kActive) << "before PROBE_ACK seq " << seq;
    t += 10 * kUs;
    peer().RunUntil(t);
    Deliver(peer().ProbeAck(0, 1, seq, static_cast<uint64_t>(t - 10 * kUs)));
    t += 100 * kUs;
    peer().RunUntil(t);
  }
  EXPECT_EQ(peer().path(0).state(), PathState::kActive);
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kProbeTimeouts), 2u);
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kProbesTx), 6u);
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kReintroductions), 1u);
}

// --- NACKs --------------------------------------------------------------------------------------

// MROCE-RNR-005 (held: no loss from SACK gaps, no RTO, then the same PSN on the same path with RTX +
// AR after exactly info us), MROCE-DUP-002 (a second copy of the NACK does not extend the hold),
// MROCE-RNR-009 / MROCE-ERR-004 (counted on receipt), MROCE-RNR-007 (a NACK for an acknowledged PSN
// is stale).
TEST_F(SenderTest, RnrHoldsThePsnForInfoMicrosecondsThenSendsItOnceMore) {
  Start();
  Send(100, 1);       // SEND PSN 0 on stream 0
  Write(100, 2, 1);   // WRITE PSN 1 on stream 1
  ASSERT_EQ(Settle().size(), 2u);
  const TimeNs t0 = peer().now();
  CounterMap before = peer().Counters();
  Deliver(peer().Nack({.code = wire::NackCode::kRnr, .psn = 0, .info = 20}));
  peer().RunFor(1 * kUs);
  Deliver(peer().Nack({.code = wire::NackCode::kRnr, .psn = 0, .info = 20}));  // a copy
  Deliver(peer().Ack({.epsn = 0, .sacked = {1}}));  // PSN 0 below H, but held
  EXPECT_EQ(Ids(Completions()), (std::vector<uint64_t>{2}));
  peer().RunUntil(t0 + 20 * kUs - 1);
  EXPECT_TRUE(peer().Take().empty());
  peer().RunUntil(t0 + 20 * kUs);
  EXPECT_EQ(Briefs(peer().Take()), (Strings{"SEND p0 e0 #0 F L AR RTX"}));
  const uint64_t b = IpLen(100);
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.cmpl_success", 1}, {"conn.nack_rx", 2}, {"conn.nack_rx_rnr", 2}, {"conn.rate_hint_rx", 1},
                   {"conn.retransmits", 1}, {"conn.rnr_nack_rx", 2}, {"conn.tx_bytes", b}, {"conn.tx_pkts", 1},
                   {"conn.x_rnr_holds_ended", 1}, {"path0.acks_rx", 1}, {"path0.retransmits", 1},
                   {"path0.tx_bytes", b}, {"path0.tx_pkts", 1}}));
  before = peer().Counters();
  Deliver(peer().Nack({.code = wire::NackCode::kRnr, .psn = 1, .stream = 1, .info = 20}));  // PSN 1: acked
  EXPECT_TRUE(Settle().empty());
  EXPECT_EQ(peer().MovedSince(before), (Moved{{"conn.nack_rx", 1}, {"conn.nack_rx_rnr", 1}, {"conn.rnr_nack_rx", 1},
                                              {"path0.stale_nack_rx", 1}}));
}

// MROCE-PATH-016 with table 7.6 rows 5 and 6: the PROBEs of a failed path announce next_epoch =
// epoch + 1; the quirk probe_epoch_skip announces epoch + 2, which the peer's epoch window drops.
TEST_F(SenderTest, FirstProbeAnnouncesTheNextEpoch) {
  for (const char* quirk : {"", "probe_epoch_skip"}) {
    SCOPED_TRACE(*quirk ? quirk : "spec");
    Start(2, quirk);
    Write(100, 1);
    ASSERT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #0 F L AR"}));
    peer().RunUntil(7 * kMs);
    const Strings sent = Briefs(peer().Take());
    const std::string probe = *quirk ? "PROBE p0 e2 #1 seq=1" : "PROBE p0 e1 #1 seq=1";
    EXPECT_NE(std::find(sent.begin(), sent.end(), probe), sent.end()) << ::testing::PrintToString(sent);
  }
}

// MROCE-RNR-005 (v0.2): the hold lasts at least info and at most 2 x info + 100 us. The reference
// holds exactly info (here 30 us); the quirk rnr_hold_tenfold holds 300 us, past the 160 us bound.
TEST_F(SenderTest, RnrHoldBounds) {
  for (const char* quirk : {"", "rnr_hold_tenfold"}) {
    SCOPED_TRACE(*quirk ? quirk : "spec");
    Start(1, quirk);
    Send(100, 1);
    ASSERT_EQ(Settle().size(), 1u);
    const TimeNs t0 = peer().now();
    Deliver(peer().Nack({.code = wire::NackCode::kRnr, .psn = 0, .info = 30}));
    const TimeNs bound = t0 + (2 * 30 + 100) * kUs;
    peer().RunUntil(bound);
    const Strings sent = Briefs(peer().Take());
    if (*quirk == 0) {
      EXPECT_EQ(sent, (Strings{"SEND p0 e0 #0 F L AR RTX"}));
    } else {
      EXPECT_TRUE(sent.empty());
      peer().RunUntil(t0 + 300 * kUs);
      EXPECT_EQ(Briefs(peer().Take()), (Strings{"SEND p0 e0 #0 F L AR RTX"}));
    }
  }
}

// MROCE-RNR-005 with MROCE-PATH-014 (table 19.3 hold-at-failover): path 0 fails (plane 0's link
// down, variant fail_on_link_down) 10 us into a 1 ms RNR hold of its SEND. The reference re-sends
// the held content on path 1 at once; the legal variant hold_through_failover keeps the hold and
// re-sends it on path 1 when the hold ends, exactly 1 ms after the NACK, and the stream's later
// SEND waits for it (MROCE-RNR-008).
TEST_F(SenderTest, AHoldEndsAtAPathFailureOrWithTheVariantOutlastsIt) {
  for (const char* variants : {"fail_on_link_down", "fail_on_link_down+hold_through_failover"}) {
    SCOPED_TRACE(variants);
    const bool through = std::string(variants).find("hold_through") != std::string::npos;
    Start(2, "", variants);
    Send(100, 1);
    ASSERT_EQ(Briefs(Settle()), (Strings{"SEND p0 e0 #0 F L AR"}));
    const TimeNs t0 = peer().now();
    Deliver(peer().Nack({.code = wire::NackCode::kRnr, .psn = 0, .info = 1000}));
    Send(100, 2);  // stream 0's next receive: held back while recv_seq 0 is held
    peer().RunFor(10 * kUs);
    const CounterMap before = peer().Counters();
    peer().Call([&](Endpoint& ep) { ep.OnPlaneLink(0, false, peer().now()); });
    EXPECT_EQ(peer().path(0).state(), PathState::kFailed);
    const Strings at_failure = Briefs(Settle());
    if (!through) {
      EXPECT_EQ(at_failure, (Strings{"SEND p1 e0 #0 F L AR RTX", "SEND p1 e0 #1 F L AR"}));
      continue;
    }
    EXPECT_TRUE(at_failure.empty()) << ::testing::PrintToString(at_failure);
    peer().RunUntil(t0 + 1 * kMs - 1);
    EXPECT_TRUE(peer().Take().empty());
    peer().RunUntil(t0 + 1 * kMs);
    EXPECT_EQ(Briefs(Settle()), (Strings{"SEND p1 e0 #0 F L AR RTX", "SEND p1 e0 #1 F L AR"}));
    const CounterMap after = peer().Counters();
    EXPECT_EQ(after.at("path0.failover_resends") - before.at("path0.failover_resends"), 1u);
    EXPECT_EQ(after.at("conn.x_rnr_holds_ended") - before.at("conn.x_rnr_holds_ended"), 1u);
  }
}

// MROCE-ERR-006: RESOURCE holds for the path's RTO (1 ms before any sample), then the same PSN goes
// again; the eighth RESOURCE NACK for the content fails it with RESOURCE_ERR and ERROR.
TEST_F(SenderTest, ResourceHoldsForTheRtoAndTheEighthFails) {
  Start();
  Write(100, 1);
  ASSERT_EQ(Settle().size(), 1u);
  int resent = 0;
  for (int nack = 1; nack <= 8; ++nack) {
    const TimeNs at = peer().now();
    Deliver(peer().Nack({.code = wire::NackCode::kResource, .psn = 0}));
    if (nack == 8) break;
    peer().RunUntil(at + 1 * kMs - 1);
    EXPECT_TRUE(peer().Take().empty()) << "NACK " << nack;
    peer().RunUntil(at + 1 * kMs);
    const std::vector<Emitted> out = peer().Take();
    EXPECT_EQ(Briefs(out), (Strings{"WRITE p0 e0 #0 F L AR RTX"})) << "NACK " << nack;
    resent += static_cast<int>(out.size());
  }
  EXPECT_EQ(resent, 7);
  const std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kResource);
  EXPECT_EQ(peer().c().state(), ConnState::kError);
  EXPECT_EQ(peer().c().counters().Get(ConnCounter::kNackRxResource), 8u);
}

// MROCE-ERR-005: PSN_OUT_OF_WINDOW deems exactly that PSN lost and sends it again (RTX + AR).
TEST_F(SenderTest, PsnOutOfWindowNackRetransmitsThatPsn) {
  Start();
  for (uint64_t wr = 0; wr < 3; ++wr) Write(100, wr);
  ASSERT_EQ(Settle().size(), 3u);
  const CounterMap before = peer().Counters();
  Deliver(peer().Nack({.code = wire::NackCode::kPsnOutOfWindow, .psn = 1}));
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #1 F L AR RTX"}));
  const uint64_t b = IpLen(100);
  EXPECT_EQ(peer().MovedSince(before),
            (Moved{{"conn.nack_rx", 1}, {"conn.nack_rx_psn_out_of_window", 1}, {"conn.retransmits", 1},
                   {"conn.tx_bytes", b}, {"conn.tx_pkts", 1}, {"path0.loss_inferred", 1}, {"path0.retransmits", 1},
                   {"path0.tx_bytes", b}, {"path0.tx_pkts", 1}}));
}

// MROCE-ERR-003: a NACK code outside table 16.1 is counted in nack_rx and unknown_nack_rx, nothing
// else; MROCE-PATH-009: a NACK of another epoch changes nothing but stale_epoch_rx.
TEST_F(SenderTest, UnknownCodeAndOtherEpochNacksOnlyCount) {
  Start();
  Write(100, 1);
  ASSERT_EQ(Settle().size(), 1u);
  const CounterMap before = peer().Counters();
  Deliver(peer().Nack({.code = static_cast<wire::NackCode>(0x09), .psn = 0}));
  Deliver(peer().Nack({.code = static_cast<wire::NackCode>(0x00), .psn = 0}));
  Deliver(peer().Nack({.epoch = 1, .code = wire::NackCode::kRemoteAccess, .psn = 0}));
  EXPECT_TRUE(Settle().empty());
  EXPECT_TRUE(Completions().empty());
  EXPECT_EQ(peer().c().state(), ConnState::kEstablished);
  EXPECT_EQ(peer().MovedSince(before), (Moved{{"conn.nack_rx", 3}, {"conn.nack_rx_remote_access", 1},
                                              {"conn.unknown_nack_rx", 2}, {"path0.stale_epoch_rx", 1}}));
}

// MROCE-ERR-007 / MROCE-CMPL-011: REMOTE_ACCESS for an outstanding PSN fails that work request with
// REM_ACCESS_ERR first, flushes the rest, ERROR (counted once, MROCE-ERR-011), DISCONNECT ERROR.
TEST_F(SenderTest, RemoteAccessNackFailsItsRequestAndEntersError) {
  Start();
  Write(100, 1);
  Write(100, 2);
  ASSERT_EQ(Settle().size(), 2u);
  const CounterMap before = peer().Counters();
  Deliver(peer().Nack({.code = wire::NackCode::kRemoteAccess, .psn = 1, .msn = 1}));
  const std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].wr_id, 2u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kRemoteAccess);
  EXPECT_EQ(cs[1].wr_id, 1u);
  EXPECT_EQ(cs[1].status, CompletionStatus::kFlushed);
  EXPECT_EQ(Briefs(peer().Take()), (Strings{"DISCONNECT ERROR"}));
  EXPECT_EQ(peer().MovedSince(before), (Moved{{"conn.cmpl_error", 2}, {"conn.nack_rx", 1},
                                              {"conn.nack_rx_remote_access", 1}, {"endpoint.conn_errors", 1}}));
}

// MROCE-DUP-008 / MROCE-ERR-008: NACK INVALID_CONN names the peer's connection id; it counts only
// when its PSN is outstanding on the named path and epoch (else stale_nack_rx), and then aborts the
// connection with REM_ABORT_ERR and no DISCONNECT.
TEST_F(SenderTest, InvalidConnNackActsOnlyForAnOutstandingPsn) {
  Start();
  Write(100, 1);
  ASSERT_EQ(Settle().size(), 1u);
  CounterMap before = peer().Counters();
  Deliver(peer().Nack({.dst_conn = kPeerConn, .code = wire::NackCode::kInvalidConn, .psn = 5}));
  EXPECT_EQ(peer().c().state(), ConnState::kEstablished);
  EXPECT_EQ(peer().MovedSince(before), (Moved{{"conn.nack_rx", 1}, {"conn.nack_rx_invalid_conn", 1},
                                              {"path0.stale_nack_rx", 1}}));
  Deliver(peer().Nack({.dst_conn = kPeerConn, .code = wire::NackCode::kInvalidConn, .psn = 0}));
  EXPECT_EQ(peer().c().state(), ConnState::kQuarantine);
  const std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kRemoteAbort);
  EXPECT_TRUE(peer().Take().empty()) << "no DISCONNECT: the peer has no state";
}

// MROCE-PATH-015: with the only path FAILED the abandoned content waits (PROBEs only); it leaves
// as soon as the path is ACTIVE again, in the new epoch with a new PSN and RTX (MROCE-PATH-014,
// MROCE-LOSS-010). failover_resends counts re-sends on other paths only (table 17.3).
TEST_F(SenderTest, WithNoActivePathTheAbandonedContentWaitsForReintroduction) {
  Start();
  Write(100, 1);
  ASSERT_EQ(Settle().size(), 1u);
  peer().RunUntil(7 * kMs);
  EXPECT_EQ(Briefs(peer().Take()), (Strings{"WRITE p0 e0 #0 F L AR RTX", "WRITE p0 e0 #0 F L AR RTX",
                                            "PROBE p0 e1 #1 seq=1"}));
  const std::vector<Emitted> others = AnswerProbes(0, 1, 3);
  EXPECT_EQ(Briefs(others), (Strings{"WRITE p0 e1 #1 F L AR RTX"}));
  ASSERT_EQ(others.size(), 1u);
  EXPECT_EQ(others[0].at, 7 * kMs + 230 * kUs) << "at the third PROBE_ACK (PROBEs at 7, 7.11, 7.22 ms)";
  Deliver(peer().Ack({.epoch = 1, .epsn = 2, .trtx = true}));
  EXPECT_EQ(Ids(Completions()), (std::vector<uint64_t>{1}));
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kRetransmits), 3u);
  EXPECT_EQ(peer().path(0).counters.Get(PathCounter::kFailoverResends), 0u);
}

// MROCE-PATH-022: a path that fails again within 100 ms of its reintroduction needs twice as many
// consecutive PROBE_ACKs (6) to come back.
TEST_F(SenderTest, APathFailingSoonAfterReintroductionNeedsSixProbeAcks) {
  Start();
  Write(100, 1);
  ASSERT_EQ(Settle().size(), 1u);
  peer().RunUntil(7 * kMs);
  (void)AnswerProbes(0, 1, 3);
  ASSERT_EQ(peer().path(0).state(), PathState::kActive);
  Deliver(peer().Ack({.epoch = 1, .epsn = 2, .trtx = true}));
  Write(100, 2);  // never acknowledged: RTO 50 us (probe RTT 10 us), 100 us, 200 us
  ASSERT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e1 #2 F L AR"}));
  peer().RunFor(1 * kMs);
  ASSERT_EQ(peer().path(0).state(), PathState::kFailed);
  ASSERT_LT(peer().now() - peer().path(0).reintroduced_at, 100 * kMs);
  (void)AnswerProbes(0, 2, 5);
  EXPECT_EQ(peer().path(0).state(), PathState::kProbing) << "5 of 6";
  (void)AnswerProbes(0, 2, 1);
  EXPECT_EQ(peer().path(0).state(), PathState::kActive);
  EXPECT_EQ(peer().path(0).epoch, 2);
}

// MROCE-RNR-008: while a SEND of stream 0 is held by RNR, later receive-consuming messages of stream
// 0 wait; a WRITE of stream 0 and a SEND of stream 1 go on. When the hold ends the held PSN goes
// first, then the waiting SEND.
TEST_F(SenderTest, AnRnrHoldStopsLaterSendsOfItsStreamOnly) {
  Start();
  Send(100, 1, 0);  // SEND #0, recv_seq 0 of stream 0
  ASSERT_EQ(Settle().size(), 1u);
  const TimeNs t0 = peer().now();
  Deliver(peer().Nack({.code = wire::NackCode::kRnr, .psn = 0, .info = 50}));
  Send(100, 2, 0);   // recv_seq 1 of stream 0: waits
  Write(100, 3, 0);  // stream 0, consumes no receive
  Send(100, 4, 1);   // stream 1
  EXPECT_EQ(Briefs(Settle()), (Strings{"WRITE p0 e0 #1 F L AR", "SEND p0 e0 #2 F L AR"}));
  peer().RunUntil(t0 + 50 * kUs);
  const std::vector<Emitted> out = peer().Take();
  EXPECT_EQ(Briefs(out), (Strings{"SEND p0 e0 #0 F L AR RTX", "SEND p0 e0 #3 F L AR"}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].meta().meh()->stream_id, 0);
  EXPECT_EQ(out[1].meta().meh()->recv_seq, 1u);
}

// MROCE-STRM-011: no packet of msn m while m - u >= 1024, u the lowest msn of the stream not yet
// completed. Five paths give room for 1280 PSNs, so the stream window is the limit: msn 0 (100
// bytes) stays unacknowledged, msn 1..1023 (zero-length) go, msn 1024 waits for msn 0.
TEST_F(SenderTest, StreamWindowHoldsMsnBase1024UntilTheBaseCompletes) {
  Start(5);
  Write(100, 0);
  for (uint64_t wr = 1; wr <= 1100; ++wr) Write(0, wr);
  peer().RunFor(100 * kUs);
  const std::vector<Emitted> out = peer().Take();
  ASSERT_EQ(out.size(), 1024u);
  Msn highest = 0;
  for (const Emitted& e : out) highest = std::max(highest, e.meta().meh()->msn);
  EXPECT_EQ(highest, 1023u);
  ASSERT_EQ(out[0].ch().path_id, 0);
  Deliver(peer().Ack({.path = 0, .epsn = 1}));  // msn 0 completes: u = 1
  const std::vector<Emitted> more = Settle();
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(more[0].meta().meh()->msn, 1024u);
}

// MROCE-PLACE-013: at most 64 READs outstanding per connection; the 65th READ_REQ leaves when a
// READ completes (MROCE-PLACE-011: its response placed at the READ's buffer).
TEST_F(SenderTest, AtMost64ReadsOutstanding) {
  Start();
  std::vector<uint8_t> dst(65 * 8, 0);
  for (uint64_t wr = 0; wr < 65; ++wr) {
    const Status st = peer().Call([&](Endpoint& ep) {
      return ep.PostRead(peer().conn(), 0, dst.data() + wr * 8, 4, 0x2000 + wr * 8, 0x99, wr, peer().now());
    });
    ASSERT_TRUE(st.ok());
  }
  std::vector<Emitted> out = Settle();
  ASSERT_EQ(out.size(), 64u);
  EXPECT_EQ(Brief(out.back()), "READ_REQ p0 e0 #63 F L AR");
  EXPECT_EQ(out.back().meta().meh()->msg_len, 4u);
  DataArgs resp;
  resp.op = Opcode::kReadResp;
  resp.msn = 0;
  resp.payload = {0xDE, 0xAD, 0xBE, 0xEF};
  resp.ar = true;
  Deliver(peer().Data(resp));
  EXPECT_EQ(Briefs(ScriptedPeer::Only(Settle(), Opcode::kReadReq)), (Strings{"READ_REQ p0 e0 #64 F L AR"}));
  const std::vector<Completion> cs = Completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 0u);
  EXPECT_EQ(cs[0].op, CompletionOp::kRead);
  EXPECT_EQ(std::vector<uint8_t>(dst.begin(), dst.begin() + 5), (std::vector<uint8_t>{0xDE, 0xAD, 0xBE, 0xEF, 0}));
}

}  // namespace
}  // namespace mroce::ref
