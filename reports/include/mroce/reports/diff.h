// Run diff for release gating: which cases got worse, better, appeared or disappeared.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mroce/harness/results.h"

namespace mroce::reports {

struct DiffEntry {
  enum class Kind { kRegression, kImprovement, kChanged, kAdded, kRemoved };
  Kind kind;
  std::string id;
  std::optional<harness::Verdict> old_verdict;
  std::optional<harness::Verdict> new_verdict;
  std::string reason;   // The new result's reason (regressions) or empty.
};
// "regression", "improvement", "changed", "added", "removed".
[[nodiscard]] std::string_view ToString(DiffEntry::Kind k);

struct RunDiff {
  std::vector<DiffEntry> entries;   // Sorted by id.
  bool lost_conformance = false;    // Old run conformant, new one not.
  int regressions = 0;
  [[nodiscard]] bool has_regression() const { return regressions > 0 || lost_conformance; }
};

// Severity order: pass, skip < inconclusive < fail < error. A regression is a case that was pass
// (or skip) and is now inconclusive, fail or error, or any move up that order among the bad
// verdicts. pass <-> skip is "changed"; moves down are improvements. A removed case that passed
// is reported but is not a regression (the suite changed, not the DUT).
[[nodiscard]] RunDiff DiffRuns(const harness::RunResult& old_run, const harness::RunResult& new_run);

// "REGRESSION  loss.sack.x  pass -> fail  (reason)" lines, then a one-line tally.
[[nodiscard]] std::string FormatDiff(const RunDiff& diff);

}  // namespace mroce::reports
