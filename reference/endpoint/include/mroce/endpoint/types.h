// Basic types shared by every part of the reference endpoint: time, PSN serial arithmetic, results.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace mroce::ref {

// Time in nanoseconds since an arbitrary origin chosen by whoever drives the endpoint. The endpoint
// never reads a clock: every event carries `now` of this type.
using TimeNs = int64_t;
inline constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
inline constexpr TimeNs kMicrosecond = 1000;
inline constexpr TimeNs kMillisecond = 1000 * 1000;

// Per-path packet sequence number, 32 bits, compared with RFC 1982 serial arithmetic.
using Psn = uint32_t;
[[nodiscard]] constexpr int32_t PsnDiff(Psn a, Psn b) { return static_cast<int32_t>(a - b); }
[[nodiscard]] constexpr bool PsnLt(Psn a, Psn b) { return PsnDiff(a, b) < 0; }
[[nodiscard]] constexpr bool PsnLe(Psn a, Psn b) { return PsnDiff(a, b) <= 0; }
[[nodiscard]] constexpr bool PsnGt(Psn a, Psn b) { return PsnDiff(a, b) > 0; }
[[nodiscard]] constexpr bool PsnGe(Psn a, Psn b) { return PsnDiff(a, b) >= 0; }

// Message sequence numbers use the same serial arithmetic.
using Msn = uint32_t;

using ConnId = uint32_t;

// Error carried by a failed Result: a stable code word and a human message.
struct Error {
  std::string code;     // stable identifier, e.g. "limit.streams"
  std::string message;  // human-readable detail
};

// Result<T>: a value or an Error (std::expected is C++23; GCC 12 lacks it).
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T& value() & { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  [[nodiscard]] const T& operator*() const { return value(); }
  [[nodiscard]] const T* operator->() const { return &value(); }
  [[nodiscard]] const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Status: Result without a value.
struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }
inline Error MakeError(std::string code, std::string message) {
  return Error{std::move(code), std::move(message)};
}

}  // namespace mroce::ref
