// Metrics: pure functions of a session::RunRecord that the benchmark scenarios report. Per-RTT
// goodput comes from session::BuildSeries (the series the report plots), fairness windows from the
// receiver's frames; nothing here runs a simulation.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "mroce/session/session.h"

namespace mroce::bench {

// Bytes of the messages whose originator saw a successful completion.
[[nodiscard]] uint64_t CompletedBytes(const session::RunRecord& rec);
// Bytes of planned messages that did not complete successfully or landed corrupted: what the
// application lost.
[[nodiscard]] uint64_t LostBytes(const session::RunRecord& rec);
// CompletedBytes over the workload's span (first post to last completion, or the timeout), Gb/s.
[[nodiscard]] double GoodputGbps(const session::RunRecord& rec);
// The DUT's delivered data per RTT bin from the workload start (session::BuildSeries "DUT goodput"),
// Gb/s; bins without deliveries are 0.
[[nodiscard]] std::vector<double> DutGoodputPerRtt(const session::RunRecord& rec);

// Data payload bytes each sender delivered to `receiver` in [from_ns, until_ns).
[[nodiscard]] std::map<int, double> DeliveredBySender(const session::RunRecord& rec, int receiver,
                                                      int64_t from_ns, int64_t until_ns);
// Jain's index of the values (1 = equal shares; 1/n = one takes all); 0 when all are 0.
[[nodiscard]] double Jain(const std::vector<double>& v);

// Incast convergence: with every sender's delivered bytes measured over windows of `window_ns`
// starting at each RTT k, the smallest k from which every window up to the first sender's finish
// has every sender within `tolerance` of the mean. -1 when never.
struct Convergence {
  int rtts = -1;
  int windows_judged = 0;
  double steady_jain = 0;     // Jain over [convergence, first finish) as one interval.
  double min_window_jain = 0; // Worst window after convergence.
  int64_t first_finish_ns = 0;
};
[[nodiscard]] Convergence MeasureConvergence(const session::RunRecord& rec, int receiver, int64_t window_ns,
                                             double tolerance);

// Peak backlog of `host`'s leaf->host downlinks (max over planes), bytes.
[[nodiscard]] uint64_t PeakDownlinkQueue(const session::RunRecord& rec, int host);

// DUT data frames sent on each plane in [from_ns, until_ns).
[[nodiscard]] std::map<int, uint64_t> DutDataFramesPerPlane(const session::RunRecord& rec, int64_t from_ns,
                                                            int64_t until_ns);

}  // namespace mroce::bench
