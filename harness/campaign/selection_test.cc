#include "mroce/campaign/selection.h"

#include <gtest/gtest.h>

#include <map>

namespace mroce::campaign {
namespace {

std::vector<harness::Case> Suite(int n) {
  std::vector<harness::Case> cases(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) cases[static_cast<size_t>(i)].id = (i % 3 == 0 ? "loss.case" : "ack.case") + std::to_string(i);
  return cases;
}

TEST(ShardTest, ParsesIOfN) {
  EXPECT_EQ(Shard::Parse("2/4"), (Shard{2, 4}));
  EXPECT_EQ(Shard::Parse("1/1"), (Shard{1, 1}));
  EXPECT_EQ(Shard::Parse("2/4")->ToString(), "2/4");
  for (const char* bad : {"", "3/2", "0/2", "1/0", "2", "a/b", "1/2/3", "-1/2", "1 /2", "1/2x", "/2"}) {
    EXPECT_FALSE(Shard::Parse(bad).has_value()) << bad;
  }
}

TEST(SelectCasesTest, ShardsCoverEveryCaseExactlyOnceForAnyCount) {
  const auto suite = Suite(23);
  for (int n = 1; n <= 30; ++n) {
    std::map<std::string, int> seen;
    for (int i = 1; i <= n; ++i) {
      const auto shard = SelectCases(suite, "", Shard{i, n});
      for (size_t k = 1; k < shard.size(); ++k) EXPECT_LT(shard[k - 1], shard[k]) << "suite order kept";
      for (const harness::Case* c : shard) ++seen[c->id];
    }
    ASSERT_EQ(seen.size(), suite.size()) << n << " shards";
    for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id << " in " << n << " shards";
  }
}

TEST(SelectCasesTest, FilterFirstThenShardTheMatches) {
  const auto suite = Suite(12);  // loss.case0, 3, 6, 9
  const auto loss = SelectCases(suite, "loss.*");
  ASSERT_EQ(loss.size(), 4u);
  const auto half = SelectCases(suite, "loss.*", Shard{2, 2});
  ASSERT_EQ(half.size(), 2u);
  EXPECT_EQ(half[0]->id, "loss.case3");
  EXPECT_EQ(half[1]->id, "loss.case9");
  EXPECT_TRUE(SelectCases(suite, "nothing.*").empty());
}

}  // namespace
}  // namespace mroce::campaign
