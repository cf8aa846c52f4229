// Quantities as written in case files, impairment profiles and command-line flags: durations, rates
// and sizes, one grammar for all of them (docs/user-guide.md, "Units").
//
//   duration  NUMBER UNIT, UNIT one of rtt (rtts), ns, us, ms, s: 3rtt, 500ns, 1.5ms. A unit is
//             required (a bare number was RTTs to the case loader and nanoseconds to the stage
//             factory); only 0 may stand alone.
//   rate      NUMBER UNIT in bits per second, UNIT one of bps, Kbps, Mbps, Gbps, Tbps (also Kb/s ...,
//             or the prefix alone: 25G). A unit is required; Bps (bytes) is refused.
//   size      NUMBER [UNIT] in bytes, UNIT one of B, KB, MB, GB (powers of 1000), KiB, MiB, GiB
//             (powers of 1024); a bare number is bytes. A size is a whole number of bytes.
//
// NUMBER is decimal, not negative, with an optional fraction and exponent (1.5, 2e3); a space may
// separate it from the unit. Units of time and size are case-insensitive; in a rate only the b must
// be lowercase (B would be bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mroce/sim/result.h"
#include "mroce/sim/units.h"

namespace mroce::impairment {

// The round-trip time a duration in RTTs means when a case gives no topology.rtt and a profile no
// rtt:, in nanoseconds.
inline constexpr int64_t kDefaultRttNs = 10'000;

// A span of time as a case or profile states it: in round-trip times of the topology (so that one
// case runs in simulated and in live time) or in absolute nanoseconds.
struct DurationSpec {
  enum class Unit { kRtt, kNanoseconds };
  double value = 0;  // RTTs or nanoseconds, per unit.
  Unit unit = Unit::kRtt;

  static DurationSpec Rtts(double n) { return {n, Unit::kRtt}; }
  static DurationSpec Nanoseconds(double ns) { return {ns, Unit::kNanoseconds}; }
  // Nanoseconds, rounded to the nearest; RTTs are worth `rtt_ns` each.
  [[nodiscard]] int64_t ToNanoseconds(int64_t rtt_ns) const;
  // "3rtt", "2.5us", "10ms" (the largest unit that states an absolute time exactly).
  [[nodiscard]] std::string ToString() const;
  bool operator==(const DurationSpec&) const = default;
};

// Each returns the value or an error whose message quotes the text and names the accepted units.
[[nodiscard]] mroce::Result<DurationSpec> ParseDuration(std::string_view text);
[[nodiscard]] mroce::Result<sim::Bandwidth> ParseRate(std::string_view text);     // > 0.
[[nodiscard]] mroce::Result<sim::ByteCount> ParseSize(std::string_view text);     // >= 0.

}  // namespace mroce::impairment
