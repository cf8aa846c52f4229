// reorder: holds chosen packets back by k packets of their path (or of all paths), releasing them
// after max_hold at the latest (stages.h).
#include "kinds.h"
#include "mroce/impairment/stages.h"

namespace mroce::impairment::kinds {
namespace {

constexpr std::string_view kScopes[] = {"path", "across"};

constexpr ParamSpec kParams[] = {
    {.name = "k", .type = ParamType::kInteger, .doc = "displacement: a held packet leaves after k later packets",
     .fallback = "1", .range = {1, 1e6}},
    {.name = "every", .type = ParamType::kInteger, .doc = "hold every nth candidate packet (1: each)", .fallback = "1",
     .range = {1, 1e9}},
    {.name = "probability", .type = ParamType::kProbability, .doc = "... and then with this probability",
     .fallback = "1"},
    {.name = "scope", .type = ParamType::kChoice,
     .doc = "path: count packets of the same path (direction, plane, UDP source port); across: of all",
     .fallback = "path", .choices = kScopes},
    {.name = "max_hold", .type = ParamType::kDuration, .doc = "a held packet leaves after this long at the latest",
     .fallback = "1ms"},
};

std::unique_ptr<Stage> Build(const StageBuild& b) {
  const ParamSet& p = b.params;
  ReorderStage::Params rp;
  rp.k = static_cast<uint32_t>(p.Integer("k"));
  rp.every = static_cast<uint32_t>(p.Integer("every"));
  rp.probability = p.Real("probability");
  rp.scope = p.Choice("scope") == "across" ? Scope::kAcrossPaths : Scope::kPerPath;
  rp.max_hold = Duration::Nanos(b.Ns("max_hold"));
  rp.match = b.match;
  return std::make_unique<ReorderStage>(b.name, rp, b.seed);
}

}  // namespace

const StageKind kReorder{
    .name = "reorder",
    .summary = "reordering: chosen packets are overtaken by the next k packets",
    .params = kParams,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
