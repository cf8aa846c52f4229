// Results of a run: one CheckResult per check, one TestResult per case, one RunResult per run.
//
// RunResult is what every report writer visits (reports/) and what report.json serialises
// (docs/report-schema.md); fields here map one to one onto that schema.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mroce/harness/case.h"
#include "mroce/harness/catalog.h"
#include "mroce/harness/verdict.h"

namespace mroce::harness {

inline constexpr char kReportSchema[] = "mroce-cts/report/v1";

// "10 (0xa)": the decimal-and-hex form every expected/actual value is printed in.
[[nodiscard]] std::string FormatDecHex(uint64_t v);

// A field whose live value differed from what the check expected. Values are preformatted
// ("10 (0xa)", or hex for byte arrays) so the report needs no codec to print them.
struct ValueMismatch {
  std::string field;     // "ack.epsn", or a metric name ("retransmissions")
  std::string expected;
  std::string actual;
  static ValueMismatch Scalar(std::string field, uint64_t expected, uint64_t actual);
  bool operator==(const ValueMismatch&) const = default;
};

struct CheckResult {
  std::string check;                   // Check name.
  std::vector<std::string> clauses;    // Clause ids the check verifies.
  Verdict verdict = Verdict::kPass;
  std::string reason;                  // One line; empty on pass.
  std::optional<ValueMismatch> mismatch;
  std::string expected_packet;         // Dump of the script's (or reference's) packet, if any.
  std::string actual_packet;           // Dump of the live packet, if any.
  std::string pcap;                    // Run-relative path of the pcap the check judged.
  std::string where;                   // "file:line" of the script step, if any.
  uint64_t packet_index = 0;           // 1-based frame number in `pcap` (0 = none).
  bool operator==(const CheckResult&) const = default;
};

// A time series for the report's plots (rate, window, per-path share, goodput ...).
struct TimeSeries {
  std::string name;                    // "cwnd path 0"
  std::string unit;                    // y unit: "bytes", "Gbps", ...
  std::string x_unit = "rtt";          // "rtt" or "us"
  std::vector<std::pair<double, double>> points;
  bool operator==(const TimeSeries&) const = default;
};

// How a result compares with the expectations (waivers) file; see expectations.h.
enum class ExpectationStatus {
  kNone,            // No waiver applies: the verdict stands.
  kExpected,        // A waiver expected exactly this non-pass verdict.
  kUnexpectedPass,  // A waiver expected a failure but the case passed: the waiver is stale.
  kMismatch,        // A waiver expected another non-pass verdict: counts as unexpected.
  kExpiredWaiver,   // The matching waiver has expired: the verdict stands.
};
// "none", "expected", "unexpected-pass", "mismatch", "expired-waiver".
[[nodiscard]] std::string_view ToString(ExpectationStatus s);
[[nodiscard]] std::optional<ExpectationStatus> ParseExpectationStatus(std::string_view s);

struct TestResult {
  std::string id;
  std::string title;
  std::vector<ClauseRef> clauses;
  Level level = Level::kMay;
  Verdict verdict = Verdict::kPass;
  std::string reason;                  // One line; for failures, the first failing check's.
  double duration_s = 0;               // Wall-clock seconds the case took.
  double stall_ms = 0;             // Live DUTs: longest the harness left the DUT unserved (last run).
  int attempts = 1;                    // Runs it took (a live run that lagged is rerun).
  uint64_t seed = 0;
  std::vector<std::string> evidence;   // Run-relative paths: evidence/<id>.pcap, trace ...
  std::string reproduce;               // One shell command that reruns the case with the seed.
  std::vector<CheckResult> checks;
  std::vector<TimeSeries> series;
  ExpectationStatus expectation = ExpectationStatus::kNone;
  std::string expectation_reason;      // The waiver's reason, when one matched.
  // Skips: "feature" (the DUT does not claim an optional feature the case uses) or "harness" (the
  // harness cannot run the case with this DUT, e.g. a scripted case and a live DUT): a MUST case
  // skipped for the harness makes the run partial.
  std::string skip_cause;
  bool operator==(const TestResult&) const = default;
};

// "untested" or a verdict name.
struct ClauseRow {
  std::string id;
  Level level = Level::kMust;
  std::string summary;
  std::vector<std::string> tests;      // Sorted ids of the cases that verify it.
  std::string status;                  // Combined verdict of those cases, or "untested".
  bool operator==(const ClauseRow&) const = default;
};

struct DutInfo {
  std::string identity;                // "reference", "reference:quirk=go-back-n", "vendor-x/1.2"
  std::string description;
  bool operator==(const DutInfo&) const = default;
};

// Which cases of the suite a run was asked to run. A filter, or a shard without the others, makes
// the run partial: not a conformance claim.
struct Selection {
  std::string filter;       // --filter glob; empty: every case
  int shard_count = 0;      // N of --shard I/N; 0: not sharded
  std::vector<int> shards;  // The shards (1-based, sorted) the run holds; merge joins them.
  int suite_cases = 0;      // Cases in the suite (0: unknown, a report older than this field)
  bool operator==(const Selection&) const = default;
};

struct RunResult {
  std::string schema = kReportSchema;
  std::string suite_version;
  // The build of mroce-cts that judged ("0.1.0+git.37c26dd0a1b2"); empty in reports older than it.
  std::string tool_version;
  // "sha256:<hex>" over the suite's case files and its clause catalog (campaign/suite_digest.h):
  // which suite, byte for byte, the run judged; empty in reports older than it.
  std::string suite_digest;
  DutInfo dut;
  uint64_t seed = 0;
  std::string started_at;              // RFC 3339 UTC, "2025-01-31T12:00:00Z"
  std::string finished_at;             // Empty while running / when interrupted.
  bool incomplete = false;             // The run was interrupted; some cases never ran.
  Selection selection;
  std::vector<TestResult> tests;       // Sorted by id.
  std::vector<ClauseRow> clauses;      // Sorted by id.
  bool operator==(const RunResult&) const = default;
};

struct Summary {
  std::map<Verdict, int> counts;       // Every verdict present, zero when none.
  int total = 0;
  int must_total = 0;                  // MUST-level cases that were not skipped.
  int must_pass = 0;
  int expected = 0;                    // Results a waiver expected.
  int unexpected = 0;                  // Bad verdicts no (valid) waiver covers.
  int unexpected_pass = 0;
  int expired_waivers = 0;
  // The run does not stand for the whole suite: a filter, missing shards, or MUST cases the harness
  // could not run with this DUT (each reason one line).
  bool partial = false;
  std::vector<std::string> partial_reasons;
  // Every MUST-level case that ran passed, the run completed and it is not partial.
  bool conformant = false;
};
[[nodiscard]] Summary Summarize(const RunResult& run);

// Clause table from the tests (and every catalog clause, "untested" when no case covers it).
// Levels come from the catalog when it knows the clause, else the strongest level a case gave it.
[[nodiscard]] std::vector<ClauseRow> BuildClauseTable(const std::vector<TestResult>& tests,
                                                      const Catalog* catalog = nullptr);

// Sorts tests by id and recomputes the clause table, keeping clauses already in `run.clauses`
// (e.g. catalog rows from shards) that no test covers.
void Normalize(RunResult& run);

// Verdict of a test from its checks (Combine); pass for a test with no checks is the session's call.
[[nodiscard]] Verdict CombineChecks(const std::vector<CheckResult>& checks);

}  // namespace mroce::harness
