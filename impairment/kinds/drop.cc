// drop: removes packets chosen by header match, by protocol state (the nth retransmission, the ACK
// of a PSN) or by time window, with skip and count (targeted_drop.h).
#include "kinds.h"
#include "mroce/impairment/targeted_drop.h"

namespace mroce::impairment::kinds {
namespace {

constexpr ParamSpec kWindowFields[] = {
    {.name = "from", .type = ParamType::kDuration, .doc = "start of the window, since the start of the run", .fallback = "0"},
    {.name = "until", .type = ParamType::kDuration, .doc = "end of the window, exclusive (default: never)"},
};

constexpr ParamSpec kParams[] = {
    {.name = "nth_retransmission", .type = ParamType::kInteger,
     .doc = "drop only the nth (1-based) matching retransmission (CH RTX set)", .range = {1, 1e6}},
    {.name = "ack_for_psn", .type = ParamType::kInteger,
     .doc = "drop the first ACK that acknowledges this PSN (epsn after it, or its SACK covers it)",
     .range = {0, 4294967295.0}},
    {.name = "skip", .type = ParamType::kInteger, .doc = "let the first `skip` candidate packets through", .fallback = "0",
     .range = {0, 1e12}},
    {.name = "count", .type = ParamType::kInteger, .doc = "drop at most this many packets (0: no limit)", .fallback = "0",
     .range = {0, 1e12}},
    {.name = "windows", .type = ParamType::kList, .doc = "drop only inside these time windows [from, until)",
     .fields = kWindowFields},
};

std::optional<ParamError> Check(const ParamSet& p) {
  const std::vector<ParamSet>& windows = p.Mappings("windows");
  for (size_t i = 0; i < windows.size(); ++i) {
    const ParamSet& w = windows[i];
    if (!w.Has("until")) continue;
    const DurationSpec& from = w.Time("from");
    const DurationSpec& until = w.Time("until");
    if (from.unit == until.unit && until.value <= from.value) {
      return ParamError{"windows[" + std::to_string(i) + "].until",
                        "'until' (" + until.ToString() + ") must be after 'from' (" + from.ToString() + ")"};
    }
  }
  return std::nullopt;
}

std::unique_ptr<Stage> Build(const StageBuild& b) {
  const ParamSet& p = b.params;
  TargetedDrop::Params tp;
  tp.match = b.match;
  if (p.Has("nth_retransmission")) tp.nth_retransmission = static_cast<uint32_t>(p.Integer("nth_retransmission"));
  if (p.Has("ack_for_psn")) tp.ack_for_psn = static_cast<uint32_t>(p.Integer("ack_for_psn"));
  tp.skip = static_cast<uint64_t>(p.Integer("skip"));
  tp.count = static_cast<uint64_t>(p.Integer("count"));
  for (const ParamSet& w : p.Mappings("windows")) {
    const Time from = Time::FromNanos(w.Time("from").ToNanoseconds(b.rtt_ns));
    const Time until = w.Has("until") ? Time::FromNanos(w.Time("until").ToNanoseconds(b.rtt_ns)) : Time::Infinite();
    tp.windows.push_back({from, until});
  }
  return std::make_unique<TargetedDrop>(b.name, tp);
}

}  // namespace

const StageKind kDrop{
    .name = "drop",
    .summary = "targeted drop: packets chosen by match, by protocol state or by time window",
    .params = kParams,
    .check = Check,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
