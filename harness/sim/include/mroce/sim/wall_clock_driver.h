// WallClockDriver: binds a simulated clock to the wall clock for live runs (the process and dpdk
// DUT adapters, mroce-cts impair).
//
// One direction: the wall clock leads and simulated time follows it, never ahead of it. Start(t0)
// pins simulated time t0 to the wall clock's now (w0); from then on simulated time T is due when
// the wall clock reaches w0 + (T - t0). Whoever is about to move a simulated clock to T first calls
// WaitUntil(T), which serves the live side (reads what it sent) until T is due:
//
//   wall       w0 ───────────────────── w0 + (T - t0) ──►
//   simulated  t0 ── WaitUntil(T): serve, sleep, serve ── T ──►  (the simulator runs on to T)
//
// The process adapter calls it from Dut::OnTimer (the session's simulator is held at the tick
// until the wall clock reaches it); mroce-cts impair calls it with its pipelines' next event (or
// until frames arrive) and runs its simulator to the time it returns. When the simulation is
// behind the wall clock, WaitUntil serves once and returns at once: the simulation catches up as
// fast as the host allows, and the wall-clock gap since the previous service is a stall the live
// side saw (longest_stall(): Dut::LongestStall of live DUTs).
//
// Between services it sleeps on the live side's descriptors (SetWaitFds: input wakes it), or,
// without descriptors (a polled DPDK port), spins, napping after a run of idle services when
// Options::idle_sleep_ns is set. Sleeps never pass the deadline.
#ifndef MROCE_SIM_WALL_CLOCK_DRIVER_H_
#define MROCE_SIM_WALL_CLOCK_DRIVER_H_

#include <poll.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "mroce/sim/units.h"

namespace mroce::sim {

// CLOCK_MONOTONIC in nanoseconds.
[[nodiscard]] int64_t MonotonicWallNs();

class WallClockDriver {
 public:
  // What a service of the live side found.
  enum class Service : uint8_t {
    kIdle,    // Nothing arrived.
    kBusy,    // Something arrived; keep serving until the deadline.
    kReturn,  // WaitUntil returns now (new simulator work, the caller must stop, the device failed).
  };

  struct Options {
    // The wall clock, nanoseconds, monotonic (MonotonicWallNs when empty; tests inject their own).
    std::function<int64_t()> wall{};
    // Without descriptors: after `idle_services_before_sleep` idle services in a row, sleep for up
    // to this many nanoseconds (never past the deadline) instead of spinning. 0: always spin.
    int64_t idle_sleep_ns = 0;
    int idle_services_before_sleep = 64;
  };

  WallClockDriver();
  explicit WallClockDriver(Options options);

  // Pins simulated time `sim_now` to the wall clock's now; called once, before WaitUntil. Asks the
  // kernel for 1 us timer slack on the calling thread (the sleeps are microseconds).
  void Start(Time sim_now);
  [[nodiscard]] bool started() const { return started_; }
  // The simulated time the wall clock has reached (never before Start's time).
  [[nodiscard]] Time Now() const { return ToSim(wall_()); }

  // Descriptors that become readable when the live side has input; WaitUntil sleeps on them
  // between services. Empty (the default): it spins, or naps (Options::idle_sleep_ns).
  void SetWaitFds(std::span<const int> fds);

  // Serves the live side, `serve(now)` with `now` the simulated time the wall clock has reached,
  // at least once and until the wall clock reaches `until` (Time::Infinite(): until serve returns
  // kReturn). Returns the simulated time reached: >= until, unless serve returned kReturn.
  template <typename Serve>
  Time WaitUntil(Time until, Serve&& serve) {
    assert(started_ && "WallClockDriver::WaitUntil before Start");
    const int64_t entry = wall_();
    if (served_ns_ >= 0) longest_stall_ns_ = std::max(longest_stall_ns_, entry - served_ns_);
    Time now = ToSim(entry);
    for (;;) {
      const Service s = serve(now);
      idle_services_ = s == Service::kIdle ? idle_services_ + 1 : 0;
      now = Now();
      if (s == Service::kReturn || now >= until) break;
      Pause(now, until);
      now = Now();
    }
    served_ns_ = wall_();
    return now;
  }

  // The live side was served outside WaitUntil (e.g. a control request answered before anything
  // was in flight): the next stall is measured from now.
  void MarkServed() { served_ns_ = wall_(); }
  // Longest wall-clock time between one service and the next WaitUntil: the live side was left
  // alone (the host descheduled the harness, or the simulation was busy).
  [[nodiscard]] Duration longest_stall() const { return Duration::Nanos(longest_stall_ns_); }
  // Naps taken (Options::idle_sleep_ns).
  [[nodiscard]] uint64_t naps() const { return naps_; }

 private:
  [[nodiscard]] Time ToSim(int64_t wall_ns) const { return sim0_ + Duration::Nanos(wall_ns - wall0_); }
  // Between two services at simulated time `now`: sleeps on the descriptors, naps or spins, never
  // past `until`.
  void Pause(Time now, Time until);

  Options options_;
  std::function<int64_t()> wall_;  // options_.wall, or MonotonicWallNs
  bool started_ = false;
  Time sim0_;
  int64_t wall0_ = 0;
  std::vector<pollfd> fds_;
  int idle_services_ = 0;
  int64_t served_ns_ = -1;  // Wall time of the last service; -1 before the first.
  int64_t longest_stall_ns_ = 0;
  uint64_t naps_ = 0;
};

}  // namespace mroce::sim

#endif  // MROCE_SIM_WALL_CLOCK_DRIVER_H_
