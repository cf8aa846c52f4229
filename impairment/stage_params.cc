// Stage parameter schema and validated values (stage_params.h).
#include "mroce/impairment/stage_params.h"

#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace mroce::impairment {
namespace {


std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  return buf;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// YAML's spellings of the non-finite floats (core schema), which from_chars does not read.
bool IsYamlNonFinite(std::string_view t) {
  if (!t.empty() && (t.front() == '+' || t.front() == '-')) t.remove_prefix(1);
  return t == ".nan" || t == ".NaN" || t == ".NAN" || t == ".inf" || t == ".Inf" || t == ".INF";
}

mroce::Error Bad(const ParamSpec& spec, const std::string& what) { return MakeError("stage.param", what); }

std::string ChoiceList(const ParamSpec& spec) {
  std::string out;
  for (std::string_view c : spec.choices) out += (out.empty() ? "" : ", ") + std::string(c);
  return out;
}

mroce::Result<ParamScalar> CheckReal(const ParamSpec& spec, double v, std::string_view text) {
  const Range range = spec.type == ParamType::kProbability ? Range{0, 1} : spec.range;
  if (!std::isfinite(v)) return Bad(spec, "must be a finite number in " + range.ToString() + ", got " + std::string(text));
  if (!range.Contains(v)) return Bad(spec, "must be in " + range.ToString() + ", got " + std::string(text));
  return ParamScalar(v);
}

mroce::Result<ParamScalar> CheckInteger(const ParamSpec& spec, int64_t v, std::string_view text) {
  if (!spec.range.Contains(static_cast<double>(v))) {
    return Bad(spec, "must be in " + spec.range.ToString() + ", got " + std::string(text));
  }
  return ParamScalar(v);
}

}  // namespace

std::string_view ParamTypeName(ParamType t) {
  switch (t) {
    case ParamType::kProbability: return "probability";
    case ParamType::kReal: return "real";
    case ParamType::kInteger: return "integer";
    case ParamType::kDuration: return "duration";
    case ParamType::kRate: return "rate";
    case ParamType::kSize: return "size";
    case ParamType::kBool: return "bool";
    case ParamType::kChoice: return "choice";
    case ParamType::kObject: return "mapping";
    case ParamType::kList: return "list";
  }
  return "?";
}

std::string Range::ToString() const {
  if (std::isinf(max)) return std::string(min_open ? "> " : ">= ") + Num(min);
  return std::string(min_open ? "(" : "[") + Num(min) + ", " + Num(max) + (max_open ? ")" : "]");
}

std::string ParamSpec::TypeText() const {
  switch (type) {
    case ParamType::kReal:
    case ParamType::kInteger:
    case ParamType::kSize:
      return std::string(ParamTypeName(type)) + " in " + range.ToString();
    case ParamType::kChoice: return "one of " + ChoiceList(*this);
    case ParamType::kObject: return "mapping of " + ParamNames(fields);
    case ParamType::kList: return "list of {" + ParamNames(fields) + "}";
    default: return std::string(ParamTypeName(type));
  }
}

const ParamSpec* FindParam(std::span<const ParamSpec> specs, std::string_view name) {
  for (const ParamSpec& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string ParamNames(std::span<const ParamSpec> specs) {
  std::string out;
  for (const ParamSpec& s : specs) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

bool ParamSet::Has(std::string_view name) const {
  for (const auto& [n, v] : scalars_) {
    if (n == name) return true;
  }
  for (const auto& [n, v] : mappings_) {
    if (n == name) return true;
  }
  return false;
}

const ParamScalar& ParamSet::Get(std::string_view name) const {
  for (const auto& [n, v] : scalars_) {
    if (n == name) return v;
  }
  assert(false && "stage parameter without a value: the schema gives no default and the build did not check Has()");
  static const ParamScalar kNone;
  return kNone;
}

double ParamSet::Real(std::string_view name) const { return std::get<double>(Get(name)); }
int64_t ParamSet::Integer(std::string_view name) const { return std::get<int64_t>(Get(name)); }
bool ParamSet::Bool(std::string_view name) const { return std::get<bool>(Get(name)); }
const std::string& ParamSet::Choice(std::string_view name) const { return std::get<std::string>(Get(name)); }
const DurationSpec& ParamSet::Time(std::string_view name) const { return std::get<DurationSpec>(Get(name)); }

const std::vector<ParamSet>& ParamSet::Mappings(std::string_view name) const {
  for (const auto& [n, v] : mappings_) {
    if (n == name) return v;
  }
  static const std::vector<ParamSet> kNone;
  return kNone;
}

void ParamSet::Set(std::string_view name, ParamScalar value) {
  for (auto& [n, v] : scalars_) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  scalars_.emplace_back(std::string(name), std::move(value));
}

void ParamSet::SetMappings(std::string_view name, std::vector<ParamSet> value) {
  for (auto& [n, v] : mappings_) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  mappings_.emplace_back(std::string(name), std::move(value));
}

mroce::Result<ParamScalar> ParseParam(const ParamSpec& spec, std::string_view raw, bool quoted) {
  const std::string_view t = Trim(raw);
  const std::string shown = quoted ? "\"" + std::string(raw) + "\"" : std::string(raw);
  switch (spec.type) {
    case ParamType::kProbability:
    case ParamType::kReal: {
      const std::string want = "a number in " + (spec.type == ParamType::kProbability ? Range{0, 1} : spec.range).ToString();
      if (quoted) return Bad(spec, "must be " + want + ", got the string " + shown);
      if (IsYamlNonFinite(t)) return Bad(spec, "must be a finite number in " +
                                                   (spec.type == ParamType::kProbability ? Range{0, 1} : spec.range).ToString() +
                                                   ", got " + shown);
      double v = 0;
      const char* b = t.data();
      if (!t.empty() && t.front() == '+') ++b;
      auto [end, ec] = std::from_chars(b, t.data() + t.size(), v);
      if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return Bad(spec, "must be " + want + ", got " + shown);
      return CheckReal(spec, v, shown);
    }
    case ParamType::kInteger: {
      const std::string want = "an integer in " + spec.range.ToString();
      if (quoted) return Bad(spec, "must be " + want + ", got the string " + shown);
      std::string_view d = t;
      bool negative = false;
      if (!d.empty() && (d.front() == '-' || d.front() == '+')) {
        negative = d.front() == '-';
        d.remove_prefix(1);
      }
      int base = 10;
      if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
        base = 16;
        d.remove_prefix(2);
      }
      uint64_t u = 0;
      auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), u, base);
      if (d.empty() || ec != std::errc() || end != d.data() + d.size() || u > static_cast<uint64_t>(INT64_MAX)) {
        return Bad(spec, "must be " + want + ", got " + shown);
      }
      return CheckInteger(spec, negative ? -static_cast<int64_t>(u) : static_cast<int64_t>(u), shown);
    }
    case ParamType::kDuration: {
      auto d = ParseDuration(t);
      if (!d.ok()) return Bad(spec, d.error().message);
      return ParamScalar(d.value());
    }
    case ParamType::kRate: {
      auto r = ParseRate(t);
      if (!r.ok()) return Bad(spec, r.error().message);
      return ParamScalar(r.value().bits_per_second());
    }
    case ParamType::kSize: {
      auto s = ParseSize(t);
      if (!s.ok()) return Bad(spec, s.error().message);
      return CheckInteger(spec, s.value(), shown);
    }
    case ParamType::kBool:
      if (!quoted && t == "true") return ParamScalar(true);
      if (!quoted && t == "false") return ParamScalar(false);
      return Bad(spec, "must be true or false, got " + shown);
    case ParamType::kChoice:
      for (std::string_view c : spec.choices) {
        if (t == c) return ParamScalar(std::string(c));
      }
      return Bad(spec, "must be one of " + ChoiceList(spec) + ", got " + shown);
    case ParamType::kObject:
    case ParamType::kList:
      return Bad(spec, "expected a " + std::string(ParamTypeName(spec.type)) + " (" + spec.TypeText() + "), got " + shown);
  }
  return Bad(spec, "unknown parameter type");
}

mroce::Result<ParamScalar> CheckParam(const ParamSpec& spec, ParamScalar value) {
  const std::string type(ParamTypeName(spec.type));
  switch (spec.type) {
    case ParamType::kProbability:
    case ParamType::kReal:
      if (const int64_t* i = std::get_if<int64_t>(&value)) value = static_cast<double>(*i);
      if (const double* d = std::get_if<double>(&value)) return CheckReal(spec, *d, Num(*d));
      break;
    case ParamType::kInteger:
    case ParamType::kSize:
      if (const int64_t* i = std::get_if<int64_t>(&value)) return CheckInteger(spec, *i, std::to_string(*i));
      break;
    case ParamType::kRate:
      if (const int64_t* i = std::get_if<int64_t>(&value); i != nullptr && *i > 0) return value;
      break;
    case ParamType::kDuration:
      if (const DurationSpec* d = std::get_if<DurationSpec>(&value);
          d != nullptr && std::isfinite(d->value) && d->value >= 0) {
        return value;
      }
      break;
    case ParamType::kBool:
      if (std::holds_alternative<bool>(value)) return value;
      break;
    case ParamType::kChoice:
      if (const std::string* s = std::get_if<std::string>(&value)) return ParseParam(spec, *s, true);
      break;
    case ParamType::kObject:
    case ParamType::kList:
      break;
  }
  return Bad(spec, "expected a " + spec.TypeText() + " value");
}

void FillDefaults(std::span<const ParamSpec> specs, ParamSet* set) {
  for (const ParamSpec& s : specs) {
    if (s.type == ParamType::kObject || s.type == ParamType::kList) {
      if (!set->Has(s.name)) continue;
      std::vector<ParamSet> items = set->Mappings(s.name);
      for (ParamSet& item : items) FillDefaults(s.fields, &item);
      set->SetMappings(s.name, std::move(items));
      continue;
    }
    if (s.fallback.empty() || set->Has(s.name)) continue;
    auto v = ParseParam(s, s.fallback, /*quoted=*/false);
    assert(v.ok() && "a parameter's default does not parse as its type");
    set->Set(s.name, std::move(v).value());
  }
}

}  // namespace mroce::impairment
