// FrameSink: where a RoCEv2 endpoint's frames leave (the simulator, a socket, a DPDK port, a test).
#pragma once

#include <cstdint>
#include <span>

#include "mroce/rocev2/types.h"

namespace mroce::rocev2 {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // `frame` is a whole Ethernet frame (no FCS), valid only during the call. `plane` is the port the
  // frame leaves on (the baseline is single path: always its configured plane). `now` in ns.
  virtual void SendFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) = 0;
};

}  // namespace mroce::rocev2
