// ParamSpec: the schema of one named parameter of a check (type, range, whether required), so a
// case's parameters are validated when it is loaded, with the file, line and column of the value.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mroce::harness {

struct ParamSpec {
  enum class Type { kNumber, kInteger, kString, kBool };
  std::string name;
  Type type = Type::kNumber;
  double min = -std::numeric_limits<double>::infinity();  // kNumber, kInteger: inclusive bounds.
  double max = std::numeric_limits<double>::infinity();
  bool required = false;
  std::string doc;  // One line, with the unit ("RTTs", "bytes", "fraction of ...").
  std::vector<std::string> one_of;  // kString: the accepted values (empty: any string).
};

// nullopt when `value` is valid for `spec`; else why not ("must be a number in [0, 1], got 2").
[[nodiscard]] std::optional<std::string> CheckParamValue(const ParamSpec& spec, const nlohmann::json& value);
// Validates a whole parameter object against `specs`: unknown names, missing required ones, and
// each value. Returns (parameter name or "", message) of the first problem; nullopt when valid.
[[nodiscard]] std::optional<std::pair<std::string, std::string>> CheckParams(const std::vector<ParamSpec>& specs,
                                                                           const nlohmann::json& params);
[[nodiscard]] std::string_view ToString(ParamSpec::Type t);

}  // namespace mroce::harness
