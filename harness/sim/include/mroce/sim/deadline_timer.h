// DeadlineTimer: keeps the timer of a deadline-driven state machine armed as one simulator event.
//
// The machine is anything with `NextDeadline() const` and `OnTimer(now)` in integer nanoseconds on
// the simulator's clock, INT64_MAX meaning idle: the reference endpoints, their parts, a Dut. The
// machine never reads a clock; the simulator owns the only one. A call into the machine (a frame,
// a post) may move its deadline, so whoever makes it re-arms afterwards: Call() does both. A
// deadline already in the past fires now (the clock never goes back); an event whose deadline
// moved later before it ran only re-arms. An unchanged deadline keeps its event, and with it its
// place among events of the same time (ties run in insertion order). A machine whose OnTimer(now)
// leaves it due at `now` again and again aborts the run with a message (it would never end).
#ifndef MROCE_SIM_DEADLINE_TIMER_H_
#define MROCE_SIM_DEADLINE_TIMER_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <utility>

#include "mroce/sim/simulator.h"

namespace mroce::sim {

template <typename Machine>
class DeadlineTimer final : public EventHandler {
 public:
  // Both must outlive the timer.
  DeadlineTimer(Simulator* sim, Machine* machine) : sim_(sim), machine_(machine) {}
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;
  ~DeadlineTimer() override { Disarm(); }

  [[nodiscard]] Machine& machine() const { return *machine_; }
  // The deadline the pending event stands for, ns (INT64_MAX: none pending).
  [[nodiscard]] int64_t armed_ns() const { return armed_ns_; }

  // Re-reads NextDeadline() and (re)schedules the event.
  void Rearm() {
    const int64_t next = static_cast<int64_t>(machine_->NextDeadline());
    if (next == armed_ns_ && event_ != 0) return;
    Disarm();
    if (next == kIdle) return;
    armed_ns_ = next;
    event_ = sim_->Schedule(Time::FromNanos(std::max(next, sim_->Now().nanos())), this, 0);
  }

  // Runs `fn(machine)` now and re-arms afterwards; returns what `fn` returns.
  template <typename Fn>
  decltype(auto) Call(Fn&& fn) {
    if constexpr (std::is_void_v<std::invoke_result_t<Fn&, Machine&>>) {
      fn(*machine_);
      Rearm();
    } else {
      decltype(auto) r = fn(*machine_);
      Rearm();
      return r;
    }
  }

  void OnEvent(Time now, uint64_t) override {
    event_ = 0;
    armed_ns_ = kIdle;
    if (static_cast<int64_t>(machine_->NextDeadline()) <= now.nanos()) {
      machine_->OnTimer(now.nanos());
      // OnTimer(now) handles every deadline <= now; a machine that stays due would spin at one
      // instant forever (the clock cannot move): stop with a message instead of hanging.
      stuck_ = static_cast<int64_t>(machine_->NextDeadline()) <= now.nanos() ? stuck_ + 1 : 0;
      if (stuck_ >= kMaxStuck) {
        std::fprintf(stderr, "mroce::sim::DeadlineTimer: NextDeadline() still %lld ns after %d OnTimer(%lld ns) calls\n",
                     static_cast<long long>(machine_->NextDeadline()), kMaxStuck, static_cast<long long>(now.nanos()));
        std::abort();
      }
    }
    Rearm();
  }

 private:
  static constexpr int64_t kIdle = std::numeric_limits<int64_t>::max();
  static constexpr int kMaxStuck = 100'000;  // consecutive OnTimer calls that left the machine due

  void Disarm() {
    if (event_ != 0) sim_->Cancel(event_);
    event_ = 0;
    armed_ns_ = kIdle;
  }

  Simulator* sim_;
  Machine* machine_;
  EventId event_ = 0;
  int64_t armed_ns_ = kIdle;  // ns
  int stuck_ = 0;
};

}  // namespace mroce::sim

#endif  // MROCE_SIM_DEADLINE_TIMER_H_
