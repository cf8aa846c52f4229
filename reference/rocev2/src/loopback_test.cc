// Loopback: two RoCEv2 endpoints joined by a tiny deterministic link with drop / delay / corrupt
// rules, driven by sim::Simulator (simulated time, equal times in insertion order; nothing reads a
// clock).
//
//   A 02:..:01 10.0.0.1  ──[one_way_ns, rule A->B]──►  B 02:..:02 10.0.0.2
//                        ◄──[one_way_ns, rule B->A]──
//
// Each side paces at its QP's line rate; the link adds a fixed one-way delay (no queueing).
// Every frame that enters the link is parsed by the codec with ICRC verification. Each endpoint's
// NextDeadline() is one simulator event (sim::DeadlineTimer), each frame in flight another.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <vector>

#include "mroce/rocev2/aeth_syndrome.h"
#include "mroce/rocev2/endpoint.h"
#include "mroce/sim/deadline_timer.h"
#include "mroce/sim/simulator.h"
#include "mroce/wire/frame.h"

namespace mroce::rocev2 {
namespace {

using wire::RoceOpcode;

struct LinkAction {
  bool drop = false;
  TimeNs extra_delay_ns = 0;
  bool corrupt = false;  // flip one payload bit (the ICRC then fails)
  bool mark_ce = false;  // set IP ECN to CE (as a congested switch would; the ICRC masks TOS)
};
// Decides the fate of the n-th frame (0-based, per direction) carrying `pkt`.
using LinkRule = std::function<LinkAction(const wire::RocePacket& pkt, uint64_t n)>;

struct TraceEntry {
  int dir;  // 0: A->B, 1: B->A
  TimeNs at;
  RoceOpcode opcode;
  Psn psn;
  bool dropped;
};

class Loopback {
 public:
  struct Params {
    TimeNs one_way_ns = 1 * kMicrosecond;
    QpConfig qp_a;
    QpConfig qp_b;
  };

  explicit Loopback(Params p)
      : params_(p),
        sink_a_(this, 0),
        sink_b_(this, 1),
        a_(EndpointConfig{{{2, 0, 0, 0, 0, 1}, {10, 0, 0, 1}}}, &sink_a_),
        b_(EndpointConfig{{{2, 0, 0, 0, 0, 2}, {10, 0, 0, 2}}}, &sink_b_) {
    auto qa = a_.CreateQp(p.qp_a);
    auto qb = b_.CreateQp(p.qp_b);
    qpn_a_ = qa->qpn;
    qpn_b_ = qb->qpn;
    EXPECT_TRUE(a_.ConnectQp(qpn_a_, qb->AsRemote()).ok());
    EXPECT_TRUE(b_.ConnectQp(qpn_b_, qa->AsRemote()).ok());
  }

  // Runs events until `done` holds or simulated time passes `deadline`; returns done(). Stopped by
  // the deadline, the clock stands at the deadline.
  bool RunUntil(const std::function<bool()>& done, TimeNs deadline) {
    timer_a_.Rearm();  // the test may have called into the endpoints since the last run
    timer_b_.Rearm();
    return sim_.RunUntil(done, sim::Time::FromNanos(deadline));
  }

  RoceEndpoint& a() { return a_; }
  RoceEndpoint& b() { return b_; }
  Qpn qpn_a() const { return qpn_a_; }
  Qpn qpn_b() const { return qpn_b_; }
  TimeNs now() const { return sim_.Now().nanos(); }
  void set_rule(int dir, LinkRule rule) { rules_[dir] = std::move(rule); }
  const std::vector<TraceEntry>& trace() const { return trace_; }
  uint64_t bad_frames() const { return bad_frames_; }
  uint64_t dropped(int dir) const { return dropped_[dir]; }

 private:
  class Sink : public FrameSink {
   public:
    Sink(Loopback* lb, int dir) : lb_(lb), dir_(dir) {}
    void SendFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) override {
      lb_->Carry(dir_, frame, now);
    }

   private:
    Loopback* lb_;
    int dir_;
  };

  void Carry(int dir, std::span<const uint8_t> frame, TimeNs now) {
    EXPECT_EQ(now, this->now()) << "a frame stamped with a time other than the event's";
    auto parsed = wire::ParseFrame(frame);  // verifies the IPv4 checksum and the ICRC
    if (!parsed.ok() || parsed->roce() == nullptr) {
      ++bad_frames_;
      ADD_FAILURE() << "emitted frame does not parse: " << (parsed.ok() ? "not RoCEv2" : parsed.error().ToString());
      return;
    }
    const wire::RocePacket& pkt = *parsed->roce();
    EXPECT_EQ(parsed->udp.dport, 4791);
    EXPECT_EQ(parsed->udp.sport, dir == 0 ? params_.qp_a.udp_sport : params_.qp_b.udp_sport);
    const uint64_t n = count_[dir]++;
    LinkAction act;
    if (rules_[dir]) act = rules_[dir](pkt, n);
    trace_.push_back({dir, now, pkt.bth.opcode, pkt.bth.psn, act.drop});
    if (act.drop) {
      ++dropped_[dir];
      return;
    }
    std::vector<uint8_t> bytes(frame.begin(), frame.end());
    if (act.corrupt) bytes[bytes.size() - 6] ^= 0x01;
    if (act.mark_ce) {
      constexpr size_t kIp = wire::kEthHeaderSize;
      bytes[kIp + 1] |= wire::kEcnCe;
      bytes[kIp + 10] = bytes[kIp + 11] = 0;
      const uint16_t sum = wire::Ipv4HeaderChecksum(std::span<const uint8_t>(bytes).subspan(kIp, 20));
      bytes[kIp + 10] = static_cast<uint8_t>(sum >> 8);
      bytes[kIp + 11] = static_cast<uint8_t>(sum);
    }
    sim::DeadlineTimer<RoceEndpoint>& to = dir == 0 ? timer_b_ : timer_a_;
    sim_.Schedule(sim::Time::FromNanos(now + params_.one_way_ns + act.extra_delay_ns),
                  [this, &to, bytes = std::move(bytes)] {
                    to.Call([&](RoceEndpoint& ep) { ep.OnFrame(bytes, 0, this->now()); });
                  });
  }

  sim::Simulator sim_;  // first: outlives the events and timers below
  Params params_;
  Sink sink_a_;
  Sink sink_b_;
  RoceEndpoint a_;
  RoceEndpoint b_;
  Qpn qpn_a_ = 0;
  Qpn qpn_b_ = 0;
  sim::DeadlineTimer<RoceEndpoint> timer_a_{&sim_, &a_};
  sim::DeadlineTimer<RoceEndpoint> timer_b_{&sim_, &b_};
  LinkRule rules_[2];
  uint64_t count_[2] = {0, 0};
  uint64_t dropped_[2] = {0, 0};
  uint64_t bad_frames_ = 0;
  std::vector<TraceEntry> trace_;
};

// One memory layout on both endpoints: A's source/destination buffers and B's, all registered
// with every access right.
class LoopbackTest : public ::testing::Test {
 protected:
  static constexpr size_t kBufBytes = 4 << 20;

  void Init(Loopback::Params p) {
    lb_ = std::make_unique<Loopback>(p);
    a_buf_.assign(kBufBytes, 0);
    b_buf_.assign(kBufBytes, 0);
    std::mt19937 rng(1234);
    for (auto& x : a_buf_) x = static_cast<uint8_t>(rng());
    for (auto& x : b_buf_) x = static_cast<uint8_t>(rng());
    const uint32_t all = kAccessLocalWrite | kAccessRemoteWrite | kAccessRemoteRead;
    a_mr_ = *lb_->a().RegisterMemory(a_buf_.data(), a_buf_.size(), all);
    b_mr_ = *lb_->b().RegisterMemory(b_buf_.data(), b_buf_.size(), all);
  }

  // Posts on A: a WRITE of [a_off, +len) to B's [b_off, +len), and the expected image of B.
  void PostWrite(uint64_t id, uint64_t a_off, uint64_t b_off, uint32_t len) {
    ASSERT_TRUE(lb_->a()
                    .PostSend(lb_->qpn_a(),
                              SendWr{id, WrOpcode::kWrite, Sge{a_mr_.va + a_off, len, a_mr_.lkey},
                                     b_mr_.va + b_off, b_mr_.rkey},
                              lb_->now())
                    .ok());
    checks_.push_back({true, a_off, b_off, len});
    expected_ids_.push_back(id);
  }
  // READ of B's [b_off, +len) into A's [a_off, +len).
  void PostRead(uint64_t id, uint64_t a_off, uint64_t b_off, uint32_t len) {
    ASSERT_TRUE(lb_->a()
                    .PostSend(lb_->qpn_a(),
                              SendWr{id, WrOpcode::kRead, Sge{a_mr_.va + a_off, len, a_mr_.lkey},
                                     b_mr_.va + b_off, b_mr_.rkey},
                              lb_->now())
                    .ok());
    checks_.push_back({false, a_off, b_off, len});
    expected_ids_.push_back(id);
  }
  // SEND of A's [a_off, +len) into a receive B posts at [b_off, +len).
  void PostSendRecv(uint64_t id, uint64_t a_off, uint64_t b_off, uint32_t len) {
    ASSERT_TRUE(lb_->b().PostRecv(lb_->qpn_b(), RecvWr{1000 + id, Sge{b_mr_.va + b_off, len, b_mr_.lkey}}).ok());
    ASSERT_TRUE(lb_->a()
                    .PostSend(lb_->qpn_a(),
                              SendWr{id, WrOpcode::kSend, Sge{a_mr_.va + a_off, len, a_mr_.lkey}, 0, 0},
                              lb_->now())
                    .ok());
    checks_.push_back({true, a_off, b_off, len});
    expected_ids_.push_back(id);
    expected_recv_ids_.push_back(1000 + id);
    expected_recv_lens_.push_back(len);
  }

  // Runs until every posted request completed; checks order, exactly-once, status and data.
  void RunAndVerify(TimeNs deadline = 10 * 1000 * kMillisecond) {
    std::vector<Completion> a_done, b_done;
    const bool ok = lb_->RunUntil(
        [&] {
          for (auto& c : lb_->a().PollCompletions()) a_done.push_back(c);
          for (auto& c : lb_->b().PollCompletions()) b_done.push_back(c);
          return a_done.size() >= expected_ids_.size() && b_done.size() >= expected_recv_ids_.size();
        },
        deadline);
    ASSERT_TRUE(ok) << "only " << a_done.size() << " of " << expected_ids_.size() << " completed by t="
                    << lb_->now();
    // Drain what is left in flight (final ACKs) so counters settle, then look for extra completions.
    lb_->RunUntil([] { return false; }, lb_->now() + 100 * kMillisecond);
    for (auto& c : lb_->a().PollCompletions()) a_done.push_back(c);
    for (auto& c : lb_->b().PollCompletions()) b_done.push_back(c);
    ASSERT_EQ(a_done.size(), expected_ids_.size()) << "completions not exactly once";
    for (size_t i = 0; i < a_done.size(); ++i) {
      EXPECT_EQ(a_done[i].wr_id, expected_ids_[i]) << "completion " << i << " out of order";
      EXPECT_EQ(a_done[i].status, CompletionStatus::kSuccess) << CompletionStatusName(a_done[i].status);
    }
    ASSERT_EQ(b_done.size(), expected_recv_ids_.size());
    for (size_t i = 0; i < b_done.size(); ++i) {
      EXPECT_EQ(b_done[i].wr_id, expected_recv_ids_[i]);
      EXPECT_EQ(b_done[i].op, CompletionOp::kRecv);
      EXPECT_EQ(b_done[i].byte_len, expected_recv_lens_[i]);
    }
    for (const Check& c : checks_) {
      EXPECT_EQ(std::memcmp(a_buf_.data() + c.a_off, b_buf_.data() + c.b_off, c.len), 0)
          << (c.a_to_b ? "A->B" : "B->A") << " data differs at a_off " << c.a_off << " len " << c.len;
    }
    EXPECT_EQ(lb_->bad_frames(), 0u);
  }

  Counters A() const { return lb_->a().counters(); }
  Counters B() const { return lb_->b().counters(); }

  struct Check {
    bool a_to_b;
    uint64_t a_off, b_off;
    uint32_t len;
  };
  std::unique_ptr<Loopback> lb_;
  std::vector<uint8_t> a_buf_, b_buf_;
  MemoryRegion a_mr_, b_mr_;
  std::vector<Check> checks_;
  std::vector<uint64_t> expected_ids_, expected_recv_ids_;
  std::vector<uint32_t> expected_recv_lens_;
};

const std::vector<uint32_t> kSizes = {0, 1, 4, 1023, 1024, 1025, 3 * 4096 + 7, 64 * 1024, 1 << 20};

TEST_F(LoopbackTest, LosslessWriteSendReadOfSeveralSizes) {
  Init({});
  uint64_t id = 1, off = 0;
  for (uint32_t len : kSizes) {
    PostWrite(id++, off, off, len);
    off += len + 64;
    PostSendRecv(id++, off, off, len);
    off += len + 64;
    PostRead(id++, off, off, len);
    off += len + 64;
  }
  RunAndVerify();
  EXPECT_EQ(A().Get(Counter::kRetransmits), 0u);
  EXPECT_EQ(A().Get(Counter::kTimeouts), 0u);
  EXPECT_EQ(B().Get(Counter::kNaksTx), 0u);
  EXPECT_EQ(B().Get(Counter::kDupRx), 0u);
  EXPECT_EQ(B().Get(Counter::kOutOfSeqRx), 0u);
  EXPECT_EQ(A().Get(Counter::kMessagesTx), kSizes.size() * 3);
  EXPECT_EQ(B().Get(Counter::kMessagesRx), kSizes.size() * 3);
  EXPECT_EQ(A().Get(Counter::kIcrcErrors) + B().Get(Counter::kIcrcErrors), 0u);
  // Every frame of both directions went through the codec with a verified ICRC.
  EXPECT_EQ(A().Get(Counter::kTxPkts), B().Get(Counter::kRxPkts));
  EXPECT_EQ(B().Get(Counter::kTxPkts), A().Get(Counter::kRxPkts));
}

TEST_F(LoopbackTest, LineRatePacingSpacesDataFrames) {
  Loopback::Params p;
  p.qp_a.line_rate_bps = 10'000'000'000;  // 10 Gb/s
  Init(p);
  PostWrite(1, 0, 0, 64 * 1024);
  RunAndVerify();
  std::vector<TimeNs> sends;
  for (const auto& t : lb_->trace()) {
    if (t.dir == 0) sends.push_back(t.at);
  }
  ASSERT_EQ(sends.size(), 64u);
  // 1024 payload + 12 BTH + 4 ICRC + 28 UDP/IP + 14 Ethernet + 24 wire overhead = 1106 B = 884.8 ns;
  // the WRITE FIRST also carries the 16-byte RETH: 1122 B = 897.6 ns.
  EXPECT_EQ(sends[1] - sends[0], 898);
  for (size_t i = 2; i < sends.size(); ++i) {
    EXPECT_GE(sends[i] - sends[i - 1], 884);
    EXPECT_LE(sends[i] - sends[i - 1], 885);
  }
}

// A single drop of the k-th packet of a window-limited burst of W packets: the responder NAKs once
// (PSN k), drops the W-k-1 packets after it, and the requester re-sends exactly W-k packets.
TEST_F(LoopbackTest, SingleDropGoesBackNWithExactlyWindowMinusKRetransmissions) {
  constexpr uint32_t kW = 16;
  constexpr uint32_t kK = 5;
  Loopback::Params p;
  p.one_way_ns = 5 * kMicrosecond;  // the whole window leaves before the NAK can return
  p.qp_a.window_pkts = kW;
  p.qp_a.initial_psn = 1000;
  Init(p);
  bool dropped = false;
  lb_->set_rule(0, [&](const wire::RocePacket& pkt, uint64_t) {
    LinkAction a;
    if (!dropped && pkt.bth.psn == 1000 + kK) a.drop = dropped = true;
    return a;
  });
  PostWrite(1, 0, 0, kW * 1024);
  RunAndVerify();
  EXPECT_EQ(A().Get(Counter::kRetransmits), kW - kK);
  EXPECT_EQ(A().Get(Counter::kTxPkts) - A().Get(Counter::kAcksTx), kW + (kW - kK));
  EXPECT_EQ(B().Get(Counter::kSeqNaksTx), 1u);  // once per sequence-error episode
  EXPECT_EQ(A().Get(Counter::kSeqNaksRx), 1u);
  EXPECT_EQ(B().Get(Counter::kOutOfSeqRx), kW - kK - 1);
  EXPECT_EQ(A().Get(Counter::kTimeouts), 0u);
  // The re-sent PSNs are k..W-1, in order, after the NAK.
  std::vector<Psn> resent;
  bool after_nak = false;
  for (const auto& t : lb_->trace()) {
    if (t.dir == 1 && t.opcode == RoceOpcode::kAck) after_nak = true;
    if (t.dir == 0 && after_nak) resent.push_back(t.psn);
  }
  ASSERT_EQ(resent.size(), kW - kK);
  for (uint32_t i = 0; i < resent.size(); ++i) EXPECT_EQ(resent[i], 1000 + kK + i);
}

TEST_F(LoopbackTest, RandomOnePercentLossRecoversByGoBackN) {
  constexpr uint64_t kSeed = 20240824;
  SCOPED_TRACE("seed " + std::to_string(kSeed));
  Init({});
  std::mt19937_64 rng(kSeed);
  std::bernoulli_distribution lose(0.01);
  for (int dir = 0; dir < 2; ++dir) {
    lb_->set_rule(dir, [&](const wire::RocePacket&, uint64_t) {
      LinkAction a;
      a.drop = lose(rng);
      return a;
    });
  }
  uint64_t id = 1, off = 0;
  for (int round = 0; round < 4; ++round) {
    for (uint32_t len : {100u, 4096u, 65536u, 200000u}) {
      PostWrite(id++, off, off, len);
      off += len;
      PostSendRecv(id++, off, off, len);
      off += len;
      PostRead(id++, off, off, len);
      off += len;
    }
  }
  RunAndVerify();
  const uint64_t drops = lb_->dropped(0) + lb_->dropped(1);
  const uint64_t retx = A().Get(Counter::kRetransmits);
  std::printf("1%% loss: %lu frames dropped (%lu A->B, %lu B->A), %lu retransmits, %lu seq NAKs, %lu implied "
              "NAKs, %lu timeouts\n",
              static_cast<unsigned long>(drops), static_cast<unsigned long>(lb_->dropped(0)),
              static_cast<unsigned long>(lb_->dropped(1)), static_cast<unsigned long>(retx),
              static_cast<unsigned long>(A().Get(Counter::kSeqNaksRx)),
              static_cast<unsigned long>(A().Get(Counter::kImpliedNaks)),
              static_cast<unsigned long>(A().Get(Counter::kTimeouts)));
  EXPECT_GT(drops, 10u);
  // Go-back-N: each loss of a request packet re-sends it and everything sent after it, so the
  // requester re-sends far more packets than the link lost.
  EXPECT_GT(retx, 3 * lb_->dropped(0));
  EXPECT_GT(B().Get(Counter::kOutOfSeqRx), 0u);
}

// Reordering is not loss, but RC cannot tell: a late packet makes the responder NAK and the
// requester re-send from the late PSN (spurious retransmissions; the late original is a duplicate
// or is accepted, the resent copy then a duplicate).
TEST_F(LoopbackTest, ReorderingCausesNakAndSpuriousGoBackN) {
  Loopback::Params p;
  p.qp_a.initial_psn = 77;
  Init(p);
  bool delayed = false;
  lb_->set_rule(0, [&](const wire::RocePacket& pkt, uint64_t) {
    LinkAction a;
    if (!delayed && pkt.bth.psn == 77 + 3) {
      delayed = true;
      a.extra_delay_ns = 500;  // arrives after a few later packets
    }
    return a;
  });
  PostWrite(1, 0, 0, 32 * 1024);
  RunAndVerify();
  EXPECT_EQ(lb_->dropped(0) + lb_->dropped(1), 0u);
  // PSN 80 arrives after 81: NAK(80). The late 80 is then accepted and the rest of the first burst
  // (83, ...) opens a second episode: NAK(81). Both NAKs make the requester go back.
  EXPECT_EQ(B().Get(Counter::kSeqNaksTx), 2u);
  EXPECT_EQ(A().Get(Counter::kSeqNaksRx), 2u);
  EXPECT_GT(A().Get(Counter::kRetransmits), 0u);  // all spurious: nothing was lost
  EXPECT_GT(B().Get(Counter::kDupRx), 0u);
  EXPECT_GT(B().Get(Counter::kOutOfSeqRx), 0u);
}

TEST_F(LoopbackTest, CorruptedFrameIsCountedAsIcrcErrorAndRecovered) {
  Init({});
  lb_->set_rule(0, [&](const wire::RocePacket& pkt, uint64_t n) {
    LinkAction a;
    a.corrupt = n == 2;
    return a;
  });
  PostWrite(1, 0, 0, 8 * 1024);
  RunAndVerify();
  EXPECT_EQ(B().Get(Counter::kIcrcErrors), 1u);
  EXPECT_EQ(A().Get(Counter::kRetransmits), 6u);  // packets 2..7 again
}

TEST_F(LoopbackTest, PsnWrapsAt24Bits) {
  Loopback::Params p;
  p.qp_a.initial_psn = 0xFFFFF0;
  p.qp_b.initial_psn = 0xFFFFFE;
  Init(p);
  bool once = false;  // drop the first transmission of the packet just past the wrap
  lb_->set_rule(0, [&](const wire::RocePacket& pkt, uint64_t) {
    LinkAction a;
    if (!once && pkt.bth.psn == 2) a.drop = once = true;
    return a;
  });
  PostWrite(1, 0, 0, 40 * 1024);
  PostRead(2, 100000, 100000, 10 * 1024);
  PostSendRecv(3, 200000, 200000, 5000);
  RunAndVerify();
  bool saw_top = false, saw_wrapped = false;
  for (const auto& t : lb_->trace()) {
    if (t.dir == 0 && t.psn == 0xFFFFFF) saw_top = true;
    if (t.dir == 0 && t.psn == 0) saw_wrapped = true;
  }
  EXPECT_TRUE(saw_top && saw_wrapped);
  EXPECT_EQ(B().Get(Counter::kSeqNaksTx), 1u);
  EXPECT_EQ(lb_->a().qp(lb_->qpn_a())->requester().una(), PsnAdd(0xFFFFF0, 40 + 10 + 5));
}

TEST_F(LoopbackTest, LostReadResponseIsReRequestedFromTheMissingPsn) {
  Init({});
  bool once = false;
  lb_->set_rule(1, [&](const wire::RocePacket& pkt, uint64_t) {
    LinkAction a;
    if (!once && pkt.bth.opcode == RoceOpcode::kReadResponseMiddle && pkt.bth.psn == 4) a.drop = once = true;
    return a;
  });
  PostRead(1, 0, 0, 10 * 1024);  // PSNs 0..9
  RunAndVerify();
  EXPECT_EQ(A().Get(Counter::kImpliedNaks), 1u);
  EXPECT_EQ(A().Get(Counter::kRetransmits), 1u);  // one READ request for the rest
  EXPECT_EQ(B().Get(Counter::kDupRx), 1u);
}

TEST_F(LoopbackTest, SendBeforeReceiveIsPostedGetsRnrNakThenCompletes) {
  Loopback::Params p;
  p.qp_b.min_rnr_timer = 2;  // 20 us
  Init(p);
  ASSERT_TRUE(lb_->a()
                  .PostSend(lb_->qpn_a(), SendWr{1, WrOpcode::kSend, Sge{a_mr_.va, 3000, a_mr_.lkey}, 0, 0}, 0)
                  .ok());
  expected_ids_.push_back(1);
  lb_->RunUntil([] { return false; }, 50 * kMicrosecond);  // two RNR rounds: 0..~4 us, ~24 us, ~48 us
  ASSERT_TRUE(lb_->b().PostRecv(lb_->qpn_b(), RecvWr{1001, Sge{b_mr_.va, 3000, b_mr_.lkey}}).ok());
  expected_recv_ids_.push_back(1001);
  expected_recv_lens_.push_back(3000);
  checks_.push_back({true, 0, 0, 3000});
  RunAndVerify();
  EXPECT_GE(B().Get(Counter::kRnrNaksTx), 2u);
  EXPECT_EQ(A().Get(Counter::kRnrNaksRx), B().Get(Counter::kRnrNaksTx));
  EXPECT_EQ(A().Get(Counter::kRnrRetries), A().Get(Counter::kRnrNaksRx));
  EXPECT_EQ(B().Get(Counter::kSeqNaksTx), 0u);  // the RNR episode silences sequence NAKs
}

TEST_F(LoopbackTest, BadRkeyFailsWithRemoteAccessAndFlushesLaterWork) {
  Init({});
  ASSERT_TRUE(lb_->a()
                  .PostSend(lb_->qpn_a(),
                            SendWr{1, WrOpcode::kWrite, Sge{a_mr_.va, 100, a_mr_.lkey}, b_mr_.va, b_mr_.rkey + 1}, 0)
                  .ok());
  ASSERT_TRUE(lb_->a()
                  .PostSend(lb_->qpn_a(),
                            SendWr{2, WrOpcode::kWrite, Sge{a_mr_.va, 100, a_mr_.lkey}, b_mr_.va, b_mr_.rkey}, 0)
                  .ok());
  std::vector<Completion> done;
  ASSERT_TRUE(lb_->RunUntil(
      [&] {
        for (auto& c : lb_->a().PollCompletions()) done.push_back(c);
        return done.size() == 2;
      },
      kMillisecond));
  EXPECT_EQ(done[0].status, CompletionStatus::kRemoteAccess);
  EXPECT_EQ(done[1].status, CompletionStatus::kFlushed);
  EXPECT_EQ(B().Get(Counter::kRemoteAccessErrors), 1u);
  EXPECT_EQ(lb_->a().qp(lb_->qpn_a())->state(), QpState::kError);
  EXPECT_EQ(lb_->b().qp(lb_->qpn_b())->state(), QpState::kError);
}

TEST_F(LoopbackTest, BlackholeExhaustsRetriesWithRetryExceeded) {
  Loopback::Params p;
  p.qp_a.retry_cnt = 7;
  p.qp_a.ack_timeout_ns = 100 * kMicrosecond;
  Init(p);
  lb_->set_rule(0, [](const wire::RocePacket&, uint64_t) { return LinkAction{.drop = true}; });
  ASSERT_TRUE(lb_->a()
                  .PostSend(lb_->qpn_a(),
                            SendWr{1, WrOpcode::kWrite, Sge{a_mr_.va, 2048, a_mr_.lkey}, b_mr_.va, b_mr_.rkey}, 0)
                  .ok());
  std::vector<Completion> done;
  ASSERT_TRUE(lb_->RunUntil(
      [&] {
        for (auto& c : lb_->a().PollCompletions()) done.push_back(c);
        return !done.empty();
      },
      10 * kMillisecond));
  EXPECT_EQ(done[0].status, CompletionStatus::kRetryExceeded);
  EXPECT_EQ(A().Get(Counter::kTimeouts), 8u);        // the first try + 7 retries, each timed out
  EXPECT_EQ(A().Get(Counter::kRetransmits), 7u * 2);  // 2 packets per retry
  EXPECT_EQ(lb_->now(), 8 * 100 * kMicrosecond);      // fixed timeout, no backoff
}

TEST_F(LoopbackTest, CeMarkedPacketsDrawRateLimitedCnpsAndNoRateChange) {
  Loopback::Params p;
  p.qp_b.send_cnp = true;
  p.qp_b.cnp_interval_ns = 50 * kMicrosecond;
  p.qp_a.line_rate_bps = 1'000'000'000;  // 1 Gb/s: 1106 B per 8848 ns, 64 packets take ~566 us
  Init(p);
  lb_->set_rule(0, [](const wire::RocePacket&, uint64_t) { return LinkAction{.mark_ce = true}; });
  PostWrite(1, 0, 0, 64 * 1024);
  RunAndVerify();
  EXPECT_EQ(B().Get(Counter::kEcnCeRx), 64u);
  // One CNP per 50 us of marked arrivals: arrivals span 1 us .. 558 us -> CNPs at ~1, 54, 107, ...
  EXPECT_GE(B().Get(Counter::kCnpTx), 11u);
  EXPECT_LE(B().Get(Counter::kCnpTx), 12u);
  EXPECT_EQ(A().Get(Counter::kCnpRx), B().Get(Counter::kCnpTx));
  // No DCQCN: the sender keeps its fixed line rate.
  std::vector<TimeNs> sends;
  for (const auto& t : lb_->trace()) {
    if (t.dir == 0) sends.push_back(t.at);
  }
  for (size_t i = 1; i < sends.size(); ++i) EXPECT_LE(sends[i] - sends[i - 1], 8976);  // 8848, RETH: 8976
}

}  // namespace
}  // namespace mroce::rocev2
