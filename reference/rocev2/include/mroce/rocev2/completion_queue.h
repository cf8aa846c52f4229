// CompletionQueue: work completions of a RoCEv2 endpoint handed to the application, bounded, in order.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "mroce/rocev2/types.h"
#include "mroce/verbs/completion_queue.h"

namespace mroce::rocev2 {

enum class CompletionOp : uint8_t {
  kSend,   // local SEND finished (all packets acknowledged)
  kWrite,  // local RDMA WRITE finished
  kRead,   // local RDMA READ finished (all response bytes placed)
  kRecv,   // a posted receive consumed by an incoming SEND
};

// Mirrors the verbs / MetaRoCE reference completion statuses.
enum class CompletionStatus : uint8_t {
  kSuccess,
  kRetryExceeded,     // local ACK timeout / sequence-error retry count exhausted
  kRnrRetryExceeded,  // RNR retry count exhausted
  kRemoteAccess,      // peer NAKed with remote access error (0x62)
  kLocalLength,       // incoming SEND larger than the posted receive buffer
  kRemoteInvalid,     // peer NAKed with invalid request (0x61)
  kRemoteOpError,     // peer NAKed with remote operational error (0x63)
  kFlushed,           // the QP went to the error state with this work outstanding
};

[[nodiscard]] std::string_view CompletionOpName(CompletionOp op);
[[nodiscard]] std::string_view CompletionStatusName(CompletionStatus s);

struct Completion {
  uint64_t wr_id = 0;
  Qpn qpn = 0;  // local QP number
  CompletionOp op = CompletionOp::kSend;
  CompletionStatus status = CompletionStatus::kSuccess;
  uint32_t byte_len = 0;  // bytes transferred (receives: message length)
};

// Bounded, in delivery order (reference/verbs: shared with the other endpoint).
using CompletionQueue = verbs::CompletionQueue<Completion>;

}  // namespace mroce::rocev2
