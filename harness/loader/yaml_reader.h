// YamlReader: typed, located access to a yaml-cpp tree that records a Diagnostic per mistake
// (private to the loaders).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mroce/harness/diagnostic.h"

namespace mroce::harness::internal {

class YamlReader {
 public:
  YamlReader(std::string file, std::vector<Diagnostic>* errors) : file_(std::move(file)), errors_(errors) {}

  [[nodiscard]] SourceLocation Where(const YAML::Node& node) const;
  void Error(const YAML::Node& at, const std::string& key, std::string message);
  void ErrorAt(SourceLocation where, const std::string& key, std::string message);

  // Checks `node` is a mapping whose keys are all in `allowed` and contain every one of `required`;
  // reports unknown, duplicate and missing keys. Returns false if it is not a mapping.
  bool Map(const YAML::Node& node, const std::string& path, const std::vector<std::string_view>& allowed,
           const std::vector<std::string_view>& required = {});
  bool Sequence(const YAML::Node& node, const std::string& path);

  // Scalar readers; nullopt (after an error) when the node is of the wrong type.
  std::optional<std::string> String(const YAML::Node& node, const std::string& path);
  std::optional<int64_t> Int(const YAML::Node& node, const std::string& path, int64_t min, int64_t max);
  std::optional<bool> Bool(const YAML::Node& node, const std::string& path);
  std::optional<std::vector<std::string>> StringList(const YAML::Node& node, const std::string& path);
  // Any YAML value as JSON (plain scalars become numbers/bools/null where they parse as such).
  nlohmann::json Json(const YAML::Node& node);

  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<Diagnostic>* errors_;
};

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string Join(const std::string& path, std::string_view key);
std::string Index(const std::string& path, size_t i);
bool IsQuoted(const YAML::Node& node);

}  // namespace mroce::harness::internal
