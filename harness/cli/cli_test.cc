// Runs the mroce-cts binary and checks its exit codes and output.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "mroce/harness/results.h"
#ifdef MROCE_HAVE_DECODE
#include "mroce/pcap/pcap.h"
#include "mroce/wire/wire.h"
#endif
#include "mroce/reports/run_dir.h"
#include "cts_test_util.h"

namespace {

namespace fs = std::filesystem;
using mroce::harness::Verdict;

using mroce::cli::testing::Cts;
using mroce::cli::testing::Output;

const std::string kData = MROCE_LOADER_TESTDATA;

class Cli : public mroce::cli::testing::TempDirTest {
 protected:
  Cli() : TempDirTest("cli_test") {}

  std::string WriteRun(const std::string& name, std::vector<std::pair<std::string, Verdict>> results) {
    mroce::harness::RunResult run;
    run.dut.identity = "reference";
    run.suite_version = "0.1.0";
    for (auto& [id, v] : results) {
      mroce::harness::TestResult t;
      t.id = id;
      t.level = mroce::harness::Level::kMust;
      t.clauses = {{"MR-SACK-1", mroce::harness::Level::kMust}};
      t.verdict = v;
      run.tests.push_back(t);
    }
    std::string dir = (root_ / name).string();
    const mroce::Status w = mroce::reports::WriteRunDir(dir, run);
    EXPECT_TRUE(w.ok()) << w.error().message;
    return dir;
  }
};

TEST_F(Cli, HelpAndUsageErrors) {
  EXPECT_EQ(Cts("--help").status, 0);
  EXPECT_EQ(Cts("list --help").status, 0);
  Output o = Cts("");
  EXPECT_EQ(o.status, 2);
  o = Cts("frobnicate");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("frobnicate"), std::string::npos) << o.out;
  o = Cts("list --bogus");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("--bogus"), std::string::npos) << o.out;
  o = Cts("diff onlyone");
  EXPECT_EQ(o.status, 2);
  o = Cts("merge " + root_.string());
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("--out"), std::string::npos) << o.out;
}

TEST_F(Cli, ListTableAndJson) {
  Output o = Cts("list --suite " + kData + "/suite --catalog " + kData + "/catalog.json");
  ASSERT_EQ(o.status, 0) << o.out;
  size_t a = o.out.find("conn.crc.bad-crc-dropped"), b = o.out.find("loss.incast.fair-share"),
         c = o.out.find("loss.sack.exact-retransmit");
  ASSERT_NE(a, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(o.out.find("3 case(s)"), std::string::npos);
  o = Cts("list --suite " + kData + "/suite --filter 'loss.*' --json --catalog " + kData + "/catalog.json");
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_EQ(o.out.find("conn.crc"), std::string::npos);
  EXPECT_NE(o.out.find("\"id\": \"loss.incast.fair-share\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"style\": \"end-to-end\""), std::string::npos);
  EXPECT_EQ(o.out, Cts("list --suite " + kData + "/suite --filter 'loss.*' --json --catalog " + kData + "/catalog.json").out);  // Deterministic.
}

TEST_F(Cli, ListRejectsInvalidSuite) {
  Output o = Cts("list --suite " + kData + "/dup --catalog " + kData + "/catalog.json");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("duplicate case id 'dup.same-id'"), std::string::npos) << o.out;
  o = Cts("list --suite " + (root_ / "nope").string());
  EXPECT_EQ(o.status, 2);
}

TEST_F(Cli, Validate) {
  Output o = Cts("validate " + kData + "/suite --catalog " + kData + "/catalog.json");
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("ok, 3 case(s)"), std::string::npos);
  std::ofstream(root_ / "bad.yaml") << "id: a.b\ntitle: T\nclauses: [{id: MR-SACK-1, level: MUST}]\nstyle: end-to-end\n"
                                       "workload: {ops: [{op: write, size: 1}]}\nchecks: [c]\nsurprise: 1\n";
  o = Cts("validate " + (root_ / "bad.yaml").string() + " --catalog " + kData + "/catalog.json");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.out.find("bad.yaml:7:1: surprise: unknown key 'surprise'"), std::string::npos) << o.out;
  std::ofstream(root_ / "unknown-clause.yaml") << "id: a.b\ntitle: T\nclauses: [{id: MR-X-1, level: MUST}]\nstyle: end-to-end\n"
                                                  "workload: {ops: [{op: write, size: 1}]}\nchecks: [c]\n";
  o = Cts("validate " + (root_ / "unknown-clause.yaml").string() + " --catalog " + kData + "/catalog.json");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.out.find("unknown-clause.yaml:3:16: clauses[0].id: clause 'MR-X-1' is not in the clause catalog"), std::string::npos) << o.out;
  EXPECT_EQ(Cts("validate " + (root_ / "missing.yaml").string()).status, 2);
}

// Impairments are checked against impairment/'s stage kinds at load: every mistake is a validate
// failure (exit 1) naming file:line:col and the key, and stops a run before it starts (exit 2).
TEST_F(Cli, ValidateRejectsBadImpairments) {
  const std::string head = "id: a.b\ntitle: T\nclauses: [{id: MR-SACK-1, level: MUST}]\nstyle: end-to-end\n"
                           "workload: {ops: [{op: write, size: 1}]}\nchecks: [completions]\nimpairments:\n";
  struct Bad {
    std::string name;
    std::string item;   // Line 8 of the file.
    std::string error;  // Expected after "<file>:".
  };
  const std::vector<Bad> bad = {
      {"unknown-param", "  - {stage: loss.bernoulli, params: {loss: 0.1}}",
       "8:38: impairments[0].params.loss: unknown key 'loss' (loss.bernoulli takes: rate)"},
      {"rate-2", "  - {stage: loss.bernoulli, params: {rate: 2.0}}",
       "8:44: impairments[0].params.rate: must be in [0, 1], got 2.0"},
      {"rate-negative", "  - {stage: loss.bernoulli, params: {rate: -0.5}}",
       "8:44: impairments[0].params.rate: must be in [0, 1], got -0.5"},
      {"rate-nan", "  - {stage: loss.bernoulli, params: {rate: .nan}}",
       "8:44: impairments[0].params.rate: must be a finite number in [0, 1], got .nan"},
      {"duration-unitless", "  - {stage: reorder, params: {k: 2, max_hold: 200}}",
       "8:47: impairments[0].params.max_hold: '200' needs a unit (rtt, ns, us, ms or s)"},
      {"schedule-unitless", "  - {stage: blackhole, schedule: {at: 5}}",
       "8:39: impairments[0].schedule.at: '5' needs a unit (rtt, ns, us, ms or s)"},
      {"match-key", "  - {stage: corrupt, match: {path_id: 1}}",
       "8:30: impairments[0].match.path_id: unknown key 'path_id' (expected one of: direction, plane, path, sport, opcode, "
       "stream, psn, rtx, metaroce_only; the path id is 'path')"},
  };
  for (const Bad& b : bad) {
    const fs::path f = root_ / (b.name + ".yaml");
    std::ofstream(f) << head << b.item << "\n";
    Output o = Cts("validate " + f.string() + " --catalog " + kData + "/catalog.json");
    EXPECT_EQ(o.status, 1) << b.name << ": " << o.out;
    EXPECT_NE(o.out.find(f.string() + ":" + b.error), std::string::npos) << "want " << b.error << " in: " << o.out;
  }
  // `path` and `stream` are match keys a case file can use.
  std::ofstream(root_ / "good.yaml") << head << "  - {stage: corrupt, match: {path: 1, stream: 2}, params: {probability: 0.1}}\n";
  Output o = Cts("validate " + (root_ / "good.yaml").string() + " --catalog " + kData + "/catalog.json");
  EXPECT_EQ(o.status, 0) << o.out;
  // `run` refuses the suite before running anything: a configuration error.
  o = Cts("run --suite " + (root_ / "rate-2.yaml").string() + " --catalog " + kData + "/catalog.json --out " +
          (root_ / "out").string() + " -q");
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("rate-2.yaml:8:44: impairments[0].params.rate: must be in [0, 1], got 2.0"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(root_ / "out" / "report.json"));
}

TEST_F(Cli, ReportRerenders) {
  std::string dir = WriteRun("run", {{"a.b", Verdict::kPass}});
  fs::remove(fs::path(dir) / "report.html");
  fs::remove(fs::path(dir) / "junit.xml");
  Output o = Cts("report " + dir);
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_TRUE(fs::exists(fs::path(dir) / "report.html"));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "junit.xml"));
  EXPECT_EQ(Cts("report " + (root_ / "nope").string()).status, 2);
}

TEST_F(Cli, DiffExitCodes) {
  std::string old_dir = WriteRun("old", {{"a.b", Verdict::kPass}, {"a.c", Verdict::kFail}});
  std::string same = WriteRun("same", {{"a.b", Verdict::kPass}, {"a.c", Verdict::kFail}});
  std::string better = WriteRun("better", {{"a.b", Verdict::kPass}, {"a.c", Verdict::kPass}});
  std::string worse = WriteRun("worse", {{"a.b", Verdict::kFail}, {"a.c", Verdict::kFail}});
  EXPECT_EQ(Cts("diff " + old_dir + " " + same).status, 0);
  EXPECT_EQ(Cts("diff " + old_dir + " " + better).status, 0);
  Output o = Cts("diff " + old_dir + " " + worse + "/report.json");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.out.find("REGRESSION  a.b  pass -> fail"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.rfind("diff: 1 regression(s), 0 fix(es), 0 removed, 0 added, 0 changed (pass <-> skip): FAIL\n", 0), 0u)
      << o.out;
  EXPECT_EQ(Cts("diff " + old_dir + " " + (root_ / "nope").string()).status, 2);
  // Cases of the baseline missing in the candidate gate, unless --allow-removed.
  std::string fewer = WriteRun("fewer", {{"a.b", Verdict::kPass}});
  o = Cts("diff " + old_dir + " " + fewer);
  EXPECT_EQ(o.status, 1) << o.out;
  EXPECT_EQ(o.out.rfind("diff: 0 regression(s), 0 fix(es), 1 removed, 0 added, 0 changed (pass <-> skip): FAIL\n", 0), 0u)
      << o.out;
  EXPECT_NE(o.out.find("REMOVED  a.c  fail -> -"), std::string::npos) << o.out;
  o = Cts("diff --allow-removed " + old_dir + " " + fewer);
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("1 removed"), std::string::npos) << o.out;
  EXPECT_EQ(Cts("diff " + fewer + " " + better).status, 0) << "an added case does not gate";
}

TEST_F(Cli, MergeShards) {
  std::string s1 = WriteRun("s1", {{"a.b", Verdict::kPass}});
  std::string s2 = WriteRun("s2", {{"a.c", Verdict::kPass}});
  std::string conflict = WriteRun("s3", {{"a.b", Verdict::kFail}});
  Output o = Cts("merge --out " + (root_ / "merged").string() + " " + s1 + " " + s2);
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("2 case(s), MUST 2/2, conformant"), std::string::npos) << o.out;
  auto merged = mroce::reports::ReadRun((root_ / "merged").string());
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->tests.size(), 2u);
  o = Cts("merge --out " + (root_ / "merged2").string() + " " + s1 + " " + conflict);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("case 'a.b' has conflicting results"), std::string::npos) << o.out;
}

#ifdef MROCE_HAVE_DECODE
TEST_F(Cli, DecodeFramesAndParseErrors) {
  std::string path = (root_ / "t.pcap").string();
  {
    auto opened = mroce::pcap::Writer::Open(path);
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    auto& w = *opened;
    mroce::wire::Frame f;  // Defaults: Ethernet / IPv4 / UDP / MetaRoCE; computed fields filled.
    w->Write(1000, mroce::wire::SerializeFrame(f));
    std::vector<uint8_t> runt(10, 0xab);
    w->Write(2000, runt);
    w->Flush();
  }
  Output o = Cts("decode " + path);
  EXPECT_EQ(o.status, 1) << o.out;
  EXPECT_NE(o.out.find("frame 1  time 0.000001000 s"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ch.opcode"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("frame 2"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("parse error: eth."), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("2 frame(s), 1 with parse errors"), std::string::npos) << o.out;
  o = Cts("decode --json " + path);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.out.find("\"index\": 2"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"error\": {"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"ch.opcode\":"), std::string::npos) << o.out;
}
#endif

TEST_F(Cli, DecodeMissingFile) {
  Output o = Cts("decode " + (root_ / "nope.pcap").string());
#ifdef MROCE_HAVE_DECODE
  EXPECT_EQ(o.status, 2) << o.out;
#else
  EXPECT_EQ(o.status, 3) << o.out;
  EXPECT_NE(o.out.find("decode is unavailable"), std::string::npos);
#endif
}

}  // namespace
