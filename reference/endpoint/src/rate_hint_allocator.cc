#include "mroce/endpoint/rate_hint_allocator.h"

#include <algorithm>

namespace mroce::ref {

void RateHintAllocator::OnData(ConnId conn, TimeNs now) {
  auto [it, fresh] = last_seen_.try_emplace(conn, now);
  if (!fresh) {
    by_time_.erase({it->second, conn});
    it->second = now;
  }
  by_time_.emplace(now, conn);
}

void RateHintAllocator::Forget(ConnId conn) {
  auto it = last_seen_.find(conn);
  if (it == last_seen_.end()) return;
  by_time_.erase({it->second, conn});
  last_seen_.erase(it);
}

size_t RateHintAllocator::ActiveSenders(TimeNs now) {
  // MROCE-HINT-002: a connection stops counting 100 us after its last data packet arrived.
  while (!by_time_.empty() && now - by_time_.begin()->first >= window_) {
    last_seen_.erase(by_time_.begin()->second);
    by_time_.erase(by_time_.begin());
  }
  return last_seen_.size();
}

TimeNs RateHintAllocator::NextExpiry() const { return by_time_.empty() ? kNever : by_time_.begin()->first + window_; }

size_t RateHintAllocator::CountActive(TimeNs now) const {
  size_t expired = 0;
  for (auto it = by_time_.begin(); it != by_time_.end() && now - it->first >= window_; ++it) ++expired;
  return last_seen_.size() - expired;
}

uint32_t RateHintAllocator::Hint(TimeNs now) {
  const uint64_t n = constant_ ? 1 : std::max<uint64_t>(1, ActiveSenders(now));
  const uint64_t hint = capacity_mbps_ * permille_ / (1000 * n);  // floor(C * U / N)
  return static_cast<uint32_t>(std::clamp<uint64_t>(hint, 1, 0xFFFFFFFEu));
}

}  // namespace mroce::ref
