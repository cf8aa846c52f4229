#include "mroce/rocev2/completion_queue.h"

#include <gtest/gtest.h>

namespace mroce::rocev2 {
namespace {

// The queue itself is tested in reference/verbs; here the RoCEv2 record through it.
TEST(CompletionQueueTest, HoldsTheRoceRecord) {
  CompletionQueue cq(2);
  EXPECT_TRUE(cq.Push({.wr_id = 1}));
  EXPECT_TRUE(cq.Push({.wr_id = 2}));
  EXPECT_FALSE(cq.Push({.wr_id = 3}));
  EXPECT_EQ(cq.overflows(), 1u);
  auto a = cq.Poll(1);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].wr_id, 1u);
  auto b = cq.Poll();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].wr_id, 2u);
  EXPECT_EQ(cq.size(), 0u);
}

TEST(CompletionQueueTest, NamesAreStable) {
  EXPECT_EQ(CompletionOpName(CompletionOp::kRead), "read");
  EXPECT_EQ(CompletionStatusName(CompletionStatus::kRetryExceeded), "retry_exceeded");
  EXPECT_EQ(CompletionStatusName(CompletionStatus::kFlushed), "flushed");
}

}  // namespace
}  // namespace mroce::rocev2
