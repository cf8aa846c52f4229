#include "mroce/reports/json_schema.h"

#include <gtest/gtest.h>

namespace mroce::reports {
namespace {

using nlohmann::json;

TEST(JsonSchema, Keywords) {
  json schema = json::parse(R"({
    "type": "object", "required": ["a"], "additionalProperties": false,
    "properties": {
      "a": {"type": "integer", "minimum": 1, "maximum": 3},
      "b": {"enum": ["x", "y"]},
      "c": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/s"}},
      "d": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
      "e": {"anyOf": [{"const": 1}, {"type": "string", "pattern": "^z"}]}
    },
    "$defs": {"s": {"type": "string", "minLength": 2}}})");
  EXPECT_TRUE(ValidateJsonSchema(schema, json::parse(R"({"a":2,"b":"x","c":["ab"],"d":3,"e":"zz"})")).empty());
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({})")).size(), 1u);
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":0})"))[0], "/a: below minimum 1");
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":4})")).size(), 1u);
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":1.5})")).size(), 1u);
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":1,"b":"z"})")).size(), 1u);
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":1,"c":[]})")).size(), 1u);
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":1,"c":["a"]})"))[0], "/c/0: shorter than minLength");
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":1,"d":true})")).size(), 1u);
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":1,"e":"q"})")).size(), 1u);
  EXPECT_EQ(ValidateJsonSchema(schema, json::parse(R"({"a":1,"f":1})"))[0], "/f: additional property not allowed");
}

}  // namespace
}  // namespace mroce::reports
