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

// The DUT's frame matched by each expect step equals the reference's, field by field, except the
// fields no two conformant implementations need agree on (BuiltinFreeFields), the step's `free`
// fields and the fields it matched with a variable (judged by the variable).
void ReferenceMatch(const CheckContext& x, std::vector<harness::CheckResult>& out);

// Fields never compared with the reference, because two conformant implementations choose them
// freely or they follow from timing rather than protocol state:
//   ip4.id ip4.checksum   per-implementation IP id; the checksum follows from it
//   ip6.flow_label        free per ENC clauses
//   udp.sport             path entropy is each implementation's choice (ENC/PATH)
//   crc                   follows from the other fields (any real difference shows elsewhere)
//   cmh.src_conn_id cmh.nonce   random per MROCE-CONN-001/002
//   ack.ack_delay         processing time, bounded by MROCE-ACK-004/ACK 8.3, not reference-equal
//   prh.tx_time           the sender's opaque clock
//   eth.padding           Ethernet padding bytes
[[nodiscard]] const std::vector<std::string>& BuiltinFreeFields();

}  // namespace mroce::session
