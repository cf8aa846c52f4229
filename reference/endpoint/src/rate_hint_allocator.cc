#include "mroce/endpoint/rate_hint_allocator.h"

#include <algorithm>

namespace mroce::ref {

void RateHintAllocator::OnData(ConnId conn, TimeNs now) { last_seen_[conn] = now; }

size_t RateHintAllocator::ActiveSenders(TimeNs now) {
  // MROCE-HINT-002: a connection stops counting 100 us after its last data packet arrived.
  size_t n = 0;
  for (auto it = last_seen_.begin(); it != last_seen_.end();) {
    if (now - it->second < window_) {
      ++n;
      ++it;
    } else {
      it = last_seen_.erase(it);
    }
  }
  return n;
}

TimeNs RateHintAllocator::NextExpiry() const {
  TimeNs d = kNever;
  for (const auto& [conn, at] : last_seen_) d = std::min(d, at + window_);
  return d;
}

size_t RateHintAllocator::CountActive(TimeNs now) const {
  size_t n = 0;
  for (const auto& [conn, at] : last_seen_) n += now - at < window_;
  return n;
}

uint32_t RateHintAllocator::Hint(TimeNs now) {
  const uint64_t n = constant_ ? 1 : std::max<uint64_t>(1, ActiveSenders(now));
  const uint64_t hint = capacity_mbps_ * permille_ / (1000 * n);  // floor(C * U / N)
  return static_cast<uint32_t>(std::clamp<uint64_t>(hint, 1, 0xFFFFFFFEu));
}

}  // namespace mroce::ref
