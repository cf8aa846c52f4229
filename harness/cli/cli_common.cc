#include "cli_common.h"

#include <cstdlib>
#include <filesystem>

#include "mroce/harness/case_loader.h"
#include "mroce/harness/catalog_loader.h"
#include "mroce/session/checks.h"

namespace mroce::cli {

namespace fs = std::filesystem;

std::string DefaultSuite() {
  if (const char* env = std::getenv("MROCE_SUITE"); env != nullptr && *env != '\0') return env;
  return MROCE_DEFAULT_SUITE;
}

std::string FindCatalog(const std::string& flag, const std::string& suite) {
  if (!flag.empty()) return flag;
  std::error_code ec;
  fs::path base = fs::is_directory(suite, ec) ? fs::path(suite) : fs::path(suite).parent_path();
  for (const fs::path& p : {base / "clauses.json", base / ".." / "docs" / "spec" / "clauses.json",
                            fs::path(MROCE_DEFAULT_CATALOG)}) {
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  }
  return "";
}

std::optional<std::vector<harness::Case>> LoadSuite(const std::string& path, const std::string& catalog_flag,
                                                    harness::Catalog* catalog, std::ostream& err) {
  std::string catalog_path = FindCatalog(catalog_flag, path);
  harness::LoaderOptions options;
  // Names the harness knows: a misspelt check is a configuration error at load time (stage kinds,
  // their parameters and match keys are checked by the loader against impairment/'s registry).
  for (const session::CheckInfo& c : session::AllChecks()) options.known_checks.insert(c.name);
  if (!catalog_path.empty()) {
    auto loaded = harness::LoadCatalogFile(catalog_path);
    if (!loaded.ok()) {
      err << loaded.ErrorText();
      return std::nullopt;
    }
    *catalog = std::move(loaded.value);
    options.catalog = catalog;
  }
  auto cases = harness::LoadCases(path, options);
  if (!cases.ok()) {
    err << cases.ErrorText();
    return std::nullopt;
  }
  return std::move(cases.value);
}

}  // namespace mroce::cli
