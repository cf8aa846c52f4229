#include "mroce/verbs/completion_queue.h"

#include <gtest/gtest.h>

namespace mroce::verbs {
namespace {

// Any completion record works; the endpoints' own records are tested with their status names.
struct Record {
  uint64_t wr_id = 0;
  uint32_t byte_len = 0;
};

Record Wr(uint64_t wr_id) { return Record{wr_id, static_cast<uint32_t>(wr_id * 10)}; }

TEST(CompletionQueue, PollsInDeliveryOrderUpToMax) {
  CompletionQueue<Record> cq;
  for (uint64_t i = 1; i <= 5; ++i) ASSERT_TRUE(cq.Push(Wr(i)));
  EXPECT_EQ(cq.size(), 5u);
  auto first = cq.Poll(2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].wr_id, 1u);
  EXPECT_EQ(first[1].wr_id, 2u);
  auto rest = cq.Poll();
  ASSERT_EQ(rest.size(), 3u);
  EXPECT_EQ(rest[0].wr_id, 3u);
  EXPECT_EQ(rest[2].byte_len, 50u);
  EXPECT_TRUE(cq.Poll().empty());
  EXPECT_TRUE(cq.Poll(0).empty());
  EXPECT_EQ(cq.size(), 0u);
}

// Bounded like a verbs CQ: a completion beyond the capacity is refused and counted, never grown.
TEST(CompletionQueue, OverrunIsRefusedCountedAndBounded) {
  CompletionQueue<Record> cq(2);
  EXPECT_EQ(cq.capacity(), 2u);
  EXPECT_TRUE(cq.Push(Wr(1)));
  EXPECT_TRUE(cq.Push(Wr(2)));
  EXPECT_FALSE(cq.Push(Wr(3)));
  EXPECT_FALSE(cq.Push(Wr(4)));
  EXPECT_EQ(cq.overflows(), 2u);
  EXPECT_EQ(cq.size(), 2u);
  EXPECT_EQ(cq.StateBytes(), 2 * sizeof(Record));
  EXPECT_EQ(cq.Poll(1)[0].wr_id, 1u);
  EXPECT_TRUE(cq.Push(Wr(5)));  // room again after a poll
  auto rest = cq.Poll();
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].wr_id, 2u);
  EXPECT_EQ(rest[1].wr_id, 5u);
  EXPECT_EQ(cq.StateBytes(), 0u);
  EXPECT_EQ(cq.overflows(), 2u);
}

}  // namespace
}  // namespace mroce::verbs
