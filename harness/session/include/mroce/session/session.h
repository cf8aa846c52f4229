// Session: runs one test case in the simulated fabric against a device under test and judges it.
//
//   host 0 = DUT ──NIC port per plane── Clos plane(s) ──── host 1..N = peers (reference endpoints)
//
// An end-to-end case sets up the fabric from its topology, attaches the impairment stages, opens the
// workload's connections, posts its operations, runs until every operation has completed (or the
// case's timeout), lets the fabric quiesce, reads back the memory the workload wrote, and hands the
// trace to the case's checks. The simulator is the only clock; the same seed gives the same bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/harness/case.h"
#include "mroce/harness/results.h"
#include "mroce/impairment/fabric.h"
#include "mroce/session/trace.h"

namespace mroce::session {

using DutFactory = std::function<ref::Result<std::unique_ptr<dut::Dut>>()>;

struct SessionOptions {
  uint64_t seed = 1;
  DutFactory make_dut;          // The device under test (a fresh one per case).
  DutFactory make_peer;         // The peer(s); the bundled reference endpoint when empty.
  std::string dut_spec = "reference";  // As given on the command line (for the reproduce command).
  std::string run_dir;          // Where evidence/ goes; empty: no files written.
  bool write_evidence = true;   // pcap + JSON-lines trace per case under run_dir/evidence/.
  // DUT telemetry and state size are sampled every this many RTTs during the workload (at most
  // ~512 samples are kept). Sampling walks the DUT's whole state: benchmarks with thousands of
  // connections sample less often.
  int telemetry_interval_rtts = 1;
  // Live DUTs: a case that did not pass after the harness left the DUT unserved for longer than
  // this (Dut::LongestStall) is rerun, up to live_attempts runs in all; if every run stalled it is
  // inconclusive.
  int64_t max_stall_ns = 5'000'000;
  int live_attempts = 3;
};

// One message of the workload, as planned before the run.
struct PlannedMessage {
  int originator = 0;        // Host that posts the operation.
  int responder = 0;         // Host whose memory it targets or whose receive it consumes.
  size_t conn = 0;           // Index into RunRecord::conns.
  uint16_t stream = 0;
  dut::OpKind op = dut::OpKind::kWrite;
  uint32_t size = 0;         // Bytes.
  uint64_t wr_id = 0;        // Originator's work request id.
  uint64_t recv_wr_id = 0;   // SEND: the responder's receive work request id.
  uint64_t offset = 0;       // Offset of the message in the buffers of its (originator, responder) pair.
};

struct PlannedConnection {
  int originator = 0;
  int responder = 0;
  dut::ConnHandle orig_handle = 0;
  dut::ConnHandle resp_handle = 0;
  bool established = false;
};

// Outcome of reading back the workload's destination memory.
struct DataCheck {
  size_t message = 0;        // Index into RunRecord::messages.
  bool intact = true;
  uint64_t first_bad = 0;    // Offset within the message of the first wrong byte.
  uint8_t expected = 0;
  uint8_t actual = 0;
  uint64_t bad_bytes = 0;
  std::string error;         // Memory could not be read back.
};

// Fabric and simulator counters at the end of a run (after quiesce), for benchmarks.
struct FabricStats {
  uint64_t sim_events = 0;  // Simulator events run over the whole case, setup included.
  // Each host's leaf->host downlink (the port an incast fills), [host][plane]; max_queue_bytes is
  // the peak backlog in bytes.
  std::vector<std::vector<impairment::PortStats>> downlinks;
};

// Everything a run produced; checks read only this.
struct RunRecord {
  Trace trace;
  std::vector<PlannedConnection> conns;
  std::vector<PlannedMessage> messages;
  std::vector<DataCheck> data;
  int num_hosts = 0;
  int64_t rtt_ns = 0;
  int64_t link_rate_bps = 0;
  int64_t workload_start_ns = 0;  // When the operations were posted.
  int64_t workload_end_ns = 0;    // When the last expected completion arrived (or the timeout).
  bool all_completed = false;
  std::string dut_identity;
  dut::Capabilities dut_caps;
  std::string pcap;               // Run-relative path of the DUT-side pcap ("" when not written).
  std::string setup_error;        // Non-empty: the harness could not set the case up (ERROR).
  std::string dut_error;          // Non-empty: the DUT refused a control call (judged by checks).
  std::string dut_failure;        // Non-empty: the DUT crashed, hung or broke its protocol (ERROR).
  int64_t stall_ns = 0;       // Live DUTs: Dut::LongestStall() at the end of the case.
  FabricStats fabric;             // Filled when the run got past setup.
  // DUT protocol state (Dut::StateBytes) once connected and before any operation was posted, and
  // again 1 ms (state_after_delay_ns) after traffic stopped: the workload ended and no frame moved.
  // state_after is empty when the quiesce ended before such a quiet millisecond.
  std::optional<uint64_t> state_before;
  std::optional<uint64_t> state_after;
  int64_t state_after_delay_ns = 0;
};

// Runs the case and returns its result (verdict from its checks, evidence paths, reproduce command).
[[nodiscard]] harness::TestResult RunCase(const harness::Case& c, const SessionOptions& options);

// Runs only the simulation (no checks): for tests and benchmarks.
[[nodiscard]] RunRecord Simulate(const harness::Case& c, const SessionOptions& options);

}  // namespace mroce::session
