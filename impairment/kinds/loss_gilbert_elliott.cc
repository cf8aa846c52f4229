// loss.gilbert-elliott: bursty loss from a two-state Markov chain, given by mean loss and mean burst
// length or by its transition and loss probabilities (loss.h).
#include "kinds.h"
#include "mroce/impairment/loss.h"

namespace mroce::impairment::kinds {
namespace {

constexpr ParamSpec kParams[] = {
    {.name = "mean_loss", .type = ParamType::kReal, .doc = "long-run loss fraction (with mean_burst; instead of p, r, k, h)",
     .range = {0, 1, false, true}},
    {.name = "mean_burst", .type = ParamType::kReal, .doc = "mean length of a loss burst, packets (with mean_loss; default 1)",
     .range = {1, 1e9}},
    {.name = "p", .type = ParamType::kProbability, .doc = "P(good -> bad) per packet (default 0)"},
    {.name = "r", .type = ParamType::kProbability, .doc = "P(bad -> good) per packet (default 1)"},
    {.name = "k", .type = ParamType::kProbability, .doc = "loss probability in the good state (default 0)"},
    {.name = "h", .type = ParamType::kProbability, .doc = "loss probability in the bad state (default 1)"},
};

std::optional<ParamError> Check(const ParamSet& p) {
  const bool mean = p.Has("mean_loss") || p.Has("mean_burst");
  if (mean && !p.Has("mean_loss")) return ParamError{"mean_burst", "goes with mean_loss"};
  for (const char* k : {"p", "r", "k", "h"}) {
    if (mean && p.Has(k)) return ParamError{k, "give mean_loss (and mean_burst) or p, r, k, h, not both"};
  }
  return std::nullopt;
}

std::unique_ptr<Stage> Build(const StageBuild& b) {
  const ParamSet& p = b.params;
  GilbertElliottLoss::Params gp;
  if (p.Has("mean_loss")) {
    gp = GilbertElliottLoss::Params::FromMeanLossAndBurst(p.Real("mean_loss"), p.Has("mean_burst") ? p.Real("mean_burst") : 1,
                                                          b.match);
  } else {
    gp.p = p.Has("p") ? p.Real("p") : 0;
    gp.r = p.Has("r") ? p.Real("r") : 1;
    gp.k = p.Has("k") ? p.Real("k") : 0;
    gp.h = p.Has("h") ? p.Real("h") : 1;
    gp.match = b.match;
  }
  return std::make_unique<GilbertElliottLoss>(b.name, gp, b.seed);
}

}  // namespace

const StageKind kLossGilbertElliott{
    .name = "loss.gilbert-elliott",
    .summary = "bursty loss: a good and a bad state (Gilbert-Elliott)",
    .params = kParams,
    .check = Check,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
