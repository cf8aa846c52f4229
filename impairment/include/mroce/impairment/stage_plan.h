// Where the stages of a configuration list go: one instance per pipeline a configuration applies to.
//
// Stages keep per-pipeline state (a loss model's Markov state, a reorder buffer), so a
// configuration becomes one instance in each pipeline, and instance names (which key the random
// streams) must differ: "<name>@plane<P>" / "<name>@<direction>" when a configuration has more than
// one instance, else "<name>", where <name> is the configuration's name or "<kind>#<index>".
//
//   simulated fabric   one pipeline per plane (Fabric::PlaneIngress): every plane, or the one that
//                      match.plane pins.
//   live bridge        one pipeline per direction (impairment/dpdk): both, or the one that
//                      match.direction pins.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mroce/sim/result.h"
#include "mroce/impairment/stage_config.h"

namespace mroce::impairment {

struct PlaneStage {
  int plane = 0;
  std::unique_ptr<Stage> stage;
};

// The instances of `config`, the `index`th of its list, for a fabric of `num_planes` planes, in
// plane order: add them to Fabric::PlaneIngress(plane), list order first. Fails only when
// match.plane pins a plane the fabric lacks (the case loader already refuses that).
[[nodiscard]] mroce::Result<std::vector<PlaneStage>> InstantiatePerPlane(const StageConfig& config, size_t index,
                                                                       int num_planes, uint64_t seed, int64_t rtt_ns);

// The instance of `config`, the `index`th of its list, for the pipeline of direction `d` of the
// live bridge; nullptr when match.direction pins the other direction.
[[nodiscard]] std::unique_ptr<Stage> InstantiateForDirection(const StageConfig& config, size_t index, Direction d,
                                                             uint64_t seed, int64_t rtt_ns);

}  // namespace mroce::impairment
