// SessionOptions: how the harness runs one case: the run seed, the device under test and its peers,
// where evidence goes, and how much a live DUT may be left unserved before a verdict means nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/harness/catalog.h"

namespace mroce::session {

using DutFactory = std::function<ref::Result<std::unique_ptr<dut::Dut>>()>;

struct SessionOptions {
  uint64_t seed = 1;
  DutFactory make_dut;          // The device under test (a fresh one per case).
  DutFactory make_peer;         // The peer(s); the bundled reference endpoint when empty.
  std::string dut_spec = "reference";  // As given on the command line (for the reproduce command).
  // The reproduce command's start, up to the case, seed, DUT and output directory it adds: the
  // program as it runs from where the run was started and the flags the rerun needs (a --suite or
  // --catalog other than the defaults), shell-quoted.
  std::string reproduce_prefix = "mroce-cts run";
  std::string run_dir;          // Where evidence/ goes; empty: no files written.
  bool write_evidence = true;   // pcap + JSON-lines trace per case under run_dir/evidence/.
  // DUT telemetry and state size are sampled every this many RTTs during the workload (at most
  // ~512 samples are kept). Sampling walks the DUT's whole state: benchmarks with thousands of
  // connections sample less often.
  int telemetry_interval_rtts = 1;
  // Live DUTs: a case that did not pass after the DUT went unserved (by the harness, or by its own
  // host when it reports its stall) for longer than this (Dut::LongestStall) is rerun, up to
  // live_attempts runs in all; if every run stalled it is inconclusive.
  int64_t max_stall_ns = 5'000'000;
  // Stall logs of other processes on the live path (stall_log.h; the impair bridge): a logged gap
  // that overlaps a run of a case counts as a stall of that run.
  std::vector<std::string> stall_logs;
  int live_attempts = 3;
  // Live DUTs running scripted cases (packetdrill-style, on the wall clock): an expect step waiting
  // for a DUT frame has its window measured with an RTT of the case's fabric RTT plus this (the
  // live path's own round trip beyond the fabric: harness, kernel or DPDK I/O, the DUT's response
  // time; CalibrateLive measures it), plus max_stall_ns: a frame the DUT sent in time reaches the
  // harness within that unless the live path stalled for longer, and a stalled run is rerun, then
  // inconclusive. Only timing widens: what a step matches and how many frames it takes do not,
  // and a window in which a frame must be absent keeps its written length (latency only delays a
  // frame, so it cannot bring one into that window).
  int64_t live_rtt_extra_ns = 0;
  // Live DUTs: the simulated clock follows the wall clock (process:, dpdk:: the adapters hold it
  // at each tick until the wall clock reaches it), so the scripted peer may correct simulated
  // intervals by the wall clock. false only for a stand-in that claims to be live while it runs on
  // the simulated clock (tests): there the wall clock says nothing about the DUT.
  bool live_wall_bound = true;
  // The clause catalog of the spec the case is judged by (its degrees-of-freedom table decides what
  // the reference comparison compares); not owned. Without one, scripted cases give ERROR.
  const harness::Catalog* catalog = nullptr;
};

}  // namespace mroce::session
