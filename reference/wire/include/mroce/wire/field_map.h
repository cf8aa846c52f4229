// FieldMap: a packet as a flat ordered list of named field values, the form shared by JSON, Python and
// the harness's field-by-field comparison.
//
// Naming: `<hdr>.<field>` from the field tables: eth.*, ip4.*, ip6.*, udp.*, MetaRoCE ch.* (flags as
// ch.flags.ar ...), meh.*, ack.*, nack.*, cmh.*, prh.*, RoCEv2 bth.*, reth.*, aeth.*, plus the
// unprefixed `payload` (bytes), `crc` (MetaRoCE trailer) and `icrc` (RoCEv2 trailer).
// Values: scalar fields (up to 64 bits) are uint64; byte-array fields are bytes: MAC and IP addresses
// (eth.dst, ip4.src, ip6.dst ...), `ack.sack` (32 bytes, byte k = SACK bits 8k..8k+7, bit i has mask
// 0x80 >> (i % 8), exactly the wire layout), `payload` and `eth.padding`. JSON writes bytes as a hex
// string; Python as `bytes`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mroce::wire {

using Bytes = std::vector<uint8_t>;
using FieldValue = std::variant<uint64_t, Bytes>;

struct FieldEntry {
  std::string name;
  FieldValue value;
  bool operator==(const FieldEntry&) const = default;
};

// Ordered (wire order) list of fields. Lookup is linear: maps hold ~60 entries.
class FieldMap {
 public:
  FieldMap() = default;
  FieldMap(std::initializer_list<FieldEntry> entries) : entries_(entries) {}

  // Replaces the value if `name` exists, else appends.
  void Set(std::string_view name, FieldValue value);
  void Set(std::string_view name, uint64_t value) { Set(name, FieldValue(value)); }
  [[nodiscard]] const FieldValue* Find(std::string_view name) const;
  [[nodiscard]] std::optional<uint64_t> GetU64(std::string_view name) const;
  [[nodiscard]] std::optional<Bytes> GetBytes(std::string_view name) const;
  [[nodiscard]] bool Contains(std::string_view name) const { return Find(name) != nullptr; }
  bool Erase(std::string_view name);

  [[nodiscard]] const std::vector<FieldEntry>& entries() const { return entries_; }
  [[nodiscard]] size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  bool operator==(const FieldMap&) const = default;

 private:
  std::vector<FieldEntry> entries_;
};

// One row of a header's declarative field table (for introspection: docs, Python, clause catalog).
struct FieldInfo {
  std::string_view header;  // "ch", "ack", "ip4", ...
  std::string_view name;    // full name, "ack.epsn"
  uint16_t byte_offset;     // from the start of its header
  uint8_t bit_offset;       // from the MSB of the byte at byte_offset
  uint16_t bit_width;       // byte-array fields: 8 * length
  bool is_bytes;
  bool is_fixed;            // constant on the wire (ip4.version, ip4.ihl ...); not in FieldMaps
};

// Every field table row of every header, in header then wire order.
[[nodiscard]] const std::vector<FieldInfo>& AllFieldInfos();

// Difference between two maps, for failure messages and scripted-peer matching.
struct FieldDiff {
  std::string name;
  std::optional<FieldValue> expected;  // nullopt: absent in expected
  std::optional<FieldValue> actual;    // nullopt: absent in actual
};
// Fields whose value differs or that are present in only one map, skipping names in `ignore`
// (exact names, or prefixes ending in '.' such as "ack.").
[[nodiscard]] std::vector<FieldDiff> DiffFieldMaps(const FieldMap& expected, const FieldMap& actual,
                                                   std::span<const std::string> ignore = {});

// "ack.epsn: expected 10 (0xa), actual 12 (0xc)"; bytes in hex.
[[nodiscard]] std::string FormatFieldValue(const FieldValue& v);
[[nodiscard]] std::string ToString(const FieldDiff& d);

}  // namespace mroce::wire
