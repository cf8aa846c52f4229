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
  int improvements = 0;             // Fixes: a move down the severity order.
  int changed = 0;                  // pass <-> skip.
  int added = 0;
  int removed = 0;                  // Cases of the baseline missing in the candidate.
  // Both reports name their suite digest and the digests differ: the runs judged different suites.
  bool other_suite = false;
  std::string old_digest, new_digest;
  [[nodiscard]] bool has_regression() const { return regressions > 0 || lost_conformance; }
  // Whether a release gate fails: a regression, or a removed case unless removals are allowed (a
  // candidate that silently ran fewer cases must not pass for one that ran them all).
  [[nodiscard]] bool gates(bool allow_removed) const { return has_regression() || (removed > 0 && !allow_removed); }
};

// Severity order: pass, skip < inconclusive < fail < error. A regression is a case that was pass
// (or skip) and is now inconclusive, fail or error, or any move up that order among the bad
// verdicts. pass <-> skip is "changed"; moves down are improvements. A removed case is not a
// regression of the DUT, but it gates (RunDiff::gates) unless removals are allowed.
[[nodiscard]] RunDiff DiffRuns(const harness::RunResult& old_run, const harness::RunResult& new_run);

// A summary line first ("diff: 1 regression(s), 0 fix(es), 196 removed, 0 added, 0 changed:
// FAIL (...)"), then "REGRESSION  loss.sack.x  pass -> fail  (reason)" lines, then what gates.
// `allow_removed`: removed cases are listed but do not gate (--allow-removed).
[[nodiscard]] std::string FormatDiff(const RunDiff& diff, bool allow_removed = false);

}  // namespace mroce::reports
