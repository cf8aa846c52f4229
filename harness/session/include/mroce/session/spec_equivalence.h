// Spec-equivalence: whether a DUT's packet is one the specification allows where the reference
// endpoint sent a given packet in the same situation, field by field, by the degrees-of-freedom
// table of spec chapter 19 (clauses.json "fields"). A determined field must equal the reference's
// (or the constant the clauses fix); a reserved field must be 0; a constrained field must meet every
// term of its constraint (a `relative` term is compared with the reference only when the sender's
// own choices it depends on are the same in both packets); a free field is not looked at.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <utility>

#include "mroce/harness/catalog.h"
#include "mroce/wire/field_map.h"
#include "mroce/wire/frame.h"

namespace mroce::session {

// Connection parameters the constraint terms may name (num_paths, num_planes, mtu, max_streams).
struct SpecContext {
  uint64_t num_paths = 1;
  uint64_t num_planes = 1;
  uint64_t mtu = 4096;
  uint64_t max_streams = 16;
  int64_t dut_time_ns = 0;  // When each packet was sent (`relative frame.time`).
  int64_t ref_time_ns = 0;
  // Whether each sender had sent the packet's segment (stream, msn, offset) before
  // (`relative frame.sent_before`).
  bool dut_sent_before = false;
  bool ref_sent_before = false;
  // (DUT value, reference value) of every script variable bound in both runs: the two sides' own
  // earlier choices (connection id, nonce, ...). A field the spec determines from such a choice
  // (DISCONNECT's src_conn_id is the sender's own id) is equal when it carries the same binding.
  std::vector<std::pair<uint64_t, uint64_t>> same_binding;
};

// One field the DUT got wrong.
struct SpecDifference {
  std::string field;
  std::string expected;  // The reference's value, the constant, or the constraint term.
  std::string actual;    // The DUT's value.
  std::string rule;      // "determined", "reserved", "range 49152..65535", ...
  std::vector<std::string> clauses;
};

// Compares a MetaRoCE packet of the DUT (`dut`, as parsed) with the reference's (`ref`), skipping
// `also_free` (fields a case declares free or judges itself; "ack." frees a whole header). Fields the table has no row for are
// compared for equality and named "(no rule)". Differences in table order of `dut`'s fields.
[[nodiscard]] std::vector<SpecDifference> CompareBySpec(const wire::Frame& dut, const wire::Frame& ref,
                                                        const harness::Catalog& catalog, const SpecContext& ctx,
                                                        const std::vector<std::string>& also_free = {});

// The statement a literal pattern on `field` of `opcode` makes about a choice the spec leaves
// open: nullopt when the literal is one every conformant sender must send (given the step's other
// literal fields `given`), else why not ("ch.flags.ar of WRITE is constrained: bit; =1 if ...").
[[nodiscard]] std::optional<std::string> LiteralAssertsAChoice(const harness::Catalog& catalog, const std::string& opcode,
                                                               const std::string& field, uint64_t value,
                                                               const wire::FieldMap& given);

}  // namespace mroce::session
