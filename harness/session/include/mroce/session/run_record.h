// RunRecord: everything one run of a case produced (the trace, the plan the harness followed, the
// memory it read back, the script's step outcomes); checks read only this. It lives with the trace,
// below the runners that fill it and the checks that judge it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/harness/results.h"
#include "mroce/impairment/fabric.h"
#include "mroce/session/trace.h"

namespace mroce::session {

// One message of an end-to-end workload, as planned before the run.
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

// What one step of a scripted case did (scripted.h says what each step kind means).
struct ScriptStepOutcome {
  // kUnjudged: on a live path the step could not judge anything (a window in which a frame must be
  // be absent that is shorter than the path's own latency); the script goes on, the step is
  // inconclusive.
  enum class State { kNotRun, kPassed, kFailed, kError, kUnjudged };
  State state = State::kNotRun;
  int64_t time_ns = 0;              // When the step ran / matched (absent: window end).
  std::string reason;               // kFailed / kError: one line.
  harness::CheckResult detail;      // kFailed: dumps, mismatch, frame number.
  long matched_frame = -1;          // Index into the trace's frames of the matched frame.
  int answered = 0;                 // respond: the DUT frames it answered.
  std::string live_window;          // Live DUTs, expect steps: the window as widened (SessionOptions).
  bool nothing_came = false;        // kFailed expect: the DUT sent no frame at all in the window.
};

struct RunRecord {
  Trace trace;  // Analyzed (facts filled) when a simulation returns it; a record built otherwise calls Analyze().
  // End-to-end cases: the workload's plan and the memory read back.
  std::vector<PlannedConnection> conns;
  std::vector<PlannedMessage> messages;
  std::vector<DataCheck> data;
  // Scripted cases: one outcome per script step (parallel to Case::script) and the variables bound
  // at the end.
  std::vector<ScriptStepOutcome> steps;
  std::map<std::string, uint64_t> vars;
  int num_hosts = 0;
  int64_t rtt_ns = 0;
  int64_t link_rate_bps = 0;
  int64_t workload_start_ns = 0;  // When the operations were posted.
  int64_t workload_end_ns = 0;    // When the last expected completion arrived (or the timeout).
  bool all_completed = false;
  std::string dut_identity;
  dut::Capabilities dut_caps;
  std::string pcap;               // Run-relative path of the DUT-side pcap ("" when not written).
  std::string jsonl;              // Run-relative path of the DUT-side JSON-lines trace ("" when not written).
  std::string harness_error;      // Non-empty: the harness could not set the case up or run it (ERROR).
  std::string dut_error;          // Non-empty: the DUT refused a control call (judged by checks).
  std::string dut_failure;        // Non-empty: the DUT crashed, hung or broke its protocol (ERROR).
  int64_t stall_ns = 0;           // Live DUTs: Dut::LongestStall() at the end of the case.
  FabricStats fabric;             // Filled when the run got past setup.
  // DUT protocol state (Dut::StateBytes) once connected and before any operation was posted, and
  // again 1 ms (state_after_delay_ns) after traffic stopped: the workload ended and no frame moved.
  // state_after is empty when the quiesce ended before such a quiet millisecond.
  std::optional<uint64_t> state_before;
  std::optional<uint64_t> state_after;
  int64_t state_after_delay_ns = 0;
};

}  // namespace mroce::session
