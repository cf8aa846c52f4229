// Result<T>: the value of a fallible codec call, or a ParseError naming the field that failed.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace mroce::wire {

// Why a parse (or field-map conversion) failed. `field` uses the field-table names
// ("ack.sack", "ip4.checksum", "crc"); `offset` is the byte offset of that field from the start of
// the buffer the caller handed in (plus any base_offset it passed).
struct ParseError {
  std::string field;
  size_t offset = 0;
  std::string message;

  // "ack.sack @62: ACK header overflows packet: need 48 bytes at offset 46, have 20"
  [[nodiscard]] std::string ToString() const {
    return field + " @" + std::to_string(offset) + ": " + message;
  }
};

namespace internal {
[[noreturn]] inline void DieOnBadAccess(const ParseError* e) {
  std::fprintf(stderr, "mroce::wire::Result: value() on error: %s\n",
               e != nullptr ? e->ToString().c_str() : "(no error)");
  std::abort();
}
}  // namespace internal

// Either a T or a ParseError. Calling value() on an error is a programmer error and aborts.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}            // NOLINT
  Result(ParseError error) : v_(std::in_place_index<1>, std::move(error)) {}   // NOLINT

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  [[nodiscard]] const T& value() const& { Check(); return std::get<0>(v_); }
  [[nodiscard]] T& value() & { Check(); return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { Check(); return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  // Only valid when !ok().
  [[nodiscard]] const ParseError& error() const {
    if (ok()) internal::DieOnBadAccess(nullptr);
    return std::get<1>(v_);
  }

 private:
  void Check() const {
    if (!ok()) internal::DieOnBadAccess(&std::get<1>(v_));
  }
  std::variant<T, ParseError> v_;
};

// Result<void>: success or a ParseError.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(ParseError error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const ParseError& error() const {
    if (ok_) internal::DieOnBadAccess(nullptr);
    return error_;
  }

 private:
  ParseError error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace mroce::wire
