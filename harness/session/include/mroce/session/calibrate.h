// Live calibration: how much slower than the simulated fabric a live DUT answers.
//
// A scripted case judges a live DUT (process:, dpdk:) on the wall clock, packetdrill-style: the
// script injects at wall-clock offsets and each expect window is widened by what the live path adds
// (SessionOptions::live_rtt_extra_ns). CalibrateLive measures that before the case: a fresh DUT is
// connected by the script's handshake, then sent `samples` one-packet WRITEs with AR set, one at a
// time; the time from each injection to the DUT's ACK, less the fabric's one-way delay (the DUT's
// frames are stamped where they enter the fabric: on a live path, when they reach the harness), is
// a sample of the live path's own round trip (harness, kernel or DPDK I/O, the DUT's response time). The largest
// sample within the stall limit (a longer one is a stall, which the stall allowance and the rerun
// cover) is what windows are widened by: a window too wide only loses timing precision, one too
// narrow fails a DUT for the host's latency.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mroce/session/options.h"

namespace mroce::session {

struct LiveCalibration {
  bool ok = false;
  std::string error;                 // !ok: why the DUT could not be calibrated.
  std::vector<int64_t> samples_ns;   // Response times beyond the fabric's one-way delay, in injection order.
  int64_t fabric_rtt_ns = 0;
  int64_t rtt_extra_ns = 0;          // ok: the largest sample.
  // "16 AR exchanges: beyond the fabric's one-way delay of 5.0 us, median 85.0 us, max 130.0 us".
  [[nodiscard]] std::string Describe() const;
};

// Runs the calibration exchange against a fresh DUT from options.make_dut (no evidence written).
[[nodiscard]] LiveCalibration CalibrateLive(const SessionOptions& options, int samples = 16);

}  // namespace mroce::session
