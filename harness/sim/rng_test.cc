#include "mroce/sim/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mroce::sim {
namespace {

TEST(RngTest, DrawIsPureFunctionOfSeedComponentIndex) {
  Rng a(42, ComponentId("loss"));
  Rng b(42, ComponentId("loss"));
  Rng other(42, ComponentId("dup"));
  Rng other_seed(43, ComponentId("loss"));
  int same_other = 0, same_seed = 0;
  for (int i = 0; i < 1000; ++i) {
    // Interleave draws of another component: must not change a's stream.
    other.NextU64();
    const uint64_t va = a.NextU64();
    EXPECT_EQ(va, b.NextU64());
    EXPECT_EQ(va, a.At(static_cast<uint64_t>(i)));
    same_other += (va == Rng(42, ComponentId("dup")).At(static_cast<uint64_t>(i)));
    same_seed += (va == other_seed.NextU64());
  }
  EXPECT_EQ(same_other, 0);
  EXPECT_EQ(same_seed, 0);
}

TEST(RngTest, UniformMeanAndRange) {
  Rng r(1, 2);
  double sum = 0;
  for (int i = 0; i < 200000; ++i) {
    double u = r.Uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 200000, 0.5, 0.005);
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = r.UniformInt(3, 9);
    ASSERT_GE(v, 3u);
    ASSERT_LE(v, 9u);
  }
}

TEST(RngTest, BernoulliEdgeCases) {
  Rng r(7, 7);
  int t0 = 0, t1 = 0, th = 0;
  for (int i = 0; i < 100000; ++i) {
    t0 += r.Bernoulli(0.0);
    t1 += r.Bernoulli(1.0);
    th += r.Bernoulli(0.25);
  }
  EXPECT_EQ(t0, 0);
  EXPECT_EQ(t1, 100000);
  EXPECT_NEAR(th / 100000.0, 0.25, 0.01);
}

// Bernoulli compares integers; it must take exactly the decisions of Uniform01() < p, for every
// draw, including draws that land exactly on or next to p * 2^53.
TEST(RngTest, BernoulliIsExactlyUniformBelowP) {
  const double ps[] = {0.0, 1e-300, 5e-324, 1e-9, 0.01, 0.1, 1.0 / 3, 0.25, 0.5, 0.7, 0.999999, 1.0, 1.5, -0.5,
                       std::nextafter(0.25, 0.0), std::nextafter(0.25, 1.0), std::numeric_limits<double>::quiet_NaN()};
  for (double p : ps) {
    Rng a(11, 3), b(11, 3);
    for (int i = 0; i < 20000; ++i) ASSERT_EQ(a.Bernoulli(p), b.Uniform01() < p) << "p=" << p << " draw " << i;
    // Boundary draws: x = threshold - 1 is below p, x = threshold is not.
    const uint64_t t = Rng::BernoulliThreshold(p);
    for (uint64_t x : {t == 0 ? 0 : t - 1, t, t + 1}) {
      if (x >= (uint64_t{1} << 53)) continue;
      EXPECT_EQ(x < t, static_cast<double>(x) * 0x1.0p-53 < p) << "p=" << p << " x=" << x;
    }
  }
}

TEST(RngTest, DistributionMoments) {
  Rng r(99, 1);
  const int n = 200000;
  double se = 0, sn = 0, sn2 = 0, sp = 0;
  for (int i = 0; i < n; ++i) {
    se += r.Exponential(3.0);
    double x = r.Normal(10.0, 2.0);
    sn += x;
    sn2 += x * x;
    double p = r.Pareto(1.0, 3.0);
    ASSERT_GE(p, 1.0);
    sp += p;
  }
  EXPECT_NEAR(se / n, 3.0, 0.05);
  const double mean = sn / n;
  EXPECT_NEAR(mean, 10.0, 0.03);
  EXPECT_NEAR(std::sqrt(sn2 / n - mean * mean), 2.0, 0.03);
  EXPECT_NEAR(sp / n, 1.5, 0.05);  // alpha*xm/(alpha-1)
}

}  // namespace
}  // namespace mroce::sim
