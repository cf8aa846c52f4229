#include "mroce/harness/expectations_loader.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "yaml_reader.h"

namespace mroce::harness {

using internal::Index;
using internal::Join;
using internal::YamlReader;

namespace {

bool ValidDate(const std::string& s) {
  static const std::regex kDate(R"((\d{4})-(\d{2})-(\d{2}))");
  std::smatch m;
  if (!std::regex_match(s, m, kDate)) return false;
  int y = std::stoi(m[1]), mo = std::stoi(m[2]), d = std::stoi(m[3]);
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1]) return false;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return !(mo == 2 && d == 29 && !leap);
}

}  // namespace

LoadResult<std::vector<Expectation>> LoadExpectationsString(std::string_view yaml, const std::string& file_name) {
  LoadResult<std::vector<Expectation>> out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    out.errors.push_back({{file_name, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1},
                          "", "YAML syntax error: " + e.msg});
    return out;
  }
  YamlReader r(file_name, &out.errors);
  if (!r.Map(root, "", {"expectations"}, {"expectations"})) return out;
  const YAML::Node list = root["expectations"];
  if (!list || !r.Sequence(list, "expectations")) return out;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string p = Index("expectations", i);
    const YAML::Node& item = list[i];
    if (!r.Map(item, p, {"test", "dut", "verdict", "reason", "expires"}, {"test", "dut", "verdict", "reason", "expires"})) continue;
    Expectation e;
    e.where = r.Where(item);
    if (item["test"]) if (auto s = r.String(item["test"], Join(p, "test"))) e.test = *s;
    if (item["dut"]) if (auto s = r.String(item["dut"], Join(p, "dut"))) e.dut = *s;
    if (item["reason"]) {
      if (auto s = r.String(item["reason"], Join(p, "reason"))) {
        e.reason = *s;
        if (s->empty()) r.Error(item["reason"], Join(p, "reason"), "a waiver needs a reason");
      }
    }
    if (item["verdict"]) {
      if (auto s = r.String(item["verdict"], Join(p, "verdict"))) {
        auto v = ParseVerdict(*s);
        if (!v || *v == Verdict::kPass) {
          r.Error(item["verdict"], Join(p, "verdict"), "expected fail, inconclusive, error or skip, got '" + *s + "'");
        } else {
          e.verdict = *v;
        }
      }
    }
    if (item["expires"]) {
      if (auto s = r.String(item["expires"], Join(p, "expires"))) {
        if (!ValidDate(*s)) {
          r.Error(item["expires"], Join(p, "expires"), "expected a date YYYY-MM-DD, got '" + *s + "'");
        } else {
          e.expires = *s;
        }
      }
    }
    out.value.push_back(std::move(e));
  }
  return out;
}

LoadResult<std::vector<Expectation>> LoadExpectationsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    LoadResult<std::vector<Expectation>> out;
    out.errors.push_back({{path, 0, 0}, "", "cannot read expectations file"});
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return LoadExpectationsString(text.str(), path);
}

}  // namespace mroce::harness
