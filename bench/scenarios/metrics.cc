// Metrics (see metrics.h).
#include "mroce/bench/metrics.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "mroce/session/checks.h"

namespace mroce::bench {

using session::FrameRecord;
using session::RunRecord;

namespace {

// (host, wr_id) of every successful completion.
std::set<std::pair<int, uint64_t>> Succeeded(const RunRecord& rec) {
  std::set<std::pair<int, uint64_t>> ok;
  for (const session::ControlRecord& r : rec.trace.control) {
    if (r.kind == session::ControlRecord::Kind::kCompletion && r.status == dut::OpStatus::kSuccess) {
      ok.insert({r.host, r.wr_id});
    }
  }
  return ok;
}

}  // namespace

uint64_t CompletedBytes(const RunRecord& rec) {
  const auto ok = Succeeded(rec);
  uint64_t bytes = 0;
  for (const session::PlannedMessage& m : rec.messages) {
    if (ok.count({m.originator, m.wr_id})) bytes += m.size;
  }
  return bytes;
}

uint64_t LostBytes(const RunRecord& rec) {
  const auto ok = Succeeded(rec);
  std::vector<bool> intact(rec.messages.size(), true);
  for (const session::DataCheck& d : rec.data) {
    if (d.message < intact.size() && !d.intact) intact[d.message] = false;
  }
  uint64_t lost = 0;
  for (size_t i = 0; i < rec.messages.size(); ++i) {
    const session::PlannedMessage& m = rec.messages[i];
    if (!ok.count({m.originator, m.wr_id}) || !intact[i]) lost += m.size;
  }
  return lost;
}

double GoodputGbps(const RunRecord& rec) {
  const int64_t span = rec.workload_end_ns - rec.workload_start_ns;
  if (span <= 0) return 0;
  return static_cast<double>(CompletedBytes(rec)) * 8.0 / static_cast<double>(span);  // bits per ns = Gb/s
}

std::vector<double> DutGoodputPerRtt(const RunRecord& rec) {
  std::vector<double> out;
  for (const harness::TimeSeries& s : session::BuildSeries(rec)) {
    if (s.name != "DUT goodput") continue;
    for (const auto& [x, y] : s.points) {
      if (x < 0) continue;
      const size_t b = static_cast<size_t>(x);
      if (out.size() <= b) out.resize(b + 1, 0.0);
      out[b] = y;
    }
  }
  return out;
}

std::map<int, double> DeliveredBySender(const RunRecord& rec, int receiver, int64_t from_ns, int64_t until_ns) {
  std::map<int, double> got;
  const session::Trace& t = rec.trace;
  for (size_t i = 0; i < t.frames.size() && i < t.facts.size(); ++i) {
    const FrameRecord& r = t.frames[i];
    if (r.event != FrameRecord::Event::kRx || r.dst_host != receiver || !t.facts[i].data) continue;
    if (r.time_ns < from_ns || r.time_ns >= until_ns) continue;
    got[r.src_host] += t.facts[i].payload_bytes;
  }
  return got;
}

double Jain(const std::vector<double>& v) {
  double sum = 0, sq = 0;
  for (double x : v) {
    sum += x;
    sq += x * x;
  }
  if (v.empty() || sq <= 0) return 0;
  return sum * sum / (static_cast<double>(v.size()) * sq);
}

Convergence MeasureConvergence(const RunRecord& rec, int receiver, int64_t window_ns, double tolerance) {
  Convergence c;
  std::set<int> senders;
  for (const session::PlannedMessage& m : rec.messages) senders.insert(m.originator);
  // Each sender's last delivered data frame: the first of these ends the steady state.
  std::map<int, int64_t> last;
  const session::Trace& t = rec.trace;
  for (size_t i = 0; i < t.frames.size() && i < t.facts.size(); ++i) {
    const FrameRecord& r = t.frames[i];
    if (r.event == FrameRecord::Event::kRx && r.dst_host == receiver && t.facts[i].data) {
      last[r.src_host] = std::max(last[r.src_host], r.time_ns);
    }
  }
  int64_t end = INT64_MAX;
  for (int s : senders) end = std::min(end, last.count(s) ? last[s] : rec.workload_start_ns);
  c.first_finish_ns = end;
  const int64_t t0 = rec.workload_start_ns;
  const int64_t rtt = std::max<int64_t>(rec.rtt_ns, 1);
  // fair[k]: the window starting at RTT k has every sender within tolerance of the mean.
  std::vector<bool> fair;
  std::vector<double> jain;
  for (int64_t k = 0; t0 + k * rtt + window_ns <= end; ++k) {
    const auto got = DeliveredBySender(rec, receiver, t0 + k * rtt, t0 + k * rtt + window_ns);
    std::vector<double> v;
    for (int s : senders) v.push_back(got.count(s) ? got.at(s) : 0.0);
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    bool ok = mean > 0;
    for (double x : v) ok = ok && std::fabs(x - mean) <= tolerance * mean;
    fair.push_back(ok);
    jain.push_back(Jain(v));
  }
  c.windows_judged = static_cast<int>(fair.size());
  if (fair.empty()) return c;
  int k = static_cast<int>(fair.size());
  while (k > 0 && fair[static_cast<size_t>(k - 1)]) --k;
  // The last window is not fair: never converged; the steady state is then taken as the second half.
  if (k < static_cast<int>(fair.size())) c.rtts = k;
  const int64_t steady_from = c.rtts >= 0 ? t0 + k * rtt : t0 + (end - t0) / 2;
  if (c.rtts < 0) k = static_cast<int>((steady_from - t0) / rtt);
  const auto got = DeliveredBySender(rec, receiver, steady_from, end);
  std::vector<double> v;
  for (int s : senders) v.push_back(got.count(s) ? got.at(s) : 0.0);
  c.steady_jain = Jain(v);
  c.min_window_jain = 1;
  for (size_t i = static_cast<size_t>(k); i < jain.size(); ++i) c.min_window_jain = std::min(c.min_window_jain, jain[i]);
  return c;
}

uint64_t PeakDownlinkQueue(const RunRecord& rec, int host) {
  uint64_t peak = 0;
  if (host < 0 || static_cast<size_t>(host) >= rec.fabric.downlinks.size()) return 0;
  for (const auto& ps : rec.fabric.downlinks[static_cast<size_t>(host)]) {
    peak = std::max<uint64_t>(peak, static_cast<uint64_t>(ps.max_queue_bytes));
  }
  return peak;
}

std::map<int, uint64_t> DutDataFramesPerPlane(const RunRecord& rec, int64_t from_ns, int64_t until_ns) {
  std::map<int, uint64_t> n;
  const session::Trace& t = rec.trace;
  for (size_t i = 0; i < t.frames.size() && i < t.facts.size(); ++i) {
    const FrameRecord& r = t.frames[i];
    if (r.event != FrameRecord::Event::kTx || !r.from_dut() || !t.facts[i].data) continue;
    if (r.time_ns < from_ns || r.time_ns >= until_ns) continue;
    ++n[r.plane];
  }
  return n;
}

}  // namespace mroce::bench
