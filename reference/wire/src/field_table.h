// Declarative field tables: one row per wire field, driving parse (bounds-checked), write and FieldMaps.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "mroce/wire/byte_order.h"
#include "mroce/wire/field_map.h"
#include "mroce/wire/result.h"

namespace mroce::wire::internal {

// A field of header struct T. Scalar fields: get/set (set == nullptr: fixed value get(T{}), checked on
// parse, not in FieldMaps). Byte-array fields: bytes != nullptr, bit_offset 0, bit_width = 8 * len.
template <class T>
struct FieldSpec {
  const char* name;
  uint16_t byte_offset;
  uint8_t bit_offset;  // From the MSB of the byte at byte_offset.
  uint16_t bit_width;
  uint64_t (*get)(const T&) = nullptr;
  void (*set)(T&, uint64_t) = nullptr;
  uint8_t* (*bytes)(T&) = nullptr;

  [[nodiscard]] size_t end_byte() const { return byte_offset + (bit_offset + bit_width + 7) / 8; }
  [[nodiscard]] bool is_bytes() const { return bytes != nullptr; }
  [[nodiscard]] bool is_fixed() const { return bytes == nullptr && set == nullptr; }
};

// Reads up to 64 bits at (byte, bit) big-endian; caller has bounds-checked.
inline uint64_t ReadBits(const uint8_t* p, unsigned bit_offset, unsigned width) {
  unsigned nbytes = (bit_offset + width + 7) / 8;
  unsigned __int128 acc = 0;
  for (unsigned i = 0; i < nbytes; ++i) acc = acc << 8 | p[i];
  unsigned shift = nbytes * 8 - bit_offset - width;
  acc >>= shift;
  uint64_t mask = width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
  return static_cast<uint64_t>(acc) & mask;
}

inline void WriteBits(uint8_t* p, unsigned bit_offset, unsigned width, uint64_t value) {
  unsigned nbytes = (bit_offset + width + 7) / 8;
  unsigned shift = nbytes * 8 - bit_offset - width;
  unsigned __int128 mask = width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
  unsigned __int128 v = (static_cast<unsigned __int128>(value) & mask) << shift;
  mask <<= shift;
  for (unsigned i = 0; i < nbytes; ++i) {
    unsigned s = (nbytes - 1 - i) * 8;
    uint8_t m = static_cast<uint8_t>(mask >> s);
    p[i] = static_cast<uint8_t>((p[i] & ~m) | (static_cast<uint8_t>(v >> s) & m));
  }
}

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Parses header T at bytes[start]; checks bounds before each field. `label` names the header in
// messages ("ACK"). Error offsets are base_offset + index in `bytes`.
template <class T, size_t N>
Status ReadFields(const FieldSpec<T> (&table)[N], const char* label, size_t header_size,
                  std::span<const uint8_t> bytes, size_t start, size_t base_offset, T& out) {
  for (const auto& f : table) {
    if (start > bytes.size() || bytes.size() - start < f.end_byte()) {
      size_t have = start > bytes.size() ? 0 : bytes.size() - start;
      return FieldError(f.name, base_offset + start + f.byte_offset,
                        Format("%s header overflows packet: need %zu bytes at offset %zu, have %zu",
                               label, header_size, base_offset + start, have));
    }
    const uint8_t* p = bytes.data() + start + f.byte_offset;
    if (f.bytes != nullptr) {
      uint8_t* dst = f.bytes(out);
      for (size_t i = 0; i < f.bit_width / 8u; ++i) dst[i] = p[i];
      continue;
    }
    uint64_t v = ReadBits(p, f.bit_offset, f.bit_width);
    if (f.set == nullptr) {
      uint64_t want = f.get(T{});
      if (v != want) {
        return FieldError(f.name, base_offset + start + f.byte_offset,
                          Format("%s: expected %llu (0x%llx), got %llu (0x%llx)", f.name,
                                 static_cast<unsigned long long>(want),
                                 static_cast<unsigned long long>(want),
                                 static_cast<unsigned long long>(v),
                                 static_cast<unsigned long long>(v)));
      }
      continue;
    }
    f.set(out, v);
  }
  return {};
}

// Writes header T into out[0..header size); bytes not covered by a field are left as they are.
template <class T, size_t N>
void WriteFields(const FieldSpec<T> (&table)[N], const T& in, uint8_t* out) {
  for (const auto& f : table) {
    uint8_t* p = out + f.byte_offset;
    if (f.bytes != nullptr) {
      const uint8_t* src = f.bytes(const_cast<T&>(in));
      for (size_t i = 0; i < f.bit_width / 8u; ++i) p[i] = src[i];
      continue;
    }
    WriteBits(p, f.bit_offset, f.bit_width, f.get(in));
  }
}

template <class T, size_t N>
void AppendToMap(const FieldSpec<T> (&table)[N], const T& in, FieldMap& map) {
  for (const auto& f : table) {
    if (f.is_fixed()) continue;
    if (f.bytes != nullptr) {
      const uint8_t* src = f.bytes(const_cast<T&>(in));
      map.Set(f.name, FieldValue(Bytes(src, src + f.bit_width / 8)));
    } else {
      map.Set(f.name, FieldValue(f.get(in)));
    }
  }
}

// Sets the fields of `out` present in `map`; marks their entries in `used`.
template <class T, size_t N>
Status ReadFromMap(const FieldSpec<T> (&table)[N], const FieldMap& map, std::vector<bool>& used,
                   T& out) {
  const auto& entries = map.entries();
  for (const auto& f : table) {
    if (f.is_fixed()) continue;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].name != f.name) continue;
      used[i] = true;
      const FieldValue& v = entries[i].value;
      if (f.bytes != nullptr) {
        const Bytes* b = std::get_if<Bytes>(&v);
        if (b == nullptr) return FieldError(f.name, i, "expected bytes, got an integer");
        if (b->size() != f.bit_width / 8u) {
          return FieldError(f.name, i, Format("expected %u bytes, got %zu", f.bit_width / 8u, b->size()));
        }
        uint8_t* dst = f.bytes(out);
        for (size_t k = 0; k < b->size(); ++k) dst[k] = (*b)[k];
      } else {
        const uint64_t* u = std::get_if<uint64_t>(&v);
        if (u == nullptr) return FieldError(f.name, i, "expected an integer, got bytes");
        if (f.bit_width < 64 && (*u >> f.bit_width) != 0) {
          return FieldError(f.name, i,
                            Format("value %llu (0x%llx) does not fit in %u bits",
                                   static_cast<unsigned long long>(*u),
                                   static_cast<unsigned long long>(*u), f.bit_width));
        }
        f.set(out, *u);
      }
    }
  }
  return {};
}

template <class T, size_t N>
void AppendInfos(const FieldSpec<T> (&table)[N], std::string_view header, std::vector<FieldInfo>& out) {
  for (const auto& f : table) {
    out.push_back(FieldInfo{header, f.name, f.byte_offset, f.bit_offset, f.bit_width, f.is_bytes(),
                            f.is_fixed()});
  }
}

}  // namespace mroce::wire::internal

// Row helpers: scalar member M of struct T at (byte, bit, width).
#define MROCE_FIELD(T, NAME, BYTE, BIT, WIDTH, MEMBER)                                         \
  ::mroce::wire::internal::FieldSpec<T> {                                                     \
    NAME, BYTE, BIT, WIDTH, [](const T& h) -> uint64_t { return static_cast<uint64_t>(h.MEMBER); }, \
        [](T& h, uint64_t v) { h.MEMBER = static_cast<decltype(h.MEMBER)>(v); }, nullptr            \
  }
#define MROCE_FIXED(T, NAME, BYTE, BIT, WIDTH, VALUE)                                         \
  ::mroce::wire::internal::FieldSpec<T> {                                                    \
    NAME, BYTE, BIT, WIDTH, [](const T&) -> uint64_t { return VALUE; }, nullptr, nullptr       \
  }
#define MROCE_BYTES(T, NAME, BYTE, LEN, MEMBER)                                               \
  ::mroce::wire::internal::FieldSpec<T> {                                                    \
    NAME, BYTE, 0, (LEN) * 8, nullptr, nullptr, [](T& h) -> uint8_t* { return h.MEMBER.data(); } \
  }
// A single flag bit of a uint16 member (bit 15 = MSB of its first byte).
#define MROCE_FLAG(T, NAME, BYTE, BIT, MEMBER, MASK)                                            \
  ::mroce::wire::internal::FieldSpec<T> {                                                      \
    NAME, BYTE, BIT, 1, [](const T& h) -> uint64_t { return (h.MEMBER & (MASK)) ? 1 : 0; },      \
        [](T& h, uint64_t v) {                                                                  \
          h.MEMBER = static_cast<decltype(h.MEMBER)>(v ? (h.MEMBER | (MASK)) : (h.MEMBER & ~(MASK))); \
        },                                                                                      \
        nullptr                                                                                 \
  }
