// The keys of a stage's `match:`: one set for every stage kind, each filling one field of Match.
//
//   direction      dut->peer | peer->dut
//   plane          0..7
//   path           0..255, the MetaRoCE CH.path_id
//   sport          0..65535, the UDP source port (a path's entropy)
//   opcode         a MetaRoCE opcode name (WRITE, ACK, ...) or number 0..255
//   stream         0..65535, the MEH.stream_id (data opcodes only)
//   psn            0..4294967295, the CH.psn
//   rtx            true | false, the CH RTX flag
//   metaroce_only  true | false, only MetaRoCE packets
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "mroce/sim/result.h"
#include "mroce/impairment/stage.h"

namespace mroce::impairment {

struct MatchKeySpec {
  std::string_view name;
  std::string_view values;  // What may be written: "0..7", "dut->peer | peer->dut".
  std::string_view doc;     // One line.
};
[[nodiscard]] std::span<const MatchKeySpec> MatchKeys();
// "direction, plane, ...": the names, for messages.
[[nodiscard]] std::string MatchKeyNames();

// Sets the field of *match that `key` names from its written form (`quoted`: a quoted YAML string,
// so no number or boolean). The error names the accepted values and quotes the text; an unknown key
// is an error naming the known ones.
[[nodiscard]] mroce::Status SetMatchKey(std::string_view key, std::string_view text, bool quoted, Match* match);

}  // namespace mroce::impairment
