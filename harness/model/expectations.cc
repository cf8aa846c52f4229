#include "mroce/harness/expectations.h"

#include <fnmatch.h>

#include <ctime>

namespace mroce::harness {

bool GlobMatch(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

void ApplyExpectations(RunResult& run, const std::vector<Expectation>& expectations,
                       std::string_view today) {
  for (TestResult& t : run.tests) {
    t.expectation = ExpectationStatus::kNone;
    t.expectation_reason.clear();
    for (const Expectation& e : expectations) {
      if (!GlobMatch(e.test, t.id) || !GlobMatch(e.dut, run.dut.identity)) continue;
      t.expectation_reason = e.reason;
      // ISO dates compare as strings.
      if (!e.expires.empty() && std::string_view(e.expires) < today) {
        t.expectation = ExpectationStatus::kExpiredWaiver;
      } else if (t.verdict == e.verdict) {
        t.expectation = ExpectationStatus::kExpected;
      } else if (t.verdict == Verdict::kPass) {
        t.expectation = ExpectationStatus::kUnexpectedPass;
      } else if (t.verdict == Verdict::kSkip) {
        t.expectation = ExpectationStatus::kNone;  // Nothing ran: the waiver neither holds nor is stale.
        t.expectation_reason.clear();
      } else {
        t.expectation = ExpectationStatus::kMismatch;
      }
      break;
    }
  }
}

std::string TodayUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
  return buf;
}

int ComputeExitStatus(const RunResult& run) {
  bool unexpected = false;
  bool harness_error = run.incomplete;
  for (const TestResult& t : run.tests) {
    // An expired waiver gates whatever the verdict: the waivers file is out of date, and a release
    // gate that passes on it would keep passing on the next failure the waiver hides.
    if (t.expectation == ExpectationStatus::kExpiredWaiver) unexpected = true;
    if (!IsBad(t.verdict) || t.expectation == ExpectationStatus::kExpected) continue;
    if (t.verdict == Verdict::kError) {
      harness_error = true;
    } else {
      unexpected = true;
    }
  }
  if (harness_error) return kExitHarnessError;
  return unexpected ? kExitUnexpected : kExitOk;
}

}  // namespace mroce::harness
