#include "mroce/rocev2/completion_queue.h"

namespace mroce::rocev2 {

std::string_view CompletionOpName(CompletionOp op) {
  switch (op) {
    case CompletionOp::kSend: return "send";
    case CompletionOp::kWrite: return "write";
    case CompletionOp::kRead: return "read";
    case CompletionOp::kRecv: return "recv";
  }
  return "?";
}

std::string_view CompletionStatusName(CompletionStatus s) {
  switch (s) {
    case CompletionStatus::kSuccess: return "success";
    case CompletionStatus::kRetryExceeded: return "retry_exceeded";
    case CompletionStatus::kRnrRetryExceeded: return "rnr_retry_exceeded";
    case CompletionStatus::kRemoteAccess: return "remote_access";
    case CompletionStatus::kLocalLength: return "local_length";
    case CompletionStatus::kRemoteInvalid: return "remote_invalid";
    case CompletionStatus::kRemoteOpError: return "remote_op_error";
    case CompletionStatus::kFlushed: return "flushed";
  }
  return "?";
}

}  // namespace mroce::rocev2
