// The clause monitor: a passive oracle that runs on every case's trace (both styles, simulated and
// live) and checks the MUST clauses that are decidable from the DUT's frames and completions alone:
// header rules per opcode, PSN and epoch sequences, retransmission content, the 256-PSN window
// against the ACKs the DUT received, ACK/SACK content against what actually arrived at the DUT,
// NACK and PROBE_ACK echoes, connection setup, completion uniqueness and order.
//
// It judges the DUT only: the peer (reference endpoint or scripted peer) may break rules on purpose.
// Every rule is sound for a conformant DUT whatever choices the spec leaves free (table 19.3): where
// the trace cannot tell what the DUT knew, the rule uses a bound that a conformant DUT always meets
// (for example "never acknowledge a PSN that did not arrive", not "acknowledge exactly what arrived").
// Rules that need the exact event order of the simulated clock do not run on a live DUT.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mroce/session/run_record.h"

namespace mroce::session {

struct MonitorRule {
  std::string_view id;       // "data.psn-sequence"
  std::string_view clause;   // "MROCE-PATH-006"
  std::string_view summary;  // One line: what a conformant DUT always does.
  bool simulated_only = false;  // Needs the simulated clock's exact order of events.
};
// Every rule, in the order docs/clause-monitor.md lists them.
[[nodiscard]] const std::vector<MonitorRule>& MonitorRules();

struct MonitorViolation {
  size_t rule = 0;         // Index into MonitorRules().
  long frame = -1;         // Index into trace.frames of the DUT frame that broke the rule (-1: none).
  long related = -1;       // Index of the frame it contradicts (the original transmission, the PROBE...).
  long control = -1;       // Index into trace.control (completion rules).
  std::string reason;      // One line.
  std::string field;       // Mismatched field, when there is one.
  uint64_t expected = 0;
  uint64_t actual = 0;
  bool has_values = false;
};

struct MonitorReport {
  std::vector<MonitorViolation> violations;  // In trace order; at most the first 8 per rule.
  std::vector<size_t> judged;                // Per rule: how many events it judged.
  std::vector<size_t> violation_counts;      // Per rule: how many violations (all, not only the kept 8).
  // Per rule with a numeric limit: how many judged events stood right at it (the 1024th message of
  // a stream's window, the 64th outstanding READ). 0 says the trigger of the bound never happened.
  std::vector<size_t> at_bound;
};

// Runs every rule over `rec` (the trace's frames are decoded here; Analyze() is not needed).
[[nodiscard]] MonitorReport RunClauseMonitor(const RunRecord& rec);

}  // namespace mroce::session
