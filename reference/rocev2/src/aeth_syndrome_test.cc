#include "mroce/rocev2/aeth_syndrome.h"

#include <gtest/gtest.h>

namespace mroce::rocev2 {
namespace {

TEST(AethSyndromeTest, Kinds) {
  EXPECT_EQ(KindOf(kSyndromeAck), SyndromeKind::kAck);
  EXPECT_EQ(KindOf(RnrNakSyndrome(5)), SyndromeKind::kRnrNak);
  EXPECT_EQ(KindOf(kNakPsnSequenceError), SyndromeKind::kNak);
  EXPECT_EQ(KindOf(kNakRemoteAccessError), SyndromeKind::kNak);
  EXPECT_EQ(RnrNakSyndrome(5), 0x25);
  EXPECT_EQ(RnrTimerCode(0x25), 5);
}

TEST(AethSyndromeTest, IbTimerTables) {
  EXPECT_EQ(RnrTimerNs(0), 655360 * kMicrosecond);
  EXPECT_EQ(RnrTimerNs(1), 10 * kMicrosecond);
  EXPECT_EQ(RnrTimerNs(14), 1280 * kMicrosecond);
  EXPECT_EQ(RnrTimerNs(31), 491520 * kMicrosecond);
  EXPECT_EQ(LocalAckTimeoutNs(0), kNever);
  EXPECT_EQ(LocalAckTimeoutNs(1), 8192);
  EXPECT_EQ(LocalAckTimeoutNs(14), 4096LL << 14);  // 67.1 ms, a common driver default
}

}  // namespace
}  // namespace mroce::rocev2
