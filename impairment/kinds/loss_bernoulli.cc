// loss.bernoulli: drops each matching packet independently with probability `rate` (loss.h).
#include "kinds.h"
#include "mroce/impairment/loss.h"

namespace mroce::impairment::kinds {
namespace {

constexpr ParamSpec kParams[] = {
    {.name = "rate", .type = ParamType::kProbability, .doc = "probability that a matching packet is dropped", .fallback = "0"},
};

std::unique_ptr<Stage> Build(const StageBuild& b) {
  return std::make_unique<BernoulliLoss>(b.name, BernoulliLoss::Params{b.params.Real("rate"), b.match}, b.seed);
}

}  // namespace

const StageKind kLossBernoulli{
    .name = "loss.bernoulli",
    .summary = "random loss: each matching packet is dropped independently",
    .params = kParams,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
