// The project's one error vocabulary: Error, Result<T> and Status, used by every component (the
// codec, both endpoints, the DUT interface, pcap, reports, the DPDK layer). std::expected is C++23;
// GCC 12 lacks it. A loader that reports every problem of a file at once returns
// harness::LoadResult (a value plus a list of file:line:col diagnostics) instead.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace mroce {

// Why something failed: a stable code word and a human message. A codec error names the field
// that failed as its code (the field-table names: "ack.sack", "ip4.checksum", "crc") and the
// field's byte offset from the start of the buffer the caller handed in (plus any base offset).
struct Error {
  std::string code;                  // stable identifier: "limit.streams", "pcap.open", "ack.sack"
  std::string message;               // human-readable detail
  std::optional<size_t> offset = {};  // codec errors: where the field starts

  // "ack.sack @62: ACK header overflows packet" or "pcap.open: cannot open x.pcap: No such file"
  [[nodiscard]] std::string ToString() const {
    return offset ? code + " @" + std::to_string(*offset) + ": " + message : code + ": " + message;
  }
};

inline Error MakeError(std::string code, std::string message) {
  return Error{std::move(code), std::move(message)};
}

// A codec error: `field` failed at byte `offset`.
inline Error FieldError(std::string field, size_t offset, std::string message) {
  return Error{std::move(field), std::move(message), offset};
}

namespace internal {
[[noreturn]] inline void DieOnBadAccess(const Error* e) {
  std::fprintf(stderr, "mroce::Result: %s\n",
               e != nullptr ? ("value() on error: " + e->ToString()).c_str() : "error() on a value");
  std::abort();
}
}  // namespace internal

// Either a T or an Error. Reading the value of an error (or the error of a value) is a programmer
// error and aborts with the error's text.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}        // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}    // NOLINT

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  [[nodiscard]] const T& value() const& { Check(); return std::get<0>(v_); }
  [[nodiscard]] T& value() & { Check(); return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { Check(); return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  [[nodiscard]] const Error& error() const {
    if (ok()) internal::DieOnBadAccess(nullptr);
    return std::get<1>(v_);
  }

 private:
  void Check() const {
    if (!ok()) internal::DieOnBadAccess(&std::get<1>(v_));
  }
  std::variant<T, Error> v_;
};

// The value of a successful Status.
struct Ok {};

// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Ok) {}                                                          // NOLINT
  Result(Error error) : error_(std::move(error)), ok_(false) {}          // NOLINT

  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const {
    if (ok_) internal::DieOnBadAccess(nullptr);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;
inline Status OkStatus() { return Status(); }

}  // namespace mroce
