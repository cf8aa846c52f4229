#include "mroce/harness/verdict.h"

#include <gtest/gtest.h>

#include <vector>

namespace mroce::harness {
namespace {

constexpr Verdict P = Verdict::kPass, F = Verdict::kFail, I = Verdict::kInconclusive, E = Verdict::kError,
                  S = Verdict::kSkip;

// The full precedence table: error > fail > inconclusive > pass > skip.
TEST(Verdict, PrecedenceTable) {
  const Verdict order[] = {S, P, I, F, E};  // Ascending precedence.
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) {
      Verdict want = order[std::max(a, b)];
      EXPECT_EQ(Combine(order[a], order[b]), want) << ToString(order[a]) << " + " << ToString(order[b]);
    }
  }
}

TEST(Verdict, CombineList) {
  EXPECT_EQ(Combine(std::vector<Verdict>{}), S);
  EXPECT_EQ(Combine(std::vector<Verdict>{S, S, S}), S);
  EXPECT_EQ(Combine(std::vector<Verdict>{S, P, S}), P);
  EXPECT_EQ(Combine(std::vector<Verdict>{P, I, P}), I);
  EXPECT_EQ(Combine(std::vector<Verdict>{I, F, P}), F);
  EXPECT_EQ(Combine(std::vector<Verdict>{F, E, S}), E);
}

TEST(Verdict, NamesRoundTrip) {
  for (Verdict v : kAllVerdicts) EXPECT_EQ(ParseVerdict(ToString(v)), v);
  EXPECT_FALSE(ParseVerdict("PASS"));
  EXPECT_EQ(ToString(I), "inconclusive");
}

TEST(Level, ParseAndStrongest) {
  EXPECT_EQ(ParseLevel("MUST"), Level::kMust);
  EXPECT_EQ(ParseLevel("SHOULD"), Level::kShould);
  EXPECT_EQ(ParseLevel("MAY"), Level::kMay);
  EXPECT_FALSE(ParseLevel("must"));
  EXPECT_EQ(Strongest(Level::kMay, Level::kMust), Level::kMust);
  EXPECT_EQ(Strongest(Level::kShould, Level::kMay), Level::kShould);
}

}  // namespace
}  // namespace mroce::harness
