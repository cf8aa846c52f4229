#include "mroce/harness/expectations.h"

#include <gtest/gtest.h>

namespace mroce::harness {
namespace {

RunResult MakeRun(std::string dut, std::vector<std::pair<std::string, Verdict>> results) {
  RunResult run;
  run.dut.identity = std::move(dut);
  for (auto& [id, v] : results) {
    TestResult t;
    t.id = id;
    t.verdict = v;
    run.tests.push_back(t);
  }
  return run;
}

Expectation E(std::string test, std::string dut, Verdict v, std::string expires = "2030-01-01") {
  return {std::move(test), std::move(dut), v, "because", std::move(expires), {}};
}

TEST(Expectations, Glob) {
  EXPECT_TRUE(GlobMatch("loss.*", "loss.sack.x"));
  EXPECT_TRUE(GlobMatch("*", "a"));
  EXPECT_FALSE(GlobMatch("loss.?", "loss.ab"));
  EXPECT_TRUE(GlobMatch("rocev2*", "rocev2"));
}

TEST(Expectations, ExpectedFailDoesNotGate) {
  RunResult run = MakeRun("rocev2", {{"loss.a", Verdict::kFail}, {"loss.b", Verdict::kPass}});
  ApplyExpectations(run, {E("loss.a", "rocev2*", Verdict::kFail)}, "2025-06-01");
  EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kExpected);
  EXPECT_EQ(run.tests[0].expectation_reason, "because");
  EXPECT_EQ(run.tests[1].expectation, ExpectationStatus::kNone);
  EXPECT_EQ(ComputeExitStatus(run), kExitOk);
  EXPECT_EQ(Summarize(run).expected, 1);
}

TEST(Expectations, UnexpectedPassIsReportedButDoesNotGate) {
  RunResult run = MakeRun("rocev2", {{"loss.a", Verdict::kPass}});
  ApplyExpectations(run, {E("loss.*", "*", Verdict::kFail)}, "2025-06-01");
  EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kUnexpectedPass);
  EXPECT_EQ(ComputeExitStatus(run), kExitOk);
  EXPECT_EQ(Summarize(run).unexpected_pass, 1);
}

TEST(Expectations, ExpiredWaiverGates) {
  RunResult run = MakeRun("rocev2", {{"loss.a", Verdict::kFail}});
  ApplyExpectations(run, {E("loss.a", "*", Verdict::kFail, "2025-05-31")}, "2025-06-01");
  EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kExpiredWaiver);
  EXPECT_EQ(ComputeExitStatus(run), kExitUnexpected);
  // The expiry day itself still holds.
  ApplyExpectations(run, {E("loss.a", "*", Verdict::kFail, "2025-06-01")}, "2025-06-01");
  EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kExpected);
}

// The user guide: an expired waiver gates. A passing (or skipped) case whose waiver expired gates
// too: the waivers file must be renewed or cleaned before a release passes.
TEST(Expectations, ExpiredWaiverGatesEvenOnAPassingCase) {
  for (Verdict v : {Verdict::kPass, Verdict::kSkip}) {
    RunResult run = MakeRun("rocev2", {{"loss.a", v}});
    ApplyExpectations(run, {E("loss.a", "*", Verdict::kFail, "2025-05-31")}, "2025-06-01");
    EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kExpiredWaiver);
    EXPECT_EQ(ComputeExitStatus(run), kExitUnexpected) << ToString(v);
    EXPECT_EQ(Summarize(run).expired_waivers, 1);
  }
  // An error still wins (3 over 1).
  RunResult run = MakeRun("rocev2", {{"loss.a", Verdict::kPass}, {"loss.b", Verdict::kError}});
  ApplyExpectations(run, {E("loss.a", "*", Verdict::kFail, "2025-05-31")}, "2025-06-01");
  EXPECT_EQ(ComputeExitStatus(run), kExitHarnessError);
}

TEST(Expectations, DutScoping) {
  RunResult run = MakeRun("vendor-x/1.2", {{"loss.a", Verdict::kFail}});
  ApplyExpectations(run, {E("loss.a", "rocev2*", Verdict::kFail)}, "2025-06-01");
  EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kNone);
  EXPECT_EQ(ComputeExitStatus(run), kExitUnexpected);
  ApplyExpectations(run, {E("loss.a", "vendor-x/*", Verdict::kFail)}, "2025-06-01");
  EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kExpected);
  EXPECT_EQ(ComputeExitStatus(run), kExitOk);
}

TEST(Expectations, FirstMatchWinsAndMismatchGates) {
  RunResult run = MakeRun("d", {{"a.b", Verdict::kInconclusive}});
  ApplyExpectations(run, {E("a.*", "*", Verdict::kFail), E("a.b", "*", Verdict::kInconclusive)}, "2025-06-01");
  EXPECT_EQ(run.tests[0].expectation, ExpectationStatus::kMismatch);
  EXPECT_EQ(ComputeExitStatus(run), kExitUnexpected);
}

TEST(Expectations, ExitStatusTable) {
  EXPECT_EQ(ComputeExitStatus(MakeRun("d", {{"a.a", Verdict::kPass}, {"a.b", Verdict::kSkip}})), kExitOk);
  EXPECT_EQ(ComputeExitStatus(MakeRun("d", {{"a.a", Verdict::kFail}})), kExitUnexpected);
  EXPECT_EQ(ComputeExitStatus(MakeRun("d", {{"a.a", Verdict::kInconclusive}})), kExitUnexpected);
  EXPECT_EQ(ComputeExitStatus(MakeRun("d", {{"a.a", Verdict::kError}, {"a.b", Verdict::kFail}})), kExitHarnessError);
  RunResult waived_error = MakeRun("d", {{"a.a", Verdict::kError}});
  ApplyExpectations(waived_error, {E("a.a", "*", Verdict::kError)}, "2025-01-01");
  EXPECT_EQ(ComputeExitStatus(waived_error), kExitOk);
  RunResult interrupted = MakeRun("d", {{"a.a", Verdict::kPass}});
  interrupted.incomplete = true;
  EXPECT_EQ(ComputeExitStatus(interrupted), kExitHarnessError);
}

TEST(Expectations, TodayFormat) {
  std::string today = TodayUtc();
  ASSERT_EQ(today.size(), 10u);
  EXPECT_EQ(today[4], '-');
}

}  // namespace
}  // namespace mroce::harness
