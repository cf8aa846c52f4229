#include "mroce/endpoint/completion_queue.h"

namespace mroce::ref {

std::string_view CompletionOpName(CompletionOp op) {
  switch (op) {
    case CompletionOp::kSend: return "send";
    case CompletionOp::kWrite: return "write";
    case CompletionOp::kRead: return "read";
    case CompletionOp::kRecv: return "recv";
    case CompletionOp::kRecvWriteImm: return "recv_write_imm";
  }
  return "?";
}

std::string_view CompletionStatusName(CompletionStatus s) {
  switch (s) {
    case CompletionStatus::kSuccess: return "SUCCESS";
    case CompletionStatus::kLocalLength: return "LOC_LEN_ERR";
    case CompletionStatus::kRemoteAccess: return "REM_ACCESS_ERR";
    case CompletionStatus::kRemoteInvalid: return "REM_INV_REQ_ERR";
    case CompletionStatus::kRemoteOpError: return "REM_OP_ERR";
    case CompletionStatus::kRetryExceeded: return "RETRY_EXC_ERR";
    case CompletionStatus::kRnrRetryExceeded: return "RNR_RETRY_EXC_ERR";
    case CompletionStatus::kFlushed: return "WR_FLUSH_ERR";
    case CompletionStatus::kRemoteAbort: return "REM_ABORT_ERR";
    case CompletionStatus::kResource: return "RESOURCE_ERR";
    case CompletionStatus::kConnectTimeout: return "CONNECT_TIMEOUT";
  }
  return "?";
}

}  // namespace mroce::ref
