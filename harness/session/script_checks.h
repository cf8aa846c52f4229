// The checks that judge a scripted case (registered in checks.cc): its steps, and the comparison of
// the DUT's frames with the reference endpoint's run of the same script.
#pragma once

#include <string>
#include <vector>

#include "mroce/session/checks.h"

namespace mroce::session {

// One result per expect step ("expect@file:line": matched in its window, or not, with the closest
// candidate's dump and first mismatching field) and one per refused DUT control call
// ("dut-control@file:line"); steps after the first failure are inconclusive (not run).
void ScriptSteps(const CheckContext& x, std::vector<harness::CheckResult>& out);

// The DUT's frame matched by each expect step is spec-equivalent to the reference's frame for the
// same step (spec_equivalence.h: the degrees-of-freedom table of the catalog decides field by
// field), except the step's `free` fields and the fields it matched with a variable (judged by the
// variable). A RoCEv2 frame, which the table does not cover, must equal the reference's except the
// fields BuiltinRoceFreeFields() names.
void ReferenceMatch(const CheckContext& x, std::vector<harness::CheckResult>& out);

// RoCEv2 fields two conformant senders choose freely or that follow from timing:
//   ip4.id ip4.checksum ip6.flow_label   per-implementation IP id; the checksum follows from it
//   udp.sport                           the sender's entropy
//   icrc                                follows from the other fields
//   eth.padding                         Ethernet padding bytes
[[nodiscard]] const std::vector<std::string>& BuiltinRoceFreeFields();

}  // namespace mroce::session
