// The discrete-event simulator: the only clock of a simulated run and its event queue.
//
// Events are kept in a 4-ary min-heap ordered by (time, insertion sequence), so events at equal
// times run in the order they were scheduled. The clock moves only when the next event is taken
// and never goes back; scheduling in the past is a programmer error (assert). Runs end by a
// predicate or a deadline (RunUntil, RunUntilTime), never in an open loop.
//
// Hot-path users schedule an `EventHandler*` plus a 64-bit argument (no allocation); convenience
// callers schedule a std::function (stored in a reusable slot).
#ifndef MROCE_SIM_SIMULATOR_H_
#define MROCE_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "mroce/sim/units.h"

namespace mroce::sim {

// Receives events scheduled with Simulator::Schedule(Time, EventHandler*, uint64_t).
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void OnEvent(Time now, uint64_t arg) = 0;
};

// Identifies a scheduled event for Cancel(). Value 0 is never a valid id.
using EventId = uint64_t;

class Simulator {
 public:
  Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  ~Simulator();

  [[nodiscard]] Time Now() const { return now_; }

  // Schedules handler->OnEvent(at, arg). `at` must be >= Now().
  EventId Schedule(Time at, EventHandler* handler, uint64_t arg);
  EventId ScheduleIn(Duration delay, EventHandler* handler, uint64_t arg) { return Schedule(now_ + delay, handler, arg); }
  EventId Schedule(Time at, std::function<void()> fn);
  // Reserves the place in event order that a Schedule call now would take (its id; it counts as
  // scheduled for last_scheduled()), for an event scheduled later with ScheduleReserved: among
  // events at the same time it then runs where it would have run had it been scheduled now. Lets a
  // component keep one event pending instead of many and still run in the same order.
  EventId ReserveId() { return next_seq_++; }
  // Schedules handler->OnEvent(at, arg) as the event `id` (from ReserveId, used once). (at, id)
  // must be after the event running or last run, and `at` >= Now() (checked: abort otherwise).
  void ScheduleReserved(Time at, EventId id, EventHandler* handler, uint64_t arg);
  EventId ScheduleIn(Duration delay, std::function<void()> fn) { return Schedule(now_ + delay, std::move(fn)); }
  // Cancels a pending event (no-op if it already ran or was cancelled).
  void Cancel(EventId id);

  // Runs events until `done()` is true (checked before each event and once at the start) or the
  // next event is later than `deadline`. Returns true if stopped by the predicate. When stopped by
  // the deadline the clock is set to the deadline (it never goes back).
  bool RunUntil(const std::function<bool()>& done, Time deadline);
  // Runs every event with time <= `t`, then sets the clock to `t`.
  void RunUntilTime(Time t);
  void RunFor(Duration d) { RunUntilTime(now_ + d); }
  // Takes and runs exactly one event if there is one with time <= deadline. Returns whether it did.
  bool Step(Time deadline = Time::Infinite());

  [[nodiscard]] size_t pending() const { return heap_.size(); }
  [[nodiscard]] Time NextEventTime() const { return heap_.empty() ? Time::Infinite() : Time::FromNanos(heap_.front().time_ns); }
  // Id of the most recently scheduled event (0 before the first). Lets a caller tell whether
  // anything else was scheduled since its own last event.
  [[nodiscard]] EventId last_scheduled() const { return next_seq_ - 1; }
  // Events executed since construction.
  [[nodiscard]] uint64_t events_run() const { return events_run_; }

 private:
  struct Entry {
    int64_t time_ns;
    uint64_t seq;  // Insertion order; also the EventId.
    EventHandler* handler;
    uint64_t arg;
  };
  static bool Later(const Entry& a, const Entry& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.seq > b.seq;
  }
  class FunctionHandler;
  void Push(const Entry& e);
  Entry Pop();

  Time now_ = Time::Zero();
  uint64_t next_seq_ = 1;
  uint64_t events_run_ = 0;
  Time last_run_time_ = Time::Zero();  // Of the event running or last run (ScheduleReserved's check).
  uint64_t last_run_seq_ = 0;
  std::vector<Entry> heap_;
  std::vector<uint64_t> cancelled_;  // Sorted lazily; usually empty.
  std::vector<std::function<void()>> fn_slots_;
  std::vector<uint32_t> free_fn_slots_;
  FunctionHandler* fn_handler_;
};

}  // namespace mroce::sim

#endif  // MROCE_SIM_SIMULATOR_H_
