#include "mroce/endpoint/completion_queue.h"

#include <gtest/gtest.h>

#include <utility>

namespace mroce::ref {
namespace {

Completion Wr(uint64_t wr_id) {
  Completion c;
  c.wr_id = wr_id;
  c.byte_len = static_cast<uint32_t>(wr_id * 10);
  return c;
}

TEST(CompletionQueue, PollsInDeliveryOrderUpToMax) {
  CompletionQueue cq;
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
  EXPECT_EQ(cq.size(), 0u);
}

// Bounded like a verbs CQ: a completion beyond the capacity is refused and counted, never grown.
TEST(CompletionQueue, OverrunIsRefusedCountedAndBounded) {
  CompletionQueue cq(2);
  EXPECT_TRUE(cq.Push(Wr(1)));
  EXPECT_TRUE(cq.Push(Wr(2)));
  EXPECT_FALSE(cq.Push(Wr(3)));
  EXPECT_FALSE(cq.Push(Wr(4)));
  EXPECT_EQ(cq.overflows(), 2u);
  EXPECT_EQ(cq.size(), 2u);
  EXPECT_EQ(cq.StateBytes(), 2 * sizeof(Completion));
  EXPECT_EQ(cq.Poll(1)[0].wr_id, 1u);
  EXPECT_TRUE(cq.Push(Wr(5)));  // room again after a poll
  auto rest = cq.Poll();
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[1].wr_id, 5u);
  EXPECT_EQ(cq.StateBytes(), 0u);
}

// MROCE-CMPL-001: the names and numeric codes of table 13.1.
TEST(CompletionQueue, StatusNamesAndCodesAreTable131) {
  const std::pair<CompletionStatus, const char*> table[] = {
      {CompletionStatus::kSuccess, "SUCCESS"},
      {CompletionStatus::kLocalLength, "LOC_LEN_ERR"},
      {CompletionStatus::kRemoteAccess, "REM_ACCESS_ERR"},
      {CompletionStatus::kRemoteInvalid, "REM_INV_REQ_ERR"},
      {CompletionStatus::kRemoteOpError, "REM_OP_ERR"},
      {CompletionStatus::kRetryExceeded, "RETRY_EXC_ERR"},
      {CompletionStatus::kRnrRetryExceeded, "RNR_RETRY_EXC_ERR"},
      {CompletionStatus::kFlushed, "WR_FLUSH_ERR"},
      {CompletionStatus::kRemoteAbort, "REM_ABORT_ERR"},
      {CompletionStatus::kResource, "RESOURCE_ERR"},
      {CompletionStatus::kConnectTimeout, "CONNECT_TIMEOUT"},
  };
  for (size_t code = 0; code < std::size(table); ++code) {
    EXPECT_EQ(static_cast<size_t>(table[code].first), code);
    EXPECT_EQ(CompletionStatusName(table[code].first), table[code].second);
  }
  EXPECT_EQ(CompletionOpName(CompletionOp::kRecvWriteImm), "recv_write_imm");
  EXPECT_EQ(CompletionOpName(CompletionOp::kRead), "read");
}

}  // namespace
}  // namespace mroce::ref
