// The match keys of every stage kind (match_keys.h).
#include "mroce/impairment/match_keys.h"

#include <cctype>
#include <charconv>

#include "mroce/wire/meta.h"

namespace mroce::impairment {
namespace {


constexpr MatchKeySpec kMatchKeys[] = {
    {"direction", "dut->peer | peer->dut", "which way the packet travels"},
    {"plane", "0..7", "the fabric plane (in a case: below topology.planes)"},
    {"path", "0..255", "the MetaRoCE path id (CH.path_id)"},
    {"sport", "0..65535", "the UDP source port, a path's entropy"},
    {"opcode", "name or 0..255", "the MetaRoCE opcode (CH.opcode), by name (WRITE, ACK, ...) or number"},
    {"stream", "0..65535", "the stream id of data packets (MEH.stream_id)"},
    {"psn", "0..4294967295", "the packet sequence number (CH.psn)"},
    {"rtx", "true | false", "the retransmission flag (CH RTX)"},
    {"metaroce_only", "true | false", "only MetaRoCE packets"},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

mroce::Error Bad(std::string_view key, std::string_view values, std::string_view text) {
  return MakeError("stage.match", "must be " + std::string(values) + ", got " + std::string(text));
}

// A number 0..max, decimal or 0x hex; not a quoted string.
bool Unsigned(std::string_view t, bool quoted, uint64_t max, uint64_t* out) {
  if (quoted) return false;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *out, base);
  return !t.empty() && ec == std::errc() && end == t.data() + t.size() && *out <= max;
}

bool Boolean(std::string_view t, bool quoted, bool* out) {
  if (quoted || (t != "true" && t != "false")) return false;
  *out = t == "true";
  return true;
}

}  // namespace

std::span<const MatchKeySpec> MatchKeys() { return kMatchKeys; }

std::string MatchKeyNames() {
  std::string out;
  for (const MatchKeySpec& k : kMatchKeys) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

mroce::Status SetMatchKey(std::string_view key, std::string_view raw, bool quoted, Match* m) {
  const std::string_view t = Trim(raw);
  const std::string shown = quoted ? "\"" + std::string(raw) + "\"" : std::string(raw);
  const MatchKeySpec* spec = nullptr;
  for (const MatchKeySpec& k : kMatchKeys) {
    if (k.name == key) spec = &k;
  }
  if (spec == nullptr) {
    std::string hint;
    if (key == "path_id") hint = "; the path id is 'path'";
    if (key == "stream_id") hint = "; the stream id is 'stream'";
    return MakeError("stage.match", "unknown key '" + std::string(key) + "' (expected one of: " + MatchKeyNames() + hint + ")");
  }
  uint64_t u = 0;
  bool b = false;
  if (key == "direction") {
    if (t == "dut->peer") m->direction = Direction::kDutToPeer;
    else if (t == "peer->dut") m->direction = Direction::kPeerToDut;
    else return Bad(key, spec->values, shown);
  } else if (key == "plane") {
    if (!Unsigned(t, quoted, 7, &u)) return Bad(key, spec->values, shown);
    m->plane = static_cast<uint8_t>(u);
  } else if (key == "path") {
    if (!Unsigned(t, quoted, 255, &u)) return Bad(key, spec->values, shown);
    m->path_id = static_cast<uint8_t>(u);
  } else if (key == "sport") {
    if (!Unsigned(t, quoted, 65535, &u)) return Bad(key, spec->values, shown);
    m->sport = static_cast<uint16_t>(u);
  } else if (key == "stream") {
    if (!Unsigned(t, quoted, 65535, &u)) return Bad(key, spec->values, shown);
    m->stream_id = static_cast<uint16_t>(u);
  } else if (key == "psn") {
    if (!Unsigned(t, quoted, 0xFFFFFFFFull, &u)) return Bad(key, spec->values, shown);
    m->psn = static_cast<uint32_t>(u);
  } else if (key == "opcode") {
    if (Unsigned(t, quoted, 255, &u)) {
      m->opcode = static_cast<uint8_t>(u);
    } else {
      bool found = false;
      for (int op = 0; op < 256 && !found; ++op) {
        const auto o = static_cast<wire::Opcode>(op);
        if (wire::IsKnownOpcode(o) && wire::OpcodeName(o) == t) {
          m->opcode = static_cast<uint8_t>(op);
          found = true;
        }
      }
      if (!found) {
        return MakeError("stage.match", "unknown opcode " + shown + " (a name such as WRITE, READ_REQ, SEND, ACK, NACK, or 0..255)");
      }
    }
  } else if (key == "rtx") {
    if (!Boolean(t, quoted, &b)) return Bad(key, spec->values, shown);
    m->rtx = b;
  } else if (key == "metaroce_only") {
    if (!Boolean(t, quoted, &b)) return Bad(key, spec->values, shown);
    m->metaroce_only = b;
  }
  return mroce::OkStatus();
}

}  // namespace mroce::impairment
