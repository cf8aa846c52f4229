// Reorder, duplicate, delay/jitter, corruption and blackhole stages (loss, targeted drop and the
// rate limiter with ECN live in their own headers). Every stage documents its Position.
#ifndef MROCE_IMPAIRMENT_STAGES_H_
#define MROCE_IMPAIRMENT_STAGES_H_

#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "mroce/impairment/stage.h"

namespace mroce::impairment {

// Which packets share ordering state: one path (UDP source port within a direction) or all.
enum class Scope : uint8_t { kPerPath, kAcrossPaths };

// ---------------------------------------------------------------------------------------------
// DelayStage. Position::kDelay. Adds base + jitter to each matching packet.
//   kConstant: base.    kUniform: base + U[0, jitter_ns).
//   kNormal:   base + N(0, jitter_ns) (std-dev), truncated so the delay is never negative.
//   kPareto:   base + Pareto(scale = jitter_ns, shape = pareto_shape) (heavy tail, min = scale).
// Without order_preserving, jitter reorders packets ("jitter-induced reordering"); with it, a
// packet never leaves before an earlier packet of the same scope (departure = max(now + delay,
// previous departure in scope)).
class DelayStage : public Stage {
 public:
  enum class Distribution : uint8_t { kConstant, kUniform, kNormal, kPareto };
  struct Params {
    Duration base = Duration::Zero();
    Distribution distribution = Distribution::kConstant;
    double jitter_ns = 0;     // Uniform width, normal std-dev, or Pareto scale, in nanoseconds.
    double pareto_shape = 2.5;
    bool order_preserving = false;
    Scope scope = Scope::kPerPath;
    Match match;
  };
  DelayStage(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kDelay; }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) override;
  void FillStats(StageStats& s) const override;

 private:
  [[nodiscard]] double ConfiguredMeanNs() const;
  Params params_;
  sim::Rng rng_;
  std::unordered_map<uint32_t, Time> last_departure_;
  double sum_delay_ns_ = 0;
  uint64_t reordered_ = 0;  // Packets that left before an earlier packet of their scope.
  std::unordered_map<uint32_t, Time> max_departure_;
};

// ---------------------------------------------------------------------------------------------
// ReorderStage. Position::kReorder. Displacement by exactly k packets with no base delay: a
// selected packet is held until k further packets of its scope have passed, then released right
// after the k-th. A packet is selected every `every`-th matching packet (and with probability
// `probability`) while nothing is held in its scope. If fewer than k packets follow within
// `max_hold`, the held packet is released at the deadline (counted as "flushed").
class ReorderStage : public Stage {
 public:
  struct Params {
    uint32_t k = 1;              // Displacement in packets (>= 1).
    uint32_t every = 1;          // Select every n-th candidate (1 = each one that can be held).
    double probability = 1.0;    // ... and then with this probability.
    Scope scope = Scope::kPerPath;
    Duration max_hold = Duration::Millis(1);
    Match match;
  };
  ReorderStage(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kReorder; }
  void OnWakeup(Time now, Emitter& out) override;

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) override;
  void FillStats(StageStats& s) const override;

 private:
  struct Held {
    Packet* packet;  // From store_ (no allocation per hold once warm).
    uint32_t passed = 0;
    Time deadline;
  };
  // An object of store_ holding `p`.
  Packet* Keep(Packet&& p) {
    Packet* slot = store_.Take();
    *slot = std::move(p);
    return slot;
  }
  [[nodiscard]] uint32_t ScopeKey(const Packet& p) const;
  // A packet of a scope with nothing held: is it the one to hold? (every-th candidate, then the draw)
  bool Select() {
    if (++since_selectable_ < params_.every) return false;
    since_selectable_ = 0;
    return rng_.BernoulliBelow(threshold_);
  }
  // Another packet of the scope of `it` passed the held one: the held packet if it is due now (no
  // longer held: move it out, then give the object back to store_), else nullptr.
  Packet* CountPassed(std::unordered_map<uint32_t, Held>::iterator it, Time now);
  // OnBurst's rarer steps, out of its loop (which keeps its state in registers). `p` is of a scope
  // with a packet held (true; *released: that packet if p's passing made it due) or not (false):
  [[gnu::noinline]] bool PassesHeld(Packet* p, Time now, BurstOut& out, Packet** released);
  // `p` is the packet to hold:
  [[gnu::noinline]] void Hold(Packet* p, Time now, BurstOut& out);
  // While a packet is held every packet's scope key is read from its frame. Frames the DPDK bridge
  // hands in are found in their mbufs at the first read (two dependent cache misses each): the
  // next few are loaded together instead, pkts[0..n).
  void LoadFrames(Packet* const* pkts, size_t n) const;
  // A packet was held until `deadline`: a wake-up then. One wake-up is pending at a time (the
  // first of wakeups_); the others keep the place in event order their own request would have
  // had (Emitter::ReserveWakeup), so the stage wakes at exactly the instants, and in exactly the
  // order among other events, that one request per held packet gives, minus the wake-ups that
  // could release nothing (their packet left early and no later one can be due by then).
  template <class Out>
  void AskWakeup(Time deadline, Out& out) {
    wakeups_.push_back({deadline, out.ReserveWakeup()});
    if (wakeups_.size() == 1) out.RequestReservedWakeup(deadline, wakeups_.front().ticket);
  }
  struct PendingWakeup {
    Time at;
    uint64_t ticket;  // From ReserveWakeup.
  };
  Params params_;
  sim::Rng rng_;
  std::unordered_map<uint32_t, Held> held_;
  PacketPool store_;  // Held packets.
  std::deque<PendingWakeup> wakeups_;  // In request order (deadlines never decrease).
  uint64_t threshold_ = 0;  // Rng::BernoulliThreshold(params_.probability).
  uint32_t since_selectable_ = 0;  // Candidates since the last every-th one.
  uint64_t displaced_ = 0;
  uint64_t flushed_ = 0;
  uint64_t displacement_sum_ = 0;
};

// ---------------------------------------------------------------------------------------------
// DuplicateStage. Position::kDuplicate. With probability `probability` a matching original packet
// is emitted twice: the original unchanged, and a copy (new id, origin_id = original's id,
// is_duplicate set) after `copy_delay` + U[0, copy_jitter). A long copy_delay makes the copy stale
// (it arrives after the original was acked). A duplicate is never duplicated again, here or later.
class DuplicateStage : public Stage {
 public:
  struct Params {
    double probability = 0.0;
    Duration copy_delay = Duration::Zero();
    Duration copy_jitter = Duration::Zero();
    Match match;
  };
  DuplicateStage(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kDuplicate; }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) override;
  void FillStats(StageStats& s) const override;

 private:
  // Draws for one original (false: not duplicated); the copy's extra delay in *delay.
  bool Decide(Duration* delay) {
    ++originals_;
    if (!rng_.BernoulliBelow(threshold_)) return false;
    ++duplicated_;
    *delay = params_.copy_delay;
    if (params_.copy_jitter > Duration::Zero())
      *delay += Duration::Nanos(static_cast<int64_t>(rng_.UniformInt(0, static_cast<uint64_t>(params_.copy_jitter.nanos() - 1))));
    return true;
  }
  // Marks the original and fills in `copy` (already a byte copy of it).
  void MakeCopy(Packet& original, Packet& copy, uint64_t copy_id, Time now);
  // OnBurst's copy of `p` (chosen, already counted in originals_), out of its loop: the copy to
  // pass now, or nullptr when it was parked (a copy delay). Draws the jitter from rng_.
  [[gnu::noinline]] Packet* Duplicate(Packet* p, Time now, BurstOut& out);
  Params params_;
  sim::Rng rng_;
  uint64_t threshold_;  // Rng::BernoulliThreshold(params_.probability).
  uint64_t originals_ = 0;
};

// ---------------------------------------------------------------------------------------------
// CorruptStage. Position::kCorrupt. With probability `probability` flips one bit of a matching
// MetaRoCE packet at a seeded position uniformly chosen inside the MetaRoCE part (common header
// through CRC trailer), so the receiver's CRC-32 check must catch it. Non-MetaRoCE packets pass.
class CorruptStage : public Stage {
 public:
  struct Params {
    double probability = 0.0;
    Match match;
  };
  CorruptStage(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kCorrupt; }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void FillStats(StageStats& s) const override;

 private:
  Params params_;
  sim::Rng rng_;
};

// ---------------------------------------------------------------------------------------------
// BlackholeStage. Position::kBlackhole. Drops every matching packet (a path: match.sport or
// match.path_id; a plane: match.plane) inside each failure window [fail_at, restore_at); then,
// if recovery > 0, drops with probability falling linearly from 100% to 0 over `recovery`
// (gradual recovery). Outside windows and ramps nothing is dropped.
class BlackholeStage : public Stage {
 public:
  struct Failure {
    Time fail_at;
    Time restore_at = Time::Infinite();
    Duration recovery = Duration::Zero();
  };
  struct Params {
    Match match;
    std::vector<Failure> schedule;
  };
  BlackholeStage(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kBlackhole; }
  // Drop probability at `now` (1 in a window, ramping down during recovery, else 0).
  [[nodiscard]] double DropProbability(Time now) const;

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void FillStats(StageStats& s) const override;

 private:
  Params params_;
  sim::Rng rng_;
  uint64_t in_window_ = 0;
  uint64_t in_recovery_ = 0;
  uint64_t recovery_drops_ = 0;
  double expected_recovery_drops_ = 0;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_STAGES_H_
