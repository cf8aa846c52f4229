// Impairment profiles: the case loader's `impairments:` syntax, `rtt:`, errors with file:line:key.
#include "mroce/impairment/dpdk/profile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace mroce::impairment::dpdk {
namespace {

std::string LoadError(const std::string& yaml) {
  harness::ImpairmentProfile p;
  std::string e;
  EXPECT_FALSE(LoadProfileString(yaml, "prof.yaml", &p, &e)) << yaml;
  return e;
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
  harness::ImpairmentProfile p;
  std::string e;
  ASSERT_TRUE(LoadProfileString(yaml, "prof.yaml", &p, &e)) << e;
  EXPECT_EQ(p.rtt_ns, 20'000);
  ASSERT_EQ(p.impairments.size(), 2u);
  sim::Simulator sim;
  Pipeline d2p(&sim, "a"), p2d(&sim, "b");
  ASSERT_TRUE(AddProfileStages(p, Direction::kDutToPeer, 1, &d2p, &e)) << e;
  ASSERT_TRUE(AddProfileStages(p, Direction::kPeerToDut, 1, &p2d, &e)) << e;
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
  harness::ImpairmentProfile p;
  std::string e;
  ASSERT_TRUE(LoadProfileString("impairments: []\n", "p.yaml", &p, &e)) << e;
  EXPECT_EQ(p.rtt_ns, 10'000);
  EXPECT_TRUE(p.impairments.empty());
}

TEST(ProfileTest, ErrorsNameFileLineAndKey) {
  std::string e = LoadError("impairments:\n  - stage: loss.bernouli\n    params: {rate: 0.1}\n");
  EXPECT_NE(e.find("prof.yaml:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("impairments[0].stage: unknown impairment stage 'loss.bernouli'"), std::string::npos) << e;

  e = LoadError("impairments: []\nrate: 3\n");
  EXPECT_NE(e.find("prof.yaml:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("rate"), std::string::npos) << e;

  e = LoadError("rtt: 10us\n");
  EXPECT_NE(e.find("impairments"), std::string::npos) << e;

  e = LoadError("rtt: 5\nimpairments: []\n");
  EXPECT_NE(e.find("prof.yaml:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("rtt: the base RTT needs a time unit"), std::string::npos) << e;

  e = LoadError("impairments:\n  - stage: delay\n    colour: red\n");
  EXPECT_NE(e.find("prof.yaml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("colour"), std::string::npos) << e;

  e = LoadError("impairments: [\n");
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;

  e = LoadError("");
  EXPECT_NE(e.find("empty impairment profile"), std::string::npos) << e;
}

TEST(ProfileTest, ParameterErrorsNameTheItemAndKey) {
  harness::ImpairmentProfile p;
  std::string e;
  ASSERT_TRUE(LoadProfileString("impairments:\n  - {stage: loss.bernoulli}\n  - stage: loss.bernoulli\n"
                                "    params: {rate: 2}\n",
                                "prof.yaml", &p, &e))
      << e;
  sim::Simulator sim;
  Pipeline pl(&sim, "x");
  EXPECT_FALSE(AddProfileStages(p, Direction::kDutToPeer, 1, &pl, &e));
  EXPECT_NE(e.find("prof.yaml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("impairments[1]"), std::string::npos) << e;
  EXPECT_NE(e.find("rate: must be in"), std::string::npos) << e;
}

TEST(ProfileTest, MissingFile) {
  harness::ImpairmentProfile p;
  std::string e;
  EXPECT_FALSE(LoadProfile("/nonexistent/prof.yaml", &p, &e));
  EXPECT_NE(e.find("/nonexistent/prof.yaml"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot read file"), std::string::npos) << e;
}

}  // namespace
}  // namespace mroce::impairment::dpdk
