#include "mroce/endpoint/message_reassembly.h"
#include "mroce/endpoint/completion_queue.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

TEST(MessageReassembly, CompletesWhenAllSegmentsArriveInAnyOrder) {
  MessageReassembly m(250);  // segments of 100: [0,100) [100,200) [200,250)
  EXPECT_EQ(m.Add(200, 50, 100), RangeVerdict::kNew);
  EXPECT_EQ(m.Add(0, 100, 100), RangeVerdict::kNew);
  EXPECT_FALSE(m.Complete());
  EXPECT_TRUE(m.Contains(200, 50));
  EXPECT_FALSE(m.Contains(100, 100));
  EXPECT_EQ(m.Add(100, 100, 100), RangeVerdict::kNew);
  EXPECT_TRUE(m.Complete());
  EXPECT_EQ(m.received_bytes(), 250u);
}

TEST(MessageReassembly, DuplicatesNeverDoubleCount) {
  MessageReassembly m(300);
  EXPECT_EQ(m.Add(0, 100, 100), RangeVerdict::kNew);
  EXPECT_EQ(m.Add(0, 100, 100), RangeVerdict::kDuplicate);
  EXPECT_EQ(m.received_bytes(), 100u);
}

TEST(MessageReassembly, WhatIsNoSegmentIsOutOfBounds) {
  MessageReassembly m(1000);
  EXPECT_EQ(m.Add(950, 51, 100), RangeVerdict::kOutOfBounds);   // beyond msg_len
  EXPECT_EQ(m.Add(0xFFFFFFFFu, 2, 100), RangeVerdict::kOutOfBounds);
  EXPECT_EQ(m.Add(50, 100, 100), RangeVerdict::kOutOfBounds);    // offset not a multiple of the MTU
  EXPECT_EQ(m.Add(0, 101, 100), RangeVerdict::kOutOfBounds);     // longer than the MTU
  EXPECT_EQ(m.Add(0, 10, 0), RangeVerdict::kOutOfBounds);        // no MTU
  EXPECT_EQ(m.Add(100, 100, 100), RangeVerdict::kNew);
  EXPECT_EQ(m.Add(200, 200, 200), RangeVerdict::kOutOfBounds);   // another segment size
  EXPECT_EQ(m.received_bytes(), 100u);
}

// MROCE-STRM-009 lets a sender send segments in any order: a 1 MiB message sent odd segments first
// leaves 128 holes, all accepted (the v0.1 reference refused a 65th disjoint range), in the state
// table 15.3 models: one bit per segment.
TEST(MessageReassembly, AnyNumberOfHolesIsAcceptedInASegmentMap) {
  constexpr uint32_t kMtu = 4096, kLen = 1u << 20, kSegments = kLen / kMtu;
  MessageReassembly m(kLen);
  for (uint32_t k = 1; k < kSegments; k += 2) ASSERT_EQ(m.Add(k * kMtu, kMtu, kMtu), RangeVerdict::kNew) << k;
  EXPECT_FALSE(m.Complete());
  for (uint32_t k = 0; k < kSegments; k += 2) ASSERT_EQ(m.Add(k * kMtu, kMtu, kMtu), RangeVerdict::kNew) << k;
  EXPECT_TRUE(m.Complete());
  EXPECT_LE(m.StateBytes(), sizeof(MessageReassembly) + kSegments / 8);
  for (uint32_t k = 0; k < kSegments; ++k) EXPECT_EQ(m.Add(k * kMtu, kMtu, kMtu), RangeVerdict::kDuplicate);
}

TEST(MessageReassembly, ZeroLengthMessage) {
  MessageReassembly m(0);
  EXPECT_TRUE(m.Complete());
  EXPECT_EQ(m.Add(0, 0, 100), RangeVerdict::kNew);
  EXPECT_TRUE(m.Contains(0, 0));
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
