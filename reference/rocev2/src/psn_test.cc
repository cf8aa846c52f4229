#include "mroce/rocev2/psn.h"

#include <gtest/gtest.h>

namespace mroce::rocev2 {
namespace {

TEST(PsnTest, AddWrapsAt24Bits) {
  EXPECT_EQ(PsnAdd(kPsnMask, 1), 0u);
  EXPECT_EQ(PsnAdd(0, -1), kPsnMask);
  EXPECT_EQ(PsnAdd(0xFFFFF0, 0x20), 0x10u);
}

TEST(PsnTest, DiffIsSignedAcrossWrap) {
  EXPECT_EQ(PsnDiff(0x000002, 0xFFFFFE), 4);
  EXPECT_EQ(PsnDiff(0xFFFFFE, 0x000002), -4);
  EXPECT_EQ(PsnDiff(5, 5), 0);
  EXPECT_EQ(PsnDiff(kPsnHalf - 1, 0), kPsnHalf - 1);
  EXPECT_EQ(PsnDiff(kPsnHalf, 0), -kPsnHalf);  // exactly half: treated as behind
}

TEST(PsnTest, ComparisonsAcrossWrap) {
  EXPECT_TRUE(PsnLt(0xFFFFFF, 0));
  EXPECT_TRUE(PsnGt(0, 0xFFFFFF));
  EXPECT_TRUE(PsnLe(7, 7));
  EXPECT_TRUE(PsnGe(7, 7));
  EXPECT_FALSE(PsnLt(7, 7));
}

}  // namespace
}  // namespace mroce::rocev2
