// StageFactory: declarative stage specs -> impairment stages, with errors naming kind and key.
#include "mroce/session/stage_factory.h"

#include <cmath>
#include <cstdlib>
#include <set>

#include "mroce/impairment/loss.h"
#include "mroce/impairment/rate_limit.h"
#include "mroce/impairment/stages.h"
#include "mroce/impairment/targeted_drop.h"
#include "mroce/wire/meta.h"

namespace mroce::session {
namespace {

using impairment::Duration;
using impairment::Match;
using impairment::Stage;
using impairment::Time;
using nlohmann::json;
using ref::Error;
using ref::MakeError;
using ref::Result;

Error Bad(const StageSpec& s, const std::string& key, const std::string& what) {
  return MakeError("stage.param", "impairment '" + s.kind + "' (" + s.name + "): " + key + ": " + what);
}

// Reads the keys of `obj`, rejecting keys not in `allowed`.
ref::Status CheckKeys(const StageSpec& s, const json& obj, const char* what, std::initializer_list<const char*> allowed) {
  if (obj.is_null()) return ref::OkStatus();
  if (!obj.is_object()) return Bad(s, what, "must be a mapping");
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || it.key() == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return Bad(s, std::string(what) + "." + it.key(), "unknown key (known: " + list + ")");
    }
  }
  return ref::OkStatus();
}

Result<double> Number(const StageSpec& s, const json& obj, const char* key, double def, double lo, double hi) {
  if (obj.is_null() || !obj.contains(key)) return def;
  const json& v = obj.at(key);
  if (!v.is_number()) return Bad(s, key, "must be a number, got " + v.dump());
  const double d = v.get<double>();
  if (!(d >= lo && d <= hi)) {
    return Bad(s, key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
  }
  return d;
}

Result<int64_t> DurationKey(const StageSpec& s, const json& obj, const char* key, int64_t def, int64_t rtt_ns) {
  if (obj.is_null() || !obj.contains(key)) return def;
  auto d = ParseDurationNs(obj.at(key), rtt_ns);
  if (!d.ok()) return Bad(s, key, d.error().message);
  if (d.value() < 0) return Bad(s, key, "must not be negative");
  return d.value();
}

Result<uint8_t> OpcodeValue(const json& v) {
  if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 255) return static_cast<uint8_t>(v.get<int64_t>());
  if (v.is_string()) {
    const std::string name = v.get<std::string>();
    for (int op = 0; op < 256; ++op) {
      const auto o = static_cast<wire::Opcode>(op);
      if (wire::IsKnownOpcode(o) && wire::OpcodeName(o) == name) return static_cast<uint8_t>(op);
    }
  }
  return MakeError("stage.match", "unknown opcode " + v.dump() + " (use a name such as \"WRITE\", \"ACK\" or 0..255)");
}

Result<Match> ParseMatch(const StageSpec& s) {
  Match m;
  const json& j = s.match;
  if (auto st = CheckKeys(s, j, "match", {"direction", "plane", "path", "path_id", "sport", "opcode", "stream",
                                           "stream_id", "psn", "rtx", "metaroce_only"});
      !st.ok()) {
    return st.error();
  }
  if (j.is_null()) return m;
  if (j.contains("path") && j.contains("path_id")) return Bad(s, "match.path_id", "give path or path_id, not both");
  if (j.contains("stream") && j.contains("stream_id")) return Bad(s, "match.stream_id", "give stream or stream_id, not both");
  auto uint_key = [&](const char* key, uint64_t max) -> Result<std::optional<uint64_t>> {
    if (!j.contains(key)) return std::optional<uint64_t>{};
    const json& v = j.at(key);
    // YAML integers arrive signed: accept any non-negative integer.
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<uint64_t>() > max) {
      return Bad(s, std::string("match.") + key, "must be an integer in [0, " + std::to_string(max) + "], got " + v.dump());
    }
    return std::optional<uint64_t>(v.get<uint64_t>());
  };
  if (j.contains("direction")) {
    const json& v = j.at("direction");
    const std::string d = v.is_string() ? v.get<std::string>() : "";
    if (d == "dut->peer") m.direction = impairment::Direction::kDutToPeer;
    else if (d == "peer->dut") m.direction = impairment::Direction::kPeerToDut;
    else return Bad(s, "match.direction", "must be \"dut->peer\" or \"peer->dut\", got " + v.dump());
  }
  auto plane = uint_key("plane", 7);
  if (!plane.ok()) return plane.error();
  if (plane.value().has_value()) m.plane = static_cast<uint8_t>(*plane.value());
  auto path = uint_key(j.contains("path_id") ? "path_id" : "path", 255);
  if (!path.ok()) return path.error();
  if (path.value().has_value()) m.path_id = static_cast<uint8_t>(*path.value());
  auto sport = uint_key("sport", 65535);
  if (!sport.ok()) return sport.error();
  if (sport.value().has_value()) m.sport = static_cast<uint16_t>(*sport.value());
  auto stream = uint_key(j.contains("stream_id") ? "stream_id" : "stream", 65535);
  if (!stream.ok()) return stream.error();
  if (stream.value().has_value()) m.stream_id = static_cast<uint16_t>(*stream.value());
  auto psn = uint_key("psn", 0xFFFFFFFFull);
  if (!psn.ok()) return psn.error();
  if (psn.value().has_value()) m.psn = static_cast<uint32_t>(*psn.value());
  if (j.contains("opcode")) {
    auto op = OpcodeValue(j.at("opcode"));
    if (!op.ok()) return Bad(s, "match.opcode", op.error().message);
    m.opcode = op.value();
  }
  if (j.contains("metaroce_only")) {
    if (!j.at("metaroce_only").is_boolean()) return Bad(s, "match.metaroce_only", "must be true or false");
    m.metaroce_only = j.at("metaroce_only").get<bool>();
  }
  if (j.contains("rtx")) {
    if (!j.at("rtx").is_boolean()) return Bad(s, "match.rtx", "must be true or false");
    m.rtx = j.at("rtx").get<bool>();
  }
  return m;
}

// Gates a stage by a schedule: outside [at, until) packets pass untouched.
class ScheduledStage final : public Stage {
 public:
  ScheduledStage(std::unique_ptr<Stage> inner, Time at, Time until)
      : Stage(inner->name(), Match{}), inner_(std::move(inner)), at_(at), until_(until) {}
  [[nodiscard]] impairment::Position position() const override { return inner_->position(); }
  void OnWakeup(Time now, impairment::Emitter& out) override { inner_->OnWakeup(now, out); }

 protected:
  void OnPacket(impairment::Packet&& p, Time now, impairment::Emitter& out) override {
    if (now >= at_ && now < until_) {
      inner_->Process(std::move(p), now, out);
    } else {
      Pass(std::move(p), Duration::Zero(), out);
    }
  }
  void FillStats(impairment::StageStats& s) const override {
    s = inner_->Stats();
    s.stage = name();
  }

 private:
  std::unique_ptr<Stage> inner_;
  Time at_;
  Time until_;
};

Result<impairment::Scope> ScopeKey(const StageSpec& s, const json& p) {
  if (p.is_null() || !p.contains("scope")) return impairment::Scope::kPerPath;
  const json& v = p.at("scope");
  if (v == "path") return impairment::Scope::kPerPath;
  if (v == "across") return impairment::Scope::kAcrossPaths;
  return Bad(s, "scope", "must be \"path\" or \"across\", got " + v.dump());
}

#define TRY_ASSIGN(var, expr)          \
  auto var##_r = (expr);               \
  if (!var##_r.ok()) return var##_r.error(); \
  auto var = var##_r.value()

Result<std::unique_ptr<Stage>> Build(const StageSpec& s, const Match& m, uint64_t seed, int64_t rtt_ns) {
  const json& p = s.params;
  using std::make_unique;
  if (s.kind == "loss.bernoulli") {
    if (auto st = CheckKeys(s, p, "params", {"rate"}); !st.ok()) return st.error();
    TRY_ASSIGN(rate, Number(s, p, "rate", 0, 0, 1));
    return std::unique_ptr<Stage>(make_unique<impairment::BernoulliLoss>(s.name, impairment::BernoulliLoss::Params{rate, m}, seed));
  }
  if (s.kind == "loss.gilbert-elliott") {
    if (auto st = CheckKeys(s, p, "params", {"mean_loss", "mean_burst", "p", "r", "k", "h"}); !st.ok()) return st.error();
    impairment::GilbertElliottLoss::Params gp;
    if (!p.is_null() && p.contains("mean_loss")) {
      TRY_ASSIGN(loss, Number(s, p, "mean_loss", 0, 0, 0.999999));
      TRY_ASSIGN(burst, Number(s, p, "mean_burst", 1, 1, 1e9));
      gp = impairment::GilbertElliottLoss::Params::FromMeanLossAndBurst(loss, burst, m);
    } else {
      TRY_ASSIGN(pp, Number(s, p, "p", 0, 0, 1));
      TRY_ASSIGN(r, Number(s, p, "r", 1, 0, 1));
      TRY_ASSIGN(k, Number(s, p, "k", 0, 0, 1));
      TRY_ASSIGN(h, Number(s, p, "h", 1, 0, 1));
      gp.p = pp; gp.r = r; gp.k = k; gp.h = h; gp.match = m;
    }
    return std::unique_ptr<Stage>(make_unique<impairment::GilbertElliottLoss>(s.name, gp, seed));
  }
  if (s.kind == "loss.4state") {
    if (auto st = CheckKeys(s, p, "params", {"p13", "p31", "p32", "p23", "p14"}); !st.ok()) return st.error();
    impairment::FourStateLoss::Params fp;
    TRY_ASSIGN(p13, Number(s, p, "p13", 0, 0, 1));
    TRY_ASSIGN(p31, Number(s, p, "p31", 1, 0, 1));
    TRY_ASSIGN(p32, Number(s, p, "p32", 0, 0, 1));
    TRY_ASSIGN(p23, Number(s, p, "p23", 1, 0, 1));
    TRY_ASSIGN(p14, Number(s, p, "p14", 0, 0, 1));
    fp.p13 = p13; fp.p31 = p31; fp.p32 = p32; fp.p23 = p23; fp.p14 = p14; fp.match = m;
    return std::unique_ptr<Stage>(make_unique<impairment::FourStateLoss>(s.name, fp, seed));
  }
  if (s.kind == "drop") {
    if (auto st = CheckKeys(s, p, "params", {"nth_retransmission", "ack_for_psn", "skip", "count", "windows"}); !st.ok()) {
      return st.error();
    }
    impairment::TargetedDrop::Params tp;
    tp.match = m;
    if (!p.is_null()) {
      if (p.contains("nth_retransmission")) {
        TRY_ASSIGN(n, Number(s, p, "nth_retransmission", 1, 1, 1e6));
        tp.nth_retransmission = static_cast<uint32_t>(n);
      }
      if (p.contains("ack_for_psn")) {
        TRY_ASSIGN(n, Number(s, p, "ack_for_psn", 0, 0, 4294967295.0));
        tp.ack_for_psn = static_cast<uint32_t>(n);
      }
      TRY_ASSIGN(skip, Number(s, p, "skip", 0, 0, 1e12));
      TRY_ASSIGN(count, Number(s, p, "count", 0, 0, 1e12));
      tp.skip = static_cast<uint64_t>(skip);
      tp.count = static_cast<uint64_t>(count);
      if (p.contains("windows")) {
        if (!p.at("windows").is_array()) return Bad(s, "windows", "must be a list of {from, until}");
        for (const json& w : p.at("windows")) {
          TRY_ASSIGN(from, DurationKey(s, w, "from", 0, rtt_ns));
          TRY_ASSIGN(until, DurationKey(s, w, "until", INT64_MAX, rtt_ns));
          tp.windows.push_back({Time::FromNanos(from), Time::FromNanos(until)});
        }
      }
    }
    return std::unique_ptr<Stage>(make_unique<impairment::TargetedDrop>(s.name, tp));
  }
  if (s.kind == "reorder") {
    if (auto st = CheckKeys(s, p, "params", {"k", "every", "probability", "scope", "max_hold"}); !st.ok()) return st.error();
    impairment::ReorderStage::Params rp;
    TRY_ASSIGN(k, Number(s, p, "k", 1, 1, 1e6));
    TRY_ASSIGN(every, Number(s, p, "every", 1, 1, 1e9));
    TRY_ASSIGN(prob, Number(s, p, "probability", 1, 0, 1));
    TRY_ASSIGN(scope, ScopeKey(s, p));
    TRY_ASSIGN(hold, DurationKey(s, p, "max_hold", 1'000'000, rtt_ns));
    rp.k = static_cast<uint32_t>(k);
    rp.every = static_cast<uint32_t>(every);
    rp.probability = prob;
    rp.scope = scope;
    rp.max_hold = Duration::Nanos(hold);
    rp.match = m;
    return std::unique_ptr<Stage>(make_unique<impairment::ReorderStage>(s.name, rp, seed));
  }
  if (s.kind == "duplicate") {
    if (auto st = CheckKeys(s, p, "params", {"probability", "delay", "jitter"}); !st.ok()) return st.error();
    impairment::DuplicateStage::Params dp;
    TRY_ASSIGN(prob, Number(s, p, "probability", 0, 0, 1));
    TRY_ASSIGN(delay, DurationKey(s, p, "delay", 0, rtt_ns));
    TRY_ASSIGN(jitter, DurationKey(s, p, "jitter", 0, rtt_ns));
    dp.probability = prob;
    dp.copy_delay = Duration::Nanos(delay);
    dp.copy_jitter = Duration::Nanos(jitter);
    dp.match = m;
    return std::unique_ptr<Stage>(make_unique<impairment::DuplicateStage>(s.name, dp, seed));
  }
  if (s.kind == "delay") {
    if (auto st = CheckKeys(s, p, "params", {"base", "distribution", "jitter", "pareto_shape", "order_preserving", "scope"});
        !st.ok()) {
      return st.error();
    }
    impairment::DelayStage::Params dp;
    TRY_ASSIGN(base, DurationKey(s, p, "base", 0, rtt_ns));
    TRY_ASSIGN(jitter, DurationKey(s, p, "jitter", 0, rtt_ns));
    TRY_ASSIGN(shape, Number(s, p, "pareto_shape", 2.5, 1.0001, 100));
    TRY_ASSIGN(scope, ScopeKey(s, p));
    dp.base = Duration::Nanos(base);
    dp.jitter_ns = static_cast<double>(jitter);
    dp.pareto_shape = shape;
    dp.scope = scope;
    dp.match = m;
    if (!p.is_null() && p.contains("distribution")) {
      const json& v = p.at("distribution");
      if (v == "constant") dp.distribution = impairment::DelayStage::Distribution::kConstant;
      else if (v == "uniform") dp.distribution = impairment::DelayStage::Distribution::kUniform;
      else if (v == "normal") dp.distribution = impairment::DelayStage::Distribution::kNormal;
      else if (v == "pareto") dp.distribution = impairment::DelayStage::Distribution::kPareto;
      else return Bad(s, "distribution", "must be constant, uniform, normal or pareto, got " + v.dump());
    } else if (jitter > 0) {
      dp.distribution = impairment::DelayStage::Distribution::kUniform;
    }
    if (!p.is_null() && p.contains("order_preserving")) {
      if (!p.at("order_preserving").is_boolean()) return Bad(s, "order_preserving", "must be true or false");
      dp.order_preserving = p.at("order_preserving").get<bool>();
    }
    return std::unique_ptr<Stage>(make_unique<impairment::DelayStage>(s.name, dp, seed));
  }
  if (s.kind == "corrupt") {
    if (auto st = CheckKeys(s, p, "params", {"probability"}); !st.ok()) return st.error();
    TRY_ASSIGN(prob, Number(s, p, "probability", 0, 0, 1));
    return std::unique_ptr<Stage>(make_unique<impairment::CorruptStage>(s.name, impairment::CorruptStage::Params{prob, m}, seed));
  }
  if (s.kind == "rate-limit") {
    if (auto st = CheckKeys(s, p, "params", {"rate", "overhead", "capacity", "ecn"}); !st.ok()) return st.error();
    impairment::RateLimitStage::Params rp;
    rp.match = m;
    if (!p.is_null() && p.contains("rate")) {
      auto r = ParseRateBps(p.at("rate"));
      if (!r.ok()) return Bad(s, "rate", r.error().message);
      rp.rate = sim::Bandwidth::BitsPerSecond(r.value());
    }
    TRY_ASSIGN(overhead, Number(s, p, "overhead", 24, 0, 1e6));
    TRY_ASSIGN(capacity, Number(s, p, "capacity", 0, 0, 1e12));
    rp.overhead_bytes = static_cast<sim::ByteCount>(overhead);
    rp.capacity_bytes = static_cast<sim::ByteCount>(capacity);
    if (!p.is_null() && p.contains("ecn")) {
      const json& e = p.at("ecn");
      if (auto st = CheckKeys(s, e, "ecn", {"mode", "k", "kmin", "kmax", "pmax", "where"}); !st.ok()) return st.error();
      const std::string mode = e.value("mode", std::string("step"));
      TRY_ASSIGN(k, Number(s, e, "k", 0, 0, 1e12));
      TRY_ASSIGN(kmin, Number(s, e, "kmin", 0, 0, 1e12));
      TRY_ASSIGN(kmax, Number(s, e, "kmax", 0, 0, 1e12));
      TRY_ASSIGN(pmax, Number(s, e, "pmax", 0, 0, 1));
      const std::string where = e.value("where", std::string("enqueue"));
      const auto w = where == "dequeue" ? impairment::EcnConfig::Where::kDequeue : impairment::EcnConfig::Where::kEnqueue;
      if (where != "enqueue" && where != "dequeue") return Bad(s, "ecn.where", "must be enqueue or dequeue");
      if (mode == "step") rp.ecn = impairment::EcnConfig::Step(static_cast<sim::ByteCount>(k), w);
      else if (mode == "red") {
        if (kmax < kmin) return Bad(s, "ecn.kmax", "must be >= kmin");
        rp.ecn = impairment::EcnConfig::Red(static_cast<sim::ByteCount>(kmin), static_cast<sim::ByteCount>(kmax), pmax, w);
      } else if (mode != "off") {
        return Bad(s, "ecn.mode", "must be step, red or off, got \"" + mode + "\"");
      }
    }
    return std::unique_ptr<Stage>(make_unique<impairment::RateLimitStage>(s.name, rp, seed));
  }
  if (s.kind == "blackhole") {
    if (auto st = CheckKeys(s, p, "params", {"recovery"}); !st.ok()) return st.error();
    TRY_ASSIGN(recovery, DurationKey(s, p, "recovery", 0, rtt_ns));
    impairment::BlackholeStage::Params bp;
    bp.match = m;
    impairment::BlackholeStage::Failure f;
    f.fail_at = Time::FromNanos(s.at_ns.value_or(0));
    f.restore_at = s.until_ns ? Time::FromNanos(*s.until_ns) : Time::Infinite();
    f.recovery = Duration::Nanos(recovery);
    bp.schedule.push_back(f);
    return std::unique_ptr<Stage>(make_unique<impairment::BlackholeStage>(s.name, bp, seed));
  }
  std::string known;
  for (const auto& k : StageKinds()) known += (known.empty() ? "" : ", ") + k;
  return MakeError("stage.kind", "unknown impairment stage '" + s.kind + "' (known: " + known + ")");
}

}  // namespace

const std::vector<std::string>& StageKinds() {
  static const std::vector<std::string> kinds = {"blackhole", "corrupt", "delay", "drop", "duplicate",
                                                 "loss.4state", "loss.bernoulli", "loss.gilbert-elliott",
                                                 "rate-limit", "reorder"};
  return kinds;
}

Result<int64_t> ParseDurationNs(const json& v, int64_t rtt_ns) {
  if (v.is_number()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return MakeError("duration", "not a finite number: " + v.dump());
    return static_cast<int64_t>(std::llround(d));
  }
  if (!v.is_string()) return MakeError("duration", "expected a duration like \"2us\" or \"3rtt\", got " + v.dump());
  const std::string t = v.get<std::string>();
  char* end = nullptr;
  const double num = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !std::isfinite(num)) {
    return MakeError("duration", "expected a duration like \"2us\" or \"3rtt\", got \"" + t + "\"");
  }
  const std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else if (unit == "rtt" || unit == "rtts") scale = static_cast<double>(rtt_ns);
  else return MakeError("duration", "unknown unit '" + unit + "' in \"" + t + "\" (ns, us, ms, s, rtt)");
  return static_cast<int64_t>(std::llround(num * scale));
}

Result<int64_t> ParseRateBps(const json& v) {
  if (v.is_number()) return static_cast<int64_t>(std::llround(v.get<double>()));
  if (!v.is_string()) return MakeError("rate", "expected a rate like \"100Gbps\", got " + v.dump());
  const std::string t = v.get<std::string>();
  char* end = nullptr;
  const double num = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !(num > 0)) return MakeError("rate", "expected a positive rate like \"100Gbps\", got \"" + t + "\"");
  const std::string unit(end);
  double scale = 0;
  if (unit == "bps" || unit == "b/s" || unit.empty()) scale = 1;
  else if (unit == "Kbps" || unit == "kbps" || unit == "Kb/s") scale = 1e3;
  else if (unit == "Mbps" || unit == "Mb/s") scale = 1e6;
  else if (unit == "Gbps" || unit == "Gb/s") scale = 1e9;
  else if (unit == "Tbps" || unit == "Tb/s") scale = 1e12;
  else return MakeError("rate", "unknown unit '" + unit + "' in \"" + t + "\" (bps, Kbps, Mbps, Gbps, Tbps)");
  return static_cast<int64_t>(std::llround(num * scale));
}

Result<std::unique_ptr<Stage>> MakeStage(const StageSpec& spec, uint64_t run_seed, int64_t rtt_ns) {
  auto m = ParseMatch(spec);
  if (!m.ok()) return m.error();
  auto stage = Build(spec, m.value(), run_seed, rtt_ns);
  if (!stage.ok()) return stage.error();
  if (spec.kind == "blackhole" || (!spec.at_ns && !spec.until_ns)) return stage;
  const Time at = Time::FromNanos(spec.at_ns.value_or(0));
  const Time until = spec.until_ns ? Time::FromNanos(*spec.until_ns) : Time::Infinite();
  return std::unique_ptr<Stage>(std::make_unique<ScheduledStage>(std::move(stage).value(), at, until));
}

}  // namespace mroce::session
