#include "mroce/session/stage_factory.h"

#include <gtest/gtest.h>

namespace mroce::session {
namespace {

using nlohmann::json;

TEST(StageFactoryTest, ParsesDurations) {
  EXPECT_EQ(ParseDurationNs("2us", 10000).value(), 2000);
  EXPECT_EQ(ParseDurationNs("3rtt", 10000).value(), 30000);
  EXPECT_EQ(ParseDurationNs("1.5ms", 1).value(), 1500000);
  EXPECT_EQ(ParseDurationNs(json(250), 1).value(), 250);
  auto bad = ParseDurationNs("2 weeks", 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown unit ' weeks'"), std::string::npos);
  EXPECT_FALSE(ParseDurationNs("fast", 1).ok());
}

TEST(StageFactoryTest, ParsesRates) {
  EXPECT_EQ(ParseRateBps("100Gbps").value(), 100'000'000'000);
  EXPECT_EQ(ParseRateBps("25Gb/s").value(), 25'000'000'000);
  EXPECT_FALSE(ParseRateBps("-1Gbps").ok());
  EXPECT_FALSE(ParseRateBps("10 furlongs").ok());
}

TEST(StageFactoryTest, BuildsEveryKind) {
  const std::vector<std::pair<std::string, json>> kinds = {
      {"loss.bernoulli", {{"rate", 0.01}}},
      {"loss.gilbert-elliott", {{"mean_loss", 0.01}, {"mean_burst", 8}}},
      {"loss.4state", {{"p13", 0.01}, {"p31", 0.5}}},
      {"drop", {{"count", 1}, {"windows", json::array({{{"from", "1us"}, {"until", "2us"}}})}}},
      {"reorder", {{"k", 3}, {"scope", "across"}}},
      {"duplicate", {{"probability", 0.1}, {"delay", "5us"}}},
      {"delay", {{"base", "1us"}, {"jitter", "500ns"}, {"distribution", "normal"}}},
      {"corrupt", {{"probability", 0.001}}},
      {"rate-limit", {{"rate", "10Gbps"}, {"ecn", {{"mode", "red"}, {"kmin", 1000}, {"kmax", 4000}, {"pmax", 0.2}}}}},
      {"blackhole", {{"recovery", "10rtt"}}},
  };
  ASSERT_EQ(kinds.size(), StageKinds().size());
  for (const auto& [kind, params] : kinds) {
    StageSpec s{kind, kind, json::object({{"direction", "dut->peer"}, {"opcode", "WRITE"}}), params, 1000, 5000};
    auto st = MakeStage(s, 7, 10000);
    ASSERT_TRUE(st.ok()) << kind << ": " << st.error().message;
    EXPECT_EQ(st.value()->name(), kind);
  }
}

TEST(StageFactoryTest, ErrorsNameKindAndKey) {
  auto unknown = MakeStage({"lose", "x", nullptr, nullptr, {}, {}}, 1, 1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown impairment stage 'lose'"), std::string::npos);
  auto range = MakeStage({"loss.bernoulli", "l", nullptr, json{{"rate", 1.5}}, {}, {}}, 1, 1);
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.error().message.find("rate: must be in [0"), std::string::npos);
  auto key = MakeStage({"loss.bernoulli", "l", nullptr, json{{"loss", 0.1}}, {}, {}}, 1, 1);
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.error().message.find("params.loss: unknown key"), std::string::npos);
  auto match = MakeStage({"corrupt", "c", json{{"direction", "sideways"}}, nullptr, {}, {}}, 1, 1);
  ASSERT_FALSE(match.ok());
  EXPECT_NE(match.error().message.find("match.direction"), std::string::npos);
  auto op = MakeStage({"corrupt", "c", json{{"opcode", "FLY"}}, nullptr, {}, {}}, 1, 1);
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.error().message.find("unknown opcode"), std::string::npos);
}

}  // namespace
}  // namespace mroce::session
