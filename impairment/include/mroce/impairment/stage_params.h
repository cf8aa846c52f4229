// Stage parameters: the schema a stage kind declares (name, type, unit, range, default, doc) and the
// validated values a stage configuration carries.
//
// A value is parsed from its written form with the grammar of quantity.h and checked against its
// ParamSpec once, when the case or profile is loaded; a stage is then built from the ParamSet
// without any further check (a getter that finds no value, or a value of another type, is a
// programmer error and asserts).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "mroce/sim/result.h"
#include "mroce/impairment/quantity.h"

namespace mroce::impairment {

enum class ParamType : uint8_t {
  kProbability,  // A real number in [0, 1].
  kReal,         // A real number within `range`.
  kInteger,      // An integer within `range` (decimal, or hex with 0x).
  kDuration,     // A DurationSpec (RTTs or nanoseconds), not negative; a unit is required.
  kRate,         // Bits per second (sim::Bandwidth), positive; a unit is required.
  kSize,         // Bytes within `range`; a bare number is bytes.
  kBool,         // true or false.
  kChoice,       // One of `choices`.
  kObject,       // A mapping with the keys of `fields`.
  kList,         // A list of mappings with the keys of `fields`.
};
// "probability", "real", "integer", "duration", "rate", "size", "bool", "choice", "mapping", "list".
[[nodiscard]] std::string_view ParamTypeName(ParamType t);

// Bounds of a number (kReal, kInteger, kSize); open ends exclude the bound.
struct Range {
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;
  [[nodiscard]] bool Contains(double v) const {
    return (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max);
  }
  // "[0, 1]", "(1, 100]", ">= 1".
  [[nodiscard]] std::string ToString() const;
};

struct ParamSpec {
  std::string_view name;
  ParamType type = ParamType::kReal;
  std::string_view doc;       // One line; states the unit.
  std::string_view fallback;  // Default, written as in a case ("1ms", "0.5", "path"); empty: none
                              // (the parameter is absent unless given, see ParamSet::Has).
  Range range;                                 // kReal, kInteger, kSize.
  std::span<const std::string_view> choices;   // kChoice.
  std::span<const ParamSpec> fields;           // kObject, kList.
  // "probability", "duration", "real in (1, 100]", "one of constant, uniform", ...
  [[nodiscard]] std::string TypeText() const;
};

[[nodiscard]] const ParamSpec* FindParam(std::span<const ParamSpec> specs, std::string_view name);
// "a, b, c": the names, for messages.
[[nodiscard]] std::string ParamNames(std::span<const ParamSpec> specs);

// One validated scalar: double (kProbability, kReal), int64_t (kInteger, kSize in bytes, kRate in
// bits per second), bool, std::string (kChoice) or DurationSpec.
using ParamScalar = std::variant<bool, int64_t, double, std::string, DurationSpec>;

// The parameters of one stage configuration (or of one mapping inside it), by name.
class ParamSet {
 public:
  [[nodiscard]] bool Has(std::string_view name) const;
  [[nodiscard]] double Real(std::string_view name) const;
  [[nodiscard]] int64_t Integer(std::string_view name) const;  // Also sizes (bytes), rates (bits/s).
  [[nodiscard]] bool Bool(std::string_view name) const;
  [[nodiscard]] const std::string& Choice(std::string_view name) const;
  [[nodiscard]] const DurationSpec& Time(std::string_view name) const;
  // A kList's mappings; a kObject is a list of one.
  [[nodiscard]] const std::vector<ParamSet>& Mappings(std::string_view name) const;

  void Set(std::string_view name, ParamScalar value);
  void SetMappings(std::string_view name, std::vector<ParamSet> value);
  bool operator==(const ParamSet&) const = default;

 private:
  [[nodiscard]] const ParamScalar& Get(std::string_view name) const;
  std::vector<std::pair<std::string, ParamScalar>> scalars_;
  std::vector<std::pair<std::string, std::vector<ParamSet>>> mappings_;
};

// Parses the written form of a scalar parameter and checks it against `spec`. `quoted`: the text
// was a quoted string in YAML, so it is no number or boolean (a quoted duration, rate, size or
// choice is fine). Errors say what was expected, with the range, and quote the text.
[[nodiscard]] mroce::Result<ParamScalar> ParseParam(const ParamSpec& spec, std::string_view text, bool quoted);
// Checks a value given in code against `spec` (an integer is accepted for a real).
[[nodiscard]] mroce::Result<ParamScalar> CheckParam(const ParamSpec& spec, ParamScalar value);
// Sets each absent parameter of `specs` that has a default to it (and recurses into mappings).
void FillDefaults(std::span<const ParamSpec> specs, ParamSet* set);

}  // namespace mroce::impairment
