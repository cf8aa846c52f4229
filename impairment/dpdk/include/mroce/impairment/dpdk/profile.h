// Impairment profiles for the live bridge (`mroce-cts impair --profile`): a YAML file whose top
// level has `impairments:`, a list with exactly the item syntax of a case's `impairments:` (read by
// impairment/stage_yaml.h, as the case loader reads a case's), and optional `rtt:` (a duration with
// a time unit: what 3rtt means; default 10us, as for a case). Every mistake is reported at load with
// file:line:col and the key, so that building the stages cannot fail.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mroce/sim/result.h"
#include "mroce/impairment/pipeline.h"
#include "mroce/impairment/quantity.h"
#include "mroce/impairment/stage_config.h"

namespace mroce::impairment::dpdk {

struct ImpairmentProfile {
  std::vector<StageConfig> impairments;
  int64_t rtt_ns = kDefaultRttNs;  // What a duration in RTTs means, nanoseconds.
};

// Loads and validates a profile. The error holds one "file:line:col: key: message" per line.
[[nodiscard]] mroce::Result<ImpairmentProfile> LoadProfile(const std::string& path);
// `file_name` is used in messages only.
[[nodiscard]] mroce::Result<ImpairmentProfile> LoadProfileString(std::string_view yaml, const std::string& file_name);

// Adds the profile's stages for direction `d` to `pipeline` (stage_plan.h): an item whose match
// pins a direction is built only for that direction under its own name; any other item gets one
// instance per direction, named "<name>@dut->peer" / "<name>@peer->dut" (names key the random
// streams, so they must be unique). Schedules (at/until) are times since the start of the run.
void AddProfileStages(const ImpairmentProfile& profile, Direction d, uint64_t seed, Pipeline* pipeline);

}  // namespace mroce::impairment::dpdk
