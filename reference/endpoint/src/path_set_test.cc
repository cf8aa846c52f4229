#include "mroce/endpoint/path_set.h"

#include <gtest/gtest.h>

#include <set>

namespace mroce::ref {
namespace {

TEST(PathSet, DistinctEntropyInRangeAndPlanes) {
  PathSet set(8, 2, 42, {});
  std::set<uint16_t> ports;
  for (int p = 0; p < 8; ++p) {
    EXPECT_GE(set[p].entropy, 49152);
    ports.insert(set[p].entropy);
    EXPECT_EQ(set[p].plane, p % 2);
    EXPECT_EQ(set[p].counters.Get(PathCounter::kEntropyRerolls), 0u);
  }
  EXPECT_EQ(ports.size(), 8u);
}

TEST(PathSet, RerollChangesPortAndCounts) {
  PathSet set(4, 1, 7, {});
  const uint16_t before = set[2].entropy;
  set.Reroll(2);
  EXPECT_NE(set[2].entropy, before);
  EXPECT_EQ(set[2].counters.Get(PathCounter::kEntropyRerolls), 1u);
}

TEST(PathSet, DeterministicFromSeed) {
  PathSet a(4, 1, 99, {}), b(4, 1, 99, {});
  for (int p = 0; p < 4; ++p) EXPECT_EQ(a[p].entropy, b[p].entropy);
}

TEST(PathSet, PickPrefersLargestAvailableWindowRoundRobinOnTies) {
  PathSet set(3, 1, 1, {});
  auto all = [](const Path&) { return true; };
  auto equal = [](const Path&) -> int64_t { return 10; };
  std::multiset<int> picks;
  for (int i = 0; i < 6; ++i) picks.insert(*set.Pick(all, equal));
  EXPECT_EQ(picks.count(0), 2u);
  EXPECT_EQ(picks.count(1), 2u);
  EXPECT_EQ(picks.count(2), 2u);
  auto skewed = [](const Path& p) -> int64_t { return p.id == 1 ? 100 : 10; };
  EXPECT_EQ(*set.Pick(all, skewed), 1);
  auto none = [](const Path&) { return false; };
  EXPECT_FALSE(set.Pick(none, equal).has_value());
}

}  // namespace
}  // namespace mroce::ref
