// Reads stage configurations from YAML: the `impairments:` items of case files (harness/loader) and
// of impairment profiles (impairment/dpdk), so that both accept and refuse the same things with the
// same messages. Every mistake is reported with its line, column and key path: an unknown key,
// kind, parameter or match key, a value of the wrong type, out of range or not finite, a quantity
// without the unit it needs, a schedule that ends before it starts, a broken rule across
// parameters. Library mroce_impairment_yaml (yaml-cpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "mroce/impairment/stage_config.h"

namespace mroce::impairment {

struct ConfigDiagnostic {
  int line = 0;         // 1-based; 0 when unknown.
  int column = 0;       // 1-based; 0 when unknown.
  std::string key;      // Key path, e.g. "impairments[1].params.rate".
  std::string message;
  // "file:line:col: key: message".
  [[nodiscard]] std::string ToString(const std::string& file) const;
};

// Reads one item (a mapping with stage, name, match, params, schedule) found at key path `path`
// (e.g. "impairments[2]"), the `index`th of its list: without `name:` it is named "<kind>#<index>".
// Appends every mistake to *errors and returns nullopt when there was one.
[[nodiscard]] std::optional<StageConfig> ReadStageConfig(const YAML::Node& item, const std::string& path, size_t index,
                                                         std::vector<ConfigDiagnostic>* errors);

// Reads a duration scalar (quantity.h) at `path`; nullopt after appending the error.
[[nodiscard]] std::optional<DurationSpec> ReadDuration(const YAML::Node& node, const std::string& path,
                                                       std::vector<ConfigDiagnostic>* errors);

// Reads the base round-trip time of a case (topology.rtt) or profile (rtt:): a positive duration
// with a time unit (not in RTTs); nanoseconds, or nullopt after appending the error.
[[nodiscard]] std::optional<int64_t> ReadBaseRtt(const YAML::Node& node, const std::string& path,
                                                 std::vector<ConfigDiagnostic>* errors);

// The 1-based line and column of a node (0, 0 when it has no mark).
[[nodiscard]] std::pair<int, int> LineColumn(const YAML::Node& node);

}  // namespace mroce::impairment
