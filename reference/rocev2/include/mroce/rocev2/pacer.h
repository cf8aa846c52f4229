// Pacer: spaces a sender's frames at a fixed line rate (the RoCEv2 baseline has no congestion
// control: DCQCN is deliberately not implemented).
#pragma once

#include <cstddef>
#include <cstdint>

#include "mroce/rocev2/types.h"

namespace mroce::rocev2 {

class Pacer {
 public:
  // Per-frame wire overhead added to the frame length: preamble+SFD 8, FCS 4, inter-frame gap 12.
  static constexpr size_t kWireOverheadBytes = 24;

  // `rate_bps` in bits per second; 0 = unpaced (every frame may go at once).
  explicit Pacer(uint64_t rate_bps) : rate_bps_(rate_bps) {}

  [[nodiscard]] bool CanSend(TimeNs now) const { return rate_bps_ == 0 || next_ps_ <= now * 1000; }
  // Accounts one frame of `frame_bytes` sent at `now` (which must satisfy CanSend).
  void OnSend(TimeNs now, size_t frame_bytes);
  // Earliest time the next frame may leave (ns, rounded up); <= now when CanSend(now).
  [[nodiscard]] TimeNs NextSendTime() const { return rate_bps_ == 0 ? 0 : (next_ps_ + 999) / 1000; }
  [[nodiscard]] uint64_t rate_bps() const { return rate_bps_; }

 private:
  uint64_t rate_bps_;
  int64_t next_ps_ = 0;  // Picoseconds: when the link is free again.
};

}  // namespace mroce::rocev2
