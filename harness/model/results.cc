#include "mroce/harness/results.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace mroce::harness {

std::string FormatDecHex(uint64_t v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%llu (0x%llx)", static_cast<unsigned long long>(v),
                static_cast<unsigned long long>(v));
  return buf;
}

ValueMismatch ValueMismatch::Scalar(std::string field, uint64_t expected, uint64_t actual) {
  return {std::move(field), FormatDecHex(expected), FormatDecHex(actual)};
}

std::string_view ToString(ExpectationStatus s) {
  switch (s) {
    case ExpectationStatus::kNone: return "none";
    case ExpectationStatus::kExpected: return "expected";
    case ExpectationStatus::kUnexpectedPass: return "unexpected-pass";
    case ExpectationStatus::kMismatch: return "mismatch";
    case ExpectationStatus::kExpiredWaiver: return "expired-waiver";
  }
  return "none";
}

std::optional<ExpectationStatus> ParseExpectationStatus(std::string_view s) {
  for (auto st : {ExpectationStatus::kNone, ExpectationStatus::kExpected,
                  ExpectationStatus::kUnexpectedPass, ExpectationStatus::kMismatch,
                  ExpectationStatus::kExpiredWaiver}) {
    if (ToString(st) == s) return st;
  }
  return std::nullopt;
}

Summary Summarize(const RunResult& run) {
  Summary s;
  for (Verdict v : kAllVerdicts) s.counts[v] = 0;
  bool must_all_pass = true;
  for (const TestResult& t : run.tests) {
    ++s.total;
    ++s.counts[t.verdict];
    if (t.level == Level::kMust && t.verdict != Verdict::kSkip) {
      ++s.must_total;
      if (t.verdict == Verdict::kPass) {
        ++s.must_pass;
      } else {
        must_all_pass = false;
      }
    }
    switch (t.expectation) {
      case ExpectationStatus::kExpected: ++s.expected; break;
      case ExpectationStatus::kUnexpectedPass: ++s.unexpected_pass; break;
      case ExpectationStatus::kExpiredWaiver: ++s.expired_waivers; break;
      default: break;
    }
    if (IsBad(t.verdict) && t.expectation != ExpectationStatus::kExpected) ++s.unexpected;
  }
  const Selection& sel = run.selection;
  if (run.incomplete) s.partial_reasons.push_back("the run was interrupted: some cases never ran");
  if (!sel.filter.empty()) {
    s.partial_reasons.push_back("filtered run (--filter '" + sel.filter + "'): " + std::to_string(s.total) + " of " +
                                (sel.suite_cases > 0 ? std::to_string(sel.suite_cases) : std::string("?")) + " cases");
  }
  if (sel.shard_count > 1 && static_cast<int>(sel.shards.size()) < sel.shard_count) {
    std::string have, missing;
    for (int i = 1; i <= sel.shard_count; ++i) {
      const bool in = std::find(sel.shards.begin(), sel.shards.end(), i) != sel.shards.end();
      std::string& to = in ? have : missing;
      to += (to.empty() ? "" : ",") + std::to_string(i);
    }
    s.partial_reasons.push_back("shard(s) " + have + " of " + std::to_string(sel.shard_count) + " only (missing " + missing +
                                "; `mroce-cts merge` joins every shard)");
  }
  int harness_skips = 0;
  std::string example;
  for (const TestResult& t : run.tests) {
    if (t.level == Level::kMust && t.verdict == Verdict::kSkip && t.skip_cause == "harness") {
      if (harness_skips++ == 0) example = t.id + ": " + t.reason;
    }
  }
  if (harness_skips > 0) {
    s.partial_reasons.push_back(std::to_string(harness_skips) + " MUST case(s) skipped because the harness cannot run them with this DUT (" +
                                example + (harness_skips > 1 ? ", ..." : "") + ")");
  }
  s.partial = !s.partial_reasons.empty();
  s.conformant = must_all_pass && !run.incomplete && s.must_total > 0 && !s.partial;
  return s;
}

std::vector<ClauseRow> BuildClauseTable(const std::vector<TestResult>& tests, const Catalog* catalog) {
  struct Acc {
    std::optional<Level> level;
    std::set<std::string> tests;
    std::vector<Verdict> verdicts;
  };
  std::map<std::string, Acc> acc;
  if (catalog != nullptr) {
    for (const CatalogClause& c : catalog->clauses()) acc[c.id];
  }
  for (const TestResult& t : tests) {
    for (const ClauseRef& c : t.clauses) {
      Acc& a = acc[c.id];
      a.level = a.level ? Strongest(*a.level, c.level) : c.level;
      a.tests.insert(t.id);
      a.verdicts.push_back(t.verdict);
    }
  }
  std::vector<ClauseRow> rows;
  rows.reserve(acc.size());
  for (auto& [id, a] : acc) {
    ClauseRow row;
    row.id = id;
    const CatalogClause* known = catalog != nullptr ? catalog->Find(id) : nullptr;
    row.level = known != nullptr ? known->level : a.level.value_or(Level::kMust);
    if (known != nullptr) row.summary = known->summary;
    row.tests.assign(a.tests.begin(), a.tests.end());
    row.status = a.verdicts.empty() ? "untested" : std::string(ToString(Combine(a.verdicts)));
    rows.push_back(std::move(row));
  }
  return rows;
}

void Normalize(RunResult& run) {
  std::stable_sort(run.tests.begin(), run.tests.end(),
                   [](const TestResult& a, const TestResult& b) { return a.id < b.id; });
  // Rebuild against a catalog made of the rows already present, so untested catalog clauses and
  // their summaries survive re-rendering and merging.
  std::vector<CatalogClause> known;
  for (const ClauseRow& r : run.clauses) known.push_back({r.id, r.level, r.summary, "", ""});
  // Drop duplicates (merged shards carry the same catalog rows).
  std::sort(known.begin(), known.end(),
            [](const CatalogClause& a, const CatalogClause& b) { return a.id < b.id; });
  known.erase(std::unique(known.begin(), known.end(),
                          [](const CatalogClause& a, const CatalogClause& b) { return a.id == b.id; }),
              known.end());
  Catalog catalog(std::move(known));
  run.clauses = BuildClauseTable(run.tests, &catalog);
}

Verdict CombineChecks(const std::vector<CheckResult>& checks) {
  std::vector<Verdict> v;
  v.reserve(checks.size());
  for (const CheckResult& c : checks) v.push_back(c.verdict);
  return Combine(v);
}

}  // namespace mroce::harness
