#include "mroce/harness/catalog_loader.h"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace mroce::harness {

LoadResult<Catalog> LoadCatalogString(const std::string& text, const std::string& file_name) {
  LoadResult<Catalog> out;
  auto err = [&](std::string key, std::string msg) { out.errors.push_back({{file_name, 0, 0}, std::move(key), std::move(msg)}); };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    err("", std::string("JSON syntax error: ") + e.what());
    return out;
  }
  if (!j.is_object() || !j.contains("clauses") || !j["clauses"].is_array()) {
    err("clauses", "expected an object with a 'clauses' list");
    return out;
  }
  std::vector<CatalogClause> clauses;
  std::set<std::string> ids;
  const nlohmann::json& list = j["clauses"];
  for (size_t i = 0; i < list.size(); ++i) {
    std::string p = "clauses[" + std::to_string(i) + "]";
    const nlohmann::json& c = list[i];
    if (!c.is_object() || !c.contains("id") || !c["id"].is_string() || !c.contains("level") || !c["level"].is_string()) {
      err(p, "expected an object with string 'id' and 'level'");
      continue;
    }
    CatalogClause cc;
    cc.id = c["id"].get<std::string>();
    auto level = ParseLevel(c["level"].get<std::string>());
    if (!level) {
      err(p + ".level", "bad level '" + c["level"].get<std::string>() + "' (expected MUST, SHOULD or MAY)");
      continue;
    }
    cc.level = *level;
    auto str = [&](const char* key) { return c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : std::string(); };
    cc.summary = str("summary");
    cc.section = str("section");
    cc.file = str("file");
    if (!ids.insert(cc.id).second) {
      err(p + ".id", "duplicate clause id '" + cc.id + "'");
      continue;
    }
    clauses.push_back(std::move(cc));
  }
  // The degrees-of-freedom table (spec chapter 19.2), when the catalog has one.
  std::vector<FieldRule> fields;
  if (j.contains("fields")) {
    const nlohmann::json& rows = j["fields"];
    if (!rows.is_array()) err("fields", "expected a list of field rules");
    for (size_t i = 0; rows.is_array() && i < rows.size(); ++i) {
      const std::string p = "fields[" + std::to_string(i) + "]";
      const nlohmann::json& r = rows[i];
      auto strings = [&](const char* key) {
        std::vector<std::string> v;
        if (r.contains(key) && r[key].is_array()) {
          for (const auto& e : r[key]) {
            if (e.is_string()) v.push_back(e.get<std::string>());
          }
        }
        return v;
      };
      if (!r.is_object() || !r.contains("field") || !r["field"].is_string() || !r.contains("status") ||
          !r["status"].is_string()) {
        err(p, "expected an object with string 'field' and 'status'");
        continue;
      }
      FieldRule fr;
      fr.field = r["field"].get<std::string>();
      const std::string status = r["status"].get<std::string>();
      if (status == "determined") fr.status = FieldRule::Status::kDetermined;
      else if (status == "free") fr.status = FieldRule::Status::kFree;
      else if (status == "constrained") fr.status = FieldRule::Status::kConstrained;
      else if (status == "reserved") fr.status = FieldRule::Status::kReserved;
      else {
        err(p + ".status", "bad status '" + status + "' (expected determined, free, constrained or reserved)");
        continue;
      }
      fr.opcodes = strings("opcodes");
      fr.clauses = strings("clauses");
      if (r.contains("constraint") && r["constraint"].is_string()) fr.constraint = r["constraint"].get<std::string>();
      fields.push_back(std::move(fr));
    }
  }
  out.value = Catalog(std::move(clauses), std::move(fields));
  return out;
}

LoadResult<Catalog> LoadCatalogFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    LoadResult<Catalog> out;
    out.errors.push_back({{path, 0, 0}, "", "cannot read clause catalog"});
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return LoadCatalogString(text.str(), path);
}

}  // namespace mroce::harness
