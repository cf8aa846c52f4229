#include "mroce/harness/case.h"

namespace mroce::harness {

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

std::string Case::category() const {
  size_t dot = id.rfind('.');
  return dot == std::string::npos ? id : id.substr(0, dot);
}

}  // namespace mroce::harness
