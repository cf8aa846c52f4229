// StageFactory: builds impairment stages from their declarative form (kind + match + params +
// schedule), as written in case files and impairment profiles.
//
// Kinds and parameters (durations are numbers of ns or strings "500ns", "2us", "1ms", "3rtt"):
//   loss.bernoulli        rate (0..1)
//   loss.gilbert-elliott  mean_loss (0..1) and mean_burst (packets >= 1), or p, r [, k, h]
//   loss.4state           p13, p31, p32, p23, p14
//   drop                  nth_retransmission, ack_for_psn, skip, count, windows [{from, until}]
//   reorder               k (packets), every, probability, scope (path|across), max_hold
//   duplicate             probability, delay, jitter
//   delay                 base, distribution (constant|uniform|normal|pareto), jitter, pareto_shape,
//                         order_preserving, scope
//   corrupt               probability
//   rate-limit            rate ("10Gbps"), overhead (B), capacity (B), ecn {mode step|red|off, k,
//                         kmin, kmax, pmax, where enqueue|dequeue}
//   blackhole             recovery (gradual: loss ramps from 100% to 0 over it after `until`)
// Match keys: direction (dut->peer|peer->dut), plane, path, sport, opcode (name or number), stream,
// psn, rtx. A schedule {at, until} gates any stage (blackhole: fail at `at`, restore at `until`).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mroce/endpoint/types.h"
#include "mroce/impairment/stage.h"

namespace mroce::session {

struct StageSpec {
  std::string kind;
  std::string name;         // Instance name (stats, fate logs).
  nlohmann::json match;     // Object or null.
  nlohmann::json params;    // Object or null.
  std::optional<int64_t> at_ns;     // Schedule start.
  std::optional<int64_t> until_ns;  // Schedule end.
};

// Parses "2us", "3rtt", "1.5ms", "100" (ns) or a JSON number (ns). Errors name the text.
[[nodiscard]] ref::Result<int64_t> ParseDurationNs(const nlohmann::json& v, int64_t rtt_ns);
// Parses "100Gbps", "25Gb/s", "400Mbps" or a number of bits per second.
[[nodiscard]] ref::Result<int64_t> ParseRateBps(const nlohmann::json& v);

// Builds the stage. `rtt_ns` resolves durations in RTTs. Errors name the kind and the key.
[[nodiscard]] ref::Result<std::unique_ptr<impairment::Stage>> MakeStage(const StageSpec& spec,
                                                                      uint64_t run_seed, int64_t rtt_ns);
// The kinds MakeStage knows.
[[nodiscard]] const std::vector<std::string>& StageKinds();

}  // namespace mroce::session
