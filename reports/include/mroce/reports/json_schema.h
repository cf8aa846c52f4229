// A validator for the subset of JSON Schema (2020-12) that docs/report.schema.json and
// testcases/schema/case.schema.json use: type (string or list), properties, required,
// additionalProperties (bool or schema), items, enum, const, pattern, minimum, maximum, minLength,
// minItems, oneOf, anyOf, $ref to "#/$defs/<name>". Other keywords are ignored (annotations).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mroce::reports {

// Every violation as "<json pointer>: <what>"; empty when `instance` is valid.
[[nodiscard]] std::vector<std::string> ValidateJsonSchema(const nlohmann::json& schema, const nlohmann::json& instance);

}  // namespace mroce::reports
