// Unit types of the simulated world: time (ns), durations, byte counts and bandwidths.
#ifndef MROCE_SIM_UNITS_H_
#define MROCE_SIM_UNITS_H_

#include <cstdint>
#include <limits>
#include <string>

namespace mroce {

// Time in nanoseconds since an origin chosen by whoever drives a component, as a plain integer: the
// time of both endpoints, of the DUT interface and of the trace (sim::Time below wraps the same
// nanoseconds for the simulator). An endpoint never reads a clock: every event carries `now`.
using TimeNs = int64_t;
inline constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
inline constexpr TimeNs kMicrosecond = 1000;
inline constexpr TimeNs kMillisecond = 1000 * 1000;

}  // namespace mroce

namespace mroce::sim {

// Byte count (frame sizes, queue occupancy, capacities). Plain integer, as QUIC's QuicByteCount.
using ByteCount = int64_t;

// A signed length of simulated time in nanoseconds.
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration Zero() { return Duration(0); }
  static constexpr Duration Infinite() { return Duration(std::numeric_limits<int64_t>::max()); }
  static constexpr Duration Nanos(int64_t ns) { return Duration(ns); }
  static constexpr Duration Micros(int64_t us) { return Duration(us * 1000); }
  static constexpr Duration Millis(int64_t ms) { return Duration(ms * 1000'000); }
  static constexpr Duration Seconds(int64_t s) { return Duration(s * 1000'000'000); }
  // Rounds to the nearest nanosecond.
  static constexpr Duration SecondsF(double s) { return Duration(static_cast<int64_t>(s * 1e9 + (s >= 0 ? 0.5 : -0.5))); }

  [[nodiscard]] constexpr int64_t nanos() const { return ns_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  [[nodiscard]] constexpr double micros() const { return static_cast<double>(ns_) * 1e-3; }
  [[nodiscard]] constexpr bool IsInfinite() const { return ns_ == std::numeric_limits<int64_t>::max(); }
  [[nodiscard]] std::string ToString() const;

  constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
  constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
  constexpr Duration operator*(int64_t k) const { return Duration(ns_ * k); }
  constexpr Duration operator/(int64_t k) const { return Duration(ns_ / k); }
  constexpr Duration& operator+=(Duration o) { ns_ += o.ns_; return *this; }
  constexpr Duration& operator-=(Duration o) { ns_ -= o.ns_; return *this; }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(int64_t ns) : ns_(ns) {}
  int64_t ns_ = 0;  // Nanoseconds.
};

// A point in simulated time: nanoseconds since the start of the run (time 0).
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time Zero() { return Time(0); }
  static constexpr Time Infinite() { return Time(std::numeric_limits<int64_t>::max()); }
  static constexpr Time FromNanos(int64_t ns) { return Time(ns); }

  [[nodiscard]] constexpr int64_t nanos() const { return ns_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  [[nodiscard]] constexpr bool IsInfinite() const { return ns_ == std::numeric_limits<int64_t>::max(); }
  [[nodiscard]] std::string ToString() const;

  // Saturates at Infinite() so "now + infinite timeout" stays infinite.
  constexpr Time operator+(Duration d) const {
    if (IsInfinite() || d.IsInfinite()) return Infinite();
    return Time(ns_ + d.nanos());
  }
  constexpr Time operator-(Duration d) const { return Time(ns_ - d.nanos()); }
  constexpr Duration operator-(Time o) const { return Duration::Nanos(ns_ - o.ns_); }
  constexpr Time& operator+=(Duration d) { *this = *this + d; return *this; }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(int64_t ns) : ns_(ns) {}
  int64_t ns_ = 0;  // Nanoseconds since time 0.
};

// A data rate in bits per second.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth BitsPerSecond(int64_t bps) { return Bandwidth(bps); }
  static constexpr Bandwidth Mbps(int64_t m) { return Bandwidth(m * 1000'000); }
  static constexpr Bandwidth Gbps(int64_t g) { return Bandwidth(g * 1000'000'000); }
  static constexpr Bandwidth Zero() { return Bandwidth(0); }

  [[nodiscard]] constexpr int64_t bits_per_second() const { return bps_; }
  [[nodiscard]] constexpr bool IsZero() const { return bps_ == 0; }
  // Serialisation time of `bytes` at this rate, rounded up to a whole nanosecond (bytes*8/bw).
  [[nodiscard]] constexpr Duration TransferTime(ByteCount bytes) const {
    if (bps_ <= 0) return Duration::Infinite();
    const __int128 num = static_cast<__int128>(bytes) * 8 * 1000'000'000;
    return Duration::Nanos(static_cast<int64_t>((num + bps_ - 1) / bps_));
  }
  // Bytes transferred at this rate in `d` (rounded down).
  [[nodiscard]] constexpr ByteCount BytesIn(Duration d) const {
    return static_cast<ByteCount>(static_cast<__int128>(bps_) * d.nanos() / 8 / 1000'000'000);
  }
  // `bytes_at_100g` scaled linearly with this rate relative to 100 Gb/s.
  [[nodiscard]] constexpr ByteCount ScaleFrom100G(ByteCount bytes_at_100g) const {
    return static_cast<ByteCount>(static_cast<__int128>(bytes_at_100g) * bps_ / 100'000'000'000LL);
  }
  [[nodiscard]] std::string ToString() const;
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(int64_t bps) : bps_(bps) {}
  int64_t bps_ = 0;  // Bits per second.
};

}  // namespace mroce::sim

#endif  // MROCE_SIM_UNITS_H_
