// Expectations (waivers): known non-pass results of a DUT, each with a reason and an expiry date,
// and the exit status a run maps to once they are applied.
//
// The first entry (in file order) whose test glob matches the case id and whose dut glob matches
// the DUT identity applies to a result:
//   verdict == expected          -> expected        (does not gate)
//   pass, waiver expected other  -> unexpected-pass (reported so stale waivers get removed)
//   other non-pass verdict       -> mismatch        (gates like an unwaived failure)
//   waiver past its expiry date  -> expired-waiver  (the verdict stands; the result gates, even a
//                                                    pass: renew or remove the waiver)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mroce/harness/case.h"
#include "mroce/harness/results.h"

namespace mroce::harness {

struct Expectation {
  std::string test;        // Case id or glob (fnmatch: *, ?, [...]).
  std::string dut = "*";   // DUT identity glob.
  Verdict verdict = Verdict::kFail;
  std::string reason;
  std::string expires;     // "YYYY-MM-DD"; the waiver holds through that day.
  SourceLocation where;
};

// fnmatch(3) without flags: '*' also matches '.'.
[[nodiscard]] bool GlobMatch(std::string_view pattern, std::string_view text);

// Sets expectation / expectation_reason of every test of `run`. `today` is "YYYY-MM-DD" (UTC).
void ApplyExpectations(RunResult& run, const std::vector<Expectation>& expectations,
                       std::string_view today);

// Today's date in UTC, "YYYY-MM-DD".
[[nodiscard]] std::string TodayUtc();

// Process exit status of mroce-cts.
enum ExitStatus : int {
  kExitOk = 0,            // Every result pass, skip or expected.
  kExitUnexpected = 1,    // Some fail/inconclusive not covered by a valid waiver, an expired waiver (or a diff regression).
  kExitUsage = 2,         // Bad flags, unreadable or invalid configuration, case files or suite.
  kExitHarnessError = 3,  // Some error verdict not covered by a waiver, or the run was interrupted.
};

// 3 wins over 1: an infrastructure fault makes the other verdicts untrustworthy.
[[nodiscard]] int ComputeExitStatus(const RunResult& run);

}  // namespace mroce::harness
