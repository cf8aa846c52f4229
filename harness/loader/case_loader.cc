#include "mroce/harness/case_loader.h"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "mroce/impairment/quantity.h"
#include "mroce/impairment/stage_yaml.h"
#include "yaml_reader.h"

namespace mroce::harness {

using internal::Index;
using internal::IsQuoted;
using internal::Join;
using internal::YamlReader;

std::string Diagnostic::ToString() const {
  std::string out = where.ToString() + ": ";
  if (!key.empty()) out += key + ": ";
  return out + message;
}

namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool ParseU64(std::string_view text, uint64_t* out) {
  std::string t = Trim(text);
  int base = 10;
  std::string_view digits = t;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  if (digits.empty()) return false;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out, base);
  return ec == std::errc() && end == digits.data() + digits.size();
}

bool ParseHexBytes(std::string_view hex, std::vector<uint8_t>* out) {
  std::string h;
  for (char c : hex) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ':' || c == '-') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    h += c;
  }
  if (h.empty() || h.size() % 2 != 0) return false;
  out->clear();
  for (size_t i = 0; i < h.size(); i += 2) out->push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return true;
}

}  // namespace

Result<FieldPattern> ParsePattern(std::string_view raw) {
  FieldPattern p;
  std::string t = Trim(raw);
  p.text = t;
  auto bad = [&](const std::string& why) -> Result<FieldPattern> {
    return MakeError("case.pattern", "bad field value '" + t + "': " + why);
  };
  uint64_t a = 0, b = 0;
  if (t == "*") {
    p.kind = FieldPattern::Kind::kAny;
    return p;
  }
  if (t == "true" || t == "false") {
    p.kind = FieldPattern::Kind::kExact;
    p.value = t == "true" ? 1 : 0;
    return p;
  }
  if (ParseU64(t, &a)) {
    p.kind = FieldPattern::Kind::kExact;
    p.value = a;
    return p;
  }
  if (t[0] == '$') {
    static const std::regex kVar(R"(\$([A-Za-z_][A-Za-z0-9_]*)\s*(?:([+-])\s*(\d+))?)");
    std::smatch m;
    if (!std::regex_match(t, m, kVar)) return bad("expected $name, $name+N or $name-N");
    p.kind = FieldPattern::Kind::kVariable;
    p.variable = m[1];
    if (m[2].matched) {
      p.offset = std::stoll(m[3]);
      if (m[2] == "-") p.offset = -p.offset;
    }
    return p;
  }
  if (t.rfind("hex:", 0) == 0) {
    // "hex:BYTES" or "hex:BYTES*N" (the bytes repeated N times, e.g. a full-MTU payload).
    p.kind = FieldPattern::Kind::kBytes;
    std::string_view hex = std::string_view(t).substr(4);
    uint64_t times = 1;
    if (size_t star = hex.find('*'); star != std::string_view::npos) {
      if (!ParseU64(hex.substr(star + 1), &times) || times == 0 || times > 65536) {
        return bad("expected hex:BYTES*N with 1 <= N <= 65536");
      }
      hex = hex.substr(0, star);
    }
    std::vector<uint8_t> unit;
    if (!ParseHexBytes(hex, &unit)) return bad("expected an even number of hex digits after hex:");
    if (unit.size() * times > 65536) return bad("hex:BYTES*N makes more than 65536 bytes");
    for (uint64_t i = 0; i < times; ++i) p.bytes.insert(p.bytes.end(), unit.begin(), unit.end());
    return p;
  }
  if (size_t dots = t.find(".."); dots != std::string::npos) {
    if (!ParseU64(t.substr(0, dots), &a) || !ParseU64(t.substr(dots + 2), &b) || a > b) {
      return bad("expected lo..hi with lo <= hi");
    }
    p.kind = FieldPattern::Kind::kRange;
    p.lo = a;
    p.hi = b;
    return p;
  }
  for (std::string_view op : {">=", "<=", "!=", ">", "<"}) {
    if (t.rfind(op, 0) != 0) continue;
    if (!ParseU64(t.substr(op.size()), &a)) return bad("expected a number after " + std::string(op));
    if (op == "!=") {
      p.kind = FieldPattern::Kind::kNotEqual;
      p.value = a;
      return p;
    }
    p.kind = FieldPattern::Kind::kRange;
    if (op == ">=") { p.lo = a; p.hi = UINT64_MAX; }
    if (op == "<=") { p.lo = 0; p.hi = a; }
    if (op == ">") {
      if (a == UINT64_MAX) return bad("nothing is greater");
      p.lo = a + 1; p.hi = UINT64_MAX;
    }
    if (op == "<") {
      if (a == 0) return bad("nothing is less than 0");
      p.lo = 0; p.hi = a - 1;
    }
    return p;
  }
  if (size_t slash = t.find('/'); slash != std::string::npos) {
    if (!ParseU64(t.substr(0, slash), &a) || !ParseU64(t.substr(slash + 1), &b)) {
      return bad("expected value/mask");
    }
    if ((a & ~b) != 0) return bad("value has bits outside the mask");
    p.kind = FieldPattern::Kind::kMask;
    p.value = a;
    p.mask = b;
    return p;
  }
  // Addresses: IPv4 dotted quad, MAC, IPv6.
  unsigned char buf[16];
  if (inet_pton(AF_INET, t.c_str(), buf) == 1) {
    p.kind = FieldPattern::Kind::kBytes;
    p.bytes.assign(buf, buf + 4);
    return p;
  }
  static const std::regex kMac(R"([0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5})");
  if (std::regex_match(t, kMac)) {
    p.kind = FieldPattern::Kind::kBytes;
    ParseHexBytes(t, &p.bytes);
    return p;
  }
  if (t.find(':') != std::string::npos && inet_pton(AF_INET6, t.c_str(), buf) == 1) {
    p.kind = FieldPattern::Kind::kBytes;
    p.bytes.assign(buf, buf + 16);
    return p;
  }
  return bad("expected a number, *, lo..hi, >N, >=N, <N, <=N, !=N, value/mask, $var, a MAC or IP address, or hex:...");
}

namespace {

constexpr int64_t kMaxCount = 1'000'000'000;

class CaseParser {
 public:
  CaseParser(std::string file, const LoaderOptions& options, std::vector<Diagnostic>* errors)
      : r_(std::move(file), errors), options_(options), errors_(errors) {}

  Case Parse(const YAML::Node& root) {
    Case c;
    c.where = {r_.file(), 1, 1};
    if (!r_.Map(root, "", {"id", "title", "description", "clauses", "requires", "simulated_time_reason", "tags", "topology",
                           "impairments", "style", "workload", "script", "checks", "timeouts"},
                {"id", "title", "clauses", "style"})) {
      return c;
    }
    if (root["id"]) ParseId(root["id"], &c.id);
    if (root["title"]) {
      if (auto s = r_.String(root["title"], "title")) {
        c.title = *s;
        if (Trim(c.title).empty()) r_.Error(root["title"], "title", "must not be empty");
      }
    }
    if (root["description"]) {
      if (auto s = r_.String(root["description"], "description")) c.description = *s;
    }
    if (root["clauses"]) c.clauses = ParseClauses(root["clauses"], "clauses", /*allow_empty=*/false);
    if (root["requires"]) {
      if (auto l = r_.StringList(root["requires"], "requires")) {
        c.requires_caps = *l;
        // Names outside the vocabulary would make a case SKIP on every DUT, silently.
        for (size_t i = 0; i < l->size(); ++i) {
          const auto& known = KnownRequirements();
          if (std::find(known.begin(), known.end(), (*l)[i]) == known.end()) {
            std::string all;
            for (const std::string& k : known) all += (all.empty() ? "" : ", ") + k;
            r_.Error(root["requires"][i], "requires", "unknown requirement '" + (*l)[i] + "' (known: " + all + ")");
          }
        }
      }
    }
    // A live DUT is told why it cannot be judged on such a case: the reason is not optional.
    const bool needs_sim = std::find(c.requires_caps.begin(), c.requires_caps.end(), "simulated_time") != c.requires_caps.end();
    if (root["simulated_time_reason"]) {
      if (auto s = r_.String(root["simulated_time_reason"], "simulated_time_reason")) {
        c.simulated_time_reason = Trim(*s);
        if (!needs_sim) {
          r_.Error(root["simulated_time_reason"], "simulated_time_reason", "given, but 'requires' does not list simulated_time");
        } else if (c.simulated_time_reason.empty()) {
          r_.Error(root["simulated_time_reason"], "simulated_time_reason", "must not be empty");
        }
      }
    } else if (needs_sim) {
      r_.Error(root["requires"], "requires",
               "simulated_time needs a 'simulated_time_reason': why a live DUT cannot be judged on this case (the report "
               "tells the DUT's vendor)");
    }
    if (root["tags"]) {
      if (auto l = r_.StringList(root["tags"], "tags")) c.tags = *l;
    }
    if (root["topology"]) ParseTopology(root["topology"], &c.topology);
    if (root["impairments"]) ParseImpairments(root["impairments"], c.topology, &c.impairments);
    if (root["style"]) {
      if (auto s = r_.String(root["style"], "style")) {
        if (*s == "end-to-end") {
          c.style = Style::kEndToEnd;
          if (!root["workload"]) r_.Error(root, "workload", "missing required key 'workload' (style end-to-end)");
          if (root["script"]) r_.Error(root["script"], "script", "'script' belongs to style scripted, not end-to-end");
        } else if (*s == "scripted") {
          c.style = Style::kScripted;
          if (!root["script"]) r_.Error(root, "script", "missing required key 'script' (style scripted)");
          if (root["workload"]) r_.Error(root["workload"], "workload", "'workload' belongs to style end-to-end, not scripted");
        } else {
          r_.Error(root["style"], "style", "expected end-to-end or scripted, got '" + *s + "'");
        }
      }
    }
    if (root["workload"]) ParseWorkload(root["workload"], &c.workload);
    if (root["script"]) ParseScript(root["script"], &c.script);
    if (root["checks"]) ParseChecks(root["checks"], c.style, &c.checks);
    bool style_known = root["style"] && root["style"].IsScalar() &&
                       (root["style"].Scalar() == "end-to-end" || root["style"].Scalar() == "scripted");
    if (c.style == Style::kEndToEnd && style_known && !root["checks"]) {
      r_.Error(root, "checks", "missing required key 'checks' (an end-to-end case needs at least one check)");
    }
    if (root["timeouts"]) ParseTimeouts(root["timeouts"], &c.timeouts);
    return c;
  }

 private:
  void ParseId(const YAML::Node& n, std::string* out) {
    auto s = r_.String(n, "id");
    if (!s) return;
    static const std::regex kId(R"([a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+)");
    if (!std::regex_match(*s, kId)) {
      r_.Error(n, "id", "'" + *s + "' is not a stable dotted id (lowercase words separated by dots, "
                        "e.g. loss.sack.exact-retransmit)");
    }
    *out = *s;
  }

  std::vector<ClauseRef> ParseClauses(const YAML::Node& n, const std::string& path, bool allow_empty) {
    std::vector<ClauseRef> out;
    if (!r_.Sequence(n, path)) return out;
    if (n.size() == 0 && !allow_empty) r_.Error(n, path, "must list at least one clause");
    for (size_t i = 0; i < n.size(); ++i) {
      std::string p = Index(path, i);
      const YAML::Node& item = n[i];
      if (!r_.Map(item, p, {"id", "level"}, {"id", "level"})) continue;
      ClauseRef ref;
      bool ok = true;
      if (item["id"]) {
        auto id = r_.String(item["id"], Join(p, "id"));
        ok = ok && id.has_value();
        if (id) ref.id = *id;
      } else {
        ok = false;
      }
      if (item["level"]) {
        auto lv = r_.String(item["level"], Join(p, "level"));
        if (lv) {
          if (auto l = ParseLevel(*lv)) {
            ref.level = *l;
          } else {
            r_.Error(item["level"], Join(p, "level"), "bad level '" + *lv + "' (expected MUST, SHOULD or MAY)");
            ok = false;
          }
        } else {
          ok = false;
        }
      } else {
        ok = false;
      }
      if (!ok) continue;
      if (options_.catalog != nullptr) {
        const CatalogClause* known = options_.catalog->Find(ref.id);
        if (known == nullptr) {
          r_.Error(item["id"], Join(p, "id"), "clause '" + ref.id + "' is not in the clause catalog");
        } else if (known->level != ref.level) {
          r_.Error(item["level"], Join(p, "level"),
                   "clause '" + ref.id + "' is " + std::string(ToString(known->level)) +
                       " in the catalog, not " + std::string(ToString(ref.level)));
        }
      }
      for (const ClauseRef& prev : out) {
        if (prev.id == ref.id) r_.Error(item["id"], Join(p, "id"), "clause '" + ref.id + "' listed twice");
      }
      out.push_back(ref);
    }
    return out;
  }

  // A scalar in the grammar of impairment/quantity.h: `parse` returns a ref::Result.
  template <class T, class F>
  void Scalar(const YAML::Node& n, const std::string& path, F parse, T* out) {
    if (!n.IsScalar()) {
      r_.Error(n, path, "expected a scalar, got a " + std::string(n.IsMap() ? "mapping" : n.IsSequence() ? "list" : "null"));
      return;
    }
    auto v = parse(n.Scalar());
    if (v.ok()) {
      *out = v.value();
    } else {
      r_.Error(n, path, v.error().message);
    }
  }

  void DurationAt(const YAML::Node& n, const std::string& path, Duration* out) {
    Scalar(n, path, impairment::ParseDuration, out);
  }

  // When an inject or dut step runs: `at` (from the script's start) or `after` (from the previous
  // step), exactly one of them.
  void StepTime(const YAML::Node& body, const std::string& bp, Duration* at, std::optional<Duration>* after) {
    if (body["at"].IsDefined() == body["after"].IsDefined()) {
      r_.Error(body, bp, "a step has exactly one of 'at' (from the script's start) or 'after' (from the previous step)");
      return;
    }
    if (body["at"]) DurationAt(body["at"], Join(bp, "at"), at);
    if (body["after"]) {
      Duration d;
      size_t before = errors_->size();
      DurationAt(body["after"], Join(bp, "after"), &d);
      if (errors_->size() == before) *after = d;
    }
  }

  void RateAt(const YAML::Node& n, const std::string& path, int64_t* bps) {
    sim::Bandwidth rate;
    size_t before = errors_->size();
    Scalar(n, path, impairment::ParseRate, &rate);
    if (errors_->size() == before) *bps = rate.bits_per_second();
  }

  // A base RTT: a positive duration with a time unit (read as a profile's rtt: is).
  void ParseRtt(const YAML::Node& n, const std::string& path, int64_t* rtt_ns) {
    std::vector<impairment::ConfigDiagnostic> diags;
    if (auto rtt = impairment::ReadBaseRtt(n, path, &diags)) *rtt_ns = *rtt;
    for (impairment::ConfigDiagnostic& d : diags) r_.ErrorAt({r_.file(), d.line, d.column}, d.key, std::move(d.message));
  }

  void ParseTopology(const YAML::Node& n, Topology* t) {
    if (!r_.Map(n, "topology", {"planes", "spines", "paths", "link_rate", "spine_link_rate", "rtt", "mtu"})) return;
    if (n["planes"]) if (auto v = r_.Int(n["planes"], "topology.planes", 1, 64)) t->planes = static_cast<int>(*v);
    if (n["spines"]) if (auto v = r_.Int(n["spines"], "topology.spines", 1, 1024)) t->spines = static_cast<int>(*v);
    if (n["paths"]) if (auto v = r_.Int(n["paths"], "topology.paths", 1, 256)) t->paths = static_cast<int>(*v);
    if (n["link_rate"]) RateAt(n["link_rate"], "topology.link_rate", &t->link_rate_bps);
    if (n["spine_link_rate"]) RateAt(n["spine_link_rate"], "topology.spine_link_rate", &t->spine_link_rate_bps);
    if (n["rtt"]) ParseRtt(n["rtt"], "topology.rtt", &t->rtt_ns);
    if (n["mtu"]) Scalar(n["mtu"], "topology.mtu", impairment::ParseSize, &t->mtu_bytes);
  }

  // Each item is read and validated by impairment/ (the stage kinds' schemas, the match keys, the
  // schedule); a plane the topology lacks is refused here, where the topology is known.
  void ParseImpairments(const YAML::Node& n, const Topology& topology, std::vector<ImpairmentSpec>* out) {
    if (!r_.Sequence(n, "impairments")) return;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string p = Index("impairments", i);
      const YAML::Node& item = n[i];
      std::vector<impairment::ConfigDiagnostic> diags;
      std::optional<impairment::StageConfig> config = impairment::ReadStageConfig(item, p, i, &diags);
      for (impairment::ConfigDiagnostic& d : diags) {
        r_.ErrorAt({r_.file(), d.line, d.column}, d.key, std::move(d.message));
      }
      if (!config) continue;
      if (config->match.plane && *config->match.plane >= topology.planes) {
        r_.Error(item["match"]["plane"], Join(p, "match.plane"),
                 "plane " + std::to_string(*config->match.plane) + " but the topology has " +
                     std::to_string(topology.planes) + " plane(s) (0.." + std::to_string(topology.planes - 1) + ")");
        continue;
      }
      out->push_back({std::move(*config), r_.Where(item)});
    }
  }

  // zero_ok: an empty message (msg_len 0, MROCE-PLACE-007) a dut step may post.
  std::optional<int64_t> Size(const YAML::Node& n, const std::string& path, bool zero_ok = false) {
    int64_t v = -1;
    size_t before = errors_->size();
    Scalar(n, path, impairment::ParseSize, &v);
    if (errors_->size() != before) return std::nullopt;
    if (v < 0 || (v == 0 && !zero_ok)) {
      r_.Error(n, path, zero_ok ? "must be 0 or more bytes" : "must be at least 1 byte");
      return std::nullopt;
    }
    return v;
  }

  void ParseWorkload(const YAML::Node& n, Workload* w) {
    if (!r_.Map(n, "workload", {"direction", "connections", "streams", "senders", "ops"}, {"ops"})) return;
    if (n["direction"]) ParseDirection(n["direction"], "workload.direction", &w->direction);
    if (n["connections"]) if (auto v = r_.Int(n["connections"], "workload.connections", 1, 65536)) w->connections = static_cast<int>(*v);
    if (n["streams"]) if (auto v = r_.Int(n["streams"], "workload.streams", 1, 65536)) w->streams = static_cast<int>(*v);
    if (n["senders"]) if (auto v = r_.Int(n["senders"], "workload.senders", 1, 4096)) w->senders = static_cast<int>(*v);
    if (!n["ops"] || !r_.Sequence(n["ops"], "workload.ops")) return;
    if (n["ops"].size() == 0) r_.Error(n["ops"], "workload.ops", "must list at least one op");
    for (size_t i = 0; i < n["ops"].size(); ++i) {
      std::string p = Index("workload.ops", i);
      const YAML::Node& item = n["ops"][i];
      if (!r_.Map(item, p, {"op", "size", "count", "stream"}, {"op", "size"})) continue;
      WorkloadOp op;
      if (item["op"]) {
        if (auto s = r_.String(item["op"], Join(p, "op"))) {
          if (*s == "write") op.kind = OpKind::kWrite;
          else if (*s == "read") op.kind = OpKind::kRead;
          else if (*s == "send") op.kind = OpKind::kSend;
          else r_.Error(item["op"], Join(p, "op"), "expected write, read or send, got '" + *s + "'");
        }
      }
      if (item["size"]) if (auto v = Size(item["size"], Join(p, "size"))) op.size_bytes = *v;
      if (item["count"]) if (auto v = r_.Int(item["count"], Join(p, "count"), 1, kMaxCount)) op.count = *v;
      if (item["stream"]) {
        if (auto v = r_.Int(item["stream"], Join(p, "stream"), 0, 65535)) {
          op.stream = static_cast<int>(*v);
          if (*v >= w->streams) {
            r_.Error(item["stream"], Join(p, "stream"),
                     "stream " + std::to_string(*v) + " out of range: the workload has " + std::to_string(w->streams) + " stream(s)");
          }
        }
      }
      w->ops.push_back(op);
    }
  }

  void ParseDirection(const YAML::Node& n, const std::string& path, Direction* d) {
    auto s = r_.String(n, path);
    if (!s) return;
    if (*s == "dut->peer") *d = Direction::kDutToPeer;
    else if (*s == "peer->dut") *d = Direction::kPeerToDut;
    else r_.Error(n, path, "expected dut->peer or peer->dut, got '" + *s + "'");
  }

  void CheckFieldName(const YAML::Node& key, const std::string& path, const std::string& name) {
    static const std::regex kField(R"([a-z][a-z0-9_]*(\.[a-z0-9_]+)*)");
    if (!std::regex_match(name, kField)) {
      r_.Error(key, path, "'" + name + "' is not a field name (e.g. ack.epsn)");
    } else if (!options_.known_fields.empty() && options_.known_fields.count(name) == 0) {
      r_.Error(key, path, "unknown field '" + name + "'");
    }
  }

  FieldPatterns ParseFields(const YAML::Node& n, const std::string& path, bool literal_only) {
    FieldPatterns out;
    if (!n.IsMap()) {
      r_.Error(n, path, "expected a mapping of field: value");
      return out;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string name = it->first.Scalar();
      std::string p = Join(path, name);
      CheckFieldName(it->first, p, name);
      for (const auto& [prev, _] : out) {
        if (prev == name) r_.Error(it->first, p, "duplicate key '" + name + "'");
      }
      const YAML::Node v = it->second;  // a copy: the iterator hands out a temporary pair
      FieldPattern pat;
      if (v.IsSequence()) {
        pat.kind = FieldPattern::Kind::kOneOf;
        pat.text = "[";
        bool ok = v.size() > 0;
        if (!ok) r_.Error(v, p, "a list of alternatives must not be empty");
        for (size_t i = 0; i < v.size(); ++i) {
          auto one = v[i].IsScalar() ? ParsePattern(v[i].Scalar()) : Result<FieldPattern>(Error{});
          if (!one.ok() || one->kind != FieldPattern::Kind::kExact) {
            r_.Error(v[i], Index(p, i), "alternatives must be numbers");
            ok = false;
            continue;
          }
          pat.values.push_back(one->value);
          pat.text += (i ? ", " : "") + one->text;
        }
        pat.text += "]";
        if (!ok) continue;
      } else if (v.IsScalar()) {
        auto parsed = ParsePattern(v.Scalar());
        if (!parsed.ok()) {
          r_.Error(v, p, parsed.error().message);
          continue;
        }
        pat = *parsed;
      } else {
        r_.Error(v, p, "expected a value or pattern, got a mapping");
        continue;
      }
      if (literal_only && !pat.IsLiteral()) {
        r_.Error(v, p, "an injected frame needs literal values (number, address, hex:..., $var), not the pattern '" + pat.text + "'");
        continue;
      }
      out.emplace_back(name, std::move(pat));
    }
    return out;
  }

  void ParseScript(const YAML::Node& n, std::vector<ScriptStep>* out) {
    if (!r_.Sequence(n, "script")) return;
    if (n.size() == 0) r_.Error(n, "script", "must list at least one step");
    const size_t errors_before = errors_->size();
    bool any_expect = false;
    for (size_t i = 0; i < n.size(); ++i) {
      std::string p = Index("script", i);
      const YAML::Node& item = n[i];
      if (!r_.Map(item, p, {"inject", "expect", "dut", "respond"})) continue;
      if (item.size() != 1) {
        r_.Error(item, p, "a step has exactly one of inject, expect, dut, respond");
        continue;
      }
      std::string kind = item.begin()->first.Scalar();
      const YAML::Node body = item.begin()->second;  // a copy: the iterator's pair is a temporary
      std::string bp = Join(p, kind);
      if (kind == "inject") {
        InjectStep s;
        s.where = r_.Where(item);
        if (!r_.Map(body, bp, {"at", "after", "path", "frame", "scapy"})) continue;
        StepTime(body, bp, &s.at, &s.after);
        if (body["path"]) if (auto v = r_.Int(body["path"], Join(bp, "path"), 0, 255)) s.path = static_cast<int>(*v);
        if (body["frame"].IsDefined() == body["scapy"].IsDefined()) {
          r_.Error(body, bp, "an inject has exactly one of 'frame' or 'scapy'");
        }
        if (body["frame"]) s.frame = ParseFields(body["frame"], Join(bp, "frame"), /*literal_only=*/true);
        if (body["scapy"]) {
          if (auto e = r_.String(body["scapy"], Join(bp, "scapy"))) {
            s.scapy = *e;
            if (Trim(s.scapy).empty()) r_.Error(body["scapy"], Join(bp, "scapy"), "must not be empty");
          }
        }
        out->push_back(std::move(s));
      } else if (kind == "expect") {
        ExpectStep s;
        s.where = r_.Where(item);
        any_expect = true;
        if (!r_.Map(body, bp, {"within", "match", "free", "absent", "unordered"}, {"match"})) continue;
        if (body["within"]) DurationAt(body["within"], Join(bp, "within"), &s.within);
        if (body["match"]) s.match = ParseFields(body["match"], Join(bp, "match"), /*literal_only=*/false);
        if (body["free"]) {
          if (auto l = r_.StringList(body["free"], Join(bp, "free"))) {
            s.free = *l;
            for (size_t k = 0; k < l->size(); ++k) CheckFieldName(body["free"][k], Index(Join(bp, "free"), k), (*l)[k]);
          }
        }
        if (body["absent"]) if (auto b = r_.Bool(body["absent"], Join(bp, "absent"))) s.absent = *b;
        if (body["unordered"]) if (auto b = r_.Bool(body["unordered"], Join(bp, "unordered"))) s.unordered = *b;
        if (s.absent && s.unordered) r_.Error(body["unordered"], Join(bp, "unordered"), "an absent step cannot be unordered");
        out->push_back(std::move(s));
      } else if (kind == "respond") {
        RespondStep s;
        s.where = r_.Where(item);
        if (!r_.Map(body, bp, {"match", "frame", "max", "path"}, {"match", "frame"})) continue;
        if (body["match"]) s.match = ParseFields(body["match"], Join(bp, "match"), /*literal_only=*/false);
        if (body["frame"]) s.frame = ParseFields(body["frame"], Join(bp, "frame"), /*literal_only=*/true);
        if (body["max"]) if (auto v = r_.Int(body["max"], Join(bp, "max"), 1, 1000)) s.max = static_cast<int>(*v);
        if (body["path"]) if (auto v = r_.Int(body["path"], Join(bp, "path"), 0, 255)) s.path = static_cast<int>(*v);
        if (body["match"] && body["match"].IsMap() && s.match.empty()) {
          r_.Error(body["match"], Join(bp, "match"), "must name at least one field (an empty match answers every frame)");
        }
        out->push_back(std::move(s));
      } else {
        DutStep s;
        s.where = r_.Where(item);
        if (!r_.Map(body, bp, {"at", "after", "op", "size", "count", "stream", "refused", "imm"}, {"op"})) continue;
        StepTime(body, bp, &s.at, &s.after);
        if (body["op"]) {
          if (auto o = r_.String(body["op"], Join(bp, "op"))) {
            static const std::map<std::string, DutStep::Action> kActions = {
                {"open", DutStep::Action::kOpen}, {"write", DutStep::Action::kWrite},
                {"read", DutStep::Action::kRead}, {"send", DutStep::Action::kSend},
                {"post-recv", DutStep::Action::kPostRecv}, {"close", DutStep::Action::kClose}};
            auto it = kActions.find(*o);
            if (it == kActions.end()) {
              r_.Error(body["op"], Join(bp, "op"), "expected open, write, read, send, post-recv or close, got '" + *o + "'");
            } else {
              s.action = it->second;
            }
          }
        }
        if (body["size"]) if (auto v = Size(body["size"], Join(bp, "size"), /*zero_ok=*/true)) s.size_bytes = *v;
        bool needs_size = s.action == DutStep::Action::kWrite || s.action == DutStep::Action::kRead ||
                          s.action == DutStep::Action::kSend || s.action == DutStep::Action::kPostRecv;
        if (needs_size && !body["size"]) r_.Error(body, Join(bp, "size"), "missing required key 'size' (op " + std::string(ToString(s.action)) + ")");
        if (body["count"]) if (auto v = r_.Int(body["count"], Join(bp, "count"), 1, kMaxCount)) s.count = *v;
        if (body["stream"]) if (auto v = r_.Int(body["stream"], Join(bp, "stream"), 0, 65535)) s.stream = static_cast<int>(*v);
        if (body["refused"]) {
          if (auto b = r_.Bool(body["refused"], Join(bp, "refused"))) s.refused = *b;
          if (s.refused && !needs_size) {
            r_.Error(body["refused"], Join(bp, "refused"),
                     "'refused' applies to a post (write, read, send, post-recv), not to op " + std::string(ToString(s.action)));
          }
        }
        if (body["imm"]) {
          if (auto v = r_.Int(body["imm"], Join(bp, "imm"), 0, 0xFFFFFFFFll)) s.imm = static_cast<uint32_t>(*v);
          if (s.action != DutStep::Action::kWrite && s.action != DutStep::Action::kSend) {
            r_.Error(body["imm"], Join(bp, "imm"),
                     "'imm' (immediate data) applies to op write (WRITE_IMM) or send (SEND_IMM), not to op " +
                         std::string(ToString(s.action)));
          }
        }
        out->push_back(std::move(s));
      }
    }
    (void)any_expect;
    // The case ends with its script: a frame injected by the last step would reach the DUT after
    // the trace, the telemetry and the checks were taken, so nothing could judge its effect.
    if (errors_->size() == errors_before && !out->empty() && std::holds_alternative<InjectStep>(out->back()) &&
        n[n.size() - 1].IsMap() && n[n.size() - 1]["inject"]) {
      r_.Error(n[n.size() - 1], Index("script", n.size() - 1),
               "the script's last step injects a frame, but the case ends with the script, before the frame reaches "
               "the DUT; follow it with an expect step (absent: true to wait and see nothing)");
    }
  }

  void ParseChecks(const YAML::Node& n, Style style, std::vector<CheckSpec>* out) {
    if (!r_.Sequence(n, "checks")) return;
    for (size_t i = 0; i < n.size(); ++i) {
      std::string p = Index("checks", i);
      const YAML::Node& item = n[i];
      CheckSpec c;
      c.where = r_.Where(item);
      c.params = nlohmann::json::object();
      // Shorthand: "- data-intact".
      if (item.IsScalar()) {
        c.name = item.Scalar();
      } else {
        if (!r_.Map(item, p, {"name", "params", "clauses"}, {"name"})) continue;
        if (item["name"]) if (auto s = r_.String(item["name"], Join(p, "name"))) c.name = *s;
        if (item["params"]) {
          if (item["params"].IsMap()) c.params = r_.Json(item["params"]);
          else r_.Error(item["params"], Join(p, "params"), "expected a mapping of check parameters");
        }
        if (item["clauses"]) c.clauses = ParseClauses(item["clauses"], Join(p, "clauses"), /*allow_empty=*/false);
      }
      if (!options_.known_checks.empty() && !c.name.empty() && options_.known_checks.count(c.name) == 0) {
        r_.Error(item.IsScalar() ? item : item["name"], item.IsScalar() ? p : Join(p, "name"),
                 "unknown check '" + c.name + "'");
      } else if (style == Style::kScripted && options_.workload_checks.count(c.name) != 0) {
        r_.Error(item.IsScalar() ? item : item["name"], item.IsScalar() ? p : Join(p, "name"),
                 "check '" + c.name + "' judges an end-to-end workload, which a scripted case has none of "
                 "(a scripted case states its completions with 'completion' or 'completions')");
      } else if (auto schema = options_.check_params.find(c.name); schema != options_.check_params.end()) {
        if (auto bad = CheckParams(schema->second, c.params)) {
          // At the offending value when there is one, else at the check.
          const YAML::Node params = item.IsMap() ? item["params"] : YAML::Node();
          const bool at_value = !bad->first.empty() && params && params.IsMap() && params[bad->first];
          r_.Error(at_value ? params[bad->first] : item, at_value ? Join(Join(p, "params"), bad->first) : p,
                   "check '" + c.name + "': " + bad->second);
        }
      }
      out->push_back(std::move(c));
    }
  }

  void ParseTimeouts(const YAML::Node& n, Timeouts* t) {
    if (!r_.Map(n, "timeouts", {"total", "quiesce"})) return;
    if (n["total"]) DurationAt(n["total"], "timeouts.total", &t->total);
    if (n["quiesce"]) DurationAt(n["quiesce"], "timeouts.quiesce", &t->quiesce);
  }

  YamlReader r_;
  const LoaderOptions& options_;
  std::vector<Diagnostic>* errors_;
};

}  // namespace

LoadResult<Case> LoadCaseString(std::string_view yaml, const std::string& file_name,
                                const LoaderOptions& options) {
  LoadResult<Case> out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    SourceLocation where{file_name, e.mark.is_null() ? 0 : e.mark.line + 1,
                         e.mark.is_null() ? 0 : e.mark.column + 1};
    out.errors.push_back({where, "", "YAML syntax error: " + e.msg});
    return out;
  }
  if (!root.IsDefined() || root.IsNull()) {
    out.errors.push_back({{file_name, 1, 1}, "", "empty case file"});
    return out;
  }
  CaseParser parser(file_name, options, &out.errors);
  out.value = parser.Parse(root);
  return out;
}

LoadResult<Case> LoadCaseFile(const std::string& path, const LoaderOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    LoadResult<Case> out;
    out.errors.push_back({{path, 0, 0}, "", "cannot read file"});
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return LoadCaseString(text.str(), path, options);
}

Result<std::vector<std::string>> ListCaseFiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (fs::is_regular_file(path, ec)) return std::vector<std::string>{path};
    return MakeError("suite.list", path + ": not a directory or case file");
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    std::string ext = it->path().extension().string();
    if (it->is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(it->path().string());
  }
  if (ec) return MakeError("suite.list", path + ": cannot list directory: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

LoadResult<std::vector<Case>> LoadCaseDir(const std::string& dir, const LoaderOptions& options) {
  namespace fs = std::filesystem;
  LoadResult<std::vector<Case>> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    out.errors.push_back({{dir, 0, 0}, "", "not a directory"});
    return out;
  }
  auto listed = ListCaseFiles(dir);
  if (!listed.ok()) {
    out.errors.push_back({{dir, 0, 0}, "", listed.error().message});
    return out;
  }
  const std::vector<std::string>& files = listed.value();
  std::map<std::string, std::string> id_to_file;
  for (const std::string& f : files) {
    LoadResult<Case> one = LoadCaseFile(f, options);
    if (!one.ok()) {
      out.errors.insert(out.errors.end(), one.errors.begin(), one.errors.end());
      continue;
    }
    auto [it, inserted] = id_to_file.emplace(one.value.id, f);
    if (!inserted) {
      out.errors.push_back({{f, 1, 1}, "id",
                            "duplicate case id '" + one.value.id + "' (also in " + it->second + ")"});
      continue;
    }
    out.value.push_back(std::move(one.value));
  }
  std::sort(out.value.begin(), out.value.end(), [](const Case& a, const Case& b) { return a.id < b.id; });
  return out;
}

LoadResult<std::vector<Case>> LoadCases(const std::string& path, const LoaderOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return LoadCaseDir(path, options);
  LoadResult<std::vector<Case>> out;
  if (!std::filesystem::exists(path, ec)) {
    out.errors.push_back({{path, 0, 0}, "", "no such file or directory"});
    return out;
  }
  LoadResult<Case> one = LoadCaseFile(path, options);
  out.errors = std::move(one.errors);
  if (out.errors.empty()) out.value.push_back(std::move(one.value));
  return out;
}

}  // namespace mroce::harness
