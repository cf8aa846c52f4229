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
  out.value = Catalog(std::move(clauses));
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
