// Statistics and edge cases of each stage, driven directly through a recording Emitter.
#include <gtest/gtest.h>

#include <cmath>

#include "mroce/impairment/loss.h"
#include "mroce/impairment/stages.h"
#include "mroce/impairment/targeted_drop.h"
#include "test_frames.h"

namespace mroce::impairment {
namespace {

using testing::FrameSpec;
using testing::MakePacket;

constexpr uint64_t kSeed = 20260901;

struct Recorder : Emitter {
  struct Out {
    Packet p;
    Duration delay;
  };
  std::vector<Out> out;
  std::vector<Packet> dropped;
  std::vector<Time> wakeups;
  uint64_t next_id = 1'000'000;
  void Emit(Packet&& p, Duration d) override { out.push_back({std::move(p), d}); }
  void Drop(Packet&& p) override { dropped.push_back(std::move(p)); }
  void RequestWakeup(Time at) override { wakeups.push_back(at); }
  uint64_t NewPacketId() override { return next_id++; }
};

// Feeds n packets (psn = i, given path/sport) through a stage at 1 us spacing.
void Feed(Stage& s, Recorder& r, int n, FrameSpec spec = {}, int first_psn = 0) {
  for (int i = 0; i < n; ++i) {
    spec.psn = static_cast<uint32_t>(first_psn + i);
    s.Process(MakePacket(static_cast<uint64_t>(first_psn + i + 1), spec), Time::FromNanos(int64_t{i} * 1000), r);
  }
}

TEST(BernoulliLossTest, ZeroOneAndHundredPercent) {
  for (double loss : {0.0, 1.0}) {
    BernoulliLoss s("loss", {loss, {}}, kSeed);
    Recorder r;
    Feed(s, r, 1000);
    EXPECT_EQ(r.dropped.size(), loss == 0.0 ? 0u : 1000u);
    EXPECT_EQ(r.out.size(), loss == 0.0 ? 1000u : 0u);
  }
  BernoulliLoss one("loss", {1.0, {}}, kSeed);
  Recorder r;
  Feed(one, r, 1);
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_EQ(r.dropped[0].FateString(), "dropped by loss");
}

TEST(BernoulliLossTest, AchievedCloseToConfigured) {
  BernoulliLoss s("loss", {0.01, {}}, kSeed);
  Recorder r;
  Feed(s, r, 100000);
  const StageStats st = s.Stats();
  EXPECT_EQ(st.considered, 100000u);
  EXPECT_NEAR(st.Line("loss")->achieved, 0.01, 0.001);
  EXPECT_NE(st.ToString().find("configured loss 1.00%, achieved"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("over 100000 packets"), std::string::npos);
}

TEST(BernoulliLossTest, MatchRestrictsToPath) {
  Match m;
  m.path_id = 3;
  BernoulliLoss s("loss", {1.0, m}, kSeed);
  Recorder r;
  FrameSpec a, b;
  b.path_id = 3;
  Feed(s, r, 10, a);
  Feed(s, r, 10, b, 100);
  EXPECT_EQ(r.dropped.size(), 10u);
  for (auto& p : r.dropped) EXPECT_EQ(p.Info().path_id, 3);
  EXPECT_EQ(s.Stats().considered, 10u);
}

TEST(GilbertElliottTest, MeanLossAndBurstLengthFromParameters) {
  auto params = GilbertElliottLoss::Params::FromMeanLossAndBurst(0.02, 4.0);
  EXPECT_NEAR(params.StationaryLoss(), 0.02, 1e-12);
  EXPECT_NEAR(params.MeanBurstLength(), 4.0, 1e-12);
  GilbertElliottLoss s("ge", params, kSeed);
  Recorder r;
  Feed(s, r, 400000);
  const StageStats st = s.Stats();
  EXPECT_NEAR(st.Line("loss")->achieved, 0.02, 0.003) << st.ToString();
  EXPECT_NEAR(s.AchievedMeanBurst(), 4.0, 0.25) << st.ToString();
}

TEST(GilbertElliottTest, EdgeCases) {
  GilbertElliottLoss none("ge0", GilbertElliottLoss::Params::FromMeanLossAndBurst(0.0, 3.0), kSeed);
  GilbertElliottLoss all("ge1", GilbertElliottLoss::Params::FromMeanLossAndBurst(1.0, 3.0), kSeed);
  Recorder r0, r1;
  Feed(none, r0, 5000);
  Feed(all, r1, 5000);
  EXPECT_EQ(r0.dropped.size(), 0u);
  EXPECT_EQ(r1.dropped.size(), 5000u);
}

TEST(FourStateLossTest, AchievedMatchesStationaryLoss) {
  FourStateLoss::Params p{.p13 = 0.01, .p31 = 0.3, .p32 = 0.2, .p23 = 0.5, .p14 = 0.005, .match = {}};
  FourStateLoss s("4s", p, kSeed);
  Recorder r;
  Feed(s, r, 400000);
  const StageStats st = s.Stats();
  EXPECT_GT(p.StationaryLoss(), 0.02);
  EXPECT_NEAR(st.Line("loss")->achieved, p.StationaryLoss(), 0.004) << st.ToString();
  FourStateLoss never("4s0", FourStateLoss::Params{}, kSeed);
  Recorder r0;
  Feed(never, r0, 1000);
  EXPECT_EQ(r0.dropped.size(), 0u);
}

TEST(TargetedDropTest, ByOpcodePathPsn) {
  TargetedDrop::Params params;
  params.match.path_id = 2;
  params.match.psn = 5;
  TargetedDrop s("td", params);
  Recorder r;
  FrameSpec spec;
  spec.path_id = 2;
  Feed(s, r, 10, spec);
  spec.path_id = 1;
  Feed(s, r, 10, spec);
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_EQ(r.dropped[0].Info().psn, 5u);
  EXPECT_EQ(r.dropped[0].Info().path_id, 2);
}

TEST(TargetedDropTest, NthRetransmission) {
  TargetedDrop::Params params;
  params.match.psn = 7;
  params.nth_retransmission = 2;
  TargetedDrop s("td", params);
  Recorder r;
  FrameSpec spec;
  spec.psn = 7;
  s.Process(MakePacket(1, spec), Time::Zero(), r);  // Original: not a retransmission.
  spec.flags = wire::kFlagRtx;
  s.Process(MakePacket(2, spec), Time::Zero(), r);  // First resend.
  s.Process(MakePacket(3, spec), Time::Zero(), r);  // Second resend: dropped.
  s.Process(MakePacket(4, spec), Time::Zero(), r);  // Third.
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_EQ(r.dropped[0].id, 3u);
  EXPECT_EQ(r.out.size(), 3u);
}

TEST(TargetedDropTest, AckThatWouldAcknowledgePsn) {
  TargetedDrop::Params params;
  params.match.opcode = static_cast<uint8_t>(wire::Opcode::kAck);
  params.ack_for_psn = 10;
  TargetedDrop s("td", params);
  Recorder r;
  auto ack = [](uint64_t id, uint32_t epsn, std::vector<int> sack) {
    Packet p;
    p.id = id;
    p.bytes = testing::MakeAck(0, epsn, sack);
    return p;
  };
  s.Process(ack(1, 5, {}), Time::Zero(), r);     // epsn 5: does not cover 10.
  s.Process(ack(2, 5, {3}), Time::Zero(), r);    // SACK bit 3 = PSN 9.
  s.Process(ack(3, 5, {4}), Time::Zero(), r);    // SACK bit 4 = PSN 10: first cover -> dropped.
  s.Process(ack(4, 11, {}), Time::Zero(), r);    // Covers again: not the first time.
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_EQ(r.dropped[0].id, 3u);
  TargetedDrop s2("td2", params);
  Recorder r2;
  s2.Process(ack(5, 11, {}), Time::Zero(), r2);  // Cumulative epsn past 10.
  EXPECT_EQ(r2.dropped.size(), 1u);
}

TEST(TargetedDropTest, WindowsSkipAndCount) {
  TargetedDrop::Params params;
  params.windows = {{Time::FromNanos(10'000), Time::FromNanos(20'000)}};
  TargetedDrop s("td", params);
  Recorder r;
  Feed(s, r, 30);  // Packets at 0, 1, ..., 29 us.
  EXPECT_EQ(r.dropped.size(), 10u);
  for (auto& p : r.dropped) EXPECT_TRUE(p.Info().psn >= 10 && p.Info().psn < 20);
  TargetedDrop::Params p2;
  p2.skip = 3;
  p2.count = 2;
  TargetedDrop s2("td2", p2);
  Recorder r2;
  Feed(s2, r2, 10);
  ASSERT_EQ(r2.dropped.size(), 2u);
  EXPECT_EQ(r2.dropped[0].Info().psn, 3u);
  EXPECT_EQ(r2.dropped[1].Info().psn, 4u);
}

TEST(DuplicateTest, DuplicatesAreNeverDuplicated) {
  DuplicateStage s("dup", {1.0, Duration::Micros(50), Duration::Zero(), {}}, kSeed);
  Recorder r;
  Feed(s, r, 100);
  ASSERT_EQ(r.out.size(), 200u);
  // Feed every output (copies included) through the same stage and a second one.
  DuplicateStage s2("dup2", {1.0, Duration::Zero(), Duration::Zero(), {}}, kSeed);
  Recorder r2, r3;
  for (auto& o : r.out) s.Process(Packet(o.p), Time::Zero(), r2);
  for (auto& o : r.out) s2.Process(Packet(o.p), Time::Zero(), r3);
  size_t copies = 0;
  for (auto& o : r.out) {
    if (o.p.is_duplicate) {
      ++copies;
      EXPECT_EQ(o.delay, Duration::Micros(50));
      EXPECT_NE(o.p.id, o.p.origin_id);
      EXPECT_EQ(o.p.bytes, r.out[0].p.bytes.size() ? o.p.bytes : o.p.bytes);
    }
  }
  EXPECT_EQ(copies, 100u);
  // 200 in: 100 originals duplicated again (their copies are not) -> 300 each.
  EXPECT_EQ(r2.out.size(), 300u);
  EXPECT_EQ(r3.out.size(), 300u);
  EXPECT_NEAR(s.Stats().Line("duplication")->achieved, 1.0, 1e-9);
}

TEST(DuplicateTest, RateCloseToConfigured) {
  DuplicateStage s("dup", {0.05, Duration::Zero(), Duration::Zero(), {}}, kSeed);
  Recorder r;
  Feed(s, r, 50000);
  EXPECT_NEAR(s.Stats().Line("duplication")->achieved, 0.05, 0.005);
  DuplicateStage zero("dup0", {0.0, Duration::Zero(), Duration::Zero(), {}}, kSeed);
  Recorder r0;
  Feed(zero, r0, 1000);
  EXPECT_EQ(r0.out.size(), 1000u);
}

TEST(CorruptTest, CrcCatchesEveryCorruption) {
  CorruptStage s("corrupt", {1.0, {}}, kSeed);
  Recorder r;
  Feed(s, r, 2000);
  ASSERT_EQ(r.out.size(), 2000u);
  for (auto& o : r.out) {
    ASSERT_TRUE(o.p.corrupted);
    auto parsed = wire::ParseFrame(o.p.bytes);
    ASSERT_FALSE(parsed.ok()) << "corruption at bit " << o.p.notes[0].detail << " not detected";
    // The bit lies inside the MetaRoCE part (after Eth 14 + IPv4 20 + UDP 8 = 42 bytes).
    EXPECT_GE(o.p.notes[0].detail, 42u * 8);
  }
  CorruptStage none("c0", {0.0, {}}, kSeed);
  Recorder r0;
  Feed(none, r0, 100);
  for (auto& o : r0.out) EXPECT_TRUE(wire::ParseFrame(o.p.bytes).ok());
}

TEST(CorruptTest, CrcErrorNamesCrcWhenPayloadBitFlipped) {
  CorruptStage s("corrupt", {1.0, {}}, 1);
  Recorder r;
  Feed(s, r, 500);
  int crc_errors = 0;
  for (auto& o : r.out) {
    auto parsed = wire::ParseFrame(o.p.bytes);
    ASSERT_FALSE(parsed.ok());
    crc_errors += parsed.error().code == "crc";
  }
  EXPECT_GT(crc_errors, 300);  // Most bits are in the payload/ext: the CRC check reports them.
}

TEST(DelayTest, ConstantAndDistributions) {
  DelayStage c("d", {Duration::Micros(5), DelayStage::Distribution::kConstant, 0, 2.5, false, Scope::kPerPath, {}}, kSeed);
  Recorder r;
  Feed(c, r, 10);
  for (auto& o : r.out) EXPECT_EQ(o.delay, Duration::Micros(5));
  for (auto dist : {DelayStage::Distribution::kUniform, DelayStage::Distribution::kNormal,
                    DelayStage::Distribution::kPareto}) {
    DelayStage s("dj", {Duration::Micros(10), dist, 2000, 3.0, false, Scope::kPerPath, {}}, kSeed);
    Recorder rr;
    Feed(s, rr, 50000);
    const StageStats st = s.Stats();
    for (auto& o : rr.out) ASSERT_GE(o.delay, Duration::Zero());
    EXPECT_NEAR(st.Line("mean delay")->achieved, st.Line("mean delay")->configured, 60) << st.ToString();
  }
}

// The constant delay skips the per-scope bookkeeping: same delays, statistics and fate notes with
// and without order preservation.
TEST(DelayTest, ConstantDelayStatsAndNotes) {
  for (bool order_preserving : {false, true}) {
    DelayStage c("d", {Duration::Micros(2), DelayStage::Distribution::kConstant, 0, 2.5, order_preserving,
                       Scope::kPerPath, {}}, kSeed);
    Recorder r;
    Feed(c, r, 1000);
    ASSERT_EQ(r.out.size(), 1000u);
    for (auto& o : r.out) {
      EXPECT_EQ(o.delay, Duration::Micros(2));
      ASSERT_EQ(o.p.notes.size(), 1);
      EXPECT_EQ(o.p.notes[0].kind, FateKind::kDelayed);
      EXPECT_EQ(o.p.notes[0].detail, 2000u);
    }
    const StageStats st = c.Stats();
    EXPECT_EQ(st.Line("mean delay")->achieved, 2000);
    EXPECT_EQ(st.Line("reordered")->achieved, 0);
    EXPECT_EQ(st.considered, 1000u);
  }
  DelayStage zero("z", {Duration::Zero(), DelayStage::Distribution::kConstant, 0, 2.5, false, Scope::kPerPath, {}}, kSeed);
  Recorder rz;
  Feed(zero, rz, 10);
  for (auto& o : rz.out) EXPECT_TRUE(o.p.notes.empty());  // No delay, no note.
}

// Borrowed frame bytes (the DPDK bridge's mbufs): reads and in-place edits reach the buffer; copies
// and size changes own their bytes; a move keeps the borrowing.
TEST(FrameBytesTest, BorrowEditCopyMove) {
  std::vector<uint8_t> buffer = testing::MakeFrame(FrameSpec{});
  const std::vector<uint8_t> original = buffer;
  Packet p;
  p.bytes.Borrow(buffer.data(), buffer.size());
  ASSERT_TRUE(p.bytes.borrowed());
  EXPECT_EQ(p.bytes.data(), buffer.data());
  EXPECT_TRUE(p.bytes == original);
  EXPECT_TRUE(p.Info().meta);  // Parsed where it lies.

  Packet copy = p;  // A duplicate: its own bytes.
  EXPECT_FALSE(copy.bytes.borrowed());
  EXPECT_NE(copy.bytes.data(), buffer.data());
  EXPECT_TRUE(copy.bytes == p.bytes);

  ASSERT_TRUE(p.MarkCe());  // Edits the buffer itself (IPv4 checksum kept valid).
  EXPECT_NE(buffer, original);
  EXPECT_EQ(wire::FrameView::Locate(std::span<const uint8_t>(buffer)).value().ecn(), wire::kEcnCe);
  EXPECT_TRUE(copy.bytes == original);  // The copy kept the bytes it was made from.
  p.bytes[buffer.size() - 1] ^= 1;
  EXPECT_EQ(buffer.back(), static_cast<uint8_t>(original.back() ^ 1));

  Packet moved = std::move(p);
  EXPECT_TRUE(moved.bytes.borrowed());
  EXPECT_EQ(moved.bytes.data(), buffer.data());

  moved.bytes.resize(buffer.size() + 4);  // A size change owns (copies) first.
  EXPECT_FALSE(moved.bytes.borrowed());
  moved.bytes[0] ^= 0xff;
  EXPECT_NE(buffer[0], moved.bytes[0]);
  EXPECT_EQ(moved.bytes.size(), buffer.size() + 4);

  FrameBytes none;
  none.Borrow(nullptr, 0);
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.borrowed());
  FrameBytes assigned;
  assigned.Borrow(buffer.data(), buffer.size());
  assigned = std::vector<uint8_t>{1, 2, 3};
  EXPECT_FALSE(assigned.borrowed());
  EXPECT_TRUE(assigned == (std::vector<uint8_t>{1, 2, 3}));
}

// Deferred frame bytes (the DPDK bridge: the mbuf is read only when a stage reads the frame): the
// resolver runs once, at the first access of any kind (const ones too); a move passes the deferral
// on untouched; a copy resolves and owns; clear and assignment drop it.
struct DeferredFrame {
  std::vector<uint8_t> buffer = testing::MakeFrame(FrameSpec{});
  int resolved = 0;
  static void Resolve(void* handle, FrameBytes* bytes) {
    auto* self = static_cast<DeferredFrame*>(handle);
    ++self->resolved;
    bytes->Borrow(self->buffer.data(), self->buffer.size());
  }
};

TEST(FrameBytesTest, DeferredResolvesOnceAtFirstAccess) {
  DeferredFrame frame;
  Packet p;
  p.bytes.Defer(&DeferredFrame::Resolve, &frame);
  EXPECT_TRUE(p.bytes.deferred());
  EXPECT_EQ(frame.resolved, 0);
  Packet moved = std::move(p);  // Passing a packet on does not read its frame.
  EXPECT_TRUE(moved.bytes.deferred());
  EXPECT_FALSE(p.bytes.deferred());
  EXPECT_EQ(frame.resolved, 0);
  moved.bytes.Prefetch();  // A hint only: still deferred.
  EXPECT_TRUE(moved.bytes.deferred());
  const Packet& view = moved;
  EXPECT_EQ(view.bytes.size(), frame.buffer.size());  // A const access resolves.
  EXPECT_EQ(frame.resolved, 1);
  EXPECT_FALSE(moved.bytes.deferred());
  EXPECT_TRUE(moved.bytes.borrowed());
  EXPECT_EQ(moved.bytes.data(), frame.buffer.data());
  EXPECT_TRUE(moved.Info().meta);
  EXPECT_EQ(frame.resolved, 1);  // Once.

  // Each first access resolves: header parse, CE mark, copy, borrowed(), index, Resolve().
  for (int kind = 0; kind < 6; ++kind) {
    DeferredFrame f;
    Packet q;
    q.bytes.Defer(&DeferredFrame::Resolve, &f);
    switch (kind) {
      case 0: EXPECT_TRUE(q.Info().meta); break;
      case 1: EXPECT_TRUE(q.MarkCe()); break;
      case 2: {
        Packet copy = q;
        EXPECT_FALSE(copy.bytes.borrowed());
        EXPECT_TRUE(copy.bytes == f.buffer);
        break;
      }
      case 3: EXPECT_TRUE(q.bytes.borrowed()); break;
      case 4: EXPECT_EQ(q.bytes[0], f.buffer[0]); break;
      case 5: q.bytes.Resolve(); q.bytes.Resolve(); break;
    }
    EXPECT_EQ(f.resolved, 1) << "access " << kind;
    EXPECT_FALSE(q.bytes.deferred());
  }
  {  // CE marking edited the frame where it lies.
    DeferredFrame f;
    Packet q;
    q.bytes.Defer(&DeferredFrame::Resolve, &f);
    ASSERT_TRUE(q.MarkCe());
    EXPECT_EQ(wire::FrameView::Locate(std::span<const uint8_t>(f.buffer)).value().ecn(), wire::kEcnCe);
  }

  // Cleared, assigned or renewed before any access: never resolved.
  DeferredFrame unused;
  FrameBytes a, b, c;
  a.Defer(&DeferredFrame::Resolve, &unused);
  a.clear();
  b.Defer(&DeferredFrame::Resolve, &unused);
  b = std::vector<uint8_t>{1, 2};
  c.Defer(&DeferredFrame::Resolve, &unused);
  c.assign(unused.buffer.begin(), unused.buffer.begin() + 3);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(c.size(), 3u);
  Packet r;
  r.bytes.Defer(&DeferredFrame::Resolve, &unused);
  r.Reset();
  EXPECT_TRUE(r.bytes.empty());
  EXPECT_EQ(unused.resolved, 0);
}

// Renew (the bridge's per-frame reset) leaves nothing of the packet's previous life.
TEST(FrameBytesTest, RenewClearsEveryField) {
  Packet p = MakePacket(9, FrameSpec{});
  p.is_duplicate = p.ce_marked = p.corrupted = true;
  p.ecmp_hash = 5;
  p.plane = 2;
  p.Note("x", FateKind::kDropped, 0, Time::Zero());
  ASSERT_TRUE(p.Info().meta);
  int handle = 0;
  p.Renew(42, Time::FromNanos(7), Direction::kPeerToDut, 3, 4, &handle);
  EXPECT_EQ(p.id, 42u);
  EXPECT_EQ(p.origin_id, 42u);
  EXPECT_EQ(p.ingress, Time::FromNanos(7));
  EXPECT_EQ(p.direction, Direction::kPeerToDut);
  EXPECT_EQ(p.plane, 0);
  EXPECT_EQ(p.src_host, 3);
  EXPECT_EQ(p.dst_host, 4);
  EXPECT_EQ(p.opaque, &handle);
  EXPECT_FALSE(p.is_duplicate || p.ce_marked || p.corrupted);
  EXPECT_EQ(p.ecmp_hash, 0u);
  EXPECT_TRUE(p.notes.empty());
  EXPECT_TRUE(p.bytes.empty());
  EXPECT_FALSE(p.Info().ip);  // The cached headers went with the old frame.
}

// The inline fate log keeps the first kCapacity notes, counts the rest, and a copy carries exactly
// the notes written (the storage past them is never read).
TEST(FateLogTest, KeepsCountsAndCopies) {
  Packet p;
  for (int i = 0; i < FateLog::kCapacity + 3; ++i) p.Note("s", FateKind::kDelayed, static_cast<uint32_t>(i), Time::FromNanos(i));
  EXPECT_EQ(p.notes.size(), FateLog::kCapacity);
  EXPECT_EQ(p.notes.dropped(), 3);
  Packet q = p;
  ASSERT_EQ(q.notes.size(), FateLog::kCapacity);
  for (int i = 0; i < q.notes.size(); ++i) EXPECT_EQ(q.notes[i].detail, static_cast<uint32_t>(i));
  EXPECT_EQ(q.FateString(), p.FateString());
  EXPECT_NE(q.FateString().find("+3 more"), std::string::npos);
  Packet r;
  r.Note("x", FateKind::kDropped, 0, Time::Zero());
  r = q;
  EXPECT_EQ(r.notes.size(), FateLog::kCapacity);
  q.Reset();
  EXPECT_TRUE(q.notes.empty());
  EXPECT_EQ(q.notes.dropped(), 0);
  EXPECT_EQ(q.FateString(), "clean");
}

TEST(DelayTest, OrderPreservingJitterNeverReorders) {
  DelayStage s("op", {Duration::Zero(), DelayStage::Distribution::kUniform, 20000, 2.5, true, Scope::kPerPath, {}}, kSeed);
  Recorder r;
  Feed(s, r, 5000);  // 1 us spacing, up to 20 us jitter.
  Time last = Time::Zero();
  for (size_t i = 0; i < r.out.size(); ++i) {
    const Time dep = Time::FromNanos(static_cast<int64_t>(i) * 1000) + r.out[i].delay;
    EXPECT_GE(dep, last);
    last = dep;
  }
  EXPECT_EQ(s.Stats().Line("reordered")->achieved, 0);
  DelayStage j("jit", {Duration::Zero(), DelayStage::Distribution::kUniform, 20000, 2.5, false, Scope::kPerPath, {}}, kSeed);
  Recorder rj;
  Feed(j, rj, 5000);
  EXPECT_GT(j.Stats().Line("reordered")->achieved, 1000);  // Jitter-induced reordering.
}

TEST(BlackholeTest, WindowAndGradualRecovery) {
  BlackholeStage::Params params;
  params.match.sport = 50000;
  params.schedule = {{Time::FromNanos(100'000), Time::FromNanos(200'000), Duration::Micros(100)}};
  BlackholeStage s("bh", params, kSeed);
  EXPECT_EQ(s.DropProbability(Time::FromNanos(99'999)), 0.0);
  EXPECT_EQ(s.DropProbability(Time::FromNanos(150'000)), 1.0);
  EXPECT_NEAR(s.DropProbability(Time::FromNanos(250'000)), 0.5, 1e-9);
  EXPECT_EQ(s.DropProbability(Time::FromNanos(300'000)), 0.0);
  Recorder r;
  FrameSpec on, off;
  on.sport = 50000;
  off.sport = 50001;
  Feed(s, r, 400, on);
  Feed(s, r, 400, off, 1000);
  size_t in_window = 0, in_ramp = 0;
  for (auto& p : r.dropped) {
    EXPECT_EQ(p.Info().sport, 50000);
    const uint32_t t_us = p.Info().psn;  // Packet i is sent at i us.
    EXPECT_GE(t_us, 100u);
    EXPECT_LT(t_us, 300u);
    (t_us < 200 ? in_window : in_ramp)++;
  }
  EXPECT_EQ(in_window, 100u);
  EXPECT_NEAR(static_cast<double>(in_ramp), 50.0, 15.0);
}

}  // namespace
}  // namespace mroce::impairment
