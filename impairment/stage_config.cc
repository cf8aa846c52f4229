// Stage configurations: validation shared by the YAML reader and code, and building (stage_config.h).
#include "mroce/impairment/stage_config.h"

#include <cassert>

namespace mroce::impairment {
namespace {


// Gates a stage by a schedule: outside [at, until) packets pass untouched.
class ScheduledStage final : public Stage {
 public:
  ScheduledStage(std::unique_ptr<Stage> inner, Time at, Time until)
      : Stage(inner->name(), Match{}), inner_(std::move(inner)), at_(at), until_(until) {}
  [[nodiscard]] Position position() const override { return inner_->position(); }
  void OnWakeup(Time now, Emitter& out) override { inner_->OnWakeup(now, out); }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override {
    if (now >= at_ && now < until_) {
      inner_->Process(std::move(p), now, out);
    } else {
      Pass(std::move(p), Duration::Zero(), out);
    }
  }
  void FillStats(StageStats& s) const override {
    s = inner_->Stats();
    s.stage = name();
  }

 private:
  std::unique_ptr<Stage> inner_;
  Time at_;
  Time until_;
};

}  // namespace

std::optional<ParamError> FinishParams(const StageKind& kind, ParamSet* params) {
  FillDefaults(kind.params, params);
  if (kind.check == nullptr) return std::nullopt;
  return kind.check(*params);
}

std::optional<std::string> CheckSchedule(const StageSchedule& s) {
  if (s.until && s.until->unit == s.at.unit && s.until->value <= s.at.value) {
    return "'until' (" + s.until->ToString() + ") must be after 'at' (" + s.at.ToString() + ")";
  }
  return std::nullopt;
}

mroce::Result<StageConfig> MakeStageConfig(std::string_view kind, std::string name, Match match,
                                         std::vector<std::pair<std::string_view, ParamScalar>> params,
                                         std::optional<StageSchedule> schedule) {
  StageConfig c;
  c.kind = FindStageKind(kind);
  if (c.kind == nullptr) {
    return MakeError("stage.kind", "unknown impairment stage '" + std::string(kind) + "' (known: " + StageKindNames() + ")");
  }
  c.name = std::move(name);
  c.match = match;
  for (auto& [key, value] : params) {
    const ParamSpec* spec = FindParam(c.kind->params, key);
    if (spec == nullptr) {
      return MakeError("stage.param", "params." + std::string(key) + ": unknown key '" + std::string(key) + "' (expected one of: " +
                                          ParamNames(c.kind->params) + ")");
    }
    auto v = CheckParam(*spec, std::move(value));
    if (!v.ok()) return MakeError("stage.param", "params." + std::string(key) + ": " + v.error().message);
    c.params.Set(key, std::move(v).value());
  }
  if (auto e = FinishParams(*c.kind, &c.params)) return MakeError("stage.param", "params." + e->key + ": " + e->message);
  if (schedule) {
    if (auto e = CheckSchedule(*schedule)) return MakeError("stage.schedule", "schedule.until: " + *e);
  }
  c.schedule = std::move(schedule);
  return c;
}

std::string InstanceName(const StageConfig& config, size_t index) {
  if (!config.name.empty()) return config.name;
  return std::string(config.kind->name) + "#" + std::to_string(index);
}

std::unique_ptr<Stage> BuildStage(const StageConfig& config, const std::string& name, uint64_t seed, int64_t rtt_ns) {
  assert(config.kind != nullptr && config.kind->build != nullptr);
  const Time at = config.schedule ? Time::FromNanos(config.schedule->at.ToNanoseconds(rtt_ns)) : Time::Zero();
  const Time until = config.schedule && config.schedule->until
                         ? Time::FromNanos(config.schedule->until->ToNanoseconds(rtt_ns))
                         : Time::Infinite();
  const StageBuild b{name, config.match, config.params, seed, rtt_ns, at, until};
  std::unique_ptr<Stage> stage = config.kind->build(b);
  if (config.kind->schedule_is_window || !config.schedule) return stage;
  return std::make_unique<ScheduledStage>(std::move(stage), at, until);
}

}  // namespace mroce::impairment
