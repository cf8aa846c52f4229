// Tests of the benchmark library: metrics and report shape, and a smoke run of
// `mroce-cts bench resilience --quick --json` (shape only: no timing, no figures asserted).
#include <cstdlib>
#include <filesystem>
#include <fstream>

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

TEST(BenchCli, ResilienceQuickJsonShape) {
  const auto dir = std::filesystem::temp_directory_path() / ("mroce_bench_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto json_path = dir / "bench.json";
  const std::string cmd = std::string(MROCE_CTS_BIN) + " bench resilience --quick --no-fail --json " + json_path.string() +
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
  }
  std::ifstream out(dir / "stdout.txt");
  const std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("== resilience"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mroce::bench
