#include "mroce/harness/case.h"

#include <filesystem>
#include <set>

namespace mroce::harness {

void MakeSourcesSuiteRelative(Case& c, const std::string& suite) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool one_file = !fs::is_directory(suite, ec);
  auto relative = [&](SourceLocation& w) {
    if (w.file.empty()) return;
    const fs::path p(w.file);
    const fs::path rel = one_file ? p.filename() : p.lexically_relative(suite);
    if (!rel.empty() && *rel.begin() != "..") w.file = rel.generic_string();
  };
  relative(c.where);
  for (ImpairmentSpec& i : c.impairments) relative(i.where);
  for (ScriptStep& s : c.script) std::visit([&](auto& step) { relative(step.where); }, s);
  for (CheckSpec& k : c.checks) relative(k.where);
}

std::string SourceLocation::ToString() const {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

std::string_view ToString(Direction d) {
  return d == Direction::kDutToPeer ? "dut->peer" : "peer->dut";
}

std::string_view ToString(OpKind k) {
  switch (k) {
    case OpKind::kWrite: return "write";
    case OpKind::kRead: return "read";
    case OpKind::kSend: return "send";
  }
  return "write";
}

std::string_view ToString(DutStep::Action a) {
  switch (a) {
    case DutStep::Action::kOpen: return "open";
    case DutStep::Action::kWrite: return "write";
    case DutStep::Action::kRead: return "read";
    case DutStep::Action::kSend: return "send";
    case DutStep::Action::kPostRecv: return "post-recv";
    case DutStep::Action::kClose: return "close";
  }
  return "open";
}

std::string_view ToString(Style s) { return s == Style::kEndToEnd ? "end-to-end" : "scripted"; }

bool FieldPattern::MatchesScalar(uint64_t actual) const {
  switch (kind) {
    case Kind::kAny: return true;
    case Kind::kExact: return actual == value;
    case Kind::kRange: return actual >= lo && actual <= hi;
    case Kind::kMask: return (actual & mask) == value;
    case Kind::kOneOf:
      for (uint64_t v : values) {
        if (v == actual) return true;
      }
      return false;
    case Kind::kNotEqual: return actual != value;
    case Kind::kBytes:
    case Kind::kVariable: return false;
  }
  return false;
}

Level Case::level() const {
  if (clauses.empty()) return Level::kMay;
  Level l = Level::kMay;
  for (const ClauseRef& c : clauses) l = Strongest(l, c.level);
  return l;
}

const std::vector<std::string>& KnownRequirements() {
  static const std::vector<std::string> k = {"write",     "write_imm",  "send",      "send_imm",    "read",
                                             "multipath", "multiplane", "telemetry", "state_bytes", "rate_hint",
                                             "ecn",       "simulated_time", "raw_frames"};
  return k;
}

bool NeedsRawFrames(std::string_view field) {
  // What a kernel UDP socket carries per datagram besides the payload: addresses, ports, ECN and
  // DSCP (IP_TOS). Every other Ethernet, IP or UDP header field it writes itself.
  static const char* const kCarried[] = {"ip4.src", "ip4.dst", "ip4.ecn", "ip4.dscp", "ip6.src", "ip6.dst",
                                         "ip6.ecn", "ip6.dscp", "udp.sport", "udp.dport"};
  for (const char* c : kCarried) {
    if (field == c) return false;
  }
  return field.rfind("eth.", 0) == 0 || field.rfind("ip4.", 0) == 0 || field.rfind("ip6.", 0) == 0 ||
         field.rfind("udp.", 0) == 0 || field.rfind("vlan.", 0) == 0;
}

std::vector<std::string> Case::FeaturesUsed() const {
  std::set<std::string> f;
  auto op_feature = [&](OpKind k) {
    switch (k) {
      case OpKind::kWrite: f.insert("write"); break;
      case OpKind::kRead: f.insert("read"); break;
      case OpKind::kSend: f.insert("send"); break;
    }
  };
  for (const WorkloadOp& op : workload.ops) op_feature(op.kind);
  for (const ScriptStep& step : script) {
    if (const auto* d = std::get_if<DutStep>(&step)) {
      switch (d->action) {
        case DutStep::Action::kWrite: f.insert(d->imm ? "write_imm" : "write"); break;
        case DutStep::Action::kRead: f.insert("read"); break;
        case DutStep::Action::kSend: f.insert(d->imm ? "send_imm" : "send"); break;
        case DutStep::Action::kPostRecv: f.insert("send"); break;
        default: break;
      }
    }
    // The data opcodes the script sends the DUT (MetaRoCE opcodes 0x01..0x06, spec table 3.3).
    const FieldPatterns* sent = nullptr;
    if (const auto* in = std::get_if<InjectStep>(&step)) sent = &in->frame;
    if (const auto* rs = std::get_if<RespondStep>(&step)) sent = &rs->frame;
    if (const auto* in = std::get_if<InjectStep>(&step); in != nullptr && !in->scapy.empty()) f.insert("raw_frames");
    if (sent != nullptr) {
      for (const auto& [name, p] : *sent) {
        if (NeedsRawFrames(name)) f.insert("raw_frames");
        if (name != "ch.opcode" || p.kind != FieldPattern::Kind::kExact) continue;
        static const char* const kByOpcode[] = {nullptr, "write", "write_imm", "send", "send_imm", "read", "read"};
        if (p.value >= 1 && p.value <= 6) f.insert(kByOpcode[p.value]);
      }
    }
  }
  if (topology.paths > 1) f.insert("multipath");
  if (topology.planes > 1) f.insert("multiplane");
  return {f.begin(), f.end()};
}

std::string Case::category() const {
  size_t dot = id.rfind('.');
  return dot == std::string::npos ? id : id.substr(0, dot);
}

}  // namespace mroce::harness
