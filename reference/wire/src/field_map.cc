// FieldMap operations, field introspection and the shared printf-style formatter.
#include "mroce/wire/field_map.h"

#include <cstdarg>
#include <cstdio>

#include "field_table.h"
#include "tables.h"

namespace mroce::wire {
namespace internal {

std::string Format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[256];
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return {};
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(out.data(), out.size(), fmt, ap);
  va_end(ap);
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace internal

void FieldMap::Set(std::string_view name, FieldValue value) {
  for (auto& e : entries_) {
    if (e.name == name) {
      e.value = std::move(value);
      return;
    }
  }
  entries_.push_back(FieldEntry{std::string(name), std::move(value)});
}

const FieldValue* FieldMap::Find(std::string_view name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return &e.value;
  }
  return nullptr;
}

std::optional<uint64_t> FieldMap::GetU64(std::string_view name) const {
  const FieldValue* v = Find(name);
  if (v == nullptr || !std::holds_alternative<uint64_t>(*v)) return std::nullopt;
  return std::get<uint64_t>(*v);
}

std::optional<Bytes> FieldMap::GetBytes(std::string_view name) const {
  const FieldValue* v = Find(name);
  if (v == nullptr || !std::holds_alternative<Bytes>(*v)) return std::nullopt;
  return std::get<Bytes>(*v);
}

bool FieldMap::Erase(std::string_view name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->name == name) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

const std::vector<FieldInfo>& AllFieldInfos() {
  static const std::vector<FieldInfo> infos = [] {
    using namespace internal;
    std::vector<FieldInfo> v;
    AppendInfos(kEthAddrTable, "eth", v);
    v.push_back(FieldInfo{"eth", "eth.vlan_tci", 14, 0, 16, false, false});
    v.push_back(FieldInfo{"eth", "eth.type", 12, 0, 16, false, false});
    AppendInfos(kIpv4Table, "ip4", v);
    AppendInfos(kIpv6Table, "ip6", v);
    AppendInfos(kUdpTable, "udp", v);
    AppendInfos(kCommonTable, "ch", v);
    AppendInfos(kMessageExtTable, "meh", v);
    AppendInfos(kAckTable, "ack", v);
    AppendInfos(kNackTable, "nack", v);
    AppendInfos(kConnMgmtTable, "cmh", v);
    AppendInfos(kProbeTable, "prh", v);
    AppendInfos(kBthTable, "bth", v);
    AppendInfos(kRethTable, "reth", v);
    AppendInfos(kAethTable, "aeth", v);
    v.push_back(FieldInfo{"imm", "imm", 0, 0, 32, false, false});
    return v;
  }();
  return infos;
}

std::string FormatFieldValue(const FieldValue& v) {
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) {
    return internal::Format("%llu (0x%llx)", static_cast<unsigned long long>(*u),
                            static_cast<unsigned long long>(*u));
  }
  const Bytes& b = std::get<Bytes>(v);
  std::string s;
  s.reserve(b.size() * 2 + 16);
  static const char* kHex = "0123456789abcdef";
  for (uint8_t c : b) {
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  if (b.empty()) s = "(empty)";
  s += internal::Format(" [%zu bytes]", b.size());
  return s;
}

std::vector<FieldDiff> DiffFieldMaps(const FieldMap& expected, const FieldMap& actual,
                                     std::span<const std::string> ignore) {
  auto ignored = [&](const std::string& name) {
    for (const auto& i : ignore) {
      if (i == name) return true;
      if (!i.empty() && i.back() == '.' && name.compare(0, i.size(), i) == 0) return true;
    }
    return false;
  };
  std::vector<FieldDiff> diffs;
  for (const auto& e : expected) {
    if (ignored(e.name)) continue;
    const FieldValue* a = actual.Find(e.name);
    if (a == nullptr) {
      diffs.push_back(FieldDiff{e.name, e.value, std::nullopt});
    } else if (!(*a == e.value)) {
      diffs.push_back(FieldDiff{e.name, e.value, *a});
    }
  }
  for (const auto& a : actual) {
    if (ignored(a.name) || expected.Contains(a.name)) continue;
    diffs.push_back(FieldDiff{a.name, std::nullopt, a.value});
  }
  return diffs;
}

std::string ToString(const FieldDiff& d) {
  return d.name + ": expected " + (d.expected ? FormatFieldValue(*d.expected) : "(absent)") +
         ", actual " + (d.actual ? FormatFieldValue(*d.actual) : "(absent)");
}

}  // namespace mroce::wire
