// planes: P parallel planes (each host has one 100 Gb/s NIC port per plane) carrying many concurrent
// connections from the DUT to one peer; aggregate goodput relative to P times the one-plane goodput.
//
//   host 0 (DUT) ══ P NIC ports ══ P planes (leaf ── 4 spines ── leaf) ══ P NIC ports ══ host 1
#include "mroce/bench/metrics.h"
#include "mroce/bench/scenarios.h"

namespace mroce::bench {
namespace {

constexpr int64_t kMessage = 32 * 1024;  // 8 MTU frames: one per path of the 8, so every plane of 8 can carry some

harness::Case PlanesCase(int planes, int connections) {
  harness::Topology t;
  t.planes = planes;
  t.spines = 4;
  t.paths = 8;
  harness::Workload w;
  w.direction = harness::Direction::kDutToPeer;
  w.connections = connections;
  w.ops = {Writes(kMessage, connections)};  // one message per connection, all posted at once
  // Connections are set up one after the other (about 2 RTTs each) before the workload starts.
  return MakeCase("bench.planes." + std::to_string(planes), t, w, 4.0 * connections + 20000);
}

}  // namespace

Report RunPlanes(const BenchOptions& o) {
  Report r;
  r.scenario = "planes";
  const std::vector<int> grid = o.quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 4, 8};
  const int connections = o.quick ? 400 : 4000;
  r.params = {{"seed", o.seed}, {"quick", o.quick}, {"planes", grid}, {"connections", connections},
              {"paths_per_connection", 8}, {"spines_per_plane", 4}, {"link_gbps_per_plane", 100},
              {"rtt_us", 10}, {"mtu", 4096}, {"message_bytes", kMessage},
              {"total_bytes", kMessage * connections}};
  r.columns = {"protocol", "planes", "goodput_gbps", "relative_to_P_x_1", "planes_used", "done"};
  Series meta{"MetaRoCE", {}}, roce{"RoCEv2", {}};
  for (const Protocol& p : {kMetaRoce, kRocev2}) {
    double one = 0;
    for (int planes : grid) {
      Run run = Simulate(PlanesCase(planes, connections), p, o);
      r.wall_seconds += run.wall_seconds;
      const double g = GoodputGbps(run.rec);
      if (planes == 1) one = g;
      const double rel = one > 0 ? g / (planes * one) : 0;
      int used = 0;
      for (const auto& [plane, n] : DutDataFramesPerPlane(run.rec, 0, INT64_MAX)) used += n > 0;
      r.rows.push_back({{"protocol", p.name}, {"planes", planes}, {"goodput_gbps", g}, {"relative_to_P_x_1", rel},
                        {"planes_used", used}, {"done", run.rec.all_completed}});
      (p.dut == kMetaRoce.dut ? meta : roce).points.emplace_back(planes, rel);
      if (!run.rec.harness_error.empty() || !run.rec.dut_error.empty()) {
        r.notes.push_back(std::string(p.name) + " P=" + std::to_string(planes) + ": " + run.rec.harness_error +
                          run.rec.dut_error);
      }
      if (p.dut == kMetaRoce.dut && planes > 1) {
        r.goals.push_back({"MetaRoCE P=" + std::to_string(planes) + ": aggregate goodput / (P x one plane)", ">=", 0.95,
                           rel});
      }
    }
  }
  if (!o.quick) {
    r.notes.push_back("4,000 concurrent connections as the issue asks, each with one 32 KiB WRITE (8 frames, one per path) posted at once "
                      "(128 MiB in total).");
  } else {
    r.notes.push_back("--quick: 400 connections and P = 1, 2 only.");
  }
  r.notes.push_back("goodput = completed bytes / (last completion - first post), all connections together.");
  r.svg = LineChartSvg("Aggregate goodput / (P x one plane)", "planes", "relative", {meta, roce});
  return r;
}

}  // namespace mroce::bench
