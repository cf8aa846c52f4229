// JSON-lines control protocol codecs (see process_protocol.h and docs/process-protocol.md).
#include "mroce/dut/process_protocol.h"

#include <array>
#include <cstdio>

namespace mroce::dut::jsonl {

namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int B64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

std::string Quote(std::string_view s, size_t max = 60) {
  std::string out;
  for (char c : s.substr(0, max)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  if (s.size() > max) out += "...";
  return "'" + out + "'";
}

std::string TypeName(const json& j) { return j.type_name(); }

}  // namespace

std::string Base64Encode(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = static_cast<uint32_t>(bytes[i]) << 16 | static_cast<uint32_t>(bytes[i + 1]) << 8 | bytes[i + 2];
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    const uint32_t v = static_cast<uint32_t>(bytes[i]) << 16;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    const uint32_t v = static_cast<uint32_t>(bytes[i]) << 16 | static_cast<uint32_t>(bytes[i + 1]) << 8;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::vector<uint8_t>> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return MakeError("dut.protocol", "base64 length " + std::to_string(text.size()) + " is not a multiple of 4");
  }
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<size_t>(k)];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      v[k] = pad > 0 ? -1 : B64Value(c);
      if (v[k] < 0) {
        return MakeError("dut.protocol", "invalid base64 character " + Quote(std::string_view(&c, 1)) + " at offset " +
                                             std::to_string(i + static_cast<size_t>(k)));
      }
    }
    const uint32_t w = static_cast<uint32_t>(v[0]) << 18 | static_cast<uint32_t>(v[1]) << 12 |
                       static_cast<uint32_t>(v[2]) << 6 | static_cast<uint32_t>(v[3]);
    out.push_back(static_cast<uint8_t>(w >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(w >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(w));
  }
  return out;
}

std::string MacToString(const wire::MacAddress& mac) {
  char buf[18];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
  return buf;
}

Result<wire::MacAddress> ParseMac(std::string_view text) {
  wire::MacAddress mac{};
  if (text.size() != 17) return MakeError("dut.protocol", "MAC address " + Quote(text) + " is not xx:xx:xx:xx:xx:xx");
  for (size_t i = 0; i < 6; ++i) {
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    const int a = hex(text[i * 3]), b = hex(text[i * 3 + 1]);
    if (a < 0 || b < 0 || (i < 5 && text[i * 3 + 2] != ':')) {
      return MakeError("dut.protocol", "MAC address " + Quote(text) + " is not xx:xx:xx:xx:xx:xx");
    }
    mac[i] = static_cast<uint8_t>(a << 4 | b);
  }
  return mac;
}

std::string Ipv4ToString(const wire::Ipv4Address& ip) {
  return std::to_string(ip[0]) + "." + std::to_string(ip[1]) + "." + std::to_string(ip[2]) + "." + std::to_string(ip[3]);
}

Result<wire::Ipv4Address> ParseIpv4(std::string_view text) {
  wire::Ipv4Address ip{};
  size_t pos = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned v = 0;
    size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && digits < 4) {
      v = v * 10 + static_cast<unsigned>(text[pos] - '0');
      ++pos;
      ++digits;
    }
    if (digits == 0 || digits > 3 || v > 255 || (i < 3 && (pos >= text.size() || text[pos++] != '.'))) {
      return MakeError("dut.protocol", "IPv4 address " + Quote(text) + " is not a.b.c.d");
    }
    ip[static_cast<size_t>(i)] = static_cast<uint8_t>(v);
  }
  if (pos != text.size()) return MakeError("dut.protocol", "IPv4 address " + Quote(text) + " is not a.b.c.d");
  return ip;
}

Result<json> ParseLine(std::string_view line) {
  if (line.size() > kMaxLineBytes) {
    return MakeError("dut.protocol", "line of " + std::to_string(line.size()) + " bytes is longer than the limit of " +
                                         std::to_string(kMaxLineBytes));
  }
  json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return MakeError("dut.protocol", "not JSON: " + Quote(line));
  if (!j.is_object()) return MakeError("dut.protocol", "a JSON " + TypeName(j) + ", not an object: " + Quote(line));
  return j;
}

Fields::Fields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {
  if (!obj_.is_object()) error_ = where_ + ": expected an object, got " + TypeName(obj_);
}

void Fields::Fail(const std::string& key, const std::string& what) {
  if (error_.empty()) error_ = where_ + "." + key + ": " + what;
}

const json* Fields::Field(const char* key, bool required) {
  if (!obj_.is_object()) return nullptr;
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) {
    if (required) Fail(key, "missing");
    return nullptr;
  }
  return &*it;
}

uint64_t Fields::U64(const char* key, uint64_t max) {
  auto v = OptU64(key, max);
  if (!v && ok()) Fail(key, "missing");
  return v.value_or(0);
}

std::optional<uint64_t> Fields::OptU64(const char* key, uint64_t max) {
  const json* f = Field(key, false);
  if (f == nullptr) return std::nullopt;
  if (!f->is_number_unsigned() && !(f->is_number_integer() && f->get<int64_t>() >= 0)) {
    Fail(key, "expected an unsigned integer, got " + std::string(f->is_number() ? f->dump() : TypeName(*f)));
    return std::nullopt;
  }
  const uint64_t v = f->get<uint64_t>();
  if (v > max) {
    Fail(key, std::to_string(v) + " is above the maximum " + std::to_string(max));
    return std::nullopt;
  }
  return v;
}

std::string Fields::Str(const char* key) {
  const json* f = Field(key, true);
  if (f == nullptr) return {};
  if (!f->is_string()) {
    Fail(key, "expected a string, got " + TypeName(*f));
    return {};
  }
  return f->get<std::string>();
}

bool Fields::Bool(const char* key, bool fallback) {
  const json* f = Field(key, false);
  if (f == nullptr) return fallback;
  if (!f->is_boolean()) {
    Fail(key, "expected true or false, got " + TypeName(*f));
    return fallback;
  }
  return f->get<bool>();
}

const json* Fields::Obj(const char* key, bool required) {
  const json* f = Field(key, required);
  if (f != nullptr && !f->is_object()) {
    Fail(key, "expected an object, got " + TypeName(*f));
    return nullptr;
  }
  return f;
}

const json* Fields::Arr(const char* key, bool required) {
  const json* f = Field(key, required);
  if (f != nullptr && !f->is_array()) {
    Fail(key, "expected an array, got " + TypeName(*f));
    return nullptr;
  }
  return f;
}

json CapsToJson(const Capabilities& caps) {
  return json{{"protocol", std::string(ProtocolName(caps.protocol))},
              {"max_paths", caps.max_paths},
              {"max_planes", caps.max_planes},
              {"max_streams", caps.max_streams},
              {"in_band_connect", caps.in_band_connect},
              {"features", caps.features}};
}

Result<Capabilities> CapsFromJson(const json& j) {
  Fields f(j, "caps");
  Capabilities c;
  const std::string proto = f.Str("protocol");
  if (f.ok()) {
    if (proto == "metaroce") c.protocol = Protocol::kMetaRoce;
    else if (proto == "rocev2") c.protocol = Protocol::kRocev2;
    else f.Fail("protocol", "unknown protocol '" + proto + "' (metaroce, rocev2)");
  }
  c.max_paths = static_cast<uint8_t>(f.U64("max_paths", 255));
  c.max_planes = static_cast<uint8_t>(f.U64("max_planes", 255));
  c.max_streams = static_cast<uint16_t>(f.U64("max_streams", 65535));
  c.in_band_connect = f.Bool("in_band_connect", true);
  if (const json* feats = f.Arr("features", false)) {
    for (size_t i = 0; i < feats->size(); ++i) {
      if (!(*feats)[i].is_string()) {
        f.Fail("features[" + std::to_string(i) + "]", "expected a string");
        break;
      }
      c.features.push_back((*feats)[i].get<std::string>());
    }
  }
  if (f.ok() && (c.max_paths == 0 || c.max_planes == 0 || c.max_streams == 0)) {
    f.Fail("max_paths", "max_paths, max_planes and max_streams must be at least 1");
  }
  c.simulated_time = false;  // a process runs on its own clock
  if (!f.ok()) return f.ToError();
  return c;
}

json HostConfigToJson(const HostConfig& c) {
  return json{{"mac", MacToString(c.mac)},       {"ip", Ipv4ToString(c.ip)},
              {"udp_port", c.udp_port},         {"num_paths", c.num_paths},
              {"num_planes", c.num_planes},     {"mtu", c.mtu},
              {"max_streams", c.max_streams},   {"link_capacity_mbps", c.link_capacity_mbps},
              {"seed", c.seed}};
}

Result<HostConfig> HostConfigFromJson(const json& j) {
  Fields f(j, "start");
  HostConfig c;
  const std::string mac = f.Str("mac");
  const std::string ip = f.Str("ip");
  c.udp_port = static_cast<uint16_t>(f.U64("udp_port", 65535));
  c.num_paths = static_cast<uint8_t>(f.U64("num_paths", 255));
  c.num_planes = static_cast<uint8_t>(f.U64("num_planes", 255));
  c.mtu = static_cast<uint16_t>(f.U64("mtu", 65535));
  c.max_streams = static_cast<uint16_t>(f.U64("max_streams", 65535));
  c.link_capacity_mbps = f.U64("link_capacity_mbps");
  c.seed = f.U64("seed");
  if (!f.ok()) return f.ToError();
  auto m = ParseMac(mac);
  if (!m.ok()) return MakeError("dut.protocol", "start.mac: " + m.error().message);
  c.mac = m.value();
  auto a = ParseIpv4(ip);
  if (!a.ok()) return MakeError("dut.protocol", "start.ip: " + a.error().message);
  c.ip = a.value();
  return c;
}

json BufferToJson(const Buffer& b) { return json{{"id", b.id}, {"va", b.va}, {"rkey", b.rkey}, {"length", b.length}}; }

Result<Buffer> BufferFromJson(const json& j) {
  Fields f(j, "buffer");
  Buffer b;
  b.id = static_cast<uint32_t>(f.U64("id", UINT32_MAX));
  b.va = f.U64("va");
  b.rkey = static_cast<uint32_t>(f.U64("rkey", UINT32_MAX));
  b.length = f.U64("length");
  if (!f.ok()) return f.ToError();
  return b;
}

json AccessToJson(uint32_t access) {
  json a = json::array();
  if (access & kAccessLocalWrite) a.push_back("local_write");
  if (access & kAccessRemoteWrite) a.push_back("remote_write");
  if (access & kAccessRemoteRead) a.push_back("remote_read");
  return a;
}

Result<uint32_t> AccessFromJson(const json& j) {
  if (!j.is_array()) return MakeError("dut.protocol", "access: expected an array of names");
  uint32_t access = 0;
  for (const json& e : j) {
    const std::string name = e.is_string() ? e.get<std::string>() : e.dump();
    if (name == "local_write") access |= kAccessLocalWrite;
    else if (name == "remote_write") access |= kAccessRemoteWrite;
    else if (name == "remote_read") access |= kAccessRemoteRead;
    else return MakeError("dut.protocol", "access: unknown flag " + Quote(name) + " (local_write, remote_write, remote_read)");
  }
  return access;
}

json OobToJson(const OobInfo& oob) {
  json o = json::array();
  for (const auto& [k, v] : oob) o.push_back(json::array({k, v}));
  return o;
}

Result<OobInfo> OobFromJson(const json& j) {
  if (!j.is_array()) return MakeError("dut.protocol", "oob: expected an array of [name, value] pairs");
  OobInfo oob;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number_unsigned()) {
      return MakeError("dut.protocol", "oob[" + std::to_string(i) + "]: expected [\"name\", unsigned]");
    }
    oob.emplace_back(e[0].get<std::string>(), e[1].get<uint64_t>());
  }
  return oob;
}

json PeerToJson(const PeerInfo& p) {
  return json{{"mac", MacToString(p.mac)}, {"ip", Ipv4ToString(p.ip)}, {"udp_port", p.udp_port}, {"oob", OobToJson(p.oob)}};
}

Result<PeerInfo> PeerFromJson(const json& j) {
  Fields f(j, "connect");
  PeerInfo p;
  const std::string mac = f.Str("mac");
  const std::string ip = f.Str("ip");
  p.udp_port = static_cast<uint16_t>(f.U64("udp_port", 65535));
  const json* oob = f.Arr("oob", false);
  if (!f.ok()) return f.ToError();
  auto m = ParseMac(mac);
  if (!m.ok()) return MakeError("dut.protocol", "connect.mac: " + m.error().message);
  p.mac = m.value();
  auto a = ParseIpv4(ip);
  if (!a.ok()) return MakeError("dut.protocol", "connect.ip: " + a.error().message);
  p.ip = a.value();
  if (oob != nullptr) {
    auto o = OobFromJson(*oob);
    if (!o.ok()) return MakeError("dut.protocol", "connect." + o.error().message);
    p.oob = std::move(o).value();
  }
  return p;
}

std::optional<OpKind> OpKindFromName(std::string_view name) {
  for (OpKind k : {OpKind::kSend, OpKind::kWrite, OpKind::kRead, OpKind::kRecv, OpKind::kRecvWriteImm}) {
    if (OpKindName(k) == name) return k;
  }
  return std::nullopt;
}

std::optional<OpStatus> OpStatusFromName(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(OpStatus::kOther); ++i) {
    const auto s = static_cast<OpStatus>(i);
    if (OpStatusName(s) == name) return s;
  }
  return std::nullopt;
}

std::optional<ConnEventKind> ConnEventKindFromName(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(ConnEventKind::kAccepted); ++i) {
    const auto k = static_cast<ConnEventKind>(i);
    if (ConnEventKindName(k) == name) return k;
  }
  return std::nullopt;
}

json CompletionEvent(const Completion& c) {
  json j{{"event", "completion"},
         {"wr_id", c.wr_id},
         {"conn", c.conn},
         {"stream", c.stream},
         {"op", std::string(OpKindName(c.op))},
         {"status", std::string(OpStatusName(c.status))},
         {"byte_len", c.byte_len}};
  if (c.imm) j["imm"] = *c.imm;
  return j;
}

Result<Completion> CompletionFromJson(const json& j) {
  Fields f(j, "completion");
  Completion c;
  c.wr_id = f.U64("wr_id");
  c.conn = static_cast<ConnHandle>(f.U64("conn", UINT32_MAX));
  c.stream = static_cast<uint16_t>(f.U64("stream", 65535));
  const std::string op = f.Str("op");
  const std::string status = f.Str("status");
  c.byte_len = static_cast<uint32_t>(f.U64("byte_len", UINT32_MAX));
  if (auto imm = f.OptU64("imm", UINT32_MAX)) c.imm = static_cast<uint32_t>(*imm);
  if (!f.ok()) return f.ToError();
  auto k = OpKindFromName(op);
  if (!k) return MakeError("dut.protocol", "completion.op: unknown operation " + Quote(op));
  c.op = *k;
  auto s = OpStatusFromName(status);
  if (!s) return MakeError("dut.protocol", "completion.status: unknown status " + Quote(status));
  c.status = *s;
  return c;
}

json ConnEventToJson(const ConnEvent& e) {
  return json{{"event", "conn"}, {"kind", std::string(ConnEventKindName(e.kind))}, {"conn", e.conn}, {"reason", e.reason}};
}

Result<ConnEvent> ConnEventFromJson(const json& j) {
  Fields f(j, "conn event");
  ConnEvent e;
  const std::string kind = f.Str("kind");
  e.conn = static_cast<ConnHandle>(f.U64("conn", UINT32_MAX));
  e.reason = static_cast<uint32_t>(f.OptU64("reason", UINT32_MAX).value_or(0));
  if (!f.ok()) return f.ToError();
  auto k = ConnEventKindFromName(kind);
  if (!k) return MakeError("dut.protocol", "conn event.kind: unknown kind " + Quote(kind));
  e.kind = *k;
  return e;
}

json CountersToJson(const std::vector<Counter>& counters) {
  json a = json::array();
  for (const auto& [name, v] : counters) a.push_back(json::array({name, v}));
  return a;
}

Result<std::vector<Counter>> CountersFromJson(const json& j) {
  if (!j.is_array()) return MakeError("dut.protocol", "telemetry.counters: expected an array of [name, value]");
  std::vector<Counter> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number_unsigned()) {
      return MakeError("dut.protocol", "telemetry.counters[" + std::to_string(i) + "]: expected [\"name\", unsigned]");
    }
    out.emplace_back(e[0].get<std::string>(), e[1].get<uint64_t>());
  }
  return out;
}

json OkReply(uint64_t id, json results) {
  json r = std::move(results);
  if (!r.is_object()) r = json::object();
  r["id"] = id;
  r["ok"] = true;
  return r;
}

json ErrorReply(uint64_t id, const Error& e) {
  return json{{"id", id}, {"ok", false}, {"error", {{"code", e.code}, {"message", e.message}}}};
}

}  // namespace mroce::dut::jsonl
