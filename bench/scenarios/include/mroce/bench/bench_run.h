// BenchRun: builds a benchmark case (topology + impairments + workload) and simulates it against the
// MetaRoCE reference endpoint or the RoCEv2 baseline, timing the host work.
#pragma once

#include <cstdint>
#include <string>

#include "mroce/harness/case.h"
#include "mroce/session/session.h"

namespace mroce::bench {

// The two implementations every scenario compares.
struct Protocol {
  const char* name;  // As reported: "MetaRoCE", "RoCEv2".
  const char* dut;   // DutSpec text: "reference", "rocev2".
};
inline constexpr Protocol kMetaRoce{"MetaRoCE", "reference"};
inline constexpr Protocol kRocev2{"RoCEv2", "rocev2"};

struct BenchOptions {
  uint64_t seed = 1;
  bool quick = false;    // Reduced grid (smoke test).
  std::ostream* progress = nullptr;  // One line per simulation when set.
  // The loaded compliance suite (scenario `suite`); the CLI loads it from --suite.
  const std::vector<harness::Case>* suite_cases = nullptr;
  std::string suite_dir;
  // Its clause catalog: scripted cases are judged against the reference by its degrees-of-freedom
  // table and are an ERROR without it.
  const harness::Catalog* suite_catalog = nullptr;
};

// A case with no checks, a write workload and a generous timeout (in RTTs of `t`).
[[nodiscard]] harness::Case MakeCase(const std::string& id, const harness::Topology& t, const harness::Workload& w,
                                     double timeout_rtts);
// WRITEs of `size` bytes, `count` of them (round-robin over connections and streams).
[[nodiscard]] harness::WorkloadOp Writes(int64_t size, int64_t count);

struct Run {
  session::RunRecord rec;
  double wall_seconds = 0;
};
// Simulates `c` with the DUT `p` (its peers speak the same protocol). The DUT's periodic telemetry is
// left out (only its state size is sampled): with thousands of connections every sample would copy
// every per-connection counter. Setup errors are returned in rec.harness_error / rec.dut_error.
// `telemetry_interval_rtts`: how often the state size is sampled (SessionOptions).
[[nodiscard]] Run Simulate(const harness::Case& c, const Protocol& p, const BenchOptions& o,
                           int telemetry_interval_rtts = 1);

}  // namespace mroce::bench
