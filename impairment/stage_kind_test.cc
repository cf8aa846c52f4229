// The stage kind registry and its descriptors; configurations written in code; instantiation per
// plane and per direction.
#include "mroce/impairment/stage_kind.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "mroce/impairment/match_keys.h"
#include "mroce/impairment/pipeline.h"
#include "mroce/impairment/stage_config.h"
#include "mroce/impairment/stage_plan.h"

namespace mroce::impairment {
namespace {

TEST(StageKindTest, RegistryIsSortedAndComplete) {
  std::vector<std::string> names;
  for (const StageKind* k : StageKinds()) {
    names.push_back(std::string(k->name));
    EXPECT_EQ(FindStageKind(k->name), k);
    EXPECT_FALSE(k->summary.empty()) << k->name;
    ASSERT_NE(k->build, nullptr) << k->name;
    for (const ParamSpec& p : k->params) EXPECT_FALSE(p.doc.empty()) << k->name << "." << p.name;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(names, (std::vector<std::string>{"blackhole", "corrupt", "delay", "drop", "duplicate", "loss.4state",
                                             "loss.bernoulli", "loss.gilbert-elliott", "rate-limit", "reorder"}));
  EXPECT_EQ(FindStageKind("lose"), nullptr);
}

// Every kind builds from its defaults alone (each default parses as its type: FillDefaults
// asserts), gated by a schedule or not, under the instance name it is given.
TEST(StageKindTest, EveryKindBuildsFromItsDefaults) {
  for (const StageKind* k : StageKinds()) {
    auto c = MakeStageConfig(k->name, "");
    ASSERT_TRUE(c.ok()) << k->name << ": " << c.error().message;
    EXPECT_EQ(BuildStage(c.value(), "x", 1, 10'000)->name(), "x");
    c = MakeStageConfig(k->name, "", {}, {}, StageSchedule{DurationSpec::Rtts(2), DurationSpec::Nanoseconds(1e6)});
    ASSERT_TRUE(c.ok()) << k->name << ": " << c.error().message;
    auto s = BuildStage(c.value(), "y", 1, 10'000);
    EXPECT_EQ(s->name(), "y");
    EXPECT_EQ(s->Stats().kind.empty(), false) << k->name;
  }
}

TEST(StageKindTest, CodeConfigurationsAreCheckedLikeYaml) {
  Match m;
  m.direction = Direction::kDutToPeer;
  auto ok = MakeStageConfig("loss.gilbert-elliott", "ge", m, {{"mean_loss", 0.01}, {"mean_burst", 8}});
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_DOUBLE_EQ(ok->params.Real("mean_burst"), 8);  // An integer is fine for a real.
  EXPECT_EQ(ok->match, m);

  auto message = [](mroce::Result<StageConfig> r) { return r.ok() ? std::string("ok") : r.error().message; };
  EXPECT_NE(message(MakeStageConfig("lose", "")).find("unknown impairment stage 'lose' (known: blackhole,"),
            std::string::npos);
  EXPECT_NE(message(MakeStageConfig("loss.bernoulli", "", {}, {{"loss", 0.1}}))
                .find("params.loss: unknown key 'loss' (expected one of: rate)"),
            std::string::npos);
  EXPECT_NE(message(MakeStageConfig("loss.bernoulli", "", {}, {{"rate", 1.5}})).find("params.rate: must be in [0, 1], got 1.5"),
            std::string::npos);
  EXPECT_NE(message(MakeStageConfig("loss.bernoulli", "", {}, {{"rate", std::nan("")}})).find("finite"), std::string::npos);
  EXPECT_NE(message(MakeStageConfig("reorder", "", {}, {{"scope", std::string("sideways")}}))
                .find("params.scope: must be one of path, across, got \"sideways\""),
            std::string::npos);
  EXPECT_NE(message(MakeStageConfig("loss.gilbert-elliott", "", {}, {{"mean_loss", 0.1}, {"p", 0.2}}))
                .find("params.p: give mean_loss (and mean_burst) or p, r, k, h, not both"),
            std::string::npos);
  EXPECT_NE(message(MakeStageConfig("loss.4state", "", {}, {{"p13", 0.6}, {"p14", 0.6}})).find("p13 + p14 must not exceed 1"),
            std::string::npos);
  EXPECT_NE(message(MakeStageConfig("corrupt", "", {}, {},
                                    StageSchedule{DurationSpec::Rtts(5), DurationSpec::Rtts(2)}))
                .find("schedule.until: 'until' (2rtt) must be after 'at' (5rtt)"),
            std::string::npos);
}

TEST(StageKindTest, MatchKeysAreOneSetForEveryKind) {
  Match m;
  ASSERT_TRUE(SetMatchKey("direction", "peer->dut", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("plane", "1", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("path", "3", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("sport", "0xc000", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("opcode", "ACK", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("stream", "2", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("psn", "4294967295", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("rtx", "true", false, &m).ok());
  ASSERT_TRUE(SetMatchKey("metaroce_only", "false", false, &m).ok());
  EXPECT_EQ(m.ToString(), "dir=peer->dut plane=1 path=3 sport=49152 opcode=16 stream=2 psn=4294967295 rtx=1");
  EXPECT_EQ(MatchKeys().size(), 9u);

  auto error = [&](std::string_view k, std::string_view v, bool quoted = false) {
    auto st = SetMatchKey(k, v, quoted, &m);
    return st.ok() ? std::string("ok") : st.error().message;
  };
  EXPECT_EQ(error("plane", "8"), "must be 0..7, got 8");
  EXPECT_EQ(error("plane", "1", true), "must be 0..7, got \"1\"");
  EXPECT_EQ(error("direction", "sideways"), "must be dut->peer | peer->dut, got sideways");
  EXPECT_NE(error("opcode", "FLY").find("unknown opcode FLY"), std::string::npos);
  EXPECT_NE(error("colour", "red").find("unknown key 'colour' (expected one of: direction, plane, path,"), std::string::npos);
  EXPECT_NE(error("path_id", "1").find("the path id is 'path'"), std::string::npos);
  EXPECT_NE(error("stream_id", "1").find("the stream id is 'stream'"), std::string::npos);
}

// One instance per plane unless match.plane pins one; names key the random streams.
TEST(StagePlanTest, PerPlaneInstances) {
  auto every = MakeStageConfig("loss.bernoulli", "", {}, {{"rate", 0.5}});
  ASSERT_TRUE(every.ok());
  auto placed = InstantiatePerPlane(every.value(), 3, 2, 1, 10'000);
  ASSERT_TRUE(placed.ok());
  ASSERT_EQ(placed->size(), 2u);
  EXPECT_EQ((*placed)[0].plane, 0);
  EXPECT_EQ((*placed)[0].stage->name(), "loss.bernoulli#3@plane0");
  EXPECT_EQ((*placed)[1].stage->name(), "loss.bernoulli#3@plane1");
  placed = InstantiatePerPlane(every.value(), 3, 1, 1, 10'000);
  ASSERT_EQ(placed->size(), 1u);
  EXPECT_EQ((*placed)[0].stage->name(), "loss.bernoulli#3");

  Match one;
  one.plane = 1;
  auto pinned = MakeStageConfig("blackhole", "cut", one);
  ASSERT_TRUE(pinned.ok());
  placed = InstantiatePerPlane(pinned.value(), 0, 2, 1, 10'000);
  ASSERT_EQ(placed->size(), 1u);
  EXPECT_EQ((*placed)[0].plane, 1);
  EXPECT_EQ((*placed)[0].stage->name(), "cut");
  placed = InstantiatePerPlane(pinned.value(), 0, 1, 1, 10'000);
  ASSERT_FALSE(placed.ok());
  EXPECT_EQ(placed.error().message, "impairment 'blackhole' matches plane 1 but the topology has 1 plane(s)");
}

TEST(StagePlanTest, PerDirectionInstances) {
  auto both = MakeStageConfig("duplicate", "dup");
  Match m;
  m.direction = Direction::kPeerToDut;
  auto one = MakeStageConfig("delay", "", m);
  ASSERT_TRUE(both.ok() && one.ok());
  EXPECT_EQ(InstantiateForDirection(both.value(), 0, Direction::kDutToPeer, 1, 1)->name(), "dup@dut->peer");
  EXPECT_EQ(InstantiateForDirection(both.value(), 0, Direction::kPeerToDut, 1, 1)->name(), "dup@peer->dut");
  EXPECT_EQ(InstantiateForDirection(one.value(), 1, Direction::kDutToPeer, 1, 1), nullptr);
  EXPECT_EQ(InstantiateForDirection(one.value(), 1, Direction::kPeerToDut, 1, 1)->name(), "delay#1");
}

// Durations in RTTs in parameters and schedules take the RTT given at build time.
TEST(StagePlanTest, RttsResolveAtBuild) {
  auto c = MakeStageConfig("delay", "d", {}, {{"base", DurationSpec::Rtts(2)}});
  ASSERT_TRUE(c.ok());
  const StageStats st = BuildStage(c.value(), "d", 1, 20'000)->Stats();
  ASSERT_FALSE(st.lines.empty());
  EXPECT_DOUBLE_EQ(st.lines[0].configured, 40'000) << st.ToString();
}

// docs/user-guide.md names every kind, every parameter and every match key, so that the guide's
// stage section stays true when a descriptor changes.
TEST(StageKindTest, UserGuideNamesEveryKindParameterAndMatchKey) {
  std::ifstream in(MROCE_USER_GUIDE);
  ASSERT_TRUE(in.good()) << MROCE_USER_GUIDE;
  std::stringstream text;
  text << in.rdbuf();
  const std::string guide = text.str();
  const size_t begin = guide.find("### impairments");
  ASSERT_NE(begin, std::string::npos);
  const std::string section = guide.substr(begin, guide.find("\n### ", begin + 1) - begin);
  for (const StageKind* k : StageKinds()) {
    const size_t row = section.find("| `" + std::string(k->name) + "` |");
    ASSERT_NE(row, std::string::npos) << "no row for " << k->name;
    const std::string line = section.substr(row, section.find('\n', row) - row);
    for (const ParamSpec& p : k->params) {
      EXPECT_NE(line.find("`" + std::string(p.name) + "`"), std::string::npos) << k->name << "." << p.name << " in: " << line;
      for (const ParamSpec& f : p.fields) {
        EXPECT_NE(line.find("`" + std::string(f.name) + "`"), std::string::npos) << k->name << "." << p.name << "." << f.name;
      }
    }
  }
  for (const MatchKeySpec& m : MatchKeys()) {
    EXPECT_NE(section.find("| `" + std::string(m.name) + "` |"), std::string::npos) << "match key " << m.name;
  }
}

}  // namespace
}  // namespace mroce::impairment
