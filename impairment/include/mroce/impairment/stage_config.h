// A stage configuration: one `impairments:` item of a case or profile (kind, name, match, params,
// schedule) after validation against its StageKind, and the stages built from it.
//
// Configurations come from YAML (stage_yaml.h, with line and column in every error) or from code
// (MakeStageConfig). Either way they are validated once; BuildStage and the instantiation
// functions cannot fail on a parameter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mroce/sim/result.h"
#include "mroce/impairment/quantity.h"
#include "mroce/impairment/stage.h"
#include "mroce/impairment/stage_kind.h"
#include "mroce/impairment/stage_params.h"

namespace mroce::impairment {

// When a stage is active; without a schedule it is active for the whole run. Times count from the
// start of the run (or of the live bridge).
struct StageSchedule {
  DurationSpec at;                     // Becomes active.
  std::optional<DurationSpec> until;   // Becomes inactive (open-ended when absent).
  bool operator==(const StageSchedule&) const = default;
};

struct StageConfig {
  const StageKind* kind = nullptr;   // From the registry (stage_kind.h).
  std::string name;                  // Instance name; "<kind>#<index in its list>" when empty.
  Match match;
  ParamSet params;                   // Validated against kind->params, defaults filled.
  std::optional<StageSchedule> schedule;
  bool operator==(const StageConfig&) const = default;
};

// Checks what the schema of each parameter cannot: the kind's rules across parameters. Fills the
// defaults of `params` first. Used by the YAML reader and MakeStageConfig.
[[nodiscard]] std::optional<ParamError> FinishParams(const StageKind& kind, ParamSet* params);
// "'until' (2rtt) must be after 'at' (5rtt)" when the schedule is empty, else nullopt.
[[nodiscard]] std::optional<std::string> CheckSchedule(const StageSchedule& s);

// A configuration written in code (benchmarks, tests): scalar parameters by name, checked like a
// YAML one (unknown kind or parameter, type, range, rules across parameters); the error names the
// key. Parameters that are mappings or lists (rate-limit's ecn, drop's windows) need YAML.
[[nodiscard]] mroce::Result<StageConfig> MakeStageConfig(
    std::string_view kind, std::string name, Match match = {},
    std::vector<std::pair<std::string_view, ParamScalar>> params = {},
    std::optional<StageSchedule> schedule = std::nullopt);

// The instance name of the `index`th configuration of a list: its name, or "<kind>#<index>".
[[nodiscard]] std::string InstanceName(const StageConfig& config, size_t index);

// Builds one stage named `name`; `rtt_ns` gives durations in RTTs (parameters and schedule) their
// length. A schedule gates the stage unless the kind takes it as its own window (blackhole).
[[nodiscard]] std::unique_ptr<Stage> BuildStage(const StageConfig& config, const std::string& name, uint64_t seed,
                                                int64_t rtt_ns);

}  // namespace mroce::impairment
