// MessageReassembly: which segments of one message (segment k = msg_offset / MTU, MROCE-STRM-007
// and MROCE-STRM-010) were received or acknowledged so far, so that a duplicate (or a
// retransmission on another path with a new PSN) never counts twice and completion is declared
// exactly when every byte arrived. One bit per segment, the state table 15.3 models
// (ceil(msg_len / MTU) / 8 bytes): segments are accepted in any order (MROCE-STRM-009), however
// many holes the sender's order or the fabric's losses leave.
#pragma once

#include <vector>

#include "mroce/endpoint/types.h"

namespace mroce::ref {

enum class RangeVerdict : uint8_t {
  kNew,          // the segment had not been recorded
  kDuplicate,    // it had
  kOutOfBounds,  // not a segment of the message: offset not a multiple of the MTU, longer than
                 // the MTU, or beyond the message length
};

class MessageReassembly {
 public:
  explicit MessageReassembly(uint32_t msg_len = 0) : msg_len_(msg_len) {}

  // Record the segment [offset, offset + length) of a message cut in `mtu`-byte segments. The
  // first call fixes the segment size; a later call with another `mtu` is out of bounds.
  RangeVerdict Add(uint32_t offset, uint32_t length, uint32_t mtu);
  // Whether the segment at `offset` was recorded (a zero-length range: whether it lies within the
  // message).
  [[nodiscard]] bool Contains(uint32_t offset, uint32_t length) const;
  [[nodiscard]] bool Complete() const { return received_ == msg_len_; }
  [[nodiscard]] uint64_t received_bytes() const { return received_; }
  [[nodiscard]] uint32_t msg_len() const { return msg_len_; }
  [[nodiscard]] size_t StateBytes() const { return sizeof(*this) + map_.capacity() * sizeof(uint64_t); }

 private:
  uint32_t msg_len_;
  uint32_t mtu_ = 0;  // 0 until the first segment
  uint64_t received_ = 0;
  std::vector<uint64_t> map_;  // bit k: segment k recorded
};

}  // namespace mroce::ref
