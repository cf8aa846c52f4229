// Impairment profiles: the case loader's `impairments:` item syntax (impairment/stage_yaml.h), `rtt:`,
// every mistake refused at load with file:line:col and the key.
#include "mroce/impairment/dpdk/profile.h"

#include <gtest/gtest.h>

namespace mroce::impairment::dpdk {
namespace {

std::string LoadError(const std::string& yaml) {
  auto p = LoadProfileString(yaml, "prof.yaml");
  EXPECT_FALSE(p.ok()) << yaml;
  return p.ok() ? "" : p.error().message;
}

TEST(ProfileTest, BuildsStagesPerDirectionWithUniqueNames) {
  const char* yaml = R"(rtt: 20us
impairments:
  - stage: loss.bernoulli
    name: lossy
    params: {rate: 0.01}
  - stage: delay
    match: {direction: peer->dut}
    params: {base: 2rtt}
    schedule: {at: 1ms, until: 3rtt}
)";
  auto loaded = LoadProfileString(yaml, "prof.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const ImpairmentProfile& p = loaded.value();
  EXPECT_EQ(p.rtt_ns, 20'000);
  ASSERT_EQ(p.impairments.size(), 2u);
  sim::Simulator sim;
  Pipeline d2p(&sim, "a"), p2d(&sim, "b");
  AddProfileStages(p, Direction::kDutToPeer, 1, &d2p);
  AddProfileStages(p, Direction::kPeerToDut, 1, &p2d);
  ASSERT_EQ(d2p.stages().size(), 1u);
  EXPECT_EQ(d2p.stages()[0]->name(), "lossy@dut->peer");
  ASSERT_EQ(p2d.stages().size(), 2u);
  EXPECT_EQ(p2d.stages()[0]->name(), "lossy@peer->dut");
  EXPECT_EQ(p2d.stages()[1]->name(), "delay#1");  // Pinned to one direction: the case's name.
  // 2rtt with rtt 20us: the delay stage's configured mean is 40 us.
  const StageStats st = p2d.stages()[1]->Stats();
  ASSERT_FALSE(st.lines.empty());
  EXPECT_DOUBLE_EQ(st.lines[0].configured, 40'000) << st.ToString();
}

TEST(ProfileTest, DefaultRttIsTheCaseDefault) {
  auto p = LoadProfileString("impairments: []\n", "p.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->rtt_ns, 10'000);
  EXPECT_TRUE(p->impairments.empty());
}

TEST(ProfileTest, ErrorsNameFileLineAndKey) {
  std::string e = LoadError("impairments:\n  - stage: loss.bernouli\n    params: {rate: 0.1}\n");
  EXPECT_NE(e.find("prof.yaml:2:12: impairments[0].stage: unknown impairment stage 'loss.bernouli'"), std::string::npos) << e;

  e = LoadError("impairments: []\nrate: 3\n");
  EXPECT_NE(e.find("prof.yaml:2:1: rate: unknown key 'rate'"), std::string::npos) << e;

  e = LoadError("rtt: 10us\n");
  EXPECT_NE(e.find("impairments: missing required key 'impairments'"), std::string::npos) << e;

  e = LoadError("rtt: 5\nimpairments: []\n");
  EXPECT_NE(e.find("prof.yaml:1:6: rtt: the base RTT needs a time unit"), std::string::npos) << e;

  e = LoadError("impairments:\n  - stage: delay\n    colour: red\n");
  EXPECT_NE(e.find("prof.yaml:3:5: impairments[0].colour: unknown key 'colour'"), std::string::npos) << e;

  e = LoadError("impairments: [\n");
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;

  e = LoadError("");
  EXPECT_NE(e.find("empty impairment profile"), std::string::npos) << e;
}

// What the profile loader refuses, the case loader refuses too, with the same message: an invalid
// parameter is an error at load (before the EAL starts), not when the stages are built. Every
// problem of the file is listed.
TEST(ProfileTest, InvalidParametersAreRefusedAtLoad) {
  const std::string e = LoadError(
      "impairments:\n"
      "  - {stage: loss.bernoulli}\n"
      "  - stage: loss.bernoulli\n"
      "    params: {rate: 2}\n"
      "  - stage: reorder\n"
      "    params: {max_hold: 200, k: .nan}\n"
      "  - stage: corrupt\n"
      "    match: {path_id: 3}\n");
  EXPECT_NE(e.find("prof.yaml:4:20: impairments[1].params.rate: must be in [0, 1], got 2"), std::string::npos) << e;
  EXPECT_NE(e.find("prof.yaml:6:24: impairments[2].params.max_hold: '200' needs a unit"), std::string::npos) << e;
  EXPECT_NE(e.find("prof.yaml:6:32: impairments[2].params.k: must be an integer"), std::string::npos) << e;
  EXPECT_NE(e.find("prof.yaml:8:13: impairments[3].match.path_id: unknown key 'path_id'"), std::string::npos) << e;
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 3) << e;
}

TEST(ProfileTest, MissingFile) {
  auto p = LoadProfile("/nonexistent/prof.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "/nonexistent/prof.yaml: cannot read file");
}

}  // namespace
}  // namespace mroce::impairment::dpdk
