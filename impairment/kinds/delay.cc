// delay: a base delay plus random jitter (uniform, normal or Pareto), optionally order-preserving
// (stages.h).
#include "kinds.h"
#include "mroce/impairment/stages.h"

namespace mroce::impairment::kinds {
namespace {

constexpr std::string_view kDistributions[] = {"constant", "uniform", "normal", "pareto"};
constexpr std::string_view kScopes[] = {"path", "across"};

constexpr ParamSpec kParams[] = {
    {.name = "base", .type = ParamType::kDuration, .doc = "delay of every matching packet", .fallback = "0"},
    {.name = "distribution", .type = ParamType::kChoice,
     .doc = "of the jitter (default: uniform when jitter > 0, else constant)", .choices = kDistributions},
    {.name = "jitter", .type = ParamType::kDuration,
     .doc = "uniform: width; normal: standard deviation (truncated at 0); pareto: scale", .fallback = "0"},
    {.name = "pareto_shape", .type = ParamType::kReal, .doc = "shape of the Pareto jitter", .fallback = "2.5",
     .range = {1, 100, true, false}},
    {.name = "order_preserving", .type = ParamType::kBool,
     .doc = "no packet overtakes an earlier one of its scope (else jitter reorders)", .fallback = "false"},
    {.name = "scope", .type = ParamType::kChoice, .doc = "of order_preserving: path or across (all paths)",
     .fallback = "path", .choices = kScopes},
};

std::unique_ptr<Stage> Build(const StageBuild& b) {
  const ParamSet& p = b.params;
  DelayStage::Params dp;
  dp.base = Duration::Nanos(b.Ns("base"));
  const int64_t jitter_ns = b.Ns("jitter");
  dp.jitter_ns = static_cast<double>(jitter_ns);
  dp.pareto_shape = p.Real("pareto_shape");
  dp.scope = p.Choice("scope") == "across" ? Scope::kAcrossPaths : Scope::kPerPath;
  dp.order_preserving = p.Bool("order_preserving");
  dp.match = b.match;
  const std::string distribution = p.Has("distribution") ? p.Choice("distribution") : jitter_ns > 0 ? "uniform" : "constant";
  if (distribution == "uniform") dp.distribution = DelayStage::Distribution::kUniform;
  else if (distribution == "normal") dp.distribution = DelayStage::Distribution::kNormal;
  else if (distribution == "pareto") dp.distribution = DelayStage::Distribution::kPareto;
  else dp.distribution = DelayStage::Distribution::kConstant;
  return std::make_unique<DelayStage>(b.name, dp, b.seed);
}

}  // namespace

const StageKind kDelay{
    .name = "delay",
    .summary = "delay: a base delay plus random jitter (which reorders unless order_preserving)",
    .params = kParams,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
