#include <algorithm>
// Frame <-> FieldMap conversion, human-readable dumps and hex helpers.
#include "mroce/wire/dump.h"

#include <cctype>

#include "field_table.h"
#include "tables.h"

namespace mroce::wire {

using internal::Format;

namespace {

void AppendMeta(const MetaPacket& pkt, FieldMap& m) {
  using namespace internal;
  AppendToMap(kCommonTable, pkt.ch, m);
  std::visit(
      [&m](const auto& h) {
        using H = std::decay_t<decltype(h)>;
        if constexpr (std::is_same_v<H, MessageExt>) AppendToMap(kMessageExtTable, h, m);
        if constexpr (std::is_same_v<H, AckHeader>) AppendToMap(kAckTable, h, m);
        if constexpr (std::is_same_v<H, NackHeader>) AppendToMap(kNackTable, h, m);
        if constexpr (std::is_same_v<H, ConnMgmtHeader>) AppendToMap(kConnMgmtTable, h, m);
        if constexpr (std::is_same_v<H, ProbeHeader>) AppendToMap(kProbeTable, h, m);
      },
      pkt.ext);
  m.Set("payload", FieldValue(pkt.payload));
  m.Set("crc", uint64_t{pkt.crc});
}

bool HasPrefix(const FieldMap& m, std::string_view prefix) {
  for (const auto& e : m) {
    if (e.name.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

// Reads a scalar or bytes entry not described by a table.
Status TakeU64(const FieldMap& m, std::vector<bool>& used, std::string_view name, unsigned bits,
               uint64_t& out) {
  const auto& es = m.entries();
  for (size_t i = 0; i < es.size(); ++i) {
    if (es[i].name != name) continue;
    used[i] = true;
    const uint64_t* u = std::get_if<uint64_t>(&es[i].value);
    if (u == nullptr) return FieldError(std::string(name), i, "expected an integer, got bytes");
    if (bits < 64 && (*u >> bits) != 0) {
      return FieldError(std::string(name), i,
                        Format("value %llu does not fit in %u bits", static_cast<unsigned long long>(*u), bits));
    }
    out = *u;
  }
  return {};
}

Status TakeBytes(const FieldMap& m, std::vector<bool>& used, std::string_view name, Bytes& out) {
  const auto& es = m.entries();
  for (size_t i = 0; i < es.size(); ++i) {
    if (es[i].name != name) continue;
    used[i] = true;
    const Bytes* b = std::get_if<Bytes>(&es[i].value);
    if (b == nullptr) return FieldError(std::string(name), i, "expected bytes, got an integer");
    out = *b;
  }
  return {};
}

Status CheckAllUsed(const FieldMap& m, const std::vector<bool>& used) {
  for (size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      return FieldError(m.entries()[i].name, i,
                        "unknown field (not a field of the layers this map selects: check the "
                        "opcode and the ip4/ip6, ch/bth prefixes)");
    }
  }
  return {};
}

#define MROCE_TRY(expr)            \
  do {                             \
    if (Status s_ = (expr); !s_) { \
      return s_.error();           \
    }                              \
  } while (0)

Result<MetaPacket> MetaFromMapImpl(const FieldMap& m, std::vector<bool>& used) {
  using namespace internal;
  MetaPacket pkt;
  MROCE_TRY(ReadFromMap(kCommonTable, m, used, pkt.ch));
  pkt.ext = DefaultExtFor(pkt.ch.opcode);
  Status s = std::visit(
      [&](auto& h) -> Status {
        using H = std::decay_t<decltype(h)>;
        if constexpr (std::is_same_v<H, MessageExt>) return ReadFromMap(kMessageExtTable, m, used, h);
        if constexpr (std::is_same_v<H, AckHeader>) return ReadFromMap(kAckTable, m, used, h);
        if constexpr (std::is_same_v<H, NackHeader>) return ReadFromMap(kNackTable, m, used, h);
        if constexpr (std::is_same_v<H, ConnMgmtHeader>) return ReadFromMap(kConnMgmtTable, m, used, h);
        if constexpr (std::is_same_v<H, ProbeHeader>) return ReadFromMap(kProbeTable, m, used, h);
        return {};
      },
      pkt.ext);
  if (!s) return s.error();
  MROCE_TRY(TakeBytes(m, used, "payload", pkt.payload));
  uint64_t crc = 0;
  MROCE_TRY(TakeU64(m, used, "crc", 32, crc));
  pkt.crc = static_cast<uint32_t>(crc);
  if (!m.Contains("ch.payload_len")) pkt.ch.payload_len = static_cast<uint16_t>(pkt.payload.size());
  return pkt;
}

std::string MacString(std::span<const uint8_t> b) {
  std::string s;
  for (size_t i = 0; i < b.size(); ++i) s += Format(i ? ":%02x" : "%02x", b[i]);
  return s;
}

std::string Ipv6String(std::span<const uint8_t> b) {
  std::string s;
  for (size_t i = 0; i < 16; i += 2) s += Format(i ? ":%x" : "%x", b[i] << 8 | b[i + 1]);
  return s;
}

std::string Annotation(const FieldEntry& e) {
  if (const uint64_t* u = std::get_if<uint64_t>(&e.value)) {
    const auto v8 = static_cast<uint8_t>(*u);
    if (e.name == "ch.opcode") return std::string(OpcodeName(static_cast<Opcode>(v8)));
    if (e.name == "nack.code") return std::string(NackCodeName(static_cast<NackCode>(v8)));
    if (e.name == "cmh.reason") return std::string(ConnReasonName(static_cast<ConnReason>(v8)));
    if (e.name == "bth.opcode") return std::string(RoceOpcodeName(static_cast<RoceOpcode>(v8)));
    if (e.name == "ip4.ecn" || e.name == "ip6.ecn") {
      static const char* kNames[] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};
      return kNames[*u & 3];
    }
    if (e.name == "eth.type") {
      if (*u == kEtherTypeIpv4) return "IPv4";
      if (*u == kEtherTypeIpv6) return "IPv6";
    }
    return {};
  }
  const Bytes& b = std::get<Bytes>(e.value);
  if (e.name == "eth.dst" || e.name == "eth.src") return MacString(b);
  if (b.size() == 4 && (e.name == "ip4.src" || e.name == "ip4.dst")) {
    return Format("%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
  }
  if (b.size() == 16 && (e.name == "ip6.src" || e.name == "ip6.dst")) return Ipv6String(b);
  if (e.name == "ack.sack") {
    std::string s = "bits set:";
    int n = 0;
    for (size_t i = 0; i < b.size() * 8; ++i) {
      if (b[i / 8] & (0x80u >> (i % 8))) {
        if (++n > 64) {
          s += " ...";
          break;
        }
        s += Format(" %zu", i);
      }
    }
    return n == 0 ? "none" : s;
  }
  return {};
}

}  // namespace

FieldMap ToFieldMap(const MetaPacket& pkt) {
  FieldMap m;
  AppendMeta(pkt, m);
  return m;
}

FieldMap ToFieldMap(const Frame& f) {
  using namespace internal;
  FieldMap m;
  AppendToMap(kEthAddrTable, f.eth, m);
  if (f.eth.vlan_tci) m.Set("eth.vlan_tci", uint64_t{*f.eth.vlan_tci});
  m.Set("eth.type", uint64_t{f.eth.ethertype});
  if (const Ipv4Header* ip = f.ip4()) {
    AppendToMap(kIpv4Table, *ip, m);
  } else {
    AppendToMap(kIpv6Table, *f.ip6(), m);
  }
  AppendToMap(kUdpTable, f.udp, m);
  if (const MetaPacket* p = f.meta()) {
    AppendMeta(*p, m);
  } else if (const RocePacket* r = f.roce()) {
    AppendToMap(kBthTable, r->bth, m);
    if (r->reth) AppendToMap(kRethTable, *r->reth, m);
    if (r->aeth) AppendToMap(kAethTable, *r->aeth, m);
    if (r->imm) m.Set("imm", uint64_t{*r->imm});
    m.Set("payload", FieldValue(r->payload));
    m.Set("icrc", uint64_t{r->icrc});
  } else {
    m.Set("payload", FieldValue(std::get<RawPayload>(f.l4).bytes));
  }
  if (!f.padding.empty()) m.Set("eth.padding", FieldValue(f.padding));
  return m;
}

Result<MetaPacket> MetaFromFieldMap(const FieldMap& m) {
  std::vector<bool> used(m.size(), false);
  auto r = MetaFromMapImpl(m, used);
  if (!r) return r;
  if (Status s = CheckAllUsed(m, used); !s) return s.error();
  return r;
}

Result<Frame> FromFieldMap(const FieldMap& m) {
  using namespace internal;
  std::vector<bool> used(m.size(), false);
  Frame f;
  MROCE_TRY(ReadFromMap(kEthAddrTable, m, used, f.eth));
  if (m.Contains("eth.vlan_tci")) {
    uint64_t tci = 0;
    MROCE_TRY(TakeU64(m, used, "eth.vlan_tci", 16, tci));
    f.eth.vlan_tci = static_cast<uint16_t>(tci);
  }
  const bool v6 = HasPrefix(m, "ip6.");
  f.eth.ethertype = v6 ? kEtherTypeIpv6 : kEtherTypeIpv4;
  uint64_t type = f.eth.ethertype;
  MROCE_TRY(TakeU64(m, used, "eth.type", 16, type));
  f.eth.ethertype = static_cast<uint16_t>(type);
  if (v6) {
    Ipv6Header ip;
    MROCE_TRY(ReadFromMap(kIpv6Table, m, used, ip));
    f.ip = ip;
  } else {
    Ipv4Header ip;
    MROCE_TRY(ReadFromMap(kIpv4Table, m, used, ip));
    f.ip = ip;
  }
  const bool meta = HasPrefix(m, "ch.");
  const bool roce = HasPrefix(m, "bth.");
  if (meta && roce) return FieldError("bth.opcode", 0, "map has both ch.* (MetaRoCE) and bth.* (RoCEv2) fields");
  if (roce) f.udp.dport = kRoceUdpPort;
  MROCE_TRY(ReadFromMap(kUdpTable, m, used, f.udp));
  if (meta) {
    auto p = MetaFromMapImpl(m, used);
    if (!p) return p.error();
    f.l4 = std::move(p).value();
  } else if (roce) {
    RocePacket r;
    MROCE_TRY(ReadFromMap(kBthTable, m, used, r.bth));
    if (HasPrefix(m, "reth.") || RoceHasReth(r.bth.opcode)) {
      r.reth.emplace();
      MROCE_TRY(ReadFromMap(kRethTable, m, used, *r.reth));
    }
    if (HasPrefix(m, "aeth.") || RoceHasAeth(r.bth.opcode)) {
      r.aeth.emplace();
      MROCE_TRY(ReadFromMap(kAethTable, m, used, *r.aeth));
    }
    if (m.Contains("imm") || RoceHasImm(r.bth.opcode)) {
      uint64_t imm = 0;
      MROCE_TRY(TakeU64(m, used, "imm", 32, imm));
      r.imm = static_cast<uint32_t>(imm);
    }
    MROCE_TRY(TakeBytes(m, used, "payload", r.payload));
    uint64_t icrc = 0;
    MROCE_TRY(TakeU64(m, used, "icrc", 32, icrc));
    r.icrc = static_cast<uint32_t>(icrc);
    f.l4 = std::move(r);
  } else {
    RawPayload raw;
    MROCE_TRY(TakeBytes(m, used, "payload", raw.bytes));
    f.l4 = std::move(raw);
  }
  MROCE_TRY(TakeBytes(m, used, "eth.padding", f.padding));
  MROCE_TRY(CheckAllUsed(m, used));
  return f;
}

std::string DumpFieldMap(const FieldMap& m) {
  std::string out;
  for (const auto& e : m) {
    std::string line = Format("  %-20s = ", e.name.c_str());
    if (const Bytes* b = std::get_if<Bytes>(&e.value); b != nullptr && b->size() > 32) {
      // Long payloads: the first 64 bytes are enough to recognise a pattern in a failure report.
      constexpr size_t kShown = 64;
      line += Format("[%zu bytes]", b->size());
      out += line + "\n" + HexDump(std::span<const uint8_t>(*b).first(std::min(b->size(), kShown)));
      if (b->size() > kShown) out += Format("      ... %zu more bytes\n", b->size() - kShown);
      continue;
    }
    line += FormatFieldValue(e.value);
    std::string a = Annotation(e);
    if (!a.empty()) line += " " + a;
    out += line + "\n";
  }
  return out;
}

std::string DumpMeta(const MetaPacket& pkt) {
  return Format("MetaRoCE %s, %zu bytes\n", std::string(OpcodeName(pkt.ch.opcode)).c_str(), pkt.size()) +
         DumpFieldMap(ToFieldMap(pkt));
}

std::string DumpFrame(const Frame& f) {
  std::string kind;
  if (const MetaPacket* p = f.meta()) {
    kind = "MetaRoCE " + std::string(OpcodeName(p->ch.opcode));
  } else if (const RocePacket* r = f.roce()) {
    kind = "RoCEv2 " + std::string(RoceOpcodeName(r->bth.opcode));
  } else {
    kind = "UDP";
  }
  std::string head = Format("%s over %s, UDP %u -> %u\n", kind.c_str(), f.is_ipv4() ? "IPv4" : "IPv6",
                            f.udp.sport, f.udp.dport);
  return head + DumpFieldMap(ToFieldMap(f));
}

std::string HexDump(std::span<const uint8_t> b) {
  std::string out;
  for (size_t i = 0; i < b.size(); i += 16) {
    out += Format("    %04zx  ", i);
    for (size_t j = 0; j < 16; ++j) {
      out += i + j < b.size() ? Format("%02x ", b[i + j]) : "   ";
      if (j == 7) out += " ";
    }
    out += " ";
    for (size_t j = 0; j < 16 && i + j < b.size(); ++j) {
      const uint8_t c = b[i + j];
      out += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '.';
    }
    out += "\n";
  }
  return out;
}

std::string ToHex(std::span<const uint8_t> b) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t c : b) {
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  return s;
}

Result<std::vector<uint8_t>> ParseHex(std::string_view hex) {
  std::vector<uint8_t> out;
  int pending = -1;
  size_t i = 0;
  while (i < hex.size() && std::isspace(static_cast<unsigned char>(hex[i]))) ++i;
  if (hex.size() - i >= 2 && hex[i] == '0' && (hex[i + 1] == 'x' || hex[i + 1] == 'X')) i += 2;
  for (; i < hex.size(); ++i) {
    const char c = hex[i];
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else if (std::isspace(static_cast<unsigned char>(c))) continue;
    else return FieldError("hex", i, Format("invalid hex character '%c'", c));
    if (pending < 0) {
      pending = v;
    } else {
      out.push_back(static_cast<uint8_t>(pending << 4 | v));
      pending = -1;
    }
  }
  if (pending >= 0) return FieldError("hex", hex.size(), "odd number of hex digits");
  return out;
}

std::string DescribeBytes(std::span<const uint8_t> frame, const ParseOptions& opts) {
  auto f = ParseFrame(frame, opts);
  if (f) return DumpFrame(*f);
  return "unparseable frame (" + f.error().ToString() + "), " + std::to_string(frame.size()) +
         " bytes:\n" + HexDump(frame);
}

}  // namespace mroce::wire
