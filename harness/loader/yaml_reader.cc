#include "yaml_reader.h"

#include <charconv>
#include <set>

namespace mroce::harness::internal {


std::string Join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// yaml-cpp tags plain scalars "?" and quoted ones "!".
bool IsQuoted(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "!"; }

SourceLocation YamlReader::Where(const YAML::Node& node) const {
  YAML::Mark m = node.Mark();
  if (m.is_null()) return {file_, 0, 0};
  return {file_, m.line + 1, m.column + 1};
}

void YamlReader::Error(const YAML::Node& at, const std::string& key, std::string message) {
  ErrorAt(Where(at), key, std::move(message));
}

void YamlReader::ErrorAt(SourceLocation where, const std::string& key, std::string message) {
  errors_->push_back({std::move(where), key, std::move(message)});
}

namespace {

const char* KindName(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    default: return "nothing";
  }
}

std::string Choices(const std::vector<std::string_view>& allowed) {
  std::string out;
  for (std::string_view a : allowed) {
    if (!out.empty()) out += ", ";
    out += a;
  }
  return out;
}

}  // namespace

bool YamlReader::Map(const YAML::Node& node, const std::string& path,
                     const std::vector<std::string_view>& allowed,
                     const std::vector<std::string_view>& required) {
  if (!node.IsMap()) {
    Error(node, path, std::string("expected a mapping, got ") + KindName(node));
    return false;
  }
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) {
      Error(it->first, path, "keys must be plain strings");
      continue;
    }
    std::string key = it->first.Scalar();
    if (!seen.insert(key).second) {
      Error(it->first, Join(path, key), "duplicate key '" + key + "'");
      continue;
    }
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (!known) {
      Error(it->first, Join(path, key),
            "unknown key '" + key + "' (expected one of: " + Choices(allowed) + ")");
    }
  }
  for (std::string_view r : required) {
    if (seen.count(std::string(r)) == 0) {
      Error(node, Join(path, r), "missing required key '" + std::string(r) + "'");
    }
  }
  return true;
}

bool YamlReader::Sequence(const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence()) {
    Error(node, path, std::string("expected a list, got ") + KindName(node));
    return false;
  }
  return true;
}

std::optional<std::string> YamlReader::String(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    Error(node, path, std::string("expected a string, got ") + KindName(node));
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<int64_t> YamlReader::Int(const YAML::Node& node, const std::string& path, int64_t min,
                                       int64_t max) {
  if (!node.IsScalar() || IsQuoted(node)) {
    Error(node, path, std::string("expected an integer, got ") + (node.IsScalar() ? "a string" : KindName(node)));
    return std::nullopt;
  }
  const std::string& s = node.Scalar();
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    Error(node, path, "expected an integer, got '" + s + "'");
    return std::nullopt;
  }
  if (v < min || v > max) {
    Error(node, path, "value " + s + " out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return std::nullopt;
  }
  return v;
}

std::optional<bool> YamlReader::Bool(const YAML::Node& node, const std::string& path) {
  if (node.IsScalar() && !IsQuoted(node)) {
    const std::string& s = node.Scalar();
    if (s == "true") return true;
    if (s == "false") return false;
  }
  Error(node, path, "expected true or false");
  return std::nullopt;
}

std::optional<std::vector<std::string>> YamlReader::StringList(const YAML::Node& node,
                                                               const std::string& path) {
  if (!Sequence(node, path)) return std::nullopt;
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < node.size(); ++i) {
    auto s = String(node[i], Index(path, i));
    if (s) {
      out.push_back(*s);
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

nlohmann::json YamlReader::Json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (auto it = node.begin(); it != node.end(); ++it) out[it->first.Scalar()] = Json(it->second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const YAML::Node& n : node) out.push_back(Json(n));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (IsQuoted(node)) return s;
      if (s == "true") return true;
      if (s == "false") return false;
      if (s == "null" || s == "~") return nullptr;
      int64_t i = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
      if (ec == std::errc() && end == s.data() + s.size()) return i;
      double d = 0;
      auto [end2, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (ec2 == std::errc() && end2 == s.data() + s.size()) return d;
      return s;
    }
    default: return nullptr;
  }
}

}  // namespace mroce::harness::internal
