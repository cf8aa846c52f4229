#include "mroce/campaign/suite_run.h"

#include <gtest/gtest.h>

#include "mroce/campaign/selftest.h"

namespace mroce::campaign {
namespace {

const Suite& TestSuite() {
  static const Suite suite = [] {
    auto s = LoadSuite(MROCE_CAMPAIGN_SUITE, "");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return std::move(s).value();
  }();
  return suite;
}

Options Quiet() {
  Options o;
  o.jobs = 2;
  o.session.write_evidence = false;
  return o;
}

TEST(SuiteRunTest, LoadErrorsNameTheFile) {
  auto missing = LoadSuite("/nonexistent/suite", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/suite"), std::string::npos) << missing.error().message;
}

TEST(SuiteRunTest, PlanChecksTheDutAndTheSelection) {
  RunSpec spec;
  spec.dut_spec = "nic9";
  auto bad = PlanRun(TestSuite(), spec);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown kind 'nic9'"), std::string::npos) << bad.error().message;
  spec.dut_spec = "rocev2";
  spec.filter = "nothing.*";
  spec.shard = Shard{1, 2};
  auto none = PlanRun(TestSuite(), spec);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no case in '" MROCE_CAMPAIGN_SUITE "' matches --filter 'nothing.*' in shard 1/2"),
            std::string::npos)
      << none.error().message;
  spec.filter.clear();
  spec.seed = 7;
  auto plan = PlanRun(TestSuite(), spec);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan.value().tasks.size(), 1u);
  EXPECT_EQ(plan.value().run.dut.identity, "rocev2");
  EXPECT_EQ(plan.value().run.dut.description, "rocev2 device, --dut rocev2");
  EXPECT_EQ(plan.value().run.seed, 7u);
  EXPECT_TRUE(plan.value().run.incomplete);
  EXPECT_TRUE(plan.value().run.tests.empty());
}

TEST(SuiteRunTest, ExecutedRunIsSortedCompleteAndWaived) {
  RunSpec spec;
  spec.dut_spec = "reference:quirk=go_back_n";
  harness::Expectation w;
  w.test = "loss.sack.*";
  w.dut = "reference:quirk=*";
  w.verdict = harness::Verdict::kFail;
  w.reason = "go-back-N on purpose";
  w.expires = "2999-12-31";
  spec.waivers = {w};
  auto plan = PlanRun(TestSuite(), spec);
  ASSERT_TRUE(plan.ok());
  const ExecutedRun done = ExecuteRun(plan.value(), Quiet());
  const harness::RunResult& run = done.run;
  EXPECT_FALSE(run.incomplete);
  EXPECT_FALSE(run.finished_at.empty());
  ASSERT_EQ(run.tests.size(), 2u);
  EXPECT_EQ(run.tests[0].id, "basic.ops.mixed");  // sorted by id
  EXPECT_EQ(run.tests[1].id, "loss.sack.exact-retransmit");
  EXPECT_EQ(run.tests[1].verdict, harness::Verdict::kFail);
  EXPECT_EQ(run.tests[1].expectation, harness::ExpectationStatus::kExpected);
  EXPECT_EQ(run.tests[1].expectation_reason, "go-back-N on purpose");
  EXPECT_EQ(harness::ComputeExitStatus(run), harness::kExitOk);
  EXPECT_FALSE(run.clauses.empty());
}

TEST(SuiteRunTest, AStoppedRunKeepsItsResultsAndIsIncomplete) {
  RunSpec spec;
  auto plan = PlanRun(TestSuite(), spec);
  ASSERT_TRUE(plan.ok());
  std::stop_source stop;
  Options o = Quiet();
  o.jobs = 1;
  o.stop = stop.get_token();
  o.on_result = [&](const Finished&) { stop.request_stop(); };
  const ExecutedRun done = ExecuteRun(plan.value(), o);
  EXPECT_TRUE(done.campaign.interrupted);
  EXPECT_TRUE(done.run.incomplete);
  EXPECT_TRUE(done.run.finished_at.empty());
  ASSERT_EQ(done.run.tests.size(), 1u);
  EXPECT_EQ(done.run.tests[0].verdict, harness::Verdict::kPass);
  EXPECT_EQ(done.planned, 2u);
  EXPECT_EQ(harness::ComputeExitStatus(done.run), harness::kExitHarnessError);
}

TEST(SelftestTest, KillMatrixOfTheSmallSuite) {
  SelftestSpec spec;
  spec.seeds = {1, 2};
  spec.quirks = {"go_back_n", "accept_unknown_version"};
  auto r = RunSelftest(TestSuite(), spec, Quiet());
  ASSERT_TRUE(r.ok());
  const SelftestResult& s = r.value();
  EXPECT_EQ(s.pristine.fail + s.pristine.error + s.pristine.inconclusive, 0);
  ASSERT_EQ(s.quirks.size(), 2u);
  EXPECT_EQ(s.quirks[0].name, "go_back_n");
  EXPECT_EQ(s.quirks[0].killed_by, std::vector<std::string>{"loss.sack.exact-retransmit"});
  EXPECT_TRUE(s.quirks[1].killed_by.empty());
  EXPECT_EQ(s.caught(), 1u);
  EXPECT_EQ(s.rocev2.error, 0);
  EXPECT_FALSE(s.ok);
  auto unknown = RunSelftest(TestSuite(), SelftestSpec{.seeds = {1}, .quirks = {"teleport"}}, Quiet());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message.rfind("--quirks: unknown quirk 'teleport' (known: ", 0), 0u) << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("go_back_n"), std::string::npos) << unknown.error().message;
}

TEST(SelftestTest, QuirkShardsPartitionTheQuirks) {
  // Three quirks (kept in the order of every quirk) over two shards: the first and third, then the
  // second; together every quirk once.
  SelftestSpec spec;
  spec.seeds = {1};
  spec.run_variants = false;
  spec.quirks = {"go_back_n", "accept_unknown_version", "ignore_ecn"};
  std::vector<std::string> seen;
  for (int k = 1; k <= 2; ++k) {
    spec.quirk_shard = k;
    spec.quirk_shards = 2;
    auto r = RunSelftest(TestSuite(), spec, Quiet());
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const auto& q : r.value().quirks) seen.push_back(q.name);
    EXPECT_EQ(r.value().quirks.size(), k == 1 ? 2u : 1u);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"go_back_n", "accept_unknown_version", "ignore_ecn"}));
  spec.quirk_shard = 3;
  auto bad = RunSelftest(TestSuite(), spec, Quiet());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("shard 3/2 does not exist"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace mroce::campaign
