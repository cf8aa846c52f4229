// blackhole: a failed path or plane. Drops every matching packet from the schedule's `at` until
// its `until`, then, with a recovery time, drops with a probability falling linearly from 1 to 0
// over it (stages.h).
#include "kinds.h"
#include "mroce/impairment/stages.h"

namespace mroce::impairment::kinds {
namespace {

constexpr ParamSpec kParams[] = {
    {.name = "recovery", .type = ParamType::kDuration,
     .doc = "after `until`, loss falls linearly from 100% to 0 over this long", .fallback = "0"},
    {.name = "link_down", .type = ParamType::kBool,
     .doc = "the plane's links go down for [at, until) and every attached device is told (MROCE-PATH-013); "
            "needs a match on the plane alone",
     .fallback = "false"},
};

std::unique_ptr<Stage> Build(const StageBuild& b) {
  BlackholeStage::Params bp;
  bp.match = b.match;
  BlackholeStage::Failure f;
  f.fail_at = b.at;
  f.restore_at = b.until;
  f.recovery = Duration::Nanos(b.Ns("recovery"));
  bp.schedule.push_back(f);
  return std::make_unique<BlackholeStage>(b.name, bp, b.seed);
}

}  // namespace

const StageKind kBlackhole{
    .name = "blackhole",
    .summary = "a failed path or plane: everything matching is lost in the schedule's window [at, until)",
    .params = kParams,
    .build = Build,
    .schedule_is_window = true,
};

}  // namespace mroce::impairment::kinds
