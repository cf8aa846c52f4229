// The wall clock of live DUTs and their adapters (mroce-refd, process and dpdk adapters).
#pragma once

#include <time.h>

#include <cstdint>

namespace mroce::dut {

// CLOCK_MONOTONIC in nanoseconds.
inline int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace mroce::dut
