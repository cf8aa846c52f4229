// Stage configurations from YAML, with line and column in every error (stage_yaml.h).
#include "mroce/impairment/stage_yaml.h"

#include <set>

#include "mroce/impairment/match_keys.h"

namespace mroce::impairment {
namespace {

std::string Join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string Index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// yaml-cpp tags plain scalars "?" and quoted ones "!".
bool IsQuoted(const YAML::Node& n) { return n.IsScalar() && n.Tag() == "!"; }

const char* KindName(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    default: return "nothing";
  }
}

class Reader {
 public:
  explicit Reader(std::vector<ConfigDiagnostic>* errors) : errors_(errors) {}

  void Error(const YAML::Node& at, const std::string& key, std::string message) {
    const auto [line, column] = LineColumn(at);
    errors_->push_back({line, column, key, std::move(message)});
  }
  [[nodiscard]] size_t count() const { return errors_->size(); }

  // A mapping whose keys are plain strings, none twice; unknown keys are reported when `allowed`
  // is given. Returns false if `node` is not a mapping.
  bool Map(const YAML::Node& node, const std::string& path, const std::vector<std::string_view>* allowed) {
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
      const std::string key = it->first.Scalar();
      if (!seen.insert(key).second) {
        Error(it->first, Join(path, key), "duplicate key '" + key + "'");
        continue;
      }
      if (allowed == nullptr) continue;
      bool known = false;
      for (std::string_view a : *allowed) known = known || a == key;
      if (!known) {
        std::string list;
        for (std::string_view a : *allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        Error(it->first, Join(path, key), "unknown key '" + key + "' (expected one of: " + list + ")");
      }
    }
    return true;
  }

  // The parameters of `specs` from the mapping `node` into *out.
  void Params(const YAML::Node& node, std::span<const ParamSpec> specs, const std::string& path, std::string_view owner,
              ParamSet* out) {
    if (!Map(node, path, nullptr)) return;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      const std::string key = it->first.Scalar();
      const std::string p = Join(path, key);
      const ParamSpec* spec = FindParam(specs, key);
      if (spec == nullptr) {
        Error(it->first, p, "unknown key '" + key + "' (" + std::string(owner) + " takes: " + ParamNames(specs) + ")");
        continue;
      }
      const YAML::Node v = it->second;  // A copy: the iterator hands out a temporary pair.
      if (spec->type == ParamType::kObject) {
        ParamSet inner;
        const size_t before = count();
        Params(v, spec->fields, p, key, &inner);
        if (count() == before) out->SetMappings(key, {std::move(inner)});
      } else if (spec->type == ParamType::kList) {
        if (!v.IsSequence()) {
          Error(v, p, "expected a list of mappings (" + spec->TypeText() + "), got " + KindName(v));
          continue;
        }
        std::vector<ParamSet> items;
        const size_t before = count();
        for (size_t i = 0; i < v.size(); ++i) {
          ParamSet inner;
          Params(v[i], spec->fields, Index(p, i), key, &inner);
          items.push_back(std::move(inner));
        }
        if (count() == before) out->SetMappings(key, std::move(items));
      } else if (!v.IsScalar()) {
        Error(v, p, "expected a " + spec->TypeText() + ", got " + KindName(v));
      } else if (auto parsed = ParseParam(*spec, v.Scalar(), IsQuoted(v)); !parsed.ok()) {
        Error(v, p, parsed.error().message);
      } else {
        out->Set(key, std::move(parsed).value());
      }
    }
  }

  void ReadMatch(const YAML::Node& node, const std::string& path, Match* out) {
    if (!Map(node, path, nullptr)) return;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      const std::string key = it->first.Scalar();
      const YAML::Node v = it->second;  // A copy: the iterator hands out a temporary pair.
      bool known = false;
      for (const MatchKeySpec& k : MatchKeys()) known = known || k.name == key;
      if (!known) {
        Error(it->first, Join(path, key), SetMatchKey(key, "", false, out).error().message);
      } else if (!v.IsScalar()) {
        Error(v, Join(path, key), std::string("expected a scalar, got ") + KindName(v));
      } else if (auto st = SetMatchKey(key, v.Scalar(), IsQuoted(v), out); !st.ok()) {
        Error(v, Join(path, key), st.error().message);
      }
    }
  }

  std::optional<StageSchedule> Schedule(const YAML::Node& node, const std::string& path) {
    static const std::vector<std::string_view> kKeys = {"at", "until"};
    if (!Map(node, path, &kKeys)) return std::nullopt;
    const size_t before = count();
    if (!node["at"]) Error(node, Join(path, "at"), "missing required key 'at'");
    StageSchedule s;
    if (node["at"]) {
      if (auto d = ReadDuration(node["at"], Join(path, "at"), errors_)) s.at = *d;
    }
    if (node["until"]) {
      if (auto d = ReadDuration(node["until"], Join(path, "until"), errors_)) s.until = *d;
    }
    if (count() != before) return std::nullopt;
    if (auto e = CheckSchedule(s)) {
      Error(node["until"], Join(path, "until"), *e);
      return std::nullopt;
    }
    return s;
  }

 private:
  std::vector<ConfigDiagnostic>* errors_;
};

// The node a key path relative to `params` ("ecn.kmax", "windows[1].until") names, or the
// deepest one that exists (a rule may name a key that only has its default). Only const lookups:
// yaml-cpp's non-const operator[] would add the missing keys.
YAML::Node Locate(const YAML::Node& params, std::string_view key) {
  if (key.empty()) return params;
  const size_t end = key.find_first_of(".[");
  const std::string name(key.substr(0, end));
  if (!params.IsMap() || !params[name]) return params;
  const YAML::Node child = params[name];
  if (end == std::string_view::npos) return child;
  std::string_view rest = key.substr(end);
  if (rest.front() == '[') {
    const size_t close = rest.find(']');
    const size_t n = std::stoul(std::string(rest.substr(1, close - 1)));
    if (!child.IsSequence() || n >= child.size()) return child;
    const YAML::Node item = child[n];
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest.front() == '.') rest.remove_prefix(1);
    return Locate(item, rest);
  }
  return Locate(child, rest.substr(1));
}

}  // namespace

std::string ConfigDiagnostic::ToString(const std::string& file) const {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  out += ": ";
  if (!key.empty()) out += key + ": ";
  return out + message;
}

std::pair<int, int> LineColumn(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return {0, 0};
  return {m.line + 1, m.column + 1};
}

std::optional<DurationSpec> ReadDuration(const YAML::Node& node, const std::string& path,
                                         std::vector<ConfigDiagnostic>* errors) {
  Reader r(errors);
  if (!node.IsScalar()) {
    r.Error(node, path, std::string("expected a duration such as 3rtt or 10us, got ") + KindName(node));
    return std::nullopt;
  }
  auto d = ParseDuration(node.Scalar());
  if (!d.ok()) {
    r.Error(node, path, d.error().message);
    return std::nullopt;
  }
  return d.value();
}

std::optional<int64_t> ReadBaseRtt(const YAML::Node& node, const std::string& path,
                                   std::vector<ConfigDiagnostic>* errors) {
  Reader r(errors);
  const std::string text = node.IsScalar() ? node.Scalar() : "";
  // A bare number: the grammar would ask for any unit, but RTTs cannot state the RTT.
  if (node.IsScalar() && !ParseDuration(text).ok() && ParseDuration(text + "us").ok()) {
    r.Error(node, path, "the base RTT needs a time unit, e.g. 10us");
    return std::nullopt;
  }
  const std::optional<DurationSpec> d = ReadDuration(node, path, errors);
  if (!d) return std::nullopt;
  if (d->unit == DurationSpec::Unit::kRtt) {
    r.Error(node, path, "the base RTT needs a time unit, e.g. 10us");
    return std::nullopt;
  }
  if (d->value <= 0) {
    r.Error(node, path, "must be positive");
    return std::nullopt;
  }
  return d->ToNanoseconds(0);
}

std::optional<StageConfig> ReadStageConfig(const YAML::Node& item, const std::string& path, size_t index,
                                           std::vector<ConfigDiagnostic>* errors) {
  static const std::vector<std::string_view> kKeys = {"stage", "name", "match", "params", "schedule"};
  Reader r(errors);
  const size_t before = r.count();
  if (!r.Map(item, path, &kKeys)) return std::nullopt;
  StageConfig c;
  if (!item["stage"]) {
    r.Error(item, Join(path, "stage"), "missing required key 'stage'");
  } else if (!item["stage"].IsScalar()) {
    r.Error(item["stage"], Join(path, "stage"), std::string("expected a string, got ") + KindName(item["stage"]));
  } else {
    c.kind = FindStageKind(item["stage"].Scalar());
    if (c.kind == nullptr) {
      r.Error(item["stage"], Join(path, "stage"),
              "unknown impairment stage '" + item["stage"].Scalar() + "' (known: " + StageKindNames() + ")");
    }
  }
  if (c.kind != nullptr) c.name = std::string(c.kind->name) + "#" + std::to_string(index);
  if (item["name"]) {
    if (!item["name"].IsScalar() || item["name"].Scalar().empty()) {
      r.Error(item["name"], Join(path, "name"), "expected a non-empty string");
    } else {
      c.name = item["name"].Scalar();
    }
  }
  if (item["match"]) r.ReadMatch(item["match"], Join(path, "match"), &c.match);
  if (item["params"] && c.kind != nullptr) {
    const size_t params_before = r.count();
    r.Params(item["params"], c.kind->params, Join(path, "params"), c.kind->name, &c.params);
    if (r.count() == params_before) {
      if (auto e = FinishParams(*c.kind, &c.params)) {
        r.Error(Locate(item["params"], e->key), Join(Join(path, "params"), e->key), e->message);
      }
    }
  } else if (c.kind != nullptr) {
    if (auto e = FinishParams(*c.kind, &c.params)) r.Error(item, Join(Join(path, "params"), e->key), e->message);
  }
  if (item["schedule"]) c.schedule = r.Schedule(item["schedule"], Join(path, "schedule"));
  if (r.count() != before) return std::nullopt;
  return c;
}

}  // namespace mroce::impairment
