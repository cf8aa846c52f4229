// rate-limit: a FIFO queue serialising at a rate, drop-tail at a capacity, with an ECN marker (step
// or RED, at enqueue or dequeue) (rate_limit.h, ecn.h).
#include "kinds.h"
#include "mroce/impairment/rate_limit.h"

namespace mroce::impairment::kinds {
namespace {

constexpr std::string_view kModes[] = {"step", "red", "off"};
constexpr std::string_view kWheres[] = {"enqueue", "dequeue"};

constexpr ParamSpec kEcnFields[] = {
    {.name = "mode", .type = ParamType::kChoice, .doc = "step: mark at k; red: ramp from kmin to kmax; off",
     .fallback = "step", .choices = kModes},
    {.name = "k", .type = ParamType::kSize, .doc = "step: mark when this many bytes wait", .fallback = "0",
     .range = {0, 1e12}},
    {.name = "kmin", .type = ParamType::kSize, .doc = "red: no mark below this many bytes waiting", .fallback = "0",
     .range = {0, 1e12}},
    {.name = "kmax", .type = ParamType::kSize, .doc = "red: probability pmax at this many bytes, 1 above",
     .fallback = "0", .range = {0, 1e12}},
    {.name = "pmax", .type = ParamType::kProbability, .doc = "red: marking probability at kmax", .fallback = "0"},
    {.name = "where", .type = ParamType::kChoice,
     .doc = "enqueue: bytes waiting when the packet arrives; dequeue: behind it when it leaves", .fallback = "enqueue",
     .choices = kWheres},
};

constexpr ParamSpec kParams[] = {
    {.name = "rate", .type = ParamType::kRate, .doc = "serialisation rate, bits per second", .fallback = "100Gbps"},
    {.name = "overhead", .type = ParamType::kSize,
     .doc = "bytes added to each frame on the wire (preamble, inter-frame gap, FCS)", .fallback = "24",
     .range = {0, 1e6}},
    {.name = "capacity", .type = ParamType::kSize, .doc = "queue capacity in frame bytes, drop-tail (0: unlimited)",
     .fallback = "0", .range = {0, 1e12}},
    {.name = "ecn", .type = ParamType::kObject, .doc = "ECN marking of ECN-capable packets (default: none)",
     .fields = kEcnFields},
};

std::optional<ParamError> Check(const ParamSet& p) {
  for (const ParamSet& e : p.Mappings("ecn")) {
    if (e.Choice("mode") == "red" && e.Integer("kmax") < e.Integer("kmin")) {
      return ParamError{"ecn.kmax", "must be >= kmin (" + std::to_string(e.Integer("kmin")) + ")"};
    }
  }
  return std::nullopt;
}

std::unique_ptr<Stage> Build(const StageBuild& b) {
  const ParamSet& p = b.params;
  RateLimitStage::Params rp;
  rp.match = b.match;
  rp.rate = sim::Bandwidth::BitsPerSecond(p.Integer("rate"));
  rp.overhead_bytes = p.Integer("overhead");
  rp.capacity_bytes = p.Integer("capacity");
  for (const ParamSet& e : p.Mappings("ecn")) {
    const auto where = e.Choice("where") == "dequeue" ? EcnConfig::Where::kDequeue : EcnConfig::Where::kEnqueue;
    if (e.Choice("mode") == "step") rp.ecn = EcnConfig::Step(e.Integer("k"), where);
    else if (e.Choice("mode") == "red") rp.ecn = EcnConfig::Red(e.Integer("kmin"), e.Integer("kmax"), e.Real("pmax"), where);
  }
  return std::make_unique<RateLimitStage>(b.name, rp, b.seed);
}

}  // namespace

const StageKind kRateLimit{
    .name = "rate-limit",
    .summary = "a queue served at a rate: serialisation delay, drop-tail overflow, ECN marks",
    .params = kParams,
    .check = Check,
    .build = Build,
};

}  // namespace mroce::impairment::kinds
