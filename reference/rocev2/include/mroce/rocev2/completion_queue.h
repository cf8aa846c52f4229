// CompletionQueue: work completions of a RoCEv2 endpoint handed to the application, bounded, in order.
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "mroce/rocev2/types.h"

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

class CompletionQueue {
 public:
  explicit CompletionQueue(size_t capacity = 65536) : capacity_(capacity) {}

  // Returns false (and counts an overflow) when full: the completion is lost, as on a verbs CQ
  // overrun, which is reported rather than grown without bound.
  bool Push(const Completion& c);
  // Up to `max` completions, oldest first.
  std::vector<Completion> Poll(size_t max = SIZE_MAX);
  [[nodiscard]] size_t size() const { return q_.size(); }
  [[nodiscard]] uint64_t overflows() const { return overflows_; }
  [[nodiscard]] size_t StateBytes() const { return sizeof(*this) + q_.size() * sizeof(Completion); }

 private:
  size_t capacity_;
  std::deque<Completion> q_;
  uint64_t overflows_ = 0;
};

}  // namespace mroce::rocev2
