// Pipeline ordering and the stages that need the simulator: reorder, rate limit, ECN marking.
#include "mroce/impairment/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "mroce/impairment/loss.h"
#include "mroce/impairment/rate_limit.h"
#include "mroce/impairment/stages.h"
#include "mroce/impairment/targeted_drop.h"
#include "test_frames.h"

namespace mroce::impairment {
namespace {

using testing::FrameSpec;
using testing::MakePacket;

struct Harness {
  sim::Simulator sim;
  Pipeline pipeline{&sim, "test"};
  std::vector<std::pair<Packet, Time>> out;
  std::vector<Packet> dropped;
  Harness() {
    pipeline.set_output([this](Packet&& p, Time t) { out.emplace_back(std::move(p), t); });
    pipeline.set_drop_observer([this](Packet&& p, const Stage&, Time) { dropped.push_back(std::move(p)); });
  }
  // n packets at `gap` spacing; packet i has psn first+i and sport from `spec`.
  void Send(int n, Duration gap, FrameSpec spec = {}, uint32_t first = 0, Time start = Time::Zero()) {
    for (int i = 0; i < n; ++i) {
      spec.psn = first + static_cast<uint32_t>(i);
      Packet p = MakePacket(first + i + 1, spec);
      sim.Schedule(start + gap * i, [this, p = std::move(p)]() mutable { pipeline.Push(std::move(p)); });
    }
  }
};

TEST(PipelineTest, StagesRunInCanonicalOrder) {
  Harness h;
  h.pipeline.Emplace<ReorderStage>("reorder", ReorderStage::Params{}, 1);
  h.pipeline.Emplace<BernoulliLoss>("loss", BernoulliLoss::Params{0.0, {}}, 1);
  h.pipeline.Emplace<BlackholeStage>("bh", BlackholeStage::Params{}, 1);
  ASSERT_EQ(h.pipeline.stages().size(), 3u);
  EXPECT_EQ(h.pipeline.stages()[0]->name(), "bh");
  EXPECT_EQ(h.pipeline.stages()[1]->name(), "loss");
  EXPECT_EQ(h.pipeline.stages()[2]->name(), "reorder");
}

TEST(ReorderTest, DisplacementIsExactlyKWithoutDelay) {
  for (uint32_t k : {1u, 3u, 7u}) {
    Harness h;
    ReorderStage::Params p;
    p.k = k;
    p.every = 20;
    h.pipeline.Emplace<ReorderStage>("reorder", p, 1);
    h.Send(200, Duration::Micros(1));
    h.sim.RunUntilTime(Time::FromNanos(10'000'000));
    ASSERT_EQ(h.out.size(), 200u);
    // Output position minus input position: +k for a held packet, -1 for the k it let pass, else 0.
    int displaced = 0, passed = 0;
    for (size_t pos = 0; pos < h.out.size(); ++pos) {
      const int64_t shift = static_cast<int64_t>(pos) - static_cast<int64_t>(h.out[pos].first.Info().psn);
      if (shift > 0) {
        EXPECT_EQ(shift, k);
        ++displaced;
      } else if (shift < 0) {
        EXPECT_EQ(shift, -1);
        ++passed;
      }
      // No base delay: each packet leaves at the arrival time of some packet.
      EXPECT_EQ(h.out[pos].second.nanos() % 1000, 0);
    }
    EXPECT_GE(displaced, 7);
    EXPECT_EQ(passed, displaced * static_cast<int>(k));
    EXPECT_EQ(h.pipeline.stages()[0]->Stats().Line("displacement")->achieved, k);
  }
}

TEST(ReorderTest, WithinOnePathOnly) {
  Harness h;
  ReorderStage::Params p;
  p.k = 2;
  p.every = 1000000;  // Select only the 1,000,000th... i.e. use `match` + every=1 below instead.
  p.every = 1;
  p.match.sport = 50000;
  p.scope = Scope::kPerPath;
  h.pipeline.Emplace<ReorderStage>("reorder", p, 1);
  FrameSpec a, b;
  a.sport = 50000;
  b.sport = 50001;
  h.Send(3, Duration::Micros(2), a, 0);                                 // 0, 2, 4 us
  h.Send(3, Duration::Micros(2), b, 100, Time::FromNanos(1000));        // 1, 3, 5 us
  h.sim.RunUntilTime(Time::FromNanos(100'000));
  std::vector<uint32_t> order;
  for (auto& [pk, t] : h.out) order.push_back(pk.Info().psn);
  // Path A psn 0 waits for 2 more A packets (1, 2); B packets are not counted and pass freely.
  EXPECT_EQ(order, (std::vector<uint32_t>{100, 1, 101, 2, 0, 102}));
}

TEST(ReorderTest, FlushAfterMaxHoldWhenTrafficStops) {
  Harness h;
  ReorderStage::Params p;
  p.k = 5;
  p.max_hold = Duration::Micros(100);
  h.pipeline.Emplace<ReorderStage>("reorder", p, 1);
  h.Send(1, Duration::Micros(1));
  h.sim.RunUntilTime(Time::FromNanos(1'000'000));
  ASSERT_EQ(h.out.size(), 1u);
  EXPECT_EQ(h.out[0].second, Time::FromNanos(100'000));
  EXPECT_EQ(h.pipeline.stages()[0]->Stats().Line("flushed at max_hold")->achieved, 1);
}

// The reorder stage as it was before it kept one wake-up pending: one RequestWakeup per held
// packet. The oracle of ReorderTest.OneWakeupPendingChangesNothingButTheEventCount.
class PerHoldWakeupReorder : public Stage {
 public:
  PerHoldWakeupReorder(std::string name, const ReorderStage::Params& params, uint64_t seed)
      : Stage(std::move(name), params.match), p_(params), rng_(seed, sim::ComponentId(this->name())),
        threshold_(sim::Rng::BernoulliThreshold(params.probability)) {}
  [[nodiscard]] Position position() const override { return Position::kReorder; }
  void OnWakeup(Time now, Emitter& out) override {
    std::vector<uint32_t> due;
    for (auto& [key, h] : held_)
      if (h.deadline <= now) due.push_back(key);
    std::sort(due.begin(), due.end());
    for (uint32_t key : due) {
      auto it = held_.find(key);
      ++flushed_;
      sum_ += it->second.passed;
      if (it->second.passed > 0) it->second.packet.Note(name().c_str(), FateKind::kReordered, it->second.passed, now);
      Packet held = std::move(it->second.packet);
      held_.erase(it);
      Pass(std::move(held), Duration::Zero(), out);
    }
  }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override {
    const uint32_t key = static_cast<uint32_t>(p.direction) << 24 | static_cast<uint32_t>(p.plane) << 16 | p.Info().sport;
    auto it = held_.find(key);
    if (it != held_.end()) {
      Pass(std::move(p), Duration::Zero(), out);
      if (++it->second.passed >= p_.k) {
        ++displaced_;
        sum_ += it->second.passed;
        it->second.packet.Note(name().c_str(), FateKind::kReordered, it->second.passed, now);
        Packet held = std::move(it->second.packet);
        held_.erase(it);
        Pass(std::move(held), Duration::Zero(), out);
      }
      return;
    }
    if (++since_ >= p_.every) {
      since_ = 0;
      if (rng_.BernoulliBelow(threshold_)) {
        held_.emplace(key, Held{std::move(p), 0, now + p_.max_hold});
        out.RequestWakeup(now + p_.max_hold);
        return;
      }
    }
    Pass(std::move(p), Duration::Zero(), out);
  }
  void FillStats(StageStats& s) const override {
    s.kind = "reorder.displacement.per-path";
    const uint64_t released = displaced_ + flushed_;
    s.lines.push_back({"displacement", "packets", double(p_.k), released ? double(sum_) / double(released) : 0.0});
    s.lines.push_back({"displaced", "packets", 0, double(displaced_), false});
    s.lines.push_back({"flushed at max_hold", "packets", 0, double(flushed_), false});
  }

 private:
  struct Held {
    Packet packet;
    uint32_t passed = 0;
    Time deadline;
  };
  ReorderStage::Params p_;
  sim::Rng rng_;
  uint64_t threshold_;
  uint32_t since_ = 0;
  std::unordered_map<uint32_t, Held> held_;
  uint64_t displaced_ = 0, flushed_ = 0, sum_ = 0;
};

// Keeping one reorder wake-up pending (the others reserved in event order) gives exactly the
// output of one wake-up per held packet: the same packets at the same times in the same order,
// also where wake-ups, delayed packets and other events fall on the same instant; only fewer
// events run. Traffic in bursts with gaps longer than max_hold (so packets are flushed, not only
// displaced), three paths, a constant delay stage whose releases tie with the wake-ups.
TEST(ReorderTest, OneWakeupPendingChangesNothingButTheEventCount) {
  struct Run {
    sim::Simulator sim;
    Pipeline pipeline{&sim, "p"};
    std::vector<std::string> log;
    explicit Run(bool oracle) {
      pipeline.set_output([this](Packet&& p, Time t) {
        log.push_back("out " + std::to_string(p.id) + " @" + std::to_string(t.nanos()) + " " + p.FateString());
      });
      ReorderStage::Params rp;
      rp.k = 4;
      rp.probability = 0.2;
      rp.max_hold = Duration::Nanos(3000);
      if (oracle) pipeline.Emplace<PerHoldWakeupReorder>("reorder", rp, 7);
      else pipeline.Emplace<ReorderStage>("reorder", rp, 7);
      DelayStage::Params dp;
      dp.base = Duration::Nanos(1000);
      pipeline.Emplace<DelayStage>("delay", dp, 7);
    }
    void Go() {
      uint64_t id = 1;
      for (int b = 0; b < 3000; ++b) {
        // Bursts 500 ns apart, a 4 us pause every 8: wake-ups (3 us after a hold) meet the
        // delayed packets of later bursts (1 us after theirs) and these events on one instant.
        const Time t = Time::FromNanos(int64_t{b} * 500 + int64_t{b / 8} * 4000);
        sim.RunUntilTime(t);
        if (b % 3 == 0) sim.Schedule(t + Duration::Nanos(3000), [this, b] { log.push_back("ext " + std::to_string(b)); });
        for (int i = 0; i < 1 + b % 5; ++i) {
          FrameSpec spec;
          spec.psn = static_cast<uint32_t>(id);
          spec.sport = static_cast<uint16_t>(49152 + (b + i) % 3);
          pipeline.Push(MakePacket(id++, spec));
        }
      }
      sim.RunUntilTime(sim.Now() + Duration::Millis(1));
      for (const StageStats& s : pipeline.Stats()) log.push_back(s.ToString());
    }
  };
  Run oracle(true), run(false);
  oracle.Go();
  run.Go();
  ASSERT_EQ(oracle.log.size(), run.log.size());
  for (size_t i = 0; i < oracle.log.size(); ++i) ASSERT_EQ(oracle.log[i], run.log[i]) << "line " << i;
  const StageStats reorder = run.pipeline.Stats()[1];
  EXPECT_GT(reorder.Line("displaced")->achieved, 100);
  EXPECT_GT(reorder.Line("flushed at max_hold")->achieved, 100);
  EXPECT_LT(run.sim.events_run(), oracle.sim.events_run());
  EXPECT_EQ(run.pipeline.parked(), 0u);
  EXPECT_EQ(run.sim.pending(), 0u);
}

TEST(RateLimitTest, SerialisesWithOverhead) {
  Harness h;
  RateLimitStage::Params p;
  p.rate = sim::Bandwidth::Gbps(10);
  p.overhead_bytes = 24;
  h.pipeline.Emplace<RateLimitStage>("rate", p, 1);
  FrameSpec spec;
  spec.payload = 1000;
  h.Send(100, Duration::Zero(), spec);  // A burst of 100 at time 0.
  h.sim.RunUntilTime(Time::FromNanos(1'000'000'000));
  ASSERT_EQ(h.out.size(), 100u);
  const int64_t frame = static_cast<int64_t>(h.out[0].first.bytes.size());
  const int64_t per = sim::Bandwidth::Gbps(10).TransferTime(frame + 24).nanos();
  for (size_t i = 0; i < h.out.size(); ++i) EXPECT_EQ(h.out[i].second.nanos(), per * static_cast<int64_t>(i + 1));
  const StageStats st = h.pipeline.stages()[0]->Stats();
  EXPECT_NEAR(st.Line("rate")->achieved, 10e9, 0.01e9) << st.ToString();
}

TEST(RateLimitTest, DropTailAtCapacity) {
  Harness h;
  RateLimitStage::Params p;
  p.rate = sim::Bandwidth::Gbps(1);
  FrameSpec spec;
  spec.payload = 958;  // 1000-byte frames (42 + 16 + 40 + 958 + 4 = 1060; capacity in whole frames below).
  const auto frame = static_cast<sim::ByteCount>(testing::MakeFrame(spec).size());
  p.capacity_bytes = frame * 10;
  h.pipeline.Emplace<RateLimitStage>("rate", p, 1);
  h.Send(50, Duration::Zero(), spec);
  h.sim.RunUntilTime(Time::FromNanos(1'000'000'000));
  // One goes on the wire at once, ten wait, the rest overflow.
  EXPECT_EQ(h.out.size(), 11u);
  EXPECT_EQ(h.dropped.size(), 39u);
}

// Sends a burst that builds a queue and returns per-packet (queue bytes at decision, marked).
TEST(EcnTest, StepMarksExactlyAboveK) {
  for (auto where : {EcnConfig::Where::kEnqueue, EcnConfig::Where::kDequeue}) {
    Harness h;
    RateLimitStage::Params p;
    p.rate = sim::Bandwidth::Gbps(10);
    FrameSpec spec;
    spec.payload = 1000;
    const auto frame = static_cast<sim::ByteCount>(testing::MakeFrame(spec).size());
    p.ecn = EcnConfig::Step(frame * 5, where);
    h.pipeline.Emplace<RateLimitStage>("q", p, 1);
    h.Send(20, Duration::Zero(), spec);
    FrameSpec not_ect = spec;
    not_ect.ecn = wire::kEcnNotEct;
    h.Send(5, Duration::Zero(), not_ect, 100);
    h.sim.RunUntilTime(Time::FromNanos(1'000'000'000));
    ASSERT_EQ(h.out.size(), 25u);
    for (size_t i = 0; i < h.out.size(); ++i) {
      const Packet& pk = h.out[i].first;
      const bool expect = pk.Info().psn < 100 &&
                          // Enqueue: i-1 frames wait (one is on the wire). Dequeue: 24-i wait behind
                          // packet i; packet 0 left before the rest arrived.
                          (where == EcnConfig::Where::kEnqueue ? i >= 6 : (i >= 1 && 24 - i >= 5));
      EXPECT_EQ(pk.ce_marked, expect) << "packet " << i;
      // The CE mark keeps the IPv4 header checksum valid.
      EXPECT_TRUE(wire::ParseFrame(pk.bytes).ok());
      if (pk.ce_marked) {
        EXPECT_EQ(pk.Info().ecn, wire::kEcnCe);
      }
    }
  }
}

TEST(EcnTest, RedProbabilityFollowsQueue) {
  EcnConfig red = EcnConfig::Red(100, 300, 0.2);
  EXPECT_EQ(red.Probability(99), 0.0);
  EXPECT_NEAR(red.Probability(200), 0.1, 1e-12);
  EXPECT_EQ(red.Probability(300), 1.0);
  // Empirical rate at a fixed queue depth equals the configured probability.
  EcnMarker marker(red, sim::Rng(5, 6));
  FrameSpec spec;
  int marks = 0;
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    Packet p = MakePacket(1, spec);
    marks += marker.Apply(p, 250, "red", Time::Zero());
  }
  EXPECT_NEAR(double(marks) / n, 0.15, 0.01);
  EXPECT_NEAR(marker.expected_marks, 0.15 * n, 1e-6);
}

// The bench's stages (loss, duplicate, constant delay, reorder); unless bench_only, every other
// stage kind too, some filtered by a match (so bursts are split into runs), some taking the
// default OnBurst (OnPacket through BurstOut's adapter), some holding packets.
void AddEveryStage(Pipeline& pl, bool bench_only) {
  pl.Emplace<BernoulliLoss>("loss", BernoulliLoss::Params{0.05, {}}, 3);
  DuplicateStage::Params dup;
  dup.probability = 0.05;
  pl.Emplace<DuplicateStage>("dup", dup, 3);
  DelayStage::Params delay;
  delay.base = Duration::Nanos(2000);
  pl.Emplace<DelayStage>("delay", delay, 3);
  ReorderStage::Params reorder;
  reorder.k = 3;
  reorder.probability = 0.05;
  reorder.max_hold = Duration::Nanos(5000);
  pl.Emplace<ReorderStage>("reorder", reorder, 3);
  if (bench_only) return;
  Match one_path;
  one_path.sport = 49153;
  pl.Emplace<BernoulliLoss>("loss-path1", BernoulliLoss::Params{0.2, one_path}, 3);
  pl.Emplace<GilbertElliottLoss>("ge", GilbertElliottLoss::Params::FromMeanLossAndBurst(0.02, 3), 3);
  pl.Emplace<CorruptStage>("corrupt", CorruptStage::Params{0.02, {}}, 3);
  TargetedDrop::Params td;
  td.match.psn = 77;
  pl.Emplace<TargetedDrop>("td", td);
  BlackholeStage::Params bh;
  bh.match.sport = 49154;
  bh.schedule.push_back({Time::FromNanos(30000), Time::FromNanos(60000), Duration::Nanos(20000)});
  pl.Emplace<BlackholeStage>("bh", bh, 3);
  DuplicateStage::Params late;
  late.probability = 0.03;
  late.copy_delay = Duration::Nanos(700);
  late.copy_jitter = Duration::Nanos(900);
  late.match.sport = 49152;
  pl.Emplace<DuplicateStage>("dup-late", late, 3);
  RateLimitStage::Params rl;
  rl.rate = sim::Bandwidth::Gbps(100);
  rl.capacity_bytes = 6000;
  rl.ecn = EcnConfig::Step(1500);
  pl.Emplace<RateLimitStage>("queue", rl, 3);
  DelayStage::Params jitter;
  jitter.distribution = DelayStage::Distribution::kUniform;
  jitter.jitter_ns = 1500;
  jitter.match.sport = 49154;
  pl.Emplace<DelayStage>("jitter", jitter, 3);
}

// Batched parking gives the same output (order, times, duplicates, reorder displacement) and the
// same statistics as one event per packet, also when other events are scheduled in between (which
// must split batches), and it does batch (fewer simulator events).
TEST(PipelineTest, BatchedParkingChangesNothingButTheEventCount) {
  struct Run {
    sim::Simulator sim;
    Pipeline pipeline{&sim, "p"};
    std::vector<std::string> log;
    explicit Run(bool batch) {
      pipeline.set_batch_parking(batch);
      pipeline.set_output([this](Packet&& p, Time t) {
        log.push_back("out " + std::to_string(p.id) + "/" + std::to_string(p.origin_id) + " @" +
                      std::to_string(t.nanos()) + " " + p.FateString());
      });
      pipeline.set_drop_observer([this](Packet&& p, const Stage&, Time t) {
        log.push_back("drop " + std::to_string(p.id) + " @" + std::to_string(t.nanos()));
      });
      AddEveryStage(pipeline, /*bench_only=*/true);
    }
    void Go() {
      uint64_t id = 1;
      for (int burst = 0; burst < 400; ++burst) {
        const Time t = Time::FromNanos(burst * 700);
        sim.RunUntilTime(t);
        const int n = 1 + burst % 32;
        for (int i = 0; i < n; ++i) {
          FrameSpec spec;
          spec.psn = static_cast<uint32_t>(id);
          spec.sport = static_cast<uint16_t>(49152 + burst % 3);
          pipeline.Push(MakePacket(id++, spec));
          if (burst % 5 == 0 && i == n / 2) {  // Another event due with this burst: splits its batch.
            sim.Schedule(t + Duration::Nanos(2000), [this, burst] { log.push_back("ext " + std::to_string(burst)); });
          }
        }
      }
      sim.RunUntilTime(sim.Now() + Duration::Millis(1));
      for (const StageStats& s : pipeline.Stats()) log.push_back(s.ToString());
    }
  };
  Run plain(false), batched(true);
  plain.Go();
  batched.Go();
  EXPECT_EQ(plain.pipeline.parked(), 0u);
  EXPECT_EQ(batched.pipeline.parked(), 0u);
  ASSERT_EQ(plain.log.size(), batched.log.size());
  for (size_t i = 0; i < plain.log.size(); ++i) ASSERT_EQ(plain.log[i], batched.log[i]) << "line " << i;
  EXPECT_LT(batched.sim.events_run() * 4, plain.sim.events_run());  // Bursts average 16 packets.
}


// ----- Burst path (Pipeline::PushBurst, Stage::OnBurst) --------------------------------------

struct BurstRun {
  sim::Simulator sim;
  Pipeline pipeline{&sim, "p"};
  std::vector<std::string> out;      // In output order.
  std::vector<std::string> dropped;  // In drop order.
  bool burst;
  uint64_t id = 1;
  uint64_t noted = 0;  // Packets out or dropped with a non-empty fate log.
  // `fates`: the fate log is kept (Pipeline::set_fate_log) and shown in the descriptions.
  BurstRun(bool use_burst, bool bench_only, bool fates = true) : burst(use_burst) {
    pipeline.set_batch_parking(use_burst);
    auto describe = [this, fates](const Packet& p, Time t) {
      std::string bytes(p.bytes.begin(), p.bytes.end());
      if (!p.notes.empty()) ++noted;
      // A duplicate by its original: fresh ids come from one counter in the order stages make
      // copies, which the burst path changes when two stages duplicate.
      return std::to_string(t.nanos()) + " " + (p.is_duplicate ? "copy" : std::to_string(p.id)) + "/" +
             std::to_string(p.origin_id) + " " + (fates ? p.FateString() + " " : std::string()) +
             std::to_string(std::hash<std::string>()(bytes)) + (p.ce_marked ? " CE" : "") + (p.corrupted ? " X" : "");
    };
    if (use_burst) {
      pipeline.set_burst_output([this, describe](Packet* const* pkts, size_t n, Time t) {
        for (size_t i = 0; i < n; ++i) out.push_back(describe(*pkts[i], t));
      });
    } else {
      pipeline.set_output([this, describe](Packet&& p, Time t) { out.push_back(describe(p, t)); });
    }
    pipeline.set_drop_observer([this, describe](Packet&& p, const Stage& s, Time t) {
      dropped.push_back(s.name() + " " + describe(p, t));
    });
    AddEveryStage(pipeline, bench_only);
    pipeline.set_fate_log(fates);  // After the stages were added: reaches them too.
  }
  void Go(int bursts) {
    const Time start = sim.Now();
    for (int b = 0; b < bursts; ++b) {
      const Time t = start + Duration::Nanos(b * 700);
      sim.RunUntilTime(t);
      const int n = 1 + b % 32;
      std::vector<Packet*> batch;
      for (int i = 0; i < n; ++i) {
        FrameSpec spec;
        spec.psn = static_cast<uint32_t>(id);
        spec.sport = static_cast<uint16_t>(49152 + (b + i) % 3);
        Packet made = MakePacket(id++, spec);
        made.ingress = t;
        if (!burst) {
          pipeline.Push(std::move(made));
          continue;
        }
        Packet* p = pipeline.NewPacket(made.id, t);
        p->bytes = made.bytes;
        batch.push_back(p);
      }
      if (burst) pipeline.PushBurst(batch.data(), batch.size());
    }
    sim.RunUntilTime(sim.Now() + Duration::Millis(1));
  }
  [[nodiscard]] std::vector<std::string> Stats() const {
    std::vector<std::string> v;
    for (const StageStats& s : pipeline.Stats()) v.push_back(s.ToString());
    return v;
  }
};

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The bench's stages (loss, duplicate, constant delay, reorder): a burst gives exactly what one
// packet at a time gives: the same output in the same order at the same times, the same drops, the
// same statistics.
TEST(BurstPathTest, BenchStagesGiveExactlyThePerPacketResult) {
  BurstRun plain(false, true), burst(true, true);
  plain.Go(600);
  burst.Go(600);
  ASSERT_GT(plain.out.size(), 5000u);
  // Here even the duplicates' ids agree (one duplicating stage).
  for (const auto* run : {&plain, &burst}) EXPECT_GT(run->pipeline.Stats()[1].duplicated, 100u);
  EXPECT_EQ(plain.out, burst.out);
  EXPECT_EQ(plain.dropped, burst.dropped);
  EXPECT_EQ(plain.Stats(), burst.Stats());
  EXPECT_EQ(burst.pipeline.parked(), 0u);
}

// Every stage kind (filtered runs, default OnBurst through the adapter, held and queued packets,
// late copies, CE marks, corruption): the same statistics and the same set of output and dropped
// packets (fates, times, bytes); only the order among packets leaving at the same instant may
// differ (Pipeline header comment).
TEST(BurstPathTest, EveryStageGivesThePerPacketDecisionsAndStatistics) {
  BurstRun plain(false, false), burst(true, false);
  plain.Go(600);
  burst.Go(600);
  ASSERT_GT(plain.out.size(), 3000u);
  EXPECT_GT(plain.dropped.size(), 300u);
  EXPECT_EQ(plain.Stats(), burst.Stats());
  const auto a = Sorted(plain.out), b = Sorted(burst.out);
  EXPECT_EQ(a.size(), b.size());
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) ASSERT_EQ(a[i], b[i]) << "output " << i;
  const auto da = Sorted(plain.dropped), db = Sorted(burst.dropped);
  EXPECT_EQ(da.size(), db.size());
  for (size_t i = 0; i < std::min(da.size(), db.size()); ++i) ASSERT_EQ(da[i], db[i]) << "drop " << i;
  EXPECT_EQ(burst.pipeline.parked(), 0u);
  // Every stage saw packets, and the edits and drops the comparison covers happened.
  uint64_t marked = 0, corrupted = 0, blackholed = 0;
  for (const StageStats& s : burst.pipeline.Stats()) {
    EXPECT_GT(s.considered, 0u) << s.ToString();
    marked += s.marked;
    corrupted += s.corrupted;
    if (s.stage == "bh") blackholed = s.dropped;
  }
  EXPECT_GT(marked, 0u);
  EXPECT_GT(corrupted, 0u);
  EXPECT_GT(blackholed, 0u);
}

// Without a fate log (the DPDK bridge's pipelines) every stage decides and counts the same; only
// the notes are missing.
TEST(BurstPathTest, FateLogOffChangesOnlyTheNotes) {
  for (bool burst : {false, true}) {
    BurstRun logged(burst, false), quiet(burst, false, /*fates=*/false);
    logged.Go(400);
    quiet.Go(400);
    EXPECT_GT(logged.noted, 1000u);
    EXPECT_EQ(quiet.noted, 0u);
    EXPECT_EQ(logged.Stats(), quiet.Stats());
    ASSERT_EQ(logged.out.size(), quiet.out.size());
    EXPECT_EQ(logged.dropped.size(), quiet.dropped.size());
    // The same packets, times and bytes, with the fates left out of the logged run's descriptions.
    for (size_t i = 0; i < logged.out.size(); ++i) {
      const std::string& a = logged.out[i];
      const std::string& b = quiet.out[i];
      const size_t head = b.find(' ', b.find(' ') + 1) + 1;  // "time id/origin "
      ASSERT_EQ(a.substr(0, head), b.substr(0, head)) << i;
      ASSERT_EQ(a.substr(a.size() - (b.size() - head)), b.substr(head)) << i;
    }
  }
}

// Pipeline packets are reused: the pool stays as large as the most packets alive at once.
TEST(BurstPathTest, PacketsAreReusedNotLeaked) {
  BurstRun run(true, true);
  run.Go(200);
  const size_t made = run.pipeline.packets_made();
  run.Go(2000);
  EXPECT_LE(run.pipeline.packets_made(), made + 64);
  EXPECT_LT(run.pipeline.packets_made(), 400u);
  EXPECT_EQ(run.pipeline.parked(), 0u);
}

// A stage's own packets (reorder's held ones) come back through the burst path; a packet dropped
// by a per-packet stage inside a burst reaches the drop observer once.
TEST(BurstPathTest, HeldAndDroppedPacketsAreAccountedOnce) {
  BurstRun run(true, false);
  run.Go(300);
  uint64_t in = 0, out_count = run.out.size(), dropped = run.dropped.size(), dups = 0;
  const auto stats = run.pipeline.Stats();
  in = stats.front().packets_in;
  for (const StageStats& s : stats) dups += s.duplicated;
  EXPECT_EQ(in + dups, out_count + dropped);
}

}  // namespace
}  // namespace mroce::impairment
