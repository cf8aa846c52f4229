// duplicate: sends a copy of chosen packets, after an optional delay (a long one makes a stale
// packet) (stages.h).
#include "kinds.h"
#include "mroce/impairment/stages.h"

namespace mroce::impairment::kinds {
namespace {

constexpr ParamSpec kParams[] = {
    {.name = "probability", .type = ParamType::kProbability, .doc = "probability that a matching packet is duplicated",
     .fallback = "0"},
    {.name = "delay", .type = ParamType::kDuration, .doc = "the copy follows the original after this long", .fallback = "0"},
    {.name = "jitter", .type = ParamType::kDuration, .doc = "plus a uniform random extra delay in [0, jitter)",
     .fallback = "0"},
};

std::unique_ptr<Stage> Build(const StageBuild& b) {
  DuplicateStage::Params dp;
  dp.probability = b.params.Real("probability");
  dp.copy_delay = Duration::Nanos(b.Ns("delay"));
  dp.copy_jitter = Duration::Nanos(b.Ns("jitter"));
  dp.match = b.match;
  return std::make_unique<DuplicateStage>(b.name, dp, b.seed);
}

}  // namespace

const StageKind kDuplicate{
    .name = "duplicate",
    .summary = "duplication: a copy of chosen packets follows them (a late one is a stale packet)",
    .params = kParams,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
