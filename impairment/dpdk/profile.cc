// Impairment profiles: YAML with `impairments:` and `rtt:`, read with the case loader's item reader
// (profile.h).
#include "mroce/impairment/dpdk/profile.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "mroce/impairment/stage_plan.h"
#include "mroce/impairment/stage_yaml.h"

namespace mroce::impairment::dpdk {
namespace {

mroce::Error Failed(const std::vector<ConfigDiagnostic>& errors, const std::string& file) {
  std::string text;
  for (const ConfigDiagnostic& d : errors) text += (text.empty() ? "" : "\n") + d.ToString(file);
  return mroce::MakeError("profile", text);
}

}  // namespace

mroce::Result<ImpairmentProfile> LoadProfileString(std::string_view yaml, const std::string& file_name) {
  std::vector<ConfigDiagnostic> errors;
  YAML::Node loaded;
  try {
    loaded = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    const int column = e.mark.is_null() ? 0 : e.mark.column + 1;
    return Failed({{line, column, "", "YAML syntax error: " + e.msg}}, file_name);
  }
  const YAML::Node& root = loaded;  // Const lookups only: operator[] would add missing keys.
  if (!root.IsDefined() || root.IsNull()) {
    return Failed({{1, 1, "", "empty impairment profile (expected a mapping with 'impairments:')"}}, file_name);
  }
  if (!root.IsMap()) return Failed({{1, 1, "", "expected a mapping with 'impairments:' and optional 'rtt:'"}}, file_name);
  ImpairmentProfile prof;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (key != "impairments" && key != "rtt") {
      const auto [line, column] = LineColumn(it->first);
      errors.push_back({line, column, key, "unknown key '" + key + "' (expected one of: impairments, rtt)"});
    }
  }
  if (root["rtt"]) {
    if (auto rtt = ReadBaseRtt(root["rtt"], "rtt", &errors)) prof.rtt_ns = *rtt;
  }
  const YAML::Node list = root["impairments"];
  if (!list) {
    errors.push_back({1, 1, "impairments", "missing required key 'impairments'"});
  } else if (!list.IsSequence()) {
    const auto [line, column] = LineColumn(list);
    errors.push_back({line, column, "impairments", "expected a list"});
  } else {
    for (size_t i = 0; i < list.size(); ++i) {
      if (auto c = ReadStageConfig(list[i], "impairments[" + std::to_string(i) + "]", i, &errors)) {
        prof.impairments.push_back(std::move(*c));
      }
    }
  }
  if (!errors.empty()) return Failed(errors, file_name);
  return prof;
}

mroce::Result<ImpairmentProfile> LoadProfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return mroce::MakeError("profile", path + ": cannot read file");
  std::ostringstream text;
  text << in.rdbuf();
  return LoadProfileString(text.str(), path);
}

void AddProfileStages(const ImpairmentProfile& profile, Direction d, uint64_t seed, Pipeline* pipeline) {
  for (size_t i = 0; i < profile.impairments.size(); ++i) {
    if (auto stage = InstantiateForDirection(profile.impairments[i], i, d, seed, profile.rtt_ns)) {
      pipeline->Add(std::move(stage));
    }
  }
}

}  // namespace mroce::impairment::dpdk
