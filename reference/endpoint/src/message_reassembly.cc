#include "mroce/endpoint/message_reassembly.h"

namespace mroce::ref {

bool MessageReassembly::Contains(uint32_t offset, uint32_t length) const {
  if (length == 0) return offset <= msg_len_;
  if (mtu_ == 0 || offset % mtu_ != 0) return false;
  const uint64_t k = offset / mtu_;
  return k / 64 < map_.size() && (map_[k / 64] >> (k % 64) & 1) != 0;
}

RangeVerdict MessageReassembly::Add(uint32_t offset, uint32_t length, uint32_t mtu) {
  const uint64_t end = static_cast<uint64_t>(offset) + length;
  if (end > msg_len_) return RangeVerdict::kOutOfBounds;
  if (length == 0) return msg_len_ == 0 ? RangeVerdict::kNew : RangeVerdict::kDuplicate;
  if (mtu == 0 || (mtu_ != 0 && mtu != mtu_) || offset % mtu != 0 || length > mtu) return RangeVerdict::kOutOfBounds;
  if (mtu_ == 0) {
    mtu_ = mtu;
    const uint64_t segments = (static_cast<uint64_t>(msg_len_) + mtu - 1) / mtu;
    map_.assign((segments + 63) / 64, 0);
  }
  const uint64_t k = offset / mtu;
  uint64_t& word = map_[k / 64];
  const uint64_t bit = uint64_t{1} << (k % 64);
  if ((word & bit) != 0) return RangeVerdict::kDuplicate;
  word |= bit;
  received_ += length;
  return RangeVerdict::kNew;
}

}  // namespace mroce::ref
