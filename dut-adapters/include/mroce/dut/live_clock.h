// The wall clock of live DUTs and their adapters (mroce-refd, process and dpdk adapters): the clock
// sim::WallClockDriver binds the harness's simulated time to.
#pragma once

#include <cstdint>

#include "mroce/sim/wall_clock_driver.h"

namespace mroce::dut {

// CLOCK_MONOTONIC in nanoseconds.
inline int64_t MonotonicNs() { return sim::MonotonicWallNs(); }

}  // namespace mroce::dut
