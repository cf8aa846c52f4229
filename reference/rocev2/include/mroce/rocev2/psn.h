// 24-bit packet sequence number arithmetic of the RoCEv2 BTH (serial comparison modulo 2^24).
#pragma once

#include <cstdint>

namespace mroce::rocev2 {

// A PSN is kept in the low 24 bits of a uint32_t; the upper 8 bits are always zero.
using Psn = uint32_t;
inline constexpr uint32_t kPsnBits = 24;
inline constexpr Psn kPsnMask = (1u << kPsnBits) - 1;
// Half the PSN space: a PSN more than this far ahead is treated as behind (and vice versa).
inline constexpr int32_t kPsnHalf = 1 << (kPsnBits - 1);

[[nodiscard]] constexpr Psn PsnAdd(Psn a, int64_t n) {
  return static_cast<Psn>((static_cast<int64_t>(a) + n) & kPsnMask);
}
// Signed distance a - b in [-2^23, 2^23): positive when a is after b.
[[nodiscard]] constexpr int32_t PsnDiff(Psn a, Psn b) {
  const uint32_t d = (a - b) & kPsnMask;
  return d >= static_cast<uint32_t>(kPsnHalf) ? static_cast<int32_t>(d) - (1 << kPsnBits)
                                              : static_cast<int32_t>(d);
}
[[nodiscard]] constexpr bool PsnLt(Psn a, Psn b) { return PsnDiff(a, b) < 0; }
[[nodiscard]] constexpr bool PsnLe(Psn a, Psn b) { return PsnDiff(a, b) <= 0; }
[[nodiscard]] constexpr bool PsnGt(Psn a, Psn b) { return PsnDiff(a, b) > 0; }
[[nodiscard]] constexpr bool PsnGe(Psn a, Psn b) { return PsnDiff(a, b) >= 0; }

}  // namespace mroce::rocev2
