// Impairment profiles for the live bridge: a YAML file whose top level has `impairments:` (exactly
// the item syntax of a case's `impairments:` list, see harness/loader) and optional `rtt:`; stages
// are built by session::MakeStage, so a profile item means what the same item means in a case.
#pragma once

#include <cstdint>
#include <string>

#include "mroce/harness/case_loader.h"
#include "mroce/impairment/pipeline.h"

namespace mroce::impairment::dpdk {

// Loads and validates a profile (stage kinds checked against MakeStage's). On failure returns false
// and *error holds one "file:line:col: key: message" per line.
[[nodiscard]] bool LoadProfile(const std::string& path, harness::ImpairmentProfile* out, std::string* error);
[[nodiscard]] bool LoadProfileString(const std::string& yaml, const std::string& file_name,
                                     harness::ImpairmentProfile* out, std::string* error);

// Adds the profile's stages for direction `d` to `pipeline`. An item whose match pins a direction
// is built only for that direction; any other item gets one instance per direction, named
// "<name>@dut->peer" / "<name>@peer->dut" (names key the RNG streams, so they must be unique).
// Schedules (at/until) are times since the start of the run. On failure returns false and *error
// names the item's file:line and the key.
[[nodiscard]] bool AddProfileStages(const harness::ImpairmentProfile& profile, Direction d, uint64_t seed,
                                    Pipeline* pipeline, std::string* error);

}  // namespace mroce::impairment::dpdk
