// loss.4state: netem's 4-state Markov loss model (loss.h).
#include "kinds.h"
#include "mroce/impairment/loss.h"

namespace mroce::impairment::kinds {
namespace {

constexpr ParamSpec kParams[] = {
    {.name = "p13", .type = ParamType::kProbability, .doc = "P(received in gap -> lost in burst)", .fallback = "0"},
    {.name = "p31", .type = ParamType::kProbability, .doc = "P(lost in burst -> received in gap)", .fallback = "1"},
    {.name = "p32", .type = ParamType::kProbability, .doc = "P(lost in burst -> received in burst)", .fallback = "0"},
    {.name = "p23", .type = ParamType::kProbability, .doc = "P(received in burst -> lost in burst)", .fallback = "1"},
    {.name = "p14", .type = ParamType::kProbability, .doc = "P(received in gap -> isolated loss)", .fallback = "0"},
};

// The transitions out of one state are exclusive: their probabilities add up to at most 1.
std::optional<ParamError> Check(const ParamSet& p) {
  if (p.Real("p13") + p.Real("p14") > 1) return ParamError{"p14", "p13 + p14 must not exceed 1"};
  if (p.Real("p31") + p.Real("p32") > 1) return ParamError{"p32", "p31 + p32 must not exceed 1"};
  return std::nullopt;
}

std::unique_ptr<Stage> Build(const StageBuild& b) {
  const ParamSet& p = b.params;
  FourStateLoss::Params fp;
  fp.p13 = p.Real("p13");
  fp.p31 = p.Real("p31");
  fp.p32 = p.Real("p32");
  fp.p23 = p.Real("p23");
  fp.p14 = p.Real("p14");
  fp.match = b.match;
  return std::make_unique<FourStateLoss>(b.name, fp, b.seed);
}

}  // namespace

const StageKind kLoss4State{
    .name = "loss.4state",
    .summary = "bursty loss: netem's 4-state Markov model (gap, burst, burst loss, isolated loss)",
    .params = kParams,
    .check = Check,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
