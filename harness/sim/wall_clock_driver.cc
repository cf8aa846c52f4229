// WallClockDriver (see wall_clock_driver.h).
#include "mroce/sim/wall_clock_driver.h"

#include <sys/prctl.h>
#include <time.h>

#include <cassert>

namespace mroce::sim {

int64_t MonotonicWallNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

WallClockDriver::WallClockDriver() : WallClockDriver(Options{}) {}

WallClockDriver::WallClockDriver(Options options)
    : options_(std::move(options)), wall_(options_.wall ? options_.wall : std::function<int64_t()>(MonotonicWallNs)) {}

void WallClockDriver::Start(Time sim_now) {
  assert(!started_ && "WallClockDriver::Start called twice");
  // The default 50 us timer slack would round every microsecond sleep up (per thread: the caller's).
  ::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  sim0_ = sim_now;
  wall0_ = wall_();
  started_ = true;
}

void WallClockDriver::SetWaitFds(std::span<const int> fds) {
  fds_.clear();
  for (int fd : fds) fds_.push_back(pollfd{fd, POLLIN, 0});
}

void WallClockDriver::Pause(Time now, Time until) {
  // An infinite deadline still wakes every 100 ms: serve() may be waiting for something else (a stop flag).
  constexpr int64_t kMaxSleepNs = 100'000'000;
  const int64_t left = until.IsInfinite() ? kMaxSleepNs : std::min((until - now).nanos(), kMaxSleepNs);
  if (left <= 0) return;
  if (!fds_.empty()) {
    const timespec ts{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
    ::ppoll(fds_.data(), fds_.size(), &ts, nullptr);
    return;
  }
  if (options_.idle_sleep_ns <= 0 || idle_services_ < options_.idle_services_before_sleep) return;  // spin
  const int64_t nap = std::min(options_.idle_sleep_ns, left);
  const timespec ts{static_cast<time_t>(nap / 1'000'000'000), static_cast<long>(nap % 1'000'000'000)};
  ::nanosleep(&ts, nullptr);
  ++naps_;
}

}  // namespace mroce::sim
