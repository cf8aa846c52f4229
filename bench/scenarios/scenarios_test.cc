// Tests of the benchmark library: metrics and report shape, and a smoke run of
// `mroce-cts bench resilience --quick --json` (shape only: no timing, no figures asserted).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "mroce/bench/metrics.h"
#include "mroce/bench/report.h"
#include "mroce/bench/scenarios.h"

namespace mroce::bench {
namespace {

TEST(Metrics, JainIndex) {
  EXPECT_DOUBLE_EQ(Jain({1, 1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(Jain({1, 0, 0, 0}), 0.25);
  EXPECT_DOUBLE_EQ(Jain({0, 0}), 0.0);
}

TEST(Report, GoalsAndJson) {
  Report r;
  r.scenario = "x";
  r.columns = {"a"};
  r.rows = {{{"a", 1.5}}};
  r.goals = {{"ge", ">=", 0.95, 0.97}, {"le", "<=", 2, 3, "RTT"}};
  const nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["scenario"], "x");
  EXPECT_TRUE(j["goals"][0]["met"].get<bool>());
  EXPECT_FALSE(j["goals"][1]["met"].get<bool>());
  EXPECT_EQ(j["results"].size(), 1u);
  EXPECT_NE(ToMarkdown(r, "").find("| 1.5 |"), std::string::npos);
}

TEST(Scenarios, Registry) {
  for (const char* n : {"resilience", "incast", "planes", "failover", "scale"}) {
    EXPECT_NE(FindScenario(n), nullptr) << n;
  }
  EXPECT_EQ(FindScenario("nope"), nullptr);
}

// --quick judges only invariant (correctness) goals; a full run judges every goal.
TEST(Goals, QuickJudgesOnlyInvariants) {
  Goal perf{"goodput", ">=", 0.95, 0.5};
  Goal lost{"bytes lost", "<=", 0, 4096, "B", true};
  EXPECT_TRUE(perf.judged(false));
  EXPECT_FALSE(perf.judged(true));
  EXPECT_TRUE(lost.judged(false));
  EXPECT_TRUE(lost.judged(true));
  Report r;
  r.scenario = "x";
  r.params = {{"quick", true}};
  r.goals = {perf, lost};
  std::ostringstream out;
  PrintTable(r, out);
  EXPECT_NE(out.str().find("MISSED  (not judged in --quick) goodput"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("MISSED  bytes lost"), std::string::npos) << out.str();
  EXPECT_EQ(ToJson(r)["goals"][1]["invariant"], true);
}

TEST(BenchCli, ResilienceQuickJsonShape) {
  const auto dir = std::filesystem::temp_directory_path() / ("mroce_bench_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto json_path = dir / "bench.json";
  // --quick judges invariant goals only; resilience has none: exit 0 whatever its figures (no
  // --no-fail needed: the README's smoke command must not fail a CI job for being quick).
  const std::string cmd = std::string(MROCE_CTS_BIN) + " bench resilience --quick --json " + json_path.string() +
                          " > " + (dir / "stdout.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(json_path);
  ASSERT_TRUE(in.good());
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("scenarios"));
  ASSERT_EQ(j["scenarios"].size(), 1u);
  const nlohmann::json& s = j["scenarios"][0];
  EXPECT_EQ(s["scenario"], "resilience");
  EXPECT_TRUE(s["params"].is_object());
  ASSERT_TRUE(s["results"].is_array());
  EXPECT_EQ(s["results"].size(), 4u);  // the quick grid
  for (const auto& row : s["results"]) {
    for (const char* k : {"model", "loss_pct", "MetaRoCE_rel", "RoCEv2_rel"}) EXPECT_TRUE(row.contains(k)) << k;
  }
  ASSERT_TRUE(s["goals"].is_array());
  ASSERT_FALSE(s["goals"].empty());
  for (const auto& g : s["goals"]) {
    EXPECT_TRUE(g["name"].is_string());
    EXPECT_TRUE(g["target"].is_number());
    EXPECT_TRUE(g["measured"].is_number());
    EXPECT_TRUE(g["met"].is_boolean());
    EXPECT_EQ(g["invariant"], false) << g;
  }
  std::ifstream out(dir / "stdout.txt");
  const std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("== resilience"), std::string::npos);
  EXPECT_NE(text.find("bench: 0 of 0 goal(s) judged met (--quick judges only invariant goals; "), std::string::npos)
      << text;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mroce::bench
