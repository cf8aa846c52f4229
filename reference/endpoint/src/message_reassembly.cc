#include "mroce/endpoint/message_reassembly.h"

#include <algorithm>

namespace mroce::ref {

bool MessageReassembly::Contains(uint32_t offset, uint32_t length) const {
  const uint64_t end = static_cast<uint64_t>(offset) + length;
  for (const Range& r : ranges_) {
    if (r.begin <= offset && end <= r.end) return true;
  }
  return length == 0 && offset <= msg_len_;
}

RangeVerdict MessageReassembly::Add(uint32_t offset, uint32_t length) {
  const uint64_t end64 = static_cast<uint64_t>(offset) + length;
  if (end64 > msg_len_) return RangeVerdict::kOutOfBounds;
  const uint32_t end = static_cast<uint32_t>(end64);
  if (length == 0) return ranges_.empty() && msg_len_ == 0 ? RangeVerdict::kNew : RangeVerdict::kDuplicate;
  if (Contains(offset, length)) return RangeVerdict::kDuplicate;
  // Find ranges overlapping or touching [offset, end).
  auto first = std::lower_bound(ranges_.begin(), ranges_.end(), offset,
                                [](const Range& r, uint32_t v) { return r.end < v; });
  auto last = first;
  uint32_t nb = offset, ne = end;
  uint64_t covered = 0;
  while (last != ranges_.end() && last->begin <= end) {
    nb = std::min(nb, last->begin);
    ne = std::max(ne, last->end);
    covered += last->end - last->begin;
    ++last;
  }
  if (first == last && ranges_.size() >= kMaxRanges) return RangeVerdict::kTooFragmented;
  received_ += (ne - nb) - covered;
  first = ranges_.erase(first, last);
  ranges_.insert(first, Range{nb, ne});
  return RangeVerdict::kNew;
}

}  // namespace mroce::ref
