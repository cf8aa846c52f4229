// failover: one of 4 planes is blackholed a quarter of the way into a transfer and restored at the
// half-way point (times from the same transfer without failure); what the application loses, how
// fast goodput returns to 3/4 of the 4-plane rate, and whether the restored plane carries data again.
//
//   host 0 (DUT) ══ 4 NIC ports ══ planes 0..3 (plane 1 blackholed) ══ 4 NIC ports ══ host 1
#include <algorithm>

#include "mroce/bench/metrics.h"
#include "mroce/bench/scenarios.h"

namespace mroce::bench {
namespace {

constexpr int kPlanes = 4;
constexpr int kFailedPlane = 1;

harness::Case FailoverCase(int64_t total, std::optional<std::pair<int64_t, int64_t>> fail) {
  harness::Topology t;
  t.planes = kPlanes;
  t.spines = 2;
  t.paths = 8;
  harness::Workload w;
  w.direction = harness::Direction::kDutToPeer;
  w.connections = 4;
  w.ops = {Writes(128 * 1024, total / (128 * 1024))};
  harness::Case c = MakeCase(fail ? "bench.failover" : "bench.failover.baseline", t, w, 3000);
  if (fail) {
    impairment::Match m;
    m.plane = static_cast<uint8_t>(kFailedPlane);
    harness::ImpairmentSpec is;
    is.stage = impairment::MakeStageConfig(
                   "blackhole", "", m, {},
                   harness::Schedule{harness::Duration::Nanoseconds(static_cast<double>(fail->first)),
                                     harness::Duration::Nanoseconds(static_cast<double>(fail->second))})
                   .value();
    c.impairments.push_back(is);
  }
  return c;
}

}  // namespace

Report RunFailover(const BenchOptions& o) {
  Report r;
  r.scenario = "failover";
  const int64_t total = o.quick ? 16 * 1024 * 1024 : 48 * 1024 * 1024;
  r.params = {{"seed", o.seed}, {"quick", o.quick}, {"planes", kPlanes}, {"failed_plane", kFailedPlane},
              {"connections", 4}, {"paths_per_connection", 8}, {"link_gbps_per_plane", 100}, {"rtt_us", 10},
              {"total_bytes", total}, {"fail_at", "25% of the failure-free transfer"},
              {"restore_at", "50% of the failure-free transfer"}};
  r.columns = {"protocol", "baseline_gbps", "fail_at_rtt", "restore_at_rtt", "bytes_lost", "rtts_to_0.95x3/4",
               "restored_plane_frames", "restored_plane_share", "goodput_gbps", "done"};
  std::vector<Series> plot;
  for (const Protocol& p : {kMetaRoce, kRocev2}) {
    Run base = Simulate(FailoverCase(total, std::nullopt), p, o);
    r.wall_seconds += base.wall_seconds;
    const double g0 = GoodputGbps(base.rec);
    const int64_t start = base.rec.workload_start_ns, span = base.rec.workload_end_ns - start;
    const int64_t fail_at = start + span / 4, restore_at = start + span / 2;
    Run run = Simulate(FailoverCase(total, std::make_pair(fail_at, restore_at)), p, o);
    r.wall_seconds += run.wall_seconds;
    const int64_t rtt = run.rec.rtt_ns;
    const std::vector<double> per_rtt = DutGoodputPerRtt(run.rec);
    const int fail_bin = static_cast<int>((fail_at - run.rec.workload_start_ns) / rtt);
    const int restore_bin = static_cast<int>((restore_at - run.rec.workload_start_ns) / rtt);
    // First RTT bin at or after the failure from which 3 bins in a row reach 0.95 x 3/4 of the
    // failure-free goodput; counted from the failure.
    const double target = 0.95 * 0.75 * g0;
    int recovered = -1;
    for (int b = std::max(fail_bin, 0); b + 2 < static_cast<int>(per_rtt.size()); ++b) {
      if (per_rtt[b] >= target && per_rtt[b + 1] >= target && per_rtt[b + 2] >= target) {
        recovered = b - fail_bin;
        break;
      }
    }
    const auto after = DutDataFramesPerPlane(run.rec, restore_at, run.rec.workload_end_ns);
    uint64_t all = 0;
    for (const auto& [plane, n] : after) all += n;
    const uint64_t on_failed = after.count(kFailedPlane) ? after.at(kFailedPlane) : 0;
    const uint64_t lost = LostBytes(run.rec);
    r.rows.push_back({{"protocol", p.name},
                      {"baseline_gbps", g0},
                      {"fail_at_rtt", fail_bin},
                      {"restore_at_rtt", restore_bin},
                      {"bytes_lost", lost},
                      {"rtts_to_0.95x3/4", recovered >= 0 ? nlohmann::json(recovered) : nlohmann::json("never")},
                      {"restored_plane_frames", on_failed},
                      {"restored_plane_share", all ? static_cast<double>(on_failed) / static_cast<double>(all) : 0.0},
                      {"goodput_gbps", GoodputGbps(run.rec)},
                      {"done", run.rec.all_completed}});
    Series s{std::string(p.name) + " Gb/s per RTT", {}};
    for (size_t b = 0; b < per_rtt.size(); ++b) s.points.emplace_back(static_cast<double>(b), per_rtt[b]);
    plot.push_back(std::move(s));
    if (!run.rec.harness_error.empty() || !run.rec.dut_error.empty()) {
      r.notes.push_back(std::string(p.name) + ": " + run.rec.harness_error + run.rec.dut_error);
    }
    if (p.dut == kMetaRoce.dut) {
      r.goals.push_back({"MetaRoCE bytes lost to the application", "<=", 0, static_cast<double>(lost), "B", true});
      r.goals.push_back({"MetaRoCE RTTs until goodput >= 0.95 x 3/4 after the failure", "<=", 5,
                         recovered >= 0 ? static_cast<double>(recovered) : 1e9, "RTT"});
      r.goals.push_back({"MetaRoCE data frames on the restored plane after restore", ">=", 1,
                         static_cast<double>(on_failed), "", true});
    }
  }
  r.notes.push_back("bytes lost = bytes of WRITEs that did not complete successfully or landed corrupted. "
                    "Goodput per RTT = DUT data delivered per RTT bin (session::BuildSeries); recovery = first "
                    "bin from the failure with 3 bins in a row >= 0.95 x 3/4 x the failure-free goodput "
                    "(never: reported as 1e9 in goals).");
  r.svg = LineChartSvg("Goodput per RTT, plane 1 down from 25% to 50% of the transfer", "RTT", "Gb/s", plot);
  return r;
}

}  // namespace mroce::bench
