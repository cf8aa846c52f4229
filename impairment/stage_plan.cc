// One stage instance per pipeline a configuration applies to (stage_plan.h).
#include "mroce/impairment/stage_plan.h"

namespace mroce::impairment {

mroce::Result<std::vector<PlaneStage>> InstantiatePerPlane(const StageConfig& config, size_t index, int num_planes,
                                                         uint64_t seed, int64_t rtt_ns) {
  std::vector<int> planes;
  if (config.match.plane) {
    const int p = *config.match.plane;
    if (p >= num_planes) {
      return mroce::MakeError("stage.plane", "impairment '" + std::string(config.kind->name) + "' matches plane " +
                                               std::to_string(p) + " but the topology has " + std::to_string(num_planes) +
                                               " plane(s)");
    }
    planes.push_back(p);
  } else {
    for (int p = 0; p < num_planes; ++p) planes.push_back(p);
  }
  const std::string base = InstanceName(config, index);
  std::vector<PlaneStage> out;
  for (int p : planes) {
    const std::string name = planes.size() > 1 ? base + "@plane" + std::to_string(p) : base;
    out.push_back({p, BuildStage(config, name, seed, rtt_ns)});
  }
  return out;
}

std::unique_ptr<Stage> InstantiateForDirection(const StageConfig& config, size_t index, Direction d, uint64_t seed,
                                               int64_t rtt_ns) {
  const std::string base = InstanceName(config, index);
  if (config.match.direction) {
    if (*config.match.direction != d) return nullptr;
    return BuildStage(config, base, seed, rtt_ns);
  }
  return BuildStage(config, base + "@" + DirectionName(d), seed, rtt_ns);
}

}  // namespace mroce::impairment
