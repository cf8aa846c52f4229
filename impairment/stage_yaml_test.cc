// Stage configurations from YAML: every kind builds; every mistake is reported at its line and
// column with its key path.
#include "mroce/impairment/stage_yaml.h"

#include <gtest/gtest.h>

namespace mroce::impairment {
namespace {

// Reads the one item of `yaml` (a list), returning the config or every error, one per line.
std::string Errors(const std::string& yaml) {
  std::vector<ConfigDiagnostic> errors;
  const YAML::Node list = YAML::Load(yaml);
  auto c = ReadStageConfig(list[0], "impairments[0]", 0, &errors);
  std::string out;
  for (const ConfigDiagnostic& d : errors) out += d.ToString("p.yaml") + "\n";
  EXPECT_EQ(c.has_value(), errors.empty()) << out;
  return out;
}

StageConfig Read(const std::string& yaml, size_t index = 0) {
  std::vector<ConfigDiagnostic> errors;
  auto c = ReadStageConfig(YAML::Load(yaml), "impairments[0]", index, &errors);
  EXPECT_TRUE(c.has_value()) << (errors.empty() ? "" : errors[0].ToString("p.yaml"));
  return c.value_or(StageConfig{});
}

TEST(StageYamlTest, BuildsEveryKind) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"loss.bernoulli", "{rate: 0.01}"},
      {"loss.gilbert-elliott", "{mean_loss: 0.01, mean_burst: 8}"},
      {"loss.4state", "{p13: 0.01, p31: 0.5}"},
      {"drop", "{count: 1, skip: 2, nth_retransmission: 1, ack_for_psn: 7, windows: [{from: 1us, until: 2us}, {from: 3rtt}]}"},
      {"reorder", "{k: 3, every: 2, probability: 0.5, scope: across, max_hold: 100us}"},
      {"duplicate", "{probability: 0.1, delay: 5us, jitter: 1us}"},
      {"delay", "{base: 1us, jitter: 500ns, distribution: normal, order_preserving: true, scope: path, pareto_shape: 3}"},
      {"corrupt", "{probability: 0.001}"},
      {"rate-limit", "{rate: 10Gbps, overhead: 20, capacity: 1MiB, ecn: {mode: red, kmin: 1000, kmax: 4KB, pmax: 0.2, where: dequeue}}"},
      {"blackhole", "{recovery: 10rtt}"},
  };
  ASSERT_EQ(kinds.size(), StageKinds().size());
  for (const auto& [kind, params] : kinds) {
    const StageConfig c = Read("{stage: " + kind + ", match: {direction: dut->peer, opcode: WRITE}, params: " + params +
                               ", schedule: {at: 1us, until: 5us}}");
    ASSERT_NE(c.kind, nullptr) << kind;
    EXPECT_EQ(c.kind->name, kind);
    EXPECT_EQ(c.name, kind + "#0");
    EXPECT_EQ(BuildStage(c, kind, 7, 10'000)->name(), kind);
  }
}

TEST(StageYamlTest, ReadsTypedValues) {
  const StageConfig c = Read(R"({stage: reorder, name: r, match: {plane: 1, path: 3, stream: 2, sport: 0xc000, psn: 9, rtx: false},
                                 params: {k: 3, max_hold: "2rtt"}, schedule: {at: 0, until: 1.5ms}})");
  EXPECT_EQ(c.name, "r");
  EXPECT_EQ(c.match.plane, 1);
  EXPECT_EQ(c.match.path_id, 3);
  EXPECT_EQ(c.match.stream_id, 2);
  EXPECT_EQ(c.match.sport, 0xc000);
  EXPECT_EQ(c.match.psn, 9u);
  EXPECT_EQ(c.match.rtx, false);
  EXPECT_EQ(c.params.Integer("k"), 3);
  EXPECT_EQ(c.params.Time("max_hold"), DurationSpec::Rtts(2));
  EXPECT_EQ(c.params.Integer("every"), 1);  // Default.
  EXPECT_EQ(c.params.Choice("scope"), "path");
  ASSERT_TRUE(c.schedule.has_value());
  EXPECT_EQ(c.schedule->until, DurationSpec::Nanoseconds(1.5e6));
  const StageConfig unnamed = Read("{stage: corrupt}", 4);
  EXPECT_EQ(unnamed.name, "corrupt#4");
  EXPECT_DOUBLE_EQ(unnamed.params.Real("probability"), 0);
}

TEST(StageYamlTest, EveryMistakeHasItsLineColumnAndKey) {
  struct Case {
    std::string yaml;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"- stage: loss.bernoulli\n  params: {rat: 0.1}\n",
       "p.yaml:2:12: impairments[0].params.rat: unknown key 'rat' (loss.bernoulli takes: rate)"},
      {"- stage: loss.bernoulli\n  params: {rate: 2.0}\n",
       "p.yaml:2:18: impairments[0].params.rate: must be in [0, 1], got 2.0"},
      {"- stage: loss.bernoulli\n  params: {rate: -0.5}\n",
       "p.yaml:2:18: impairments[0].params.rate: must be in [0, 1], got -0.5"},
      {"- stage: loss.bernoulli\n  params: {rate: .nan}\n",
       "p.yaml:2:18: impairments[0].params.rate: must be a finite number in [0, 1], got .nan"},
      {"- stage: loss.bernoulli\n  params: {rate: nan}\n",
       "p.yaml:2:18: impairments[0].params.rate: must be a finite number in [0, 1], got nan"},
      {"- stage: loss.bernoulli\n  params: {rate: \"0.1\"}\n",
       "p.yaml:2:18: impairments[0].params.rate: must be a number in [0, 1], got the string \"0.1\""},
      {"- stage: reorder\n  params: {max_hold: 100}\n",
       "p.yaml:2:22: impairments[0].params.max_hold: '100' needs a unit (rtt, ns, us, ms or s)"},
      {"- stage: reorder\n  params: {k: 2.5}\n", "impairments[0].params.k: must be an integer in [1, 1000000], got 2.5"},
      {"- stage: rate-limit\n  params: {rate: 10}\n", "p.yaml:2:18: impairments[0].params.rate: '10' needs a unit"},
      {"- stage: delay\n  params: {distribution: gaussian}\n",
       "impairments[0].params.distribution: must be one of constant, uniform, normal, pareto, got gaussian"},
      {"- stage: delay\n  params: {order_preserving: yes}\n", "order_preserving: must be true or false, got yes"},
      {"- stage: corrupt\n  match: {plain: 1}\n",
       "p.yaml:2:11: impairments[0].match.plain: unknown key 'plain' (expected one of: direction, plane, path, sport,"},
      {"- stage: corrupt\n  match: {path_id: 1}\n", "the path id is 'path'"},
      {"- stage: corrupt\n  match: {plane: 9}\n", "p.yaml:2:18: impairments[0].match.plane: must be 0..7, got 9"},
      {"- stage: corrupt\n  match: {direction: sideways}\n", "must be dut->peer | peer->dut, got sideways"},
      {"- stage: los\n", "p.yaml:1:10: impairments[0].stage: unknown impairment stage 'los' (known: blackhole,"},
      {"- name: x\n", "p.yaml:1:3: impairments[0].stage: missing required key 'stage'"},
      {"- stage: corrupt\n  colour: red\n", "p.yaml:2:3: impairments[0].colour: unknown key 'colour'"},
      {"- stage: corrupt\n  params: [1]\n", "impairments[0].params: expected a mapping, got a list"},
      {"- stage: blackhole\n  schedule: {at: 5rtt, until: 2rtt}\n",
       "p.yaml:2:31: impairments[0].schedule.until: 'until' (2rtt) must be after 'at' (5rtt)"},
      {"- stage: blackhole\n  schedule: {at: 5}\n", "impairments[0].schedule.at: '5' needs a unit"},
      {"- stage: blackhole\n  schedule: {until: 5us}\n", "impairments[0].schedule.at: missing required key 'at'"},
      {"- stage: rate-limit\n  params: {ecn: {mode: red, kmin: 4000, kmax: 1000}}\n",
       "p.yaml:2:47: impairments[0].params.ecn.kmax: must be >= kmin (4000)"},
      {"- stage: rate-limit\n  params: {ecn: {mode: sometimes}}\n",
       "impairments[0].params.ecn.mode: must be one of step, red, off, got sometimes"},
      {"- stage: rate-limit\n  params: {ecn: {k: 1, q: 2}}\n", "impairments[0].params.ecn.q: unknown key 'q' (ecn takes:"},
      {"- stage: drop\n  params: {windows: [{from: 2us, until: 1us}]}\n",
       "p.yaml:2:41: impairments[0].params.windows[0].until: 'until' (1us) must be after 'from' (2us)"},
      {"- stage: drop\n  params: {windows: {from: 2us}}\n", "impairments[0].params.windows: expected a list of mappings"},
      {"- stage: loss.gilbert-elliott\n  params: {mean_loss: 0.1, r: 0.5}\n",
       "p.yaml:2:31: impairments[0].params.r: give mean_loss (and mean_burst) or p, r, k, h, not both"},
      {"- stage: loss.gilbert-elliott\n  params: {mean_loss: 1}\n", "mean_loss: must be in [0, 1), got 1"},
  };
  for (const Case& c : cases) {
    const std::string e = Errors(c.yaml);
    EXPECT_NE(e.find(c.error), std::string::npos) << "want: " << c.error << "\ngot: " << e << "for:\n" << c.yaml;
  }
}

// One pass reports every problem of an item.
TEST(StageYamlTest, ReportsEveryProblemOfAnItem) {
  const std::string e = Errors("- stage: loss.bernoulli\n  match: {plane: x, colour: 1}\n  params: {rate: 2, loss: 1}\n");
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 4) << e;
}

}  // namespace
}  // namespace mroce::impairment
