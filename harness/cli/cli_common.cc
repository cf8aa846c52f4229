#include "cli_common.h"

#include <cstdlib>
#include <filesystem>

namespace mroce::cli {

namespace fs = std::filesystem;

std::string DefaultSuite() {
  if (const char* env = std::getenv("MROCE_SUITE"); env != nullptr && *env != '\0') return env;
  return MROCE_DEFAULT_SUITE;
}

std::string FindCatalog(const std::string& flag, const std::string& suite) {
  if (!flag.empty()) return flag;
  if (std::string near = campaign::FindCatalogNear(suite); !near.empty()) return near;
  std::error_code ec;
  if (fs::is_regular_file(MROCE_DEFAULT_CATALOG, ec)) return fs::path(MROCE_DEFAULT_CATALOG).lexically_normal().string();
  return "";
}

std::optional<campaign::Suite> LoadSuite(const std::string& path, const std::string& catalog_flag, std::ostream& err) {
  auto suite = campaign::LoadSuite(path, FindCatalog(catalog_flag, path));
  if (!suite.ok()) {
    err << suite.error().message;
    return std::nullopt;
  }
  return std::move(suite).value();
}

std::optional<std::vector<harness::Case>> LoadSuite(const std::string& path, const std::string& catalog_flag,
                                                    harness::Catalog* catalog, std::ostream& err) {
  auto suite = LoadSuite(path, catalog_flag, err);
  if (!suite) return std::nullopt;
  *catalog = std::move(suite->catalog);
  return std::move(suite->cases);
}

}  // namespace mroce::cli
