// Scenarios: the benchmark scenarios of `mroce-cts bench` (issue 8), each a function from options to
// a Report. Every one runs MetaRoCE (reference endpoint) and RoCEv2 (baseline) in the same
// simulated fabric, deterministic for a seed.
//
//   resilience  goodput vs random and bursty loss, relative to the lossless run
//   incast      N senders to one receiver: convergence to fair share, Jain index, peak queue
//   planes      1..8 planes with many connections: aggregate goodput vs P x one plane
//   failover    one of 4 planes blackholed mid-transfer then restored
//   scale       state per connection and simulator events per second vs connections
//   suite       the whole compliance suite N times: wall time and verdict stability
#pragma once

#include <string>
#include <vector>

#include "mroce/bench/bench_run.h"
#include "mroce/bench/report.h"

namespace mroce::bench {

[[nodiscard]] Report RunResilience(const BenchOptions& o);
[[nodiscard]] Report RunIncast(const BenchOptions& o);
[[nodiscard]] Report RunPlanes(const BenchOptions& o);
[[nodiscard]] Report RunFailover(const BenchOptions& o);
[[nodiscard]] Report RunScale(const BenchOptions& o);
[[nodiscard]] Report RunSuite(const BenchOptions& o);

struct ScenarioInfo {
  const char* name;
  const char* summary;
  Report (*run)(const BenchOptions&);
};
// In the order `bench all` runs them.
[[nodiscard]] const std::vector<ScenarioInfo>& AllScenarios();
[[nodiscard]] const ScenarioInfo* FindScenario(const std::string& name);

}  // namespace mroce::bench
