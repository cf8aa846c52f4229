#include "mroce/harness/results.h"

#include <gtest/gtest.h>

namespace mroce::harness {
namespace {

TestResult T(std::string id, Level level, Verdict v, std::vector<std::string> clauses) {
  TestResult t;
  t.id = std::move(id);
  t.level = level;
  t.verdict = v;
  for (auto& c : clauses) t.clauses.push_back({c, level});
  return t;
}

TEST(Results, FormatDecHex) {
  EXPECT_EQ(FormatDecHex(10), "10 (0xa)");
  EXPECT_EQ(ValueMismatch::Scalar("ack.epsn", 10, 12).actual, "12 (0xc)");
}

TEST(Results, SummaryConformance) {
  RunResult run;
  run.tests = {T("a.x", Level::kMust, Verdict::kPass, {"C1"}), T("a.y", Level::kMust, Verdict::kSkip, {"C2"}),
               T("b.z", Level::kShould, Verdict::kFail, {"C3"})};
  Summary s = Summarize(run);
  EXPECT_EQ(s.total, 3);
  EXPECT_EQ(s.counts[Verdict::kPass], 1);
  EXPECT_EQ(s.counts[Verdict::kError], 0);
  EXPECT_EQ(s.must_total, 1);  // Skipped MUST cases do not count.
  EXPECT_EQ(s.must_pass, 1);
  EXPECT_TRUE(s.conformant);   // A SHOULD failure does not break conformance.
  EXPECT_EQ(s.unexpected, 1);
  run.tests.push_back(T("c.w", Level::kMust, Verdict::kInconclusive, {"C1"}));
  EXPECT_FALSE(Summarize(run).conformant);
  run.tests.pop_back();
  run.incomplete = true;
  EXPECT_FALSE(Summarize(run).conformant);
  EXPECT_FALSE(Summarize(RunResult{}).conformant);
}

// A run that does not stand for the whole suite claims nothing, whatever passed.
TEST(Results, PartialRunsAreNoConformanceClaim) {
  RunResult run;
  run.tests = {T("a.x", Level::kMust, Verdict::kPass, {"C1"})};
  run.selection.suite_cases = 10;
  EXPECT_TRUE(Summarize(run).conformant);
  run.selection.filter = "a.*";
  Summary s = Summarize(run);
  EXPECT_FALSE(s.conformant);
  EXPECT_TRUE(s.partial);
  ASSERT_EQ(s.partial_reasons.size(), 1u);
  EXPECT_EQ(s.partial_reasons[0], "filtered run (--filter 'a.*'): 1 of 10 cases");
  run.selection.filter.clear();
  // A MUST case the harness could not run with this DUT makes the run partial; a feature the DUT
  // does not claim does not.
  TestResult feature = T("a.y", Level::kMust, Verdict::kSkip, {"C2"});
  feature.skip_cause = "feature";
  run.tests.push_back(feature);
  EXPECT_TRUE(Summarize(run).conformant);
  TestResult live = T("a.z", Level::kMust, Verdict::kSkip, {"C3"});
  live.skip_cause = "harness";
  live.reason = "scripted cases need a DUT on the harness's simulated clock; this DUT runs live";
  run.tests.push_back(live);
  s = Summarize(run);
  EXPECT_FALSE(s.conformant);
  ASSERT_EQ(s.partial_reasons.size(), 1u);
  EXPECT_NE(s.partial_reasons[0].find("1 MUST case(s) skipped because the harness cannot run them with this DUT (a.z: "),
            std::string::npos)
      << s.partial_reasons[0];
  run.tests.pop_back();
  run.incomplete = true;
  EXPECT_TRUE(Summarize(run).partial);
}

TEST(Results, ClauseTable) {
  std::vector<TestResult> tests = {T("b.t", Level::kMust, Verdict::kPass, {"C1", "C2"}),
                                   T("a.t", Level::kMust, Verdict::kFail, {"C1"})};
  Catalog catalog({{"C9", Level::kMay, "nine", "", ""}, {"C2", Level::kShould, "two", "", ""}});
  auto rows = BuildClauseTable(tests, &catalog);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].id, "C1");
  EXPECT_EQ(rows[0].tests, (std::vector<std::string>{"a.t", "b.t"}));
  EXPECT_EQ(rows[0].status, "fail");
  EXPECT_EQ(rows[1].level, Level::kShould);  // The catalog's level wins.
  EXPECT_EQ(rows[1].summary, "two");
  EXPECT_EQ(rows[1].status, "pass");
  EXPECT_EQ(rows[2].status, "untested");
}

TEST(Results, NormalizeSortsAndKeepsUntestedRows) {
  RunResult run;
  run.tests = {T("z.t", Level::kMust, Verdict::kPass, {"C1"}), T("a.t", Level::kMust, Verdict::kPass, {"C1"})};
  run.clauses = {{"C0", Level::kMay, "zero", {}, "untested"}};
  Normalize(run);
  EXPECT_EQ(run.tests[0].id, "a.t");
  ASSERT_EQ(run.clauses.size(), 2u);
  EXPECT_EQ(run.clauses[0].id, "C0");
  EXPECT_EQ(run.clauses[0].summary, "zero");
  EXPECT_EQ(run.clauses[1].tests.size(), 2u);
}

}  // namespace
}  // namespace mroce::harness
