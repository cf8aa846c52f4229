#include "mroce/harness/catalog.h"

#include <algorithm>

namespace mroce::harness {

std::string_view ToString(FieldRule::Status s) {
  switch (s) {
    case FieldRule::Status::kDetermined: return "determined";
    case FieldRule::Status::kFree: return "free";
    case FieldRule::Status::kConstrained: return "constrained";
    case FieldRule::Status::kReserved: return "reserved";
  }
  return "?";
}

Catalog::Catalog(std::vector<CatalogClause> clauses, std::vector<FieldRule> fields)
    : clauses_(std::move(clauses)), fields_(std::move(fields)) {
  std::stable_sort(clauses_.begin(), clauses_.end(),
                   [](const CatalogClause& a, const CatalogClause& b) { return a.id < b.id; });
}

const CatalogClause* Catalog::Find(const std::string& id) const {
  auto it = std::lower_bound(clauses_.begin(), clauses_.end(), id,
                             [](const CatalogClause& c, const std::string& k) { return c.id < k; });
  return it != clauses_.end() && it->id == id ? &*it : nullptr;
}

const FieldRule* Catalog::FieldRuleFor(std::string_view opcode, std::string_view field) const {
  for (const FieldRule& r : fields_) {
    if (r.field == field && std::find(r.opcodes.begin(), r.opcodes.end(), opcode) != r.opcodes.end()) return &r;
  }
  return nullptr;
}

}  // namespace mroce::harness
