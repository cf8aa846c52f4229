#include "mroce/rocev2/aeth_syndrome.h"

#include <array>

namespace mroce::rocev2 {

TimeNs RnrTimerNs(uint8_t timer_code) {
  // Microseconds, indexed by code.
  static constexpr std::array<int64_t, 32> kUs = {
      655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,    320,
      480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
      20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};
  return kUs[timer_code & 0x1F] * kMicrosecond;
}

TimeNs LocalAckTimeoutNs(uint8_t code) {
  if (code == 0) return kNever;
  return static_cast<TimeNs>(4096) << (code & 0x1F);
}

}  // namespace mroce::rocev2
