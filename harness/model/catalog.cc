#include "mroce/harness/catalog.h"

#include <algorithm>

namespace mroce::harness {

Catalog::Catalog(std::vector<CatalogClause> clauses) : clauses_(std::move(clauses)) {
  std::stable_sort(clauses_.begin(), clauses_.end(),
                   [](const CatalogClause& a, const CatalogClause& b) { return a.id < b.id; });
}

const CatalogClause* Catalog::Find(const std::string& id) const {
  auto it = std::lower_bound(clauses_.begin(), clauses_.end(), id,
                             [](const CatalogClause& c, const std::string& k) { return c.id < k; });
  return it != clauses_.end() && it->id == id ? &*it : nullptr;
}

}  // namespace mroce::harness
