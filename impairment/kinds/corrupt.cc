// corrupt: flips one bit in the MetaRoCE part of a matching packet, so that its CRC check fails
// (stages.h).
#include "kinds.h"
#include "mroce/impairment/stages.h"

namespace mroce::impairment::kinds {
namespace {

constexpr ParamSpec kParams[] = {
    {.name = "probability", .type = ParamType::kProbability, .doc = "probability that a matching packet is corrupted",
     .fallback = "0"},
};

std::unique_ptr<Stage> Build(const StageBuild& b) {
  return std::make_unique<CorruptStage>(b.name, CorruptStage::Params{b.params.Real("probability"), b.match}, b.seed);
}

}  // namespace

const StageKind kCorrupt{
    .name = "corrupt",
    .summary = "flips one bit in the MetaRoCE part of a packet (its CRC check then fails)",
    .params = kParams,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
