// resilience: goodput under random (Bernoulli) and bursty (Gilbert-Elliott) loss, relative to the
// same protocol's lossless run.
//
//   host 0 (DUT, sender) ── leaf ── 8 spines ── leaf ── host 1 (peer, receiver)      1 plane, 100 Gb/s
//   loss stage at the plane's ingress: every frame (data and ACKs, both directions)
#include <cmath>
#include <sstream>

#include "mroce/bench/metrics.h"
#include "mroce/bench/scenarios.h"

namespace mroce::bench {
namespace {

struct LossPoint {
  std::string model;  // "random" or "bursty"
  double rate;        // 0..1
};

harness::Case LossCase(const LossPoint& lp, bool quick) {
  harness::Topology t;
  t.planes = 1;
  t.spines = 8;
  t.paths = 8;
  harness::Workload w;
  w.direction = harness::Direction::kDutToPeer;
  w.ops = {quick ? Writes(64 * 1024, 16) : Writes(128 * 1024, 32)};
  std::ostringstream id;
  id << "bench.resilience." << lp.model << "." << lp.rate * 100;
  harness::Case c = MakeCase(id.str(), t, w, 1000);
  if (lp.rate > 0) {
    harness::ImpairmentSpec is;
    is.stage = (lp.model == "random"
                    ? impairment::MakeStageConfig("loss.bernoulli", "", {}, {{"rate", lp.rate}})
                    : impairment::MakeStageConfig("loss.gilbert-elliott", "", {}, {{"mean_loss", lp.rate}, {"mean_burst", 8}}))
                   .value();
    c.impairments.push_back(is);
  }
  return c;
}

}  // namespace

Report RunResilience(const BenchOptions& o) {
  Report r;
  r.scenario = "resilience";
  std::vector<LossPoint> grid;
  if (o.quick) {
    grid = {{"random", 0}, {"random", 0.01}, {"random", 0.10}, {"bursty", 0.01}};
  } else {
    for (double p : {0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.10}) grid.push_back({"random", p});
    grid.push_back({"bursty", 0.01});
    grid.push_back({"bursty", 0.05});
  }
  const harness::Case sample = LossCase(grid.front(), o.quick);
  r.params = {{"seed", o.seed}, {"quick", o.quick}, {"link_gbps", 100}, {"rtt_us", 10}, {"planes", 1},
              {"spines", 8}, {"paths", 8}, {"mtu", 4096},
              {"transfer_bytes", sample.workload.ops[0].size_bytes * sample.workload.ops[0].count},
              {"message_bytes", sample.workload.ops[0].size_bytes}, {"bursty_mean_burst", 8},
              {"timeout_rtts", 1000}, {"loss_applies_to", "every frame, both directions, at plane ingress"}};
  r.columns = {"model", "loss_pct", "MetaRoCE_gbps", "MetaRoCE_rel", "RoCEv2_gbps", "RoCEv2_rel", "MetaRoCE_done",
               "RoCEv2_done"};
  double base[2] = {0, 0};
  std::vector<Series> plot = {{"MetaRoCE random", {}}, {"RoCEv2 random", {}}, {"MetaRoCE bursty", {}},
                              {"RoCEv2 bursty", {}}};
  for (const LossPoint& lp : grid) {
    nlohmann::json row = {{"model", lp.model}, {"loss_pct", lp.rate * 100}};
    const harness::Case c = LossCase(lp, o.quick);
    int i = 0;
    for (const Protocol& p : {kMetaRoce, kRocev2}) {
      Run run = Simulate(c, p, o);
      r.wall_seconds += run.wall_seconds;
      const double g = GoodputGbps(run.rec);
      if (lp.rate == 0) base[i] = g;
      const double rel = base[i] > 0 ? g / base[i] : 0;
      const std::string n = p.name;
      row[n + "_gbps"] = g;
      row[n + "_rel"] = rel;
      row[n + "_done"] = run.rec.all_completed;
      if (!run.rec.harness_error.empty() || !run.rec.dut_error.empty()) {
        r.notes.push_back(n + " at " + lp.model + " " + Cell(lp.rate * 100) + "%: " + run.rec.harness_error +
                          run.rec.dut_error);
      }
      plot[static_cast<size_t>((lp.model == "bursty" ? 2 : 0) + i)].points.emplace_back(lp.rate * 100, rel);
      if (lp.model == "random" && lp.rate == 0) plot[static_cast<size_t>(2 + i)].points.emplace_back(0, rel);
      ++i;
    }
    r.rows.push_back(row);
  }
  auto rel_at = [&](const std::string& model, double rate) -> double {
    for (const auto& row : r.rows) {
      if (row["model"] == model && std::abs(row["loss_pct"].get<double>() - rate * 100) < 1e-9) {
        return row["MetaRoCE_rel"].get<double>();
      }
    }
    return 0;
  };
  r.goals.push_back({"MetaRoCE goodput at 1% random loss (relative to lossless)", ">=", 0.95, rel_at("random", 0.01)});
  r.goals.push_back({"MetaRoCE goodput at 10% random loss (relative to lossless)", ">=", 0.80, rel_at("random", 0.10)});
  r.notes.push_back("goodput = bytes of successfully completed WRITEs / (last completion - first post); relative = "
                    "goodput / the same protocol's lossless goodput. A run that does not finish in the timeout "
                    "counts only the messages completed by then (done = no).");
  r.svg = LineChartSvg("Goodput relative to lossless", "loss (%)", "relative goodput", plot);
  return r;
}

}  // namespace mroce::bench
