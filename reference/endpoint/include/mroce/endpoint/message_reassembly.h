// MessageReassembly: the byte ranges of one inbound message received so far, so that a duplicate
// (or a retransmission on another path with a new PSN) never counts twice and completion is
// declared exactly when every byte arrived.
#pragma once

#include <vector>

#include "mroce/endpoint/types.h"

namespace mroce::ref {

enum class RangeVerdict : uint8_t {
  kNew,        // some bytes were new
  kDuplicate,  // every byte was already received
  kTooFragmented,  // would exceed kMaxRanges disjoint ranges: refused, the sender retransmits
  kOutOfBounds,    // offset + length beyond the message length
};

class MessageReassembly {
 public:
  // Disjoint ranges kept per message: bounds the state of a message whatever the loss pattern.
  static constexpr size_t kMaxRanges = 64;

  explicit MessageReassembly(uint32_t msg_len = 0) : msg_len_(msg_len) {}

  // Record [offset, offset + length).
  RangeVerdict Add(uint32_t offset, uint32_t length);
  [[nodiscard]] bool Contains(uint32_t offset, uint32_t length) const;
  [[nodiscard]] bool Complete() const { return received_ == msg_len_; }
  [[nodiscard]] uint64_t received_bytes() const { return received_; }
  [[nodiscard]] uint32_t msg_len() const { return msg_len_; }
  [[nodiscard]] size_t ranges() const { return ranges_.size(); }
  [[nodiscard]] size_t StateBytes() const {
    return sizeof(*this) + ranges_.capacity() * sizeof(Range);
  }

 private:
  struct Range {
    uint32_t begin;
    uint32_t end;  // exclusive
  };
  uint32_t msg_len_;
  uint64_t received_ = 0;
  std::vector<Range> ranges_;  // sorted, disjoint, non-adjacent
};

}  // namespace mroce::ref
