// CompletionQueue: work completions handed to the application, bounded, in delivery order.
#pragma once

#include <string_view>
#include <vector>

#include "mroce/endpoint/types.h"
#include "mroce/verbs/completion_queue.h"

namespace mroce::ref {

enum class CompletionOp : uint8_t {
  kSend,          // local SEND / SEND_IMM finished (all packets acked)
  kWrite,         // local WRITE / WRITE_IMM finished
  kRead,          // local READ finished (all response bytes placed)
  kRecv,          // a posted receive consumed by SEND / SEND_IMM
  kRecvWriteImm,  // a posted receive consumed by WRITE_IMM
};

// Completion statuses with the names and codes of table 13.1 (MROCE-CMPL-001).
enum class CompletionStatus : uint8_t {
  kSuccess = 0,           // SUCCESS
  kLocalLength = 1,       // LOC_LEN_ERR: incoming message larger than the posted buffer
  kRemoteAccess = 2,      // REM_ACCESS_ERR: NACK REMOTE_ACCESS received
  kRemoteInvalid = 3,     // REM_INV_REQ_ERR: NACK INVALID_REQUEST received
  kRemoteOpError = 4,     // REM_OP_ERR: NACK REMOTE_OP_ERROR received
  kRetryExceeded = 5,     // RETRY_EXC_ERR: loss retry limit 7 exceeded
  kRnrRetryExceeded = 6,  // RNR_RETRY_EXC_ERR: RNR retry limit 7 exceeded
  kFlushed = 7,           // WR_FLUSH_ERR: connection in ERROR or closed before the request finished
  kRemoteAbort = 8,       // REM_ABORT_ERR: NACK INVALID_CONN or DISCONNECT reason ERROR received
  kResource = 9,          // RESOURCE_ERR: NACK RESOURCE retry limit 7 exceeded
  kConnectTimeout = 10,   // CONNECT_TIMEOUT (reported as a connection event here)
};

[[nodiscard]] std::string_view CompletionOpName(CompletionOp op);
[[nodiscard]] std::string_view CompletionStatusName(CompletionStatus s);

struct Completion {
  uint64_t wr_id = 0;
  ConnId conn = 0;
  uint16_t stream = 0;
  Msn msn = 0;
  CompletionOp op = CompletionOp::kSend;
  CompletionStatus status = CompletionStatus::kSuccess;
  uint32_t byte_len = 0;  // bytes transferred (receives: message length)
  bool has_imm = false;
  uint32_t imm = 0;
};

// Bounded, in delivery order (reference/verbs: shared with the other endpoint).
using CompletionQueue = verbs::CompletionQueue<Completion>;

}  // namespace mroce::ref
