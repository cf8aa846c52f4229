// Reads the clause catalog, docs/spec/clauses.json: {"clauses":[{"id","level","summary","section","file"}]}.
#pragma once

#include <string>

#include "mroce/harness/catalog.h"
#include "mroce/harness/diagnostic.h"

namespace mroce::harness {

[[nodiscard]] LoadResult<Catalog> LoadCatalogFile(const std::string& path);
[[nodiscard]] LoadResult<Catalog> LoadCatalogString(const std::string& json, const std::string& file_name);

}  // namespace mroce::harness
