// The clause catalog (docs/spec/clauses.json): every normative clause of the spec with its level.
#pragma once

#include <string>
#include <vector>

#include "mroce/harness/verdict.h"

namespace mroce::harness {

struct CatalogClause {
  std::string id;        // "MR-SACK-3"
  Level level = Level::kMust;
  std::string summary;
  std::string section;   // "7.3"
  std::string file;      // "docs/spec/07-paths.md"
};

class Catalog {
 public:
  Catalog() = default;
  explicit Catalog(std::vector<CatalogClause> clauses);

  // nullptr when unknown.
  [[nodiscard]] const CatalogClause* Find(const std::string& id) const;
  // Sorted by id.
  [[nodiscard]] const std::vector<CatalogClause>& clauses() const { return clauses_; }
  [[nodiscard]] bool empty() const { return clauses_.empty(); }

 private:
  std::vector<CatalogClause> clauses_;
};

}  // namespace mroce::harness
