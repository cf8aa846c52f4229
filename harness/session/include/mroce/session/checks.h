// Checks: the registry of every oracle that judges a run. A check is a named, pure function of a
// run's record (and, for scripted cases, of the reference endpoint's run of the same script); it
// names the clauses it verifies, declares its parameters (validated when the case is loaded), and
// gives pass, fail, inconclusive (its trigger never happened), skip or error with expected vs actual.
//
//   end-to-end (named in the case; the first three when it names none)
//   completions                    every operation completed exactly once, successfully
//   completion-order               completions in post order per (host, connection, stream)
//   data-intact                    every byte landed where the workload put it
//   retransmissions-equal-losses   DUT retransmitted exactly the data frames the fabric dropped
//   no-spurious-retransmissions    retransmissions of delivered frames stay under a bound
//   multipath                      DUT data used >= N paths with distinct UDP source ports
//   rate-under-hint                DUT send rate never above the receiver's latest rate hint
//   fair-share                     incast senders reach their fair share within k RTTs
//   hint-share                     the DUT's rate hints bounded by capacity over active senders
//   completion-latency             completions follow the frame that allowed them within a bound
//   state-released                 protocol state back to its size before the workload
//   counter                        a DUT telemetry counter within bounds
//   state-bounded                  DUT protocol state never above a bound
//   every case (both styles)
//   clause-monitor                 the passive oracle of clause_monitor.h: header, sequence, ACK,
//                                  probe, setup and completion rules on every DUT frame
//   scripted (run on every scripted case)
//   script-steps                   each expect step matched in its window; no DUT call refused
//   reference-match                the DUT's matched frames are spec-equivalent to the reference's
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mroce/harness/case.h"
#include "mroce/harness/param_spec.h"
#include "mroce/harness/results.h"
#include "mroce/session/run_record.h"

namespace mroce::session {

// What a check sees.
struct CheckContext {
  const harness::Case& c;
  const RunRecord& rec;              // The DUT's run.
  const RunRecord* reference;        // Scripted cases: the reference endpoint's run of the script.
  const harness::Catalog* catalog;   // The spec's clause catalog (degrees-of-freedom table), if given.
  const nlohmann::json& params;      // The case's parameters for this check (validated).
  const harness::CheckResult& base;  // Name, clauses, pcap and where filled in; verdict pass.
};
// Appends the check's result(s) to `out` (a check judging many steps gives one result per step).
using CheckFn = void (*)(const CheckContext& x, std::vector<harness::CheckResult>& out);

struct CheckInfo {
  std::string name;
  std::string summary;
  std::vector<harness::ParamSpec> params;
  harness::Style style = harness::Style::kEndToEnd;  // The style of case it judges.
  bool implicit = false;  // Runs on every case of its style without being named.
  CheckFn fn = nullptr;
  bool all_styles = false;  // Implicit in both styles.
  // Judges an end-to-end workload (its planned messages, its memory, its senders): naming it in a
  // scripted case is a load error (the loader's workload_checks).
  bool workload_only = false;
};

[[nodiscard]] const std::vector<CheckInfo>& AllChecks();
[[nodiscard]] const CheckInfo* FindCheck(const std::string& name);
// Unknown check names and invalid parameters are configuration errors; the message names them.
// (The case loader gives the same verdict with file:line:col: see harness::LoaderOptions.)
[[nodiscard]] ref::Status ValidateCheck(const std::string& name, const nlohmann::json& params);

// Runs every check that applies to the case: the implicit checks of its style, then the checks it
// names (end-to-end: completions, completion-order and data-intact when it names none).
// Both records' traces must be analyzed (RunRecord::trace); one that is not gives one ERROR result.
[[nodiscard]] std::vector<harness::CheckResult> RunChecks(const harness::Case& c, const RunRecord& rec,
                                                          const RunRecord* reference = nullptr,
                                                          const harness::Catalog* catalog = nullptr);
// Goodput, per-path use, window and rate hint over time, for the report's plots.
[[nodiscard]] std::vector<harness::TimeSeries> BuildSeries(const RunRecord& rec);

}  // namespace mroce::session
