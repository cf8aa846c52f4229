// The JSON Schema of case files (testcases/schema/case.schema.json) agrees with the loader: every
// case the loader accepts validates, and typical mistakes the loader rejects are rejected too.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "mroce/harness/case_loader.h"
#include "mroce/reports/json_schema.h"

namespace mroce::harness {
namespace {

using nlohmann::json;

// YAML -> JSON as a schema validator sees it (plain scalars that look like numbers/bools become so).
json ToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json o = json::object();
      for (auto it = n.begin(); it != n.end(); ++it) o[it->first.Scalar()] = ToJson(it->second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& x : n) a.push_back(ToJson(x));
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return s;
      if (s == "true" || s == "false") return s == "true";
      try {
        size_t pos = 0;
        long long i = std::stoll(s, &pos, 0);
        if (pos == s.size()) return i;
        double d = std::stod(s, &pos);
        if (pos == s.size()) return d;
      } catch (...) {
      }
      return s;
    }
    default: return nullptr;
  }
}

json Schema() {
  std::ifstream in(MROCE_CASE_SCHEMA);
  EXPECT_TRUE(in.good()) << MROCE_CASE_SCHEMA;
  return json::parse(in);
}

TEST(CaseSchema, AcceptsEveryLoadableCase) {
  json schema = Schema();
  for (const char* f : {"/suite/loss/sack.yaml", "/suite/loss/incast.yaml", "/suite/conn/bad-crc.yaml", "/dup/a.yaml"}) {
    std::string path = std::string(MROCE_LOADER_TESTDATA) + f;
    ASSERT_TRUE(LoadCaseFile(path).ok()) << path;
    auto errs = reports::ValidateJsonSchema(schema, ToJson(YAML::LoadFile(path)));
    std::string all;
    for (auto& e : errs) all += e + "\n";
    EXPECT_TRUE(errs.empty()) << path << "\n" << all;
  }
}

TEST(CaseSchema, RejectsWhatTheLoaderRejects) {
  json schema = Schema();
  const char* bad[] = {
      "id: a.b\ntitle: T\nclauses: [{id: X, level: must}]\nstyle: end-to-end\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\n",
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\nbogus: 1\n",
      "id: a.b\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\n",
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: atomic, size: 1}]}\nchecks: [c]\n",
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript: [{inject: {at: 0}, expect: {match: {a: 1}}}]\n",
      "id: A\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\n",
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\ntopology: {planes: 0}\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\n",
      // A duration or rate without its unit; a match key of no stage kind.
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\ntimeouts: {total: 100}\n",
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\ntopology: {link_rate: 100}\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\n",
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: write, size: 1}]}\nchecks: [c]\nimpairments: [{stage: corrupt, match: {path_id: 1}}]\n",
  };
  for (const char* y : bad) {
    EXPECT_FALSE(LoadCaseString(y, "x.yaml").ok()) << y;
    EXPECT_FALSE(reports::ValidateJsonSchema(schema, ToJson(YAML::Load(y))).empty()) << y;
  }
}

}  // namespace
}  // namespace mroce::harness
