#include "mroce/reports/json_schema.h"

#include <regex>

namespace mroce::reports {

using nlohmann::json;

namespace {

class Validator {
 public:
  explicit Validator(const json& root) : root_(root) {}

  void Validate(const json& schema, const json& v, const std::string& ptr, std::vector<std::string>* errs) {
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) errs->push_back(ptr + ": not allowed");
      return;
    }
    if (!schema.is_object()) return;
    if (schema.contains("$ref")) {
      const json* target = Resolve(schema["$ref"].get<std::string>());
      if (target == nullptr) {
        errs->push_back(ptr + ": unresolvable $ref " + schema["$ref"].get<std::string>());
        return;
      }
      Validate(*target, v, ptr, errs);
    }
    if (schema.contains("type")) {
      bool ok = false;
      if (schema["type"].is_array()) {
        for (const json& t : schema["type"]) ok = ok || IsType(v, t.get<std::string>());
      } else {
        ok = IsType(v, schema["type"].get<std::string>());
      }
      if (!ok) {
        errs->push_back(ptr + ": expected type " + schema["type"].dump() + ", got " + v.type_name());
        return;
      }
    }
    if (schema.contains("const") && v != schema["const"]) errs->push_back(ptr + ": expected " + schema["const"].dump());
    if (schema.contains("enum")) {
      bool found = false;
      for (const json& e : schema["enum"]) found = found || e == v;
      if (!found) errs->push_back(ptr + ": " + v.dump() + " not one of " + schema["enum"].dump());
    }
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (schema.contains("minLength") && s.size() < schema["minLength"].get<size_t>()) errs->push_back(ptr + ": shorter than minLength");
      if (schema.contains("pattern") && !std::regex_search(s, std::regex(schema["pattern"].get<std::string>()))) {
        errs->push_back(ptr + ": '" + s + "' does not match " + schema["pattern"].get<std::string>());
      }
    }
    if (v.is_number()) {
      double d = v.get<double>();
      if (schema.contains("minimum") && d < schema["minimum"].get<double>()) errs->push_back(ptr + ": below minimum " + schema["minimum"].dump());
      if (schema.contains("maximum") && d > schema["maximum"].get<double>()) errs->push_back(ptr + ": above maximum " + schema["maximum"].dump());
    }
    if (v.is_array()) {
      if (schema.contains("minItems") && v.size() < schema["minItems"].get<size_t>()) errs->push_back(ptr + ": fewer than minItems");
      if (schema.contains("items")) {
        for (size_t i = 0; i < v.size(); ++i) Validate(schema["items"], v[i], ptr + "/" + std::to_string(i), errs);
      }
    }
    if (v.is_object()) {
      if (schema.contains("required")) {
        for (const json& r : schema["required"]) {
          if (!v.contains(r.get<std::string>())) errs->push_back(ptr + ": missing required property '" + r.get<std::string>() + "'");
        }
      }
      const json* props = schema.contains("properties") ? &schema["properties"] : nullptr;
      for (auto it = v.begin(); it != v.end(); ++it) {
        std::string p = ptr + "/" + it.key();
        if (props != nullptr && props->contains(it.key())) {
          Validate((*props)[it.key()], it.value(), p, errs);
        } else if (schema.contains("additionalProperties")) {
          const json& ap = schema["additionalProperties"];
          if (ap.is_boolean() && !ap.get<bool>()) {
            errs->push_back(p + ": additional property not allowed");
          } else {
            Validate(ap, it.value(), p, errs);
          }
        }
      }
    }
    if (schema.contains("oneOf")) {
      int matched = 0;
      for (const json& s : schema["oneOf"]) {
        std::vector<std::string> sub;
        Validate(s, v, ptr, &sub);
        matched += sub.empty() ? 1 : 0;
      }
      if (matched != 1) errs->push_back(ptr + ": matches " + std::to_string(matched) + " of oneOf (expected exactly 1)");
    }
    if (schema.contains("anyOf")) {
      bool any = false;
      for (const json& s : schema["anyOf"]) {
        std::vector<std::string> sub;
        Validate(s, v, ptr, &sub);
        any = any || sub.empty();
      }
      if (!any) errs->push_back(ptr + ": matches none of anyOf");
    }
  }

 private:
  static bool IsType(const json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    if (t == "number") return v.is_number();
    if (t == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>())));
    return false;
  }
  const json* Resolve(const std::string& ref) {
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root_.contains("$defs")) return nullptr;
    std::string name = ref.substr(prefix.size());
    return root_["$defs"].contains(name) ? &root_["$defs"][name] : nullptr;
  }
  const json& root_;
};

}  // namespace

std::vector<std::string> ValidateJsonSchema(const json& schema, const json& instance) {
  std::vector<std::string> errs;
  Validator(schema).Validate(schema, instance, "", &errs);
  return errs;
}

}  // namespace mroce::reports
