// The clause catalog (docs/spec/clauses.json): every normative clause of the spec with its level.
#pragma once

#include <string>
#include <string_view>
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

// One row of the spec's degrees-of-freedom table (chapter 19.2): what the spec says about a header
// field of some opcodes. `constraint` holds the terms as written ("range 49152..65535",
// "bit; =1 if ch.flags.last=1", "relative ch.path_id,frame.time", "=0", "computed").
struct FieldRule {
  enum class Status { kDetermined, kFree, kConstrained, kReserved };
  std::vector<std::string> opcodes;  // Opcode names of table 3.3 ("WRITE", "ACK", ...).
  std::string field;                 // Codec field name ("ch.flags.ar").
  Status status = Status::kDetermined;
  std::vector<std::string> clauses;  // "MROCE-HDR-005", ...
  std::string constraint;
};
[[nodiscard]] std::string_view ToString(FieldRule::Status s);

class Catalog {
 public:
  Catalog() = default;
  explicit Catalog(std::vector<CatalogClause> clauses, std::vector<FieldRule> fields = {});

  // nullptr when unknown.
  [[nodiscard]] const CatalogClause* Find(const std::string& id) const;
  // Sorted by id.
  [[nodiscard]] const std::vector<CatalogClause>& clauses() const { return clauses_; }
  [[nodiscard]] bool empty() const { return clauses_.empty(); }
  // The degrees-of-freedom rule of (opcode name, field); nullptr when the table has none.
  [[nodiscard]] const FieldRule* FieldRuleFor(std::string_view opcode, std::string_view field) const;
  [[nodiscard]] const std::vector<FieldRule>& field_rules() const { return fields_; }

 private:
  std::vector<CatalogClause> clauses_;
  std::vector<FieldRule> fields_;
};

}  // namespace mroce::harness
