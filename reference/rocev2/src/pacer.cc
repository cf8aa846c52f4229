#include "mroce/rocev2/pacer.h"

#include <algorithm>

namespace mroce::rocev2 {

void Pacer::OnSend(TimeNs now, size_t frame_bytes) {
  if (rate_bps_ == 0) return;
  // No credit is banked while idle: the frame starts at max(now, link free).
  const int64_t start = std::max(next_ps_, now * 1000);
  const int64_t bits = static_cast<int64_t>(frame_bytes + kWireOverheadBytes) * 8;
  next_ps_ = start + bits * 1'000'000'000'000 / static_cast<int64_t>(rate_bps_);
}

}  // namespace mroce::rocev2
