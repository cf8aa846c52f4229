// Spec-equivalence by the degrees-of-freedom table (see spec_equivalence.h).
#include "mroce/session/spec_equivalence.h"

#include <algorithm>
#include <charconv>

#include "mroce/harness/results.h"
#include "mroce/wire/meta.h"
#include "mroce/wire/wire.h"

namespace mroce::session {
namespace {

using harness::FieldRule;

std::string Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> Split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  for (size_t at = 0;;) {
    const size_t next = s.find(sep, at);
    std::string part = Trim(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (!part.empty()) out.push_back(std::move(part));
    if (next == std::string_view::npos) break;
    at = next + sep.size();
  }
  return out;
}

std::optional<uint64_t> Number(std::string_view s) {
  uint64_t v = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// An operand of range/multiple: a number, a connection parameter (+/- a number) or a field of the
// same packet.
std::optional<uint64_t> Operand(std::string_view text, const wire::FieldMap& m, const SpecContext& ctx) {
  if (auto n = Number(text)) return n;
  int64_t delta = 0;
  std::string_view name = text;
  if (size_t op = text.find_first_of("+-"); op != std::string_view::npos && op > 0) {
    auto d = Number(text.substr(op + 1));
    if (!d) return std::nullopt;
    delta = text[op] == '-' ? -static_cast<int64_t>(*d) : static_cast<int64_t>(*d);
    name = text.substr(0, op);
  }
  std::optional<uint64_t> base;
  if (name == "num_paths") base = ctx.num_paths;
  else if (name == "num_planes") base = ctx.num_planes;
  else if (name == "mtu") base = ctx.mtu;
  else if (name == "max_streams") base = ctx.max_streams;
  else base = m.GetU64(name);
  if (!base) return std::nullopt;
  return static_cast<uint64_t>(static_cast<int64_t>(*base) + delta);
}

std::string Show(const wire::FieldValue* v) { return v == nullptr ? "(absent)" : wire::FormatFieldValue(*v); }

// The value of `field` with the packet's computed fields recomputed.
std::optional<wire::FieldValue> Recomputed(const wire::Frame& f, const std::string& field) {
  const wire::FieldMap m = wire::ToFieldMap(wire::WithComputedFields(f));
  const wire::FieldValue* v = m.Find(field);
  if (v == nullptr) return std::nullopt;
  return *v;
}

// Whether the sender's own choices a `relative` term lists are the same in both packets.
bool SameChoices(const std::string& fields, const wire::FieldMap& d, const wire::FieldMap& r, const SpecContext& ctx) {
  for (const std::string& f : Split(fields, ",")) {
    if (f == "frame.time") {
      if (ctx.dut_time_ns != ctx.ref_time_ns) return false;
      continue;
    }
    if (f == "frame.sent_before") {
      if (ctx.dut_sent_before != ctx.ref_sent_before) return false;
      continue;
    }
    const wire::FieldValue* a = d.Find(f);
    const wire::FieldValue* b = r.Find(f);
    if (a == nullptr || b == nullptr || !(*a == *b)) return false;
  }
  return true;
}

}  // namespace

std::vector<SpecDifference> CompareBySpec(const wire::Frame& dut, const wire::Frame& ref, const harness::Catalog& catalog,
                                          const SpecContext& ctx, const std::vector<std::string>& also_free) {
  const wire::FieldMap d = wire::ToFieldMap(dut);
  const wire::FieldMap r = wire::ToFieldMap(ref);
  const std::string opcode = dut.meta() != nullptr ? std::string(wire::OpcodeName(dut.meta()->ch.opcode)) : "";
  std::vector<SpecDifference> out;
  std::vector<std::string> names;
  for (const auto& e : d) names.push_back(e.name);
  for (const auto& e : r) {
    if (!d.Contains(e.name)) names.push_back(e.name);
  }
  for (const std::string& name : names) {
    // An entry ending in '.' frees a whole header ("ack.").
    if (std::any_of(also_free.begin(), also_free.end(), [&](const std::string& f) {
          return f == name || (!f.empty() && f.back() == '.' && name.rfind(f, 0) == 0);
        })) {
      continue;
    }
    const wire::FieldValue* dv = d.Find(name);
    const wire::FieldValue* rv = r.Find(name);
    const FieldRule* rule = catalog.FieldRuleFor(opcode, name);
    auto differ = [&](std::string expected, std::string rule_text) {
      out.push_back({name, std::move(expected), Show(dv), std::move(rule_text),
                     rule != nullptr ? rule->clauses : std::vector<std::string>{}});
    };
    auto equal_to_ref = [&](const std::string& why) {
      if (dv != nullptr && rv != nullptr && *dv == *rv) return;
      const uint64_t* du = dv != nullptr ? std::get_if<uint64_t>(dv) : nullptr;
      const uint64_t* ru = rv != nullptr ? std::get_if<uint64_t>(rv) : nullptr;
      if (du != nullptr && ru != nullptr &&
          std::find(ctx.same_binding.begin(), ctx.same_binding.end(), std::make_pair(*du, *ru)) != ctx.same_binding.end()) {
        return;  // each side's own earlier choice, carried where the spec says
      }
      differ(Show(rv) + " (reference)", why);
    };
    if (rule == nullptr) {
      equal_to_ref("(no rule)");
      continue;
    }
    if (rule->status == FieldRule::Status::kFree) continue;
    if (rule->status == FieldRule::Status::kReserved) {
      const uint64_t* u = dv != nullptr ? std::get_if<uint64_t>(dv) : nullptr;
      if (u == nullptr || *u != 0) differ("0", "reserved");
      continue;
    }
    const std::vector<std::string> terms = Split(rule->constraint, ";");
    if (rule->status == FieldRule::Status::kDetermined) {
      bool constant = false;
      for (const std::string& t : terms) {
        if (t.size() > 1 && t[0] == '=' && t.find(" if ") == std::string::npos) {
          constant = true;
          const auto want = Number(t.substr(1));
          const uint64_t* u = dv != nullptr ? std::get_if<uint64_t>(dv) : nullptr;
          if (want && (u == nullptr || *u != *want)) differ(harness::FormatDecHex(*want), "determined " + t);
        }
      }
      if (!constant) equal_to_ref("determined");
      continue;
    }
    // Constrained: every term must hold.
    const uint64_t* u = dv != nullptr ? std::get_if<uint64_t>(dv) : nullptr;
    for (const std::string& t : terms) {
      if (t == "segment" || t == "order") continue;  // which segment goes next is the sender's choice (STRM-009)
      if (t == "computed") {
        if (dv == nullptr) continue;
        auto want = Recomputed(dut, name);
        if (want && !(*want == *dv)) differ(wire::FormatFieldValue(*want), "computed");
        continue;
      }
      if (t.rfind("relative ", 0) == 0) {
        if (SameChoices(t.substr(9), d, r, ctx)) equal_to_ref(t);
        continue;
      }
      if (u == nullptr) {
        if (dv == nullptr) differ(t, t);
        continue;  // byte fields carry only relative/computed terms
      }
      if (t == "nonzero") {
        if (*u == 0) differ("non-zero", t);
      } else if (t == "bit") {
        if (*u > 1) differ("0 or 1", t);
      } else if (t.rfind("range ", 0) == 0) {
        const std::string span = t.substr(6);
        const size_t dots = span.find("..");
        auto lo = dots == std::string::npos ? std::nullopt : Operand(span.substr(0, dots), d, ctx);
        auto hi = dots == std::string::npos ? std::nullopt : Operand(span.substr(dots + 2), d, ctx);
        if (lo && hi && (*u < *lo || *u > *hi)) differ(std::to_string(*lo) + ".." + std::to_string(*hi), t);
      } else if (t.rfind("oneof ", 0) == 0) {
        bool any = false;
        for (const std::string& v : Split(t.substr(6), ",")) any = any || Number(v) == *u;
        if (!any) differ(t.substr(6), t);
      } else if (t.rfind("multiple ", 0) == 0) {
        auto m = Operand(t.substr(9), d, ctx);
        if (m && *m != 0 && *u % *m != 0) differ("a multiple of " + std::to_string(*m), t);
      } else if (t[0] == '=') {
        // "=V if F=W"
        const size_t at = t.find(" if ");
        auto want = Number(t.substr(1, at == std::string::npos ? std::string::npos : at - 1));
        if (at == std::string::npos || !want) continue;
        const std::string cond = t.substr(at + 4);
        const size_t eq = cond.find('=');
        auto w = eq == std::string::npos ? std::nullopt : Number(cond.substr(eq + 1));
        auto f = eq == std::string::npos ? std::nullopt : d.GetU64(cond.substr(0, eq));
        if (w && f && *f == *w && *u != *want) differ(harness::FormatDecHex(*want), t);
      }
    }
  }
  return out;
}

std::optional<std::string> LiteralAssertsAChoice(const harness::Catalog& catalog, const std::string& opcode,
                                                 const std::string& field, uint64_t value, const wire::FieldMap& given) {
  const FieldRule* rule = catalog.FieldRuleFor(opcode, field);
  if (rule == nullptr) return std::nullopt;
  const std::string where = field + " of " + opcode;
  if (rule->status == FieldRule::Status::kFree) return where + " is free (" + std::string(ToString(rule->status)) + ")";
  if (rule->status != FieldRule::Status::kConstrained) return std::nullopt;
  // A constrained field whose value the sender derives from the protocol state (relative, computed,
  // segment) may be asserted; one it picks (bit, oneof, nonzero) only where a conditional term of
  // the same row forces the literal, given the step's other literals. (A range leaves the choice
  // of a value inside it, but which values a script may expect there depends on what it injected:
  // those are left to the reference comparison.)
  const std::vector<std::string> terms = Split(rule->constraint, ";");
  bool choice = false;
  for (const std::string& t : terms) {
    if (t == "bit" || t == "nonzero" || t.rfind("oneof ", 0) == 0) {
      choice = true;
    }
    if (t.rfind("relative ", 0) == 0 || t == "computed" || t == "segment" || t == "order") return std::nullopt;
  }
  if (!choice) return std::nullopt;
  for (const std::string& t : terms) {
    const size_t at = t.find(" if ");
    if (t.empty() || t[0] != '=' || at == std::string::npos) continue;
    const auto want = Number(t.substr(1, at - 1));
    const std::string cond = t.substr(at + 4);
    const size_t eq = cond.find('=');
    if (eq == std::string::npos) continue;
    const auto w = Number(cond.substr(eq + 1));
    const auto f = given.GetU64(cond.substr(0, eq));
    if (want && w && f && *f == *w && *want == value) return std::nullopt;
  }
  return where + " is the sender's choice (constrained: " + rule->constraint + "; " +
         [&] {
           std::string c;
           for (const auto& id : rule->clauses) c += (c.empty() ? "" : ", ") + id;
           return c;
         }() +
         ")";
}

}  // namespace mroce::session
