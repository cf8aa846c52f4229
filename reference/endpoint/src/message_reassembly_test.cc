#include "mroce/endpoint/message_reassembly.h"
#include "mroce/endpoint/completion_queue.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

TEST(MessageReassembly, CompletesWhenAllBytesArriveInAnyOrder) {
  MessageReassembly m(300);
  EXPECT_EQ(m.Add(200, 100), RangeVerdict::kNew);
  EXPECT_EQ(m.Add(0, 100), RangeVerdict::kNew);
  EXPECT_FALSE(m.Complete());
  EXPECT_EQ(m.ranges(), 2u);
  EXPECT_EQ(m.Add(100, 100), RangeVerdict::kNew);
  EXPECT_TRUE(m.Complete());
  EXPECT_EQ(m.ranges(), 1u);
}

TEST(MessageReassembly, DuplicatesNeverDoubleCount) {
  MessageReassembly m(300);
  EXPECT_EQ(m.Add(0, 100), RangeVerdict::kNew);
  EXPECT_EQ(m.Add(0, 100), RangeVerdict::kDuplicate);
  EXPECT_EQ(m.Add(50, 100), RangeVerdict::kNew);  // partial overlap: only 50 new bytes
  EXPECT_EQ(m.received_bytes(), 150u);
}

TEST(MessageReassembly, OutOfBoundsRefused) {
  MessageReassembly m(100);
  EXPECT_EQ(m.Add(50, 51), RangeVerdict::kOutOfBounds);
  EXPECT_EQ(m.Add(0xFFFFFFFFu, 2), RangeVerdict::kOutOfBounds);
}

TEST(MessageReassembly, FragmentationBounded) {
  MessageReassembly m(1000000);
  for (uint32_t i = 0; i < MessageReassembly::kMaxRanges; ++i) {
    ASSERT_EQ(m.Add(i * 100, 10), RangeVerdict::kNew);
  }
  EXPECT_EQ(m.Add(900000, 10), RangeVerdict::kTooFragmented);
  EXPECT_EQ(m.Add(10, 90), RangeVerdict::kNew);  // merging is always accepted
}

TEST(MessageReassembly, ZeroLengthMessage) {
  MessageReassembly m(0);
  EXPECT_TRUE(m.Complete());
}

TEST(CompletionQueue, BoundedWithOverflowCount) {
  CompletionQueue cq(2);
  EXPECT_TRUE(cq.Push({}));
  EXPECT_TRUE(cq.Push({}));
  EXPECT_FALSE(cq.Push({}));
  EXPECT_EQ(cq.overflows(), 1u);
  EXPECT_EQ(cq.Poll(1).size(), 1u);
  EXPECT_EQ(cq.Poll().size(), 1u);
}

}  // namespace
}  // namespace mroce::ref
