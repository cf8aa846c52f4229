#include "mroce/endpoint/rate_hint_allocator.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mroce::ref {

void RateHintAllocator::OnData(ConnId conn, TimeNs now, uint32_t ip_bytes) {
  auto [it, fresh] = last_seen_.try_emplace(conn, now);
  if (!fresh) {
    by_time_.erase({it->second, conn});
    it->second = now;
  }
  by_time_.emplace(now, conn);
  if (max_min_) arrivals_[conn].emplace_back(now, ip_bytes);
}

void RateHintAllocator::Drop(ConnId conn) {
  arrivals_.erase(conn);
  last_hint_.erase(conn);
}

void RateHintAllocator::Forget(ConnId conn) {
  auto it = last_seen_.find(conn);
  if (it == last_seen_.end()) return;
  by_time_.erase({it->second, conn});
  last_seen_.erase(it);
  Drop(conn);
}

size_t RateHintAllocator::ActiveSenders(TimeNs now) {
  // MROCE-HINT-002: a connection stops counting 100 us after its last data packet arrived.
  while (!by_time_.empty() && now - by_time_.begin()->first >= window_) {
    last_seen_.erase(by_time_.begin()->second);
    Drop(by_time_.begin()->second);
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

uint64_t RateHintAllocator::ArrivalRateMbps(ConnId conn, TimeNs now) {
  auto it = arrivals_.find(conn);
  if (it == arrivals_.end()) return 0;
  std::deque<Arrival>& q = it->second;
  while (!q.empty() && now - q.front().first >= window_) q.pop_front();  // (now - window, now]
  uint64_t bytes = 0;
  for (const Arrival& a : q) bytes += a.second;
  return window_ <= 0 ? 0 : bytes * 8 * 1000 / static_cast<uint64_t>(window_);  // bits per us = Mb/s
}

uint32_t RateHintAllocator::HintFor(ConnId conn, TimeNs now) {
  const uint32_t equal = Hint(now);  // expires idle connections too
  if (!max_min_ || constant_) return equal;
  // Max-min (water-filling) of floor(C x U) over the active connections, each demanding twice its
  // arrival rate (room to grow towards more) and this one without limit.
  const uint64_t total = capacity_mbps_ * permille_ / 1000;
  std::vector<std::pair<uint64_t, ConnId>> demands;
  uint64_t own_rate = 0;
  for (const auto& [other, seen] : last_seen_) {
    const uint64_t r = ArrivalRateMbps(other, now);
    if (other == conn) own_rate = r;
    demands.emplace_back(other == conn ? UINT64_MAX : 2 * r, other);
  }
  std::sort(demands.begin(), demands.end());
  uint64_t left = total, share = 0;
  size_t k = demands.size();
  for (const auto& [d, other] : demands) {
    const uint64_t fair = k == 0 ? left : left / k;
    if (other == conn) {
      share = fair;  // the largest demand: the rest of the capacity, evenly with the others left
      break;
    }
    const uint64_t got = std::min(d, fair);
    left -= got;
    --k;
  }
  // HINT-003 (a): with the latest hints of the other active connections, at most max(floor(C x U), N).
  const uint64_t n = std::max<uint64_t>(1, last_seen_.size());
  uint64_t others = 0;
  for (const auto& [other, h] : last_hint_) {
    if (other != conn && last_seen_.count(other) != 0) others += h;
  }
  const uint64_t budget = std::max<uint64_t>(total, n);
  // HINT-003 (b): at least min(equal share, own arrival rate).
  const uint64_t floor_b = std::min<uint64_t>(equal, own_rate);
  uint64_t hint = equal;
  if (others < budget) {
    const uint64_t h = std::min(share, budget - others);
    if (h >= floor_b && h >= 1) hint = h;
  }
  hint = std::clamp<uint64_t>(hint, 1, 0xFFFFFFFEu);
  if (last_seen_.count(conn) != 0) last_hint_[conn] = static_cast<uint32_t>(hint);
  return static_cast<uint32_t>(hint);
}

}  // namespace mroce::ref
