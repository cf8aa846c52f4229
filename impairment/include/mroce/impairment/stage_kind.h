// Stage kinds: one descriptor per kind of impairment stage (name, summary, parameter schema, rules
// across parameters, build), each in its own file under impairment/kinds/ like testpmd's forwarding
// engines, and the one registry listing them. The case loader, the DPDK profile loader and
// `mroce-cts validate` check configurations against it; BuildStage (stage_config.h) builds from it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mroce/impairment/stage.h"
#include "mroce/impairment/stage_params.h"

namespace mroce::impairment {

// What a kind's build function gets: a validated configuration, resolved for one instance.
struct StageBuild {
  const std::string& name;   // Instance name (keys the stage's random stream: unique per pipeline).
  const Match& match;
  const ParamSet& params;    // Validated, defaults filled.
  uint64_t seed;             // Run seed.
  int64_t rtt_ns;            // What a duration in RTTs means, nanoseconds.
  Time at;                   // Schedule start (Time::Zero() without a schedule).
  Time until;                // Schedule end (Time::Infinite() when open-ended).
  // A duration parameter of `params` in nanoseconds.
  [[nodiscard]] int64_t Ns(std::string_view duration_param) const {
    return params.Time(duration_param).ToNanoseconds(rtt_ns);
  }
};

// A rule across parameters that the schema cannot state broke: which key, and why.
struct ParamError {
  std::string key;      // Relative to params: "kmax", "windows[1].until".
  std::string message;
};

struct StageKind {
  std::string_view name;     // As written in `stage:`, e.g. "loss.bernoulli".
  std::string_view summary;  // One line.
  std::span<const ParamSpec> params;
  // Rules across parameters (given values, defaults filled); nullptr when there are none.
  std::optional<ParamError> (*check)(const ParamSet& params) = nullptr;
  // Builds one instance. Cannot fail: the parameters were validated.
  std::unique_ptr<Stage> (*build)(const StageBuild& b) = nullptr;
  // True: the schedule is the stage's own failure window (blackhole); false: the schedule gates
  // the stage (outside [at, until) packets pass untouched).
  bool schedule_is_window = false;
};

// Every kind, sorted by name.
[[nodiscard]] std::span<const StageKind* const> StageKinds();
// nullptr when no kind has this name.
[[nodiscard]] const StageKind* FindStageKind(std::string_view name);
// "blackhole, corrupt, ...": the names, for messages.
[[nodiscard]] std::string StageKindNames();

}  // namespace mroce::impairment
