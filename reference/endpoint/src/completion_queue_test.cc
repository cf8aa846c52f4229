#include "mroce/endpoint/completion_queue.h"

#include <gtest/gtest.h>

#include <iterator>
#include <utility>

namespace mroce::ref {
namespace {

// The queue itself (order, bounds) is tested in reference/verbs; here the MetaRoCE record.
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
  CompletionQueue cq(1);  // the shared queue holds the whole MetaRoCE record
  Completion c;
  c.wr_id = 7;
  c.conn = 3;
  c.stream = 2;
  c.msn = 9;
  c.op = CompletionOp::kRecvWriteImm;
  c.status = CompletionStatus::kRemoteAbort;
  c.byte_len = 100;
  c.has_imm = true;
  c.imm = 0xabcd;
  ASSERT_TRUE(cq.Push(c));
  const Completion got = cq.Poll()[0];
  EXPECT_EQ(got.conn, 3u);
  EXPECT_EQ(got.stream, 2u);
  EXPECT_EQ(got.msn, 9u);
  EXPECT_EQ(got.status, CompletionStatus::kRemoteAbort);
  EXPECT_EQ(got.imm, 0xabcdu);
}

}  // namespace
}  // namespace mroce::ref
