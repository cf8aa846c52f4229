#include "mroce/harness/param_spec.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mroce::harness {
namespace {

using nlohmann::json;
using T = ParamSpec::Type;

TEST(ParamSpec, NumbersAreCheckedForTypeRangeAndFiniteness) {
  const ParamSpec rate{"tolerance", T::kNumber, 0, 1, false, "fraction"};
  EXPECT_FALSE(CheckParamValue(rate, json(0.5)));
  EXPECT_FALSE(CheckParamValue(rate, json(0)));
  EXPECT_FALSE(CheckParamValue(rate, json(1)));
  EXPECT_EQ(*CheckParamValue(rate, json(2.0)), "must be a number in [0, 1], got 2.0");
  EXPECT_EQ(*CheckParamValue(rate, json(-0.5)), "must be a number in [0, 1], got -0.5");
  EXPECT_TRUE(CheckParamValue(rate, json(std::nan(""))));
  EXPECT_EQ(*CheckParamValue(rate, json("0.5")), "must be a number, got the string \"0.5\"");
  const ParamSpec any{"slack", T::kNumber};
  EXPECT_TRUE(CheckParamValue(any, json(INFINITY)));
}

TEST(ParamSpec, StringsMayBeOneOfAList) {
  ParamSpec scope{"scope", T::kString};
  scope.one_of = {"path", "connection"};
  EXPECT_FALSE(CheckParamValue(scope, json("path")));
  EXPECT_EQ(*CheckParamValue(scope, json("paths")), "must be one of path, connection, got \"paths\"");
  EXPECT_EQ(*CheckParamValue(scope, json(1)), "must be a string, got 1");
}

TEST(ParamSpec, IntegersRejectFractions) {
  const ParamSpec n{"max", T::kInteger, 0};
  EXPECT_FALSE(CheckParamValue(n, json(4)));
  EXPECT_EQ(*CheckParamValue(n, json(4.5)), "must be an integer, got 4.5");
  EXPECT_EQ(*CheckParamValue(n, json(-1)), "must be an integer in [0, inf], got -1");
}

TEST(ParamSpec, ObjectsNameTheUnknownMissingOrBadParameter) {
  const std::vector<ParamSpec> specs = {{"name", T::kString, 0, 0, true, "a counter name"}, {"min", T::kInteger, 0}};
  EXPECT_FALSE(CheckParams(specs, json{{"name", "crc_errors"}, {"min", 1}}));
  auto unknown = CheckParams(specs, json{{"name", "x"}, {"mni", 1}});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->first, "mni");
  EXPECT_EQ(unknown->second, "unknown parameter 'mni' (known: name, min)");
  auto missing = CheckParams(specs, json{{"min", 1}});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->first, "name");
  auto bad = CheckParams(specs, json{{"name", 3}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->second, "must be a string, got 3");
  EXPECT_EQ(CheckParams({}, json{{"x", 1}})->second, "unknown parameter 'x' (takes none)");
  EXPECT_TRUE(CheckParams(specs, json::array()));
}

}  // namespace
}  // namespace mroce::harness
