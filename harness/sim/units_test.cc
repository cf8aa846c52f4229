#include "mroce/sim/units.h"

#include <gtest/gtest.h>

namespace mroce::sim {
namespace {

TEST(UnitsTest, TransferTime) {
  EXPECT_EQ(Bandwidth::Gbps(100).TransferTime(1250), Duration::Nanos(100));
  EXPECT_EQ(Bandwidth::Gbps(400).TransferTime(1), Duration::Nanos(1));  // 0.02 ns rounds up.
  EXPECT_EQ(Bandwidth::Gbps(100).BytesIn(Duration::Micros(1)), 12500);
  EXPECT_EQ(Bandwidth::Gbps(400).ScaleFrom100G(32 << 20), 128 << 20);
}

TEST(UnitsTest, TimeArithmetic) {
  Time t = Time::FromNanos(100) + Duration::Micros(2);
  EXPECT_EQ(t.nanos(), 2100);
  EXPECT_EQ(t - Time::FromNanos(100), Duration::Micros(2));
  EXPECT_TRUE((t + Duration::Infinite()).IsInfinite());
  EXPECT_EQ(Duration::Micros(1500).ToString(), "1.500ms");
}

}  // namespace
}  // namespace mroce::sim
