#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mroce/reports/diff.h"
#include "mroce/reports/merge.h"
#include "mroce/reports/run_dir.h"
#include "sample_run.h"

namespace mroce::reports {
namespace {

namespace fs = std::filesystem;
using harness::Verdict;

harness::TestResult* Find(harness::RunResult& run, const std::string& id) {
  for (auto& t : run.tests) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

TEST(Diff, ClassifiesChanges) {
  harness::RunResult old_run = testing::SampleRun();
  harness::RunResult new_run = old_run;
  Find(new_run, "loss.sack.exact-retransmit")->verdict = Verdict::kFail;
  Find(new_run, "loss.sack.exact-retransmit")->reason = "3 spurious retransmissions";
  Find(new_run, "conn.crc.bad-crc-dropped")->verdict = Verdict::kPass;
  Find(new_run, "cc.ecn.aimd")->verdict = Verdict::kError;       // inconclusive -> error
  Find(new_run, "paths.failover.blackhole")->verdict = Verdict::kPass;  // skip -> pass
  std::erase_if(new_run.tests, [](const harness::TestResult& t) { return t.id == "cc.hint.rate-under-hint"; });
  harness::TestResult added;
  added.id = "new.case";
  new_run.tests.push_back(added);
  RunDiff d = DiffRuns(old_run, new_run);
  ASSERT_EQ(d.entries.size(), 6u);
  EXPECT_EQ(d.entries[0].id, "cc.ecn.aimd");
  EXPECT_EQ(d.entries[0].kind, DiffEntry::Kind::kRegression);
  EXPECT_EQ(d.entries[1].kind, DiffEntry::Kind::kRemoved);
  EXPECT_EQ(d.entries[2].kind, DiffEntry::Kind::kImprovement);
  EXPECT_EQ(d.entries[3].kind, DiffEntry::Kind::kRegression);
  EXPECT_EQ(d.entries[4].kind, DiffEntry::Kind::kAdded);
  EXPECT_EQ(d.entries[5].kind, DiffEntry::Kind::kChanged);
  EXPECT_EQ(d.regressions, 2);
  EXPECT_TRUE(d.has_regression());
  std::string text = FormatDiff(d);
  EXPECT_NE(text.find("REGRESSION  loss.sack.exact-retransmit  pass -> fail  (3 spurious retransmissions)"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("diff: 2 regression(s), 1 fix(es), 1 removed, 1 added, 1 changed (pass <-> skip): FAIL\n", 0), 0u)
      << text;
  EXPECT_EQ(d.improvements, 1);
  EXPECT_EQ(d.changed, 1);
  EXPECT_EQ(d.added, 1);
  EXPECT_EQ(d.removed, 1);
}

// A candidate that lost cases of the baseline gates, unless removals are allowed; the summary comes
// first either way.
TEST(Diff, RemovedCasesGateUnlessAllowed) {
  harness::RunResult old_run = testing::SampleRun();
  harness::RunResult new_run = old_run;
  new_run.tests.resize(1);
  RunDiff d = DiffRuns(old_run, new_run);
  EXPECT_FALSE(d.has_regression());
  EXPECT_EQ(d.removed, static_cast<int>(old_run.tests.size()) - 1);
  EXPECT_TRUE(d.gates(false));
  EXPECT_FALSE(d.gates(true));
  const std::string strict = FormatDiff(d);
  EXPECT_EQ(strict.rfind("diff: 0 regression(s), 0 fix(es), " + std::to_string(d.removed) + " removed", 0), 0u) << strict;
  EXPECT_NE(strict.find(": FAIL\n"), std::string::npos) << strict;
  EXPECT_NE(strict.find("gate: " + std::to_string(d.removed) + " case(s) of the baseline are missing"), std::string::npos)
      << strict;
  const std::string allowed = FormatDiff(d, true);
  EXPECT_NE(allowed.find(": ok (removed cases allowed by --allow-removed)\n"), std::string::npos) << allowed;
  EXPECT_EQ(allowed.find("gate:"), std::string::npos) << allowed;
  // Added cases never gate.
  EXPECT_FALSE(DiffRuns(new_run, old_run).gates(false));
}

TEST(Diff, NotesRunsOfDifferentSuites) {
  harness::RunResult old_run = testing::SampleRun();
  harness::RunResult new_run = old_run;
  new_run.suite_digest = "sha256:" + std::string(64, 'b');
  RunDiff d = DiffRuns(old_run, new_run);
  EXPECT_TRUE(d.other_suite);
  EXPECT_NE(FormatDiff(d).find("note: the runs judged different suites (suite_digest sha256:aaaa"), std::string::npos);
  EXPECT_FALSE(DiffRuns(old_run, old_run).other_suite);
}

TEST(Diff, IdenticalRunsHaveNoRegression) {
  auto run = testing::SampleRun();
  RunDiff d = DiffRuns(run, run);
  EXPECT_TRUE(d.entries.empty());
  EXPECT_FALSE(d.has_regression());
}

TEST(Diff, LostConformanceIsARegression) {
  harness::RunResult good;
  harness::TestResult t;
  t.id = "a.b";
  t.level = harness::Level::kMust;
  good.tests = {t};
  harness::RunResult bad = good;
  bad.incomplete = true;
  RunDiff d = DiffRuns(good, bad);
  EXPECT_TRUE(d.lost_conformance);
  EXPECT_TRUE(d.has_regression());
}

std::vector<harness::RunResult> Shards() {
  harness::RunResult all = testing::SampleRun();
  harness::RunResult a = all, b = all;
  a.tests.assign(all.tests.begin(), all.tests.begin() + 2);
  b.tests.assign(all.tests.begin() + 2, all.tests.end());
  b.started_at = "2025-01-31T11:59:00Z";
  b.finished_at = "2025-01-31T12:05:00Z";
  harness::Normalize(a);
  harness::Normalize(b);
  return {a, b};
}

TEST(Merge, UnitesShards) {
  auto merged = MergeRuns(Shards());
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  harness::RunResult want = testing::SampleRun();
  want.started_at = "2025-01-31T11:59:00Z";
  want.finished_at = "2025-01-31T12:05:00Z";
  EXPECT_EQ(*merged, want);
}

TEST(Merge, IdenticalDuplicatesAreFineConflictsAreNot) {
  auto shards = Shards();
  shards[1].tests.push_back(shards[0].tests[0]);
  EXPECT_TRUE(MergeRuns(shards).ok());
  shards[1].tests.back().verdict = Verdict::kFail;
  auto conflict = MergeRuns(shards);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, "report.merge");
  EXPECT_EQ(conflict.error().message, "case '" + shards[0].tests[0].id + "' has conflicting results in shard 1 and shard 2");
}

TEST(Merge, ShardsMustAgree) {
  auto shards = Shards();
  shards[1].dut.identity = "rocev2";
  auto refused = MergeRuns(shards);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("DUT identity 'rocev2'"), std::string::npos);
  shards = Shards();
  shards[1].seed = 7;
  EXPECT_FALSE(MergeRuns(shards).ok());
  shards = Shards();
  shards[0].incomplete = true;
  auto merged = MergeRuns(shards);
  ASSERT_TRUE(merged.ok());
  EXPECT_TRUE(merged->incomplete);
}

// Shards of a sharded run know which they are: two of three are a partial run, all three are not,
// and the same shard twice or shards of other filters are refused.
TEST(Merge, MissingShardsMakeAPartialRun) {
  auto shards = Shards();
  const harness::RunResult full = [] {
    harness::RunResult r = testing::SampleRun();
    harness::Normalize(r);
    return r;
  }();
  std::vector<harness::RunResult> three = {shards[0], shards[1], shards[1]};
  three[2].tests.clear();
  for (int i = 0; i < 3; ++i) {
    three[static_cast<size_t>(i)].selection.shard_count = 3;
    three[static_cast<size_t>(i)].selection.shards = {i + 1};
    three[static_cast<size_t>(i)].selection.suite_cases = static_cast<int>(full.tests.size());
  }
  auto two = MergeRuns({three[0], three[1]});
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->selection.shards, (std::vector<int>{1, 2}));
  const harness::Summary partial = harness::Summarize(*two);
  EXPECT_TRUE(partial.partial);
  EXPECT_FALSE(partial.conformant);
  ASSERT_EQ(partial.partial_reasons.size(), 1u);
  EXPECT_NE(partial.partial_reasons[0].find("shard(s) 1,2 of 3 only (missing 3"), std::string::npos)
      << partial.partial_reasons[0];
  auto all = MergeRuns({three[2], three[0], three[1]});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->selection.shards, (std::vector<int>{1, 2, 3}));
  EXPECT_FALSE(harness::Summarize(*all).partial);
  auto twice = MergeRuns({three[0], three[0]});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("shard 1/3 is given twice"), std::string::npos);
  three[1].selection.filter = "ack.*";
  auto other = MergeRuns({three[0], three[1]});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("filter 'ack.*' differs"), std::string::npos) << other.error().message;
}

TEST(RunDir, WriteReadRerenderMerge) {
  fs::path root = fs::temp_directory_path() / ("mroce_reports_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto shards = Shards();
  for (int i = 0; i < 2; ++i) {
    fs::path dir = root / ("shard" + std::to_string(i));
    ASSERT_TRUE(WriteRunDir(dir.string(), shards[i]).ok());
    fs::create_directories(dir / "evidence");
    std::ofstream(dir / "evidence" / ("s" + std::to_string(i) + ".pcap")) << "pcap";
    EXPECT_TRUE(fs::exists(dir / "report.json"));
    EXPECT_TRUE(fs::exists(dir / "junit.xml"));
    EXPECT_TRUE(fs::exists(dir / "report.html"));
  }
  auto back = ReadRun((root / "shard0").string());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, shards[0]);
  // Re-rendering reproduces the same files byte for byte.
  std::ifstream in(root / "shard0" / "report.html");
  std::string before((std::istreambuf_iterator<char>(in)), {});
  fs::remove(root / "shard0" / "report.html");
  ASSERT_TRUE(RerenderRunDir((root / "shard0").string()).ok());
  std::ifstream in2(root / "shard0" / "report.html");
  std::string after((std::istreambuf_iterator<char>(in2)), {});
  EXPECT_EQ(before, after);
  ASSERT_TRUE(MergeRunDirs({(root / "shard0").string(), (root / "shard1").string()}, (root / "merged").string()).ok());
  EXPECT_TRUE(fs::exists(root / "merged" / "evidence" / "s0.pcap"));
  EXPECT_TRUE(fs::exists(root / "merged" / "evidence" / "s1.pcap"));
  auto merged = ReadRun((root / "merged").string());
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->tests.size(), 5u);
  // No temporary files left behind.
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  auto nope = ReadRun((root / "nope").string());
  ASSERT_FALSE(nope.ok());
  EXPECT_EQ(nope.error().code, "report.read");
  EXPECT_NE(nope.error().message.find("no such file"), std::string::npos);
  fs::remove_all(root);
}

}  // namespace
}  // namespace mroce::reports
