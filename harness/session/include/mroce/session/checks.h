// Checks: named, pure functions of a run's record (trace, plan, memory read-back, telemetry), each
// verifying spec clauses, and the time series a report plots.
//
//   completions                    every operation completed exactly once, successfully
//   completion-order               completions in post order per (host, connection, stream)
//   data-intact                    every byte landed where the workload put it
//   retransmissions-equal-losses   DUT retransmitted exactly the data frames the fabric dropped
//   no-spurious-retransmissions    retransmissions of delivered frames stay under a bound
//   multipath                      DUT data used >= N paths with distinct UDP source ports
//   rate-under-hint                DUT send rate never above the receiver's latest rate hint
//   fair-share                     incast senders reach their fair share within k RTTs
//   counter                        a DUT telemetry counter within bounds
//   state-bounded                  DUT protocol state never above a bound
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mroce/harness/case.h"
#include "mroce/harness/results.h"
#include "mroce/session/session.h"

namespace mroce::session {

struct CheckInfo {
  std::string name;
  std::string summary;
  std::vector<std::string> params;  // accepted parameter names
};

[[nodiscard]] const std::vector<CheckInfo>& AllChecks();
[[nodiscard]] const CheckInfo* FindCheck(const std::string& name);
// Unknown check names and parameters are configuration errors; the message names them.
[[nodiscard]] ref::Status ValidateCheck(const std::string& name, const nlohmann::json& params);

// Runs the case's checks (completions, completion-order and data-intact when it names none).
[[nodiscard]] std::vector<harness::CheckResult> RunChecks(const harness::Case& c, const RunRecord& rec);
// Goodput, per-path use, window and rate hint over time, for the report's plots.
[[nodiscard]] std::vector<harness::TimeSeries> BuildSeries(const RunRecord& rec);

}  // namespace mroce::session
