// ParamSpec validation (see param_spec.h).
#include "mroce/harness/param_spec.h"

#include <cmath>
#include <sstream>

namespace mroce::harness {
namespace {

std::string Bound(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

std::string_view ToString(ParamSpec::Type t) {
  switch (t) {
    case ParamSpec::Type::kNumber: return "a number";
    case ParamSpec::Type::kInteger: return "an integer";
    case ParamSpec::Type::kString: return "a string";
    case ParamSpec::Type::kBool: return "true or false";
  }
  return "?";
}

std::optional<std::string> CheckParamValue(const ParamSpec& spec, const nlohmann::json& value) {
  const std::string want(ToString(spec.type));
  switch (spec.type) {
    case ParamSpec::Type::kString: {
      if (!value.is_string()) return "must be " + want + ", got " + value.dump();
      if (spec.one_of.empty()) return std::nullopt;
      std::string list;
      for (const std::string& v : spec.one_of) {
        if (v == value.get<std::string>()) return std::nullopt;
        list += (list.empty() ? "" : ", ") + v;
      }
      return "must be one of " + list + ", got " + value.dump();
    }
    case ParamSpec::Type::kBool:
      if (!value.is_boolean()) return "must be " + want + ", got " + value.dump();
      return std::nullopt;
    case ParamSpec::Type::kInteger:
    case ParamSpec::Type::kNumber: {
      const bool integer = spec.type == ParamSpec::Type::kInteger;
      if (!value.is_number() || (integer && !value.is_number_integer())) {
        return "must be " + want + ", got " + (value.is_string() ? "the string " : "") + value.dump();
      }
      const double d = value.get<double>();
      const bool bounded = !std::isinf(spec.min) || !std::isinf(spec.max);
      if (!std::isfinite(d) || d < spec.min || d > spec.max) {
        return "must be " + want + (bounded ? " in [" + Bound(spec.min) + ", " + Bound(spec.max) + "]" : " (finite)") +
               ", got " + value.dump();
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> CheckParams(const std::vector<ParamSpec>& specs,
                                                               const nlohmann::json& params) {
  if (!params.is_null() && !params.is_object()) return std::make_pair(std::string(), std::string("must be a mapping"));
  if (params.is_object()) {
    for (auto it = params.begin(); it != params.end(); ++it) {
      const ParamSpec* spec = nullptr;
      for (const ParamSpec& s : specs) spec = s.name == it.key() ? &s : spec;
      if (spec == nullptr) {
        std::string known;
        for (const ParamSpec& s : specs) known += (known.empty() ? "" : ", ") + s.name;
        return std::make_pair(it.key(), "unknown parameter '" + it.key() + "'" +
                                            (known.empty() ? " (takes none)" : " (known: " + known + ")"));
      }
      if (auto why = CheckParamValue(*spec, it.value())) return std::make_pair(it.key(), *why);
    }
  }
  for (const ParamSpec& s : specs) {
    if (s.required && (!params.is_object() || !params.contains(s.name))) {
      return std::make_pair(s.name, "missing required parameter '" + s.name + "' (" + s.doc + ")");
    }
  }
  return std::nullopt;
}

}  // namespace mroce::harness
