// Helpers shared by subcommands: finding and loading the suite and the clause catalog.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mroce/campaign/suite_run.h"
#include "mroce/harness/case.h"
#include "mroce/harness/catalog.h"

namespace mroce::cli {

// --suite default: $MROCE_SUITE, else the source tree's testcases/.
[[nodiscard]] std::string DefaultSuite();

// The catalog path: `flag` when given; else <suite>/clauses.json, <suite>/../docs/spec/clauses.json,
// the source tree's docs/spec/clauses.json, the first that exists; empty when none does.
[[nodiscard]] std::string FindCatalog(const std::string& flag, const std::string& suite);

// Loads the catalog (when found) and the cases under `path` (campaign::LoadSuite); prints
// diagnostics to `err` and returns nullopt on any error.
std::optional<campaign::Suite> LoadSuite(const std::string& path, const std::string& catalog_flag, std::ostream& err);
// The same, the catalog apart (empty when none was found).
std::optional<std::vector<harness::Case>> LoadSuite(const std::string& path, const std::string& catalog_flag,
                                                    harness::Catalog* catalog, std::ostream& err);

}  // namespace mroce::cli
