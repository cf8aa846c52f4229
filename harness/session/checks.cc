// Checks over a run record (see checks.h). Every check is a pure function of the record.
#include "mroce/session/checks.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "script_checks.h"
#include "mroce/session/clause_monitor.h"
#include "mroce/wire/dump.h"
#include "mroce/wire/frame.h"

namespace mroce::session {
namespace {

using harness::CheckResult;
using harness::Verdict;
using nlohmann::json;

struct Ctx {
  const harness::Case& c;
  const RunRecord& rec;
  const Trace& trace;
  const json& params;
  CheckResult base;  // name, clauses, pcap prefilled
};

CheckResult Pass(const Ctx& x) { return x.base; }
CheckResult With(const Ctx& x, Verdict v, std::string reason) {
  CheckResult r = x.base;
  r.verdict = v;
  r.reason = std::move(reason);
  return r;
}
CheckResult Mismatch(const Ctx& x, Verdict v, std::string reason, std::string field, uint64_t expected, uint64_t actual) {
  CheckResult r = With(x, v, std::move(reason));
  r.mismatch = harness::ValueMismatch::Scalar(std::move(field), expected, actual);
  return r;
}
void AttachActual(CheckResult& r, const FrameRecord& f, uint16_t port) {
  r.actual_packet = Trace::Dump(f, port);
  r.packet_index = f.frame_no;
}
void AttachExpected(CheckResult& r, const FrameRecord& f, uint16_t port) { r.expected_packet = Trace::Dump(f, port); }

bool BoolParam(const Ctx& x, const char* key, bool def) {
  if (x.params.is_object() && x.params.contains(key) && x.params.at(key).is_boolean()) return x.params.at(key).get<bool>();
  return def;
}

double Param(const Ctx& x, const char* key, double def) {
  if (x.params.is_object() && x.params.contains(key) && x.params.at(key).is_number()) return x.params.at(key).get<double>();
  return def;
}

std::string Host(int h) { return h == kDutHost ? "DUT" : "peer " + std::to_string(h); }

// If the DUT failed a control call or the workload never got going, most checks cannot judge the
// transport: they fail with that reason (it is the DUT's fault, not the harness's).
std::optional<CheckResult> Precondition(const Ctx& x) {
  if (!x.rec.dut_error.empty()) return With(x, Verdict::kFail, x.rec.dut_error);
  return std::nullopt;
}

// --- completions -------------------------------------------------------------------------------
// A segment of the DUT's that went out 8 times (its first transmission and the 7 the retry limit of
// MROCE-LOSS-008 allows), each of them lost to the fabric: dropped or delivered corrupted, or
// delivered while the fabric dropped frames towards the DUT (its ACK may be among them) before the
// next transmission. "stream S, msn M, offset O (frames a, b, ...)", or empty. Duplicates the
// fabric made are not the DUT's transmissions; a segment the peer refused (no fabric loss) is not
// the network's doing.
std::string SegmentAtRetryLimit(const Ctx& x) {
  constexpr size_t kTransmissions = 8;
  const auto& frames = x.trace.frames;
  std::map<uint64_t, std::vector<size_t>> fate;  // packet id -> its drop and receive records
  std::vector<int64_t> dropped_to_dut;           // when the fabric dropped a frame towards the DUT
  for (size_t i = 0; i < frames.size(); ++i) {
    const FrameRecord& r = frames[i];
    if (r.event != FrameRecord::Event::kTx) fate[r.packet_id].push_back(i);
    if (r.event == FrameRecord::Event::kDrop && r.to_dut()) dropped_to_dut.push_back(r.time_ns);
  }
  std::map<std::tuple<uint32_t, uint16_t, uint32_t, uint32_t>, std::vector<size_t>> sent;  // -> tx records
  for (size_t i = 0; i < frames.size(); ++i) {
    const FrameRecord& r = frames[i];
    const FrameFacts& f = x.trace.facts[i];
    if (r.event != FrameRecord::Event::kTx || !r.from_dut() || r.duplicate || !f.segment) continue;
    sent[f.SegmentKey()].push_back(i);
  }
  for (const auto& [seg, txs] : sent) {
    if (txs.size() != kTransmissions) continue;
    bool all_lost = true;
    for (size_t k = 0; k < txs.size() && all_lost; ++k) {
      const FrameRecord& t = frames[txs[k]];
      const int64_t next = k + 1 < txs.size() ? frames[txs[k + 1]].time_ns : std::numeric_limits<int64_t>::max();
      bool lost = false;
      int64_t delivered_at = -1;
      for (size_t j : fate[t.packet_id]) {
        const FrameRecord& e = frames[j];
        if (e.event == FrameRecord::Event::kDrop || (e.event == FrameRecord::Event::kRx && e.corrupted)) lost = true;
        if (e.event == FrameRecord::Event::kRx && !e.corrupted) delivered_at = e.time_ns;
      }
      if (!lost && delivered_at >= 0) {
        lost = std::any_of(dropped_to_dut.begin(), dropped_to_dut.end(),
                           [&](int64_t d) { return d >= delivered_at && d <= next; });
      }
      all_lost = lost;
    }
    if (!all_lost) continue;
    std::ostringstream o;
    o << "stream " << std::get<1>(seg) << ", msn " << std::get<2>(seg) << ", offset " << std::get<3>(seg) << " (frames";
    for (size_t k = 0; k < txs.size(); ++k) o << (k ? ", " : " ") << frames[txs[k]].frame_no;
    o << ", each lost to the fabric or delivered while it dropped frames towards the DUT)";
    return o.str();
  }
  return "";
}

CheckResult Completions(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  std::map<std::pair<int, uint64_t>, std::vector<const ControlRecord*>> got;
  for (const ControlRecord& r : x.rec.trace.control) {
    if (r.kind == ControlRecord::Kind::kCompletion) got[{r.host, r.wr_id}].push_back(&r);
  }
  std::set<std::pair<int, uint64_t>> expected;
  for (const PlannedMessage& m : x.rec.messages) {
    expected.insert({m.originator, m.wr_id});
    if (m.op == dut::OpKind::kSend) expected.insert({m.responder, m.recv_wr_id});
  }
  if (x.c.style == harness::Style::kScripted) {
    // A scripted case plans no workload: its work requests are the posts the DUT accepted (a
    // refused post is recorded as an error, not a post: nothing completes it).
    for (const ControlRecord& r : x.rec.trace.control) {
      if (r.kind == ControlRecord::Kind::kPost) expected.insert({r.host, r.wr_id});
    }
    if (expected.empty()) {
      return With(x, Verdict::kInconclusive, "the script posted no work request the DUT accepted: nothing to complete");
    }
  }
  uint64_t missing = 0, doubled = 0, failed = 0, unknown = 0, retry_exceeded = 0, flushed = 0;
  std::string first;
  auto note = [&](const std::string& s) {
    if (first.empty()) first = s;
  };
  for (const auto& key : expected) {
    auto it = got.find(key);
    if (it == got.end()) {
      ++missing;
      note("work request " + std::to_string(key.second & 0xFFFFFFFFull) + " of " + Host(key.first) + " never completed");
      continue;
    }
    if (it->second.size() > 1) {
      ++doubled;
      note("work request " + std::to_string(key.second & 0xFFFFFFFFull) + " of " + Host(key.first) + " completed " +
           std::to_string(it->second.size()) + " times");
    }
    if (it->second.front()->status != dut::OpStatus::kSuccess) {
      ++failed;
      retry_exceeded += it->second.front()->status == dut::OpStatus::kRetryExceeded;
      flushed += it->second.front()->status == dut::OpStatus::kFlushed;
      note("work request " + std::to_string(key.second & 0xFFFFFFFFull) + " of " + Host(key.first) + " completed with " +
           std::string(dut::OpStatusName(it->second.front()->status)));
    }
  }
  for (const auto& [key, list] : got) {
    if (!expected.count(key)) {
      ++unknown;
      note(Host(key.first) + " reported a completion for unknown work request " + std::to_string(key.second));
    }
  }
  if (missing + doubled + failed + unknown == 0) return Pass(x);
  if (missing + doubled + unknown == 0 && retry_exceeded > 0 && retry_exceeded + flushed == failed) {
    // The impairment took one segment so often that the DUT reached the retry limit: giving up is
    // what MROCE-LOSS-008 requires then (the clause monitor judges the count), so the case's aim,
    // every work request succeeding, was not reachable in this run: no verdict on the DUT.
    if (const std::string seg = SegmentAtRetryLimit(x); !seg.empty()) {
      return With(x, Verdict::kInconclusive,
                  first + " after its segment " + seg + " went out 8 times: the retry limit of MROCE-LOSS-008, "
                  "which a sender MUST NOT exceed, so the error is the spec's outcome and the impairment left the "
                  "case's aim (every work request succeeding) out of reach (" + std::to_string(failed) +
                  " of " + std::to_string(expected.size()) + " work requests with an error status)");
    }
  }
  std::ostringstream why;
  why << first << " (" << expected.size() << " expected: " << missing << " missing, " << doubled << " more than once, "
      << failed << " with an error status, " << unknown << " unknown)";
  const uint64_t ok = expected.size() - missing;
  return Mismatch(x, Verdict::kFail, why.str(), "completions exactly once", expected.size(),
                  doubled ? ok + doubled : ok);
}

// --- completion-order --------------------------------------------------------------------------
CheckResult CompletionOrder(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  // Post order per (host, conn, stream) from the plan; completion order from the trace.
  std::map<std::tuple<int, uint32_t, uint16_t>, std::vector<uint64_t>> posted, done;
  for (const ControlRecord& r : x.rec.trace.control) {
    const auto key = std::make_tuple(r.host, r.conn, r.stream);
    if (r.kind == ControlRecord::Kind::kPost) posted[key].push_back(r.wr_id);
    if (r.kind == ControlRecord::Kind::kCompletion) done[key].push_back(r.wr_id);
  }
  for (const auto& [key, seq] : done) {
    const auto& order = posted[key];
    std::map<uint64_t, size_t> rank;
    for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    size_t last = 0;
    bool have = false;
    uint64_t last_wr = 0;
    for (uint64_t wr : seq) {
      auto it = rank.find(wr);
      if (it == rank.end()) continue;  // unknown ids are the completions check's business
      if (have && it->second < last) {
        std::ostringstream why;
        why << Host(std::get<0>(key)) << " connection " << std::get<1>(key) << " stream " << std::get<2>(key)
            << ": work request " << (wr & 0xFFFFFFFFull) << " (posted #" << it->second + 1 << ") completed after "
            << (last_wr & 0xFFFFFFFFull) << " (posted #" << last + 1 << ")";
        return Mismatch(x, Verdict::kFail, why.str(), "completion position", it->second + 1, last + 2);
      }
      last = it->second;
      last_wr = wr;
      have = true;
    }
  }
  return Pass(x);
}

// --- data-intact ---------------------------------------------------------------------------------
CheckResult DataIntact(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  if (x.rec.data.empty() && !x.rec.messages.empty()) return With(x, Verdict::kError, "memory was never read back");
  // A message whose work request completed with an error has no placement promised (only SUCCESS
  // does, MROCE-CMPL-002 to 004): its bytes are not judged (the completions check judges the error).
  std::set<std::pair<int, uint64_t>> errored;
  for (const ControlRecord& r : x.rec.trace.control) {
    if (r.kind == ControlRecord::Kind::kCompletion && r.status != dut::OpStatus::kSuccess) errored.insert({r.host, r.wr_id});
  }
  uint64_t bad = 0, unjudged = 0;
  const DataCheck* first = nullptr;
  for (const DataCheck& d : x.rec.data) {
    const PlannedMessage& m = x.rec.messages[d.message];
    if (errored.count({m.originator, m.wr_id}) ||
        (m.op == dut::OpKind::kSend && errored.count({m.responder, m.recv_wr_id}))) {
      ++unjudged;
      continue;
    }
    if (!d.intact) {
      ++bad;
      if (first == nullptr) first = &d;
    }
  }
  if (bad == 0 && unjudged > 0) {
    const std::string why = std::to_string(unjudged) + " of " + std::to_string(x.rec.data.size()) +
                            " messages not judged: their work requests completed with an error status, after which no "
                            "placement is promised (MROCE-CMPL-002 to 004)";
    if (unjudged == x.rec.data.size()) return With(x, Verdict::kInconclusive, why);
    return With(x, Verdict::kPass, "the other messages are intact; " + why);
  }
  if (bad == 0) return Pass(x);
  const PlannedMessage& m = x.rec.messages[first->message];
  std::ostringstream why;
  why << bad << " of " << x.rec.data.size() << " messages wrong; first: " << dut::OpKindName(m.op) << " #"
      << (m.wr_id & 0xFFFFFFFFull) << " (" << m.size << " B, stream " << m.stream << ")";
  if (!first->error.empty()) return With(x, Verdict::kFail, why.str() + ": " + first->error);
  why << ": byte " << first->first_bad << " (" << first->bad_bytes << " bytes differ)";
  return Mismatch(x, Verdict::kFail, why.str(), "byte[" + std::to_string(first->first_bad) + "]", first->expected,
                  first->actual);
}

// --- retransmissions -----------------------------------------------------------------------------
struct DataKey {
  uint32_t path;
  uint8_t epoch;
  uint32_t psn;
  uint32_t conn;
  bool operator<(const DataKey& o) const {
    return std::tie(conn, path, epoch, psn) < std::tie(o.conn, o.path, o.epoch, o.psn);
  }
};

struct RtxStats {
  uint64_t data_tx = 0;      // DUT data frames sent (first transmissions + retransmissions)
  uint64_t rtx_tx = 0;       // of which retransmissions
  uint64_t lost = 0;         // DUT data frames the fabric dropped
  uint64_t unjustified = 0;  // retransmissions of a frame that was never dropped
  uint64_t lost_never_rtx = 0;
  size_t first_unjustified = SIZE_MAX;  // frame index
  size_t first_lost_never = SIZE_MAX;
};

RtxStats CountRetransmissions(const Trace& t) {
  RtxStats s;
  std::map<DataKey, int> dropped;      // drops per key, not yet answered by a retransmission
  std::map<DataKey, size_t> drop_frame;
  for (size_t i = 0; i < t.frames.size(); ++i) {
    const FrameRecord& r = t.frames[i];
    const FrameFacts& f = t.facts[i];
    if (!r.from_dut() || !f.parsed || !f.data) continue;
    const DataKey k{f.path, f.epoch, f.psn, f.conn};
    if (r.event == FrameRecord::Event::kTx) {
      ++s.data_tx;
      if (f.rtx) {
        ++s.rtx_tx;
        auto it = dropped.find(k);
        if (it == dropped.end() || it->second == 0) {
          ++s.unjustified;
          if (s.first_unjustified == SIZE_MAX) s.first_unjustified = i;
        } else {
          --it->second;
        }
      }
    } else if (!r.duplicate && (r.event == FrameRecord::Event::kDrop || r.corrupted)) {
      // Dropped in the fabric, or delivered corrupted (the receiver must discard it): a loss.
      ++s.lost;
      ++dropped[k];
      drop_frame.emplace(k, i);
    }
  }
  for (const auto& [k, n] : dropped) {
    if (n > 0) {
      s.lost_never_rtx += static_cast<uint64_t>(n);
      const size_t i = drop_frame[k];
      if (s.first_lost_never == SIZE_MAX || i < s.first_lost_never) s.first_lost_never = i;
    }
  }
  return s;
}

CheckResult RetransmissionsEqualLosses(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const RtxStats s = CountRetransmissions(x.trace);
  const uint64_t tolerance = static_cast<uint64_t>(Param(x, "tolerance", 0));
  if (s.data_tx == 0) return With(x, Verdict::kInconclusive, "the DUT sent no data frames");
  if (s.lost == 0 && BoolParam(x, "require_loss", true)) {
    return With(x, Verdict::kInconclusive, "no DUT data frame was lost: the impairment never hit");
  }
  if (s.unjustified > tolerance) {
    CheckResult r = Mismatch(x, Verdict::kFail,
                             std::to_string(s.unjustified) + " retransmissions of data frames that were never lost (" +
                                 std::to_string(s.rtx_tx) + " retransmissions for " + std::to_string(s.lost) + " losses)",
                             "retransmissions", s.lost, s.rtx_tx);
    AttachActual(r, x.trace.frames[s.first_unjustified], x.trace.meta_port);
    return r;
  }
  if (s.lost_never_rtx > tolerance) {
    CheckResult r = Mismatch(x, Verdict::kFail,
                             std::to_string(s.lost_never_rtx) + " lost data frames were never retransmitted with their " +
                                 "path and PSN (" + std::to_string(s.rtx_tx) + " retransmissions for " +
                                 std::to_string(s.lost) + " losses)",
                             "retransmissions", s.lost, s.rtx_tx);
    AttachExpected(r, x.trace.frames[s.first_lost_never], x.trace.meta_port);
    return r;
  }
  return Pass(x);
}

CheckResult NoSpuriousRetransmissions(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const RtxStats s = CountRetransmissions(x.trace);
  const double max_frac = Param(x, "max_fraction", -1);
  const uint64_t max_abs = static_cast<uint64_t>(Param(x, "max", 0));
  const uint64_t bound = max_frac >= 0 ? static_cast<uint64_t>(std::floor(max_frac * static_cast<double>(s.data_tx))) : max_abs;
  if (s.data_tx == 0) return With(x, Verdict::kInconclusive, "the DUT sent no data frames");
  if (s.unjustified <= bound) return Pass(x);
  CheckResult r = Mismatch(x, Verdict::kFail,
                           std::to_string(s.unjustified) + " spurious retransmissions (of frames never lost) out of " +
                               std::to_string(s.data_tx) + " data frames; bound " + std::to_string(bound),
                           "spurious retransmissions", bound, s.unjustified);
  AttachActual(r, x.trace.frames[s.first_unjustified], x.trace.meta_port);
  return r;
}

// --- multipath -----------------------------------------------------------------------------------
CheckResult Multipath(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const uint64_t want = static_cast<uint64_t>(Param(x, "min_paths", x.c.topology.paths));
  std::map<uint32_t, std::set<uint16_t>> sports_by_path;
  std::set<uint16_t> sports;
  uint64_t data = 0;
  for (size_t i = 0; i < x.trace.frames.size(); ++i) {
    const FrameRecord& r = x.trace.frames[i];
    const FrameFacts& f = x.trace.facts[i];
    if (r.event != FrameRecord::Event::kTx || !r.from_dut() || !f.data) continue;
    ++data;
    sports_by_path[f.path].insert(f.sport);
    sports.insert(f.sport);
  }
  if (data == 0) return With(x, Verdict::kInconclusive, "the DUT sent no data frames");
  const uint64_t paths = std::min<uint64_t>(sports_by_path.size(), sports.size());
  if (paths >= want) return Pass(x);
  return Mismatch(x, Verdict::kFail,
                  "DUT data used " + std::to_string(sports_by_path.size()) + " path id(s) and " +
                      std::to_string(sports.size()) + " UDP source port(s) over " + std::to_string(data) +
                      " data frames; at least " + std::to_string(want) + " distinct paths expected",
                  "distinct paths", want, paths);
}

// --- rate-under-hint -----------------------------------------------------------------------------
CheckResult RateUnderHint(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const double slack = Param(x, "slack", 1.10);
  const int64_t rtt = x.rec.rtt_ns;
  const int64_t window = static_cast<int64_t>(Param(x, "window_rtts", 4) * static_cast<double>(rtt));
  // Hints the DUT received, in arrival order.
  std::vector<std::pair<int64_t, uint32_t>> hints;
  std::vector<std::pair<int64_t, uint64_t>> sent;  // (time, wire bytes) of DUT data frames
  for (size_t i = 0; i < x.trace.frames.size(); ++i) {
    const FrameRecord& r = x.trace.frames[i];
    const FrameFacts& f = x.trace.facts[i];
    if (r.event == FrameRecord::Event::kRx && r.to_dut() && f.ack && f.meta) hints.emplace_back(r.time_ns, f.rate_hint);
    if (r.event == FrameRecord::Event::kTx && r.from_dut() && f.data) sent.emplace_back(r.time_ns, r.bytes.size());
  }
  if (sent.empty()) return With(x, Verdict::kInconclusive, "the DUT sent no data frames");
  if (hints.empty()) return With(x, Verdict::kInconclusive, "the DUT received no ACK carrying a rate hint");
  // Burst tolerance (MROCE-HINT-005): max(16384, 2 x the largest data frame).
  uint64_t biggest = 0;
  for (const auto& s : sent) biggest = std::max(biggest, s.second);
  const double burst = std::max<double>(16384, 2.0 * static_cast<double>(biggest));
  // Slide a window over the DUT's transmissions; the allowance uses the largest hint in force
  // anywhere in the window (lenient: a hint raised mid-window is credited for the whole window).
  size_t h = 0, lo = 0;
  double bytes = 0;
  for (size_t hi = 0; hi < sent.size(); ++hi) {
    bytes += static_cast<double>(sent[hi].second);
    while (sent[lo].first < sent[hi].first - window) bytes -= static_cast<double>(sent[lo++].second);
    const int64_t start = sent[hi].first - window;
    // The hint in force at `start` (last received at or before it, plus one RTT to react).
    while (h + 1 < hints.size() && hints[h + 1].first + rtt <= start) ++h;
    if (hints[h].first + rtt > start) continue;  // no hint in force yet for this whole window
    uint32_t hint = hints[h].second;
    for (size_t k = h; k < hints.size() && hints[k].first <= sent[hi].first; ++k) hint = std::max(hint, hints[k].second);
    if (hint == 0xFFFFFFFFu) continue;
    const double allowed = static_cast<double>(hint) * 1e6 / 8.0 * static_cast<double>(window) * 1e-9 * slack + burst;
    if (bytes > allowed) {
      std::ostringstream why;
      why << "DUT sent " << static_cast<uint64_t>(bytes) << " B in the " << window / 1000.0 << " us before t="
          << sent[hi].first << " ns while the rate hint in force was " << hint << " Mb/s (allowed "
          << static_cast<uint64_t>(allowed) << " B incl. slack " << slack << " and burst " << static_cast<uint64_t>(burst)
          << " B)";
      CheckResult r = Mismatch(x, Verdict::kFail, why.str(), "bytes in window", static_cast<uint64_t>(allowed),
                               static_cast<uint64_t>(bytes));
      return r;
    }
  }
  return Pass(x);
}

// --- fair-share ----------------------------------------------------------------------------------
CheckResult FairShare(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const double within = Param(x, "within_rtts", 2);
  const double tolerance = Param(x, "tolerance", 0.10);
  const double bin_rtts = Param(x, "bin_rtts", 4);
  std::set<int> senders;
  int receiver = -1;
  for (const PlannedMessage& m : x.rec.messages) {
    senders.insert(m.originator);
    receiver = m.responder;
  }
  if (senders.size() < 2) return With(x, Verdict::kError, "fair-share needs a workload with senders >= 2");
  const int64_t rtt = x.rec.rtt_ns;
  const int64_t bin = static_cast<int64_t>(bin_rtts * static_cast<double>(rtt));
  const int64_t t0 = x.rec.workload_start_ns;
  // Delivered data bytes per sender per bin, at the receiver.
  std::map<int, std::map<int64_t, double>> got;
  std::map<int, int64_t> last;
  for (size_t i = 0; i < x.trace.frames.size(); ++i) {
    const FrameRecord& r = x.trace.frames[i];
    const FrameFacts& f = x.trace.facts[i];
    if (r.event != FrameRecord::Event::kRx || r.dst_host != receiver || !f.data || !senders.count(r.src_host)) continue;
    got[r.src_host][(r.time_ns - t0) / bin] += static_cast<double>(r.bytes.size());
    last[r.src_host] = std::max(last[r.src_host], r.time_ns);
  }
  // Judge bins after `within` RTTs and before the first sender stops.
  int64_t end = INT64_MAX;
  for (int s : senders) end = std::min(end, last.count(s) ? last[s] : t0);
  const int64_t first_bin = (static_cast<int64_t>(within * static_cast<double>(rtt)) + bin - 1) / bin;
  const int64_t last_bin = (end - t0) / bin - 1;
  if (last_bin < first_bin) {
    return With(x, Verdict::kInconclusive, "the transfer was too short to judge fairness after " +
                                               std::to_string(within) + " RTTs (make the messages longer)");
  }
  const double link_bytes_per_bin = static_cast<double>(x.rec.link_rate_bps) / 8.0 * static_cast<double>(bin) * 1e-9;
  for (int64_t b = first_bin; b <= last_bin; ++b) {
    double total = 0, sq = 0;
    for (int s : senders) {
      const double v = got[s][b];
      total += v;
      sq += v * v;
    }
    const double n = static_cast<double>(senders.size());
    const double jain = sq > 0 ? total * total / (n * sq) : 0;
    const double share = total / n;
    for (int s : senders) {
      const double v = got[s][b];
      if (std::fabs(v - share) > tolerance * share) {
        std::ostringstream why;
        why << Host(s) << " delivered " << static_cast<uint64_t>(v) << " B in RTT bin " << b * bin_rtts << ".."
            << (b + 1) * bin_rtts << " while the fair share was " << static_cast<uint64_t>(share) << " B (+-"
            << tolerance * 100 << "%; Jain index " << jain << ", link " << static_cast<uint64_t>(link_bytes_per_bin)
            << " B per bin)";
        return Mismatch(x, Verdict::kFail, why.str(), "bytes per bin", static_cast<uint64_t>(share), static_cast<uint64_t>(v));
      }
    }
  }
  return Pass(x);
}

// --- counter / state-bounded ---------------------------------------------------------------------
CheckResult Counter(const Ctx& x) {
  if (!x.params.is_object() || !x.params.contains("name") || !x.params.at("name").is_string()) {
    return With(x, Verdict::kError, "counter: params.name (a counter name such as crc_errors) is required");
  }
  const std::string name = x.params.at("name").get<std::string>();
  auto text = [&](const char* key) { return x.params.contains(key) ? x.params.at(key).get<std::string>() : std::string(); };
  const std::string scope_text = text("scope");
  const CounterScope scope = ParseCounterScope(scope_text.empty() ? "any" : scope_text).value_or(CounterScope::kAny);
  const std::string shown = scope_text.empty() || scope_text == "any" ? name : name + " (" + scope_text + ")";
  const auto v = x.trace.CounterSum(kDutHost, name, scope);
  if (!v) {
    if (x.rec.dut_caps.Has("telemetry")) {
      return With(x, Verdict::kFail, "the DUT exposes no counter named '" + name + "'" +
                                         (scope == CounterScope::kAny ? "" : " in scope " + scope_text) + " (MROCE-TEL names it)");
    }
    return With(x, Verdict::kSkip, "the DUT exposes no telemetry");
  }
  auto doc = [](const std::string& count) {
    for (const TraceCountInfo& i : TraceCounts()) {
      if (i.name == count) return std::string(i.doc);
    }
    return count;
  };
  // A check of a counter whose event never happened judges nothing.
  for (const char* key : {"trigger", "equals"}) {
    const std::string count = text(key);
    if (!count.empty() && x.trace.Count(count).value_or(0) == 0) {
      return With(x, Verdict::kInconclusive, "the trace has no " + doc(count) + " (" + count + " = 0): the event counter " +
                                                 shown + " counts never happened");
    }
  }
  // A counter that legitimately counts events the trace cannot see (MROCE-RTO-006: an RTO deems
  // every unacknowledged PSN lost, delivered or not; live, a timer may fire after the script's last
  // step and before telemetry is read) makes an excess undecidable, never a shortfall.
  const auto explained_excess = [&](uint64_t want, const std::string& what) -> std::optional<CheckResult> {
    const std::string other = text("excess_if");
    if (*v <= want || other.empty()) return std::nullopt;
    const auto n = x.trace.CounterSum(kDutHost, other, scope);
    if (!n || *n == 0) return std::nullopt;
    return With(x, Verdict::kInconclusive,
                "counter " + shown + " is " + std::to_string(*v) + ", above " + what + ", while " + other + " is " +
                    std::to_string(*n) + ": those events add to " + name +
                    " by rule, so the exact count is not decidable from the trace");
  };
  if (const std::string count = text("equals"); !count.empty()) {
    const uint64_t want = *x.trace.Count(count);
    if (auto r = explained_excess(want, "the " + std::to_string(want) + " " + doc(count) + " (" + count + ") the tap shows")) {
      return *r;
    }
    if (*v > want && !x.rec.dut_caps.simulated_time && count == "dut.data_lost") {
      // MROCE-LOSS-001 deems lost a PSN below the highest acknowledged one: a live wire that reorders
      // a path's packets (outside the trace) makes the DUT infer losses, and retransmit, beyond
      // those the tap shows. Retransmissions beyond the losses say so: an excess up to them is not
      // decidable; one beyond them, or an excess without them, still fails.
      const uint64_t rtx = x.trace.Count("dut.data_rtx").value_or(0);
      if (rtx > want && *v <= rtx) {
        return With(x, Verdict::kInconclusive,
                    "counter " + shown + " is " + std::to_string(*v) + ", above the " + std::to_string(want) + " " +
                        doc(count) + " (" + count + ") the tap shows, while this live DUT retransmitted " +
                        std::to_string(rtx) + " data packets: packets reordered on the wire are deemed lost by rule "
                        "(MROCE-LOSS-001), so the exact count is not decidable from the trace");
      }
    }
    if (*v != want && !x.rec.dut_caps.simulated_time) {
      // A live DUT is reached through a host (kernel, sockets, an impair bridge): the tap sees a
      // frame before the DUT does and telemetry is read at one instant, so a frame still in a queue,
      // or dropped by the host after the tap, is in the trace but not in the DUT. Judge exactly only
      // when the DUT's own packet totals agree with the tap's.
      const auto out_of_step = [&](const char* counter, CounterScope sc, const char* count) -> std::string {
        const auto dut = x.trace.CounterSum(kDutHost, counter, sc);
        const uint64_t tap = x.trace.Count(count).value_or(0);
        if (!dut || *dut == tap) return {};
        return std::string(counter) + " " + std::to_string(*dut) + " against " + std::to_string(tap) + " " + count;
      };
      std::string why = out_of_step("rx_pkts", CounterScope::kPathRx, "dut.data_rx");
      if (why.empty()) why = out_of_step("tx_pkts", CounterScope::kPath, "dut.data_tx");
      if (!why.empty()) {
        return With(x, Verdict::kInconclusive,
                    "counter " + shown + " is " + std::to_string(*v) + " while the tap shows " + std::to_string(want) + " " +
                        doc(count) + " (" + count + "), but this live DUT and the tap disagree on the packets themselves (" +
                        why + ": frames queued or dropped by the host between tap and DUT), so the exact count is not "
                        "decidable from the trace");
      }
    }
    if (*v != want) {
      return Mismatch(x, Verdict::kFail,
                      "counter " + shown + " is " + std::to_string(*v) + " while the DUT's tap shows " + std::to_string(want) +
                          " " + doc(count) + " (" + count + "); counters agree with the trace exactly (MROCE-TEL-003)",
                      name, want, *v);
    }
  }
  const auto bound = [&](const char* k) -> std::optional<uint64_t> {
    if (x.params.contains(k) && x.params.at(k).is_number()) return static_cast<uint64_t>(x.params.at(k).get<double>());
    return std::nullopt;
  };
  // Literal bounds that follow from the simulated clock's timing (how many RTOs fired before the
  // last telemetry sample) cannot fail a live DUT, whose path latency moves its timers.
  const bool timing_bound = x.params.contains("simulated_only") && x.params.at("simulated_only").is_boolean() &&
                            x.params.at("simulated_only").get<bool>() && !x.rec.dut_caps.simulated_time;
  const auto out_of_bounds = [&](std::string why, uint64_t want) {
    if (timing_bound) {
      return With(x, Verdict::kInconclusive,
                  why + " (" + std::to_string(*v) + ", bound " + std::to_string(want) +
                      "): not decidable live, the bound holds on the simulated clock only (it counts the DUT's timer "
                      "events, which a live path's latency moves)");
    }
    return Mismatch(x, Verdict::kFail, why, name, want, *v);
  };
  for (const char* k : {"eq", "max"}) {
    if (auto b = bound(k)) {
      if (auto r = explained_excess(*b, std::string(k == std::string("eq") ? "its expected value " : "its maximum ") +
                                            std::to_string(*b))) {
        return *r;
      }
    }
  }
  if (auto eq = bound("eq"); eq && *v != *eq) return out_of_bounds("counter " + shown, *eq);
  if (auto mn = bound("min"); mn && *v < *mn) {
    return out_of_bounds("counter " + shown + " below its minimum " + std::to_string(*mn), *mn);
  }
  if (auto mx = bound("max"); mx && *v > *mx) {
    return out_of_bounds("counter " + shown + " above its maximum " + std::to_string(*mx), *mx);
  }
  return Pass(x);
}

// MROCE-ACK-004 / MROCE-CC-001 over the whole trace: every MetaRoCE ACK the DUT sends carries as
// ce_count the CE-marked data packets of its path (from that peer) that reached the DUT intact since
// the DUT's previous ACK of the path, saturating at 0xFFFF: whatever the DUT's ACK timing.
CheckResult AckCeCount(const Ctx& x) {
  std::map<std::pair<int, uint32_t>, uint64_t> since;  // (peer host, path) -> CE arrivals since the last ACK
  uint64_t judged = 0, marked = 0;
  for (size_t i = 0; i < x.trace.frames.size(); ++i) {
    const FrameRecord& r = x.trace.frames[i];
    const FrameFacts& f = x.trace.facts[i];
    if (!f.meta) continue;
    if (r.event == FrameRecord::Event::kRx && r.to_dut() && f.data && !r.corrupted) {
      uint64_t& n = since[{r.src_host, f.path}];
      if (f.ce) {  // the IP ECN of the frame as delivered
        ++n;
        ++marked;
      }
      continue;
    }
    if (r.event != FrameRecord::Event::kTx || !r.from_dut() || !f.ack) continue;
    uint64_t& n = since[{r.dst_host, f.path}];
    const uint64_t want = std::min<uint64_t>(n, 0xFFFF);
    n = 0;
    ++judged;
    if (f.ce_count != want) {
      // On a live path the tap is not at the DUT's port: an arrival stamped before the ACK may have
      // reached the DUT after it left (or the reverse), so the count since the previous ACK is not
      // the DUT's. Said so, not blamed on the DUT.
      const bool live = !x.rec.dut_caps.simulated_time;
      return Mismatch(x, live ? Verdict::kInconclusive : Verdict::kFail,
                      std::string(live ? "not decidable live (the tap's order of arrivals and ACKs is not the DUT's): " : "") +
                      "the DUT's ACK of path " + std::to_string(f.path) + " (frame " + std::to_string(r.frame_no) +
                          ") carries ce_count " + std::to_string(f.ce_count) + " while " + std::to_string(want) +
                          " CE-marked data packet(s) of the path reached it since its previous ACK of the path (MROCE-ACK-004)",
                      "ack.ce_count", want, f.ce_count);
    }
  }
  if (judged == 0) return With(x, Verdict::kInconclusive, "the DUT sent no MetaRoCE ACK");
  if (marked == 0) return With(x, Verdict::kInconclusive, "no CE-marked data packet reached the DUT: the impairment never hit");
  return Pass(x);
}

CheckResult StateBounded(const Ctx& x) {
  const double max_bytes = Param(x, "max_bytes", -1);
  if (max_bytes < 0) return With(x, Verdict::kError, "state-bounded: params.max_bytes is required");
  uint64_t peak = 0;
  bool any = false;
  for (const TelemetrySample& s : x.trace.telemetry) {
    if (s.host != kDutHost || !s.state_bytes) continue;
    any = true;
    peak = std::max(peak, *s.state_bytes);
  }
  if (!any) return With(x, Verdict::kSkip, "the DUT does not report its state size");
  if (static_cast<double>(peak) <= max_bytes) return Pass(x);
  return Mismatch(x, Verdict::kFail, "DUT protocol state peaked above the bound", "state bytes",
                  static_cast<uint64_t>(max_bytes), peak);
}

// --- hint-share -----------------------------------------------------------------------------------
// MROCE-HINT-001/002/003: every ACK the DUT sends carries rate_hint = max(1, floor(C * U / N)), N the
// connections whose data reached the DUT in the last 100 us, or a max-min share within HINT-003. U is
// configurable (0.50..1.00) and the check cannot see the DUT's own instant of counting, so it bounds
// generously on both sides and judges only what no legal DUT can do:
//  - above: a hint above C * max_utilisation / N_seen (N_seen: arrivals of the last active_us, 99 by
//    default) is legal only as a max-min share: with the latest hints the DUT sent to the other
//    connections active then, at most max(floor(C * max_utilisation), N) (HINT-003 (a));
//  - below (simulated DUTs): at least min(max(1, floor(C1 * min_utilisation / N_all)), R), N_all the
//    senders of the last active_us + 2 us, C1 one attachment's line rate (links may be down), R the
//    connection's arrival rate over the last active_us at the tap (HINT-001, HINT-003 (b)).
// Connections are matched between directions by the ids their CONNECT frames exchanged; a hint the
// check cannot attribute is judged by the upper bound alone.
// Live DUTs: the tap's instants are not the DUT's (an injected frame's stamp and its arrival, an ACK's
// departure and its capture differ by up to M = 250 us plus the DUT's longest stall in the case), so
// N is bounded: the upper bound uses the connections certainly counted (data within active_us - M of
// the ACK's capture), `exact` only ACKs no other connection can have been counted for (none within
// active_us + 2M); when `exact` judged no ACK the result is inconclusive.
CheckResult HintShare(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const double umax = Param(x, "max_utilisation", 1.0);
  const double umin = Param(x, "min_utilisation", 0.5);
  const int64_t active_ns = static_cast<int64_t>(Param(x, "active_us", 99) * 1000);
  const int64_t active_all_ns = active_ns + 2000;
  const double link_mbps = static_cast<double>(x.rec.link_rate_bps) / 1e6;
  double cap_mbps = link_mbps * std::max(1, x.c.topology.planes);
  double one_link_mbps = link_mbps;
  using Key = std::pair<int, uint32_t>;  // (peer host, the DUT's connection id)
  std::map<Key, uint32_t> dut_id_of;     // (peer host, the peer's connection id) -> the DUT's id
  bool seen_adv = false;
  for (size_t i = 0; i < x.trace.frames.size(); ++i) {
    const FrameRecord& r = x.trace.frames[i];
    const FrameFacts& f = x.trace.facts[i];
    if (!f.meta || (f.opcode != 0x20 && f.opcode != 0x21)) continue;
    const bool dut_tx = r.event == FrameRecord::Event::kTx && r.from_dut();
    const bool dut_rx = r.event == FrameRecord::Event::kRx && r.to_dut();
    if (!dut_tx && !dut_rx) continue;
    auto fr = Trace::Decode(r, x.trace.meta_port);
    if (!fr.ok() || fr->meta() == nullptr) continue;
    const wire::FieldMap m = wire::ToFieldMap(*fr);
    const uint32_t src_id = static_cast<uint32_t>(m.GetU64("cmh.src_conn_id").value_or(0));
    if (dut_tx && !seen_adv) {
      // A non-zero max_rate the DUT advertised below its capacity caps its own C (MROCE-CONN-018).
      seen_adv = true;
      const uint64_t adv = m.GetU64("cmh.max_rate").value_or(0);
      if (adv != 0 && static_cast<double>(adv) < cap_mbps) cap_mbps = static_cast<double>(adv);
      if (adv != 0 && static_cast<double>(adv) < one_link_mbps) one_link_mbps = static_cast<double>(adv);
    }
    if (f.opcode != 0x21 || src_id == 0) continue;  // CONNECT_ACK: dst is the requester, src the responder
    if (dut_tx) dut_id_of[{r.dst_host, f.conn}] = src_id;
    if (dut_rx) dut_id_of[{r.src_host, src_id}] = f.conn;
  }
  const bool exact = x.params.is_object() && x.params.contains("exact") && x.params.at("exact").get<bool>();
  const bool judge_floor = x.rec.dut_caps.simulated_time;  // a live tap does not see the DUT's instants
  const int64_t live_margin_ns = judge_floor ? 0 : 250'000 + std::max<int64_t>(0, x.rec.stall_ns);
  uint64_t judged_exactly = 0;
  std::map<Key, int64_t> last_data;                        // -> last arrival
  std::map<Key, std::deque<std::pair<int64_t, uint64_t>>> arrivals;  // -> (time, IP bytes), last active_us
  std::map<Key, uint32_t> last_hint;                       // -> the latest hint the DUT sent
  uint64_t judged = 0;
  size_t max_seen = 0;
  for (size_t i = 0; i < x.trace.frames.size(); ++i) {
    const FrameRecord& r = x.trace.frames[i];
    const FrameFacts& f = x.trace.facts[i];
    if (!f.meta) continue;
    if (r.event == FrameRecord::Event::kRx && r.to_dut() && f.data && !r.corrupted) {
      const Key k{r.src_host, f.conn};
      last_data[k] = r.time_ns;
      // IP total length: the frame less Ethernet (and a VLAN tag, to stay below it).
      arrivals[k].emplace_back(r.time_ns, r.bytes.size() > 18 ? r.bytes.size() - 18 : 0);
      continue;
    }
    if (r.event != FrameRecord::Event::kTx || !r.from_dut() || !f.ack) continue;
    const int64_t t = r.time_ns;
    size_t n_seen = 0, n_all = 0, n_certain = 0, n_possible = 0;
    for (const auto& [key, last] : last_data) {
      n_seen += last >= t - active_ns ? 1 : 0;
      n_all += last >= t - active_all_ns ? 1 : 0;
      n_certain += last >= t - active_ns + live_margin_ns ? 1 : 0;
      n_possible += last >= t - active_ns - 2 * live_margin_ns ? 1 : 0;
    }
    max_seen = std::max(max_seen, n_seen);
    const size_t n = live_margin_ns == 0 ? n_seen : n_certain;  // the DUT counted at least n
    const uint64_t allowed =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::floor(cap_mbps * umax / static_cast<double>(std::max<size_t>(n, 1)))));
    ++judged;
    const uint32_t h = f.rate_hint;
    const bool reserved = h == 0 || h == 0xFFFFFFFFu;
    // One active sender: the equal share and every max-min share are the same value (HINT-001, -003).
    const bool must_equal = exact && n_possible <= 1;
    judged_exactly += must_equal ? 1 : 0;
    const auto mapped = dut_id_of.find({r.dst_host, f.conn});
    const std::optional<Key> key =
        mapped != dut_id_of.end() ? std::optional<Key>(Key{r.dst_host, mapped->second}) : std::nullopt;
    std::ostringstream why;
    uint64_t expected = allowed;
    bool ok = !reserved && (must_equal ? h == allowed : h <= allowed);
    if (!ok && !reserved && !must_equal && key) {
      // HINT-003 (a): a max-min share, if the latest hints of the other active connections leave room.
      uint64_t others = 0;
      for (const auto& [k, last] : last_hint) {
        const auto d = last_data.find(k);
        if (k != *key && d != last_data.end() && d->second >= t - active_ns) others += last;
      }
      const uint64_t budget = std::max<uint64_t>(static_cast<uint64_t>(std::floor(cap_mbps * umax)), n_all);
      ok = others < budget && h <= budget - others;
      if (!ok) {
        expected = others < budget ? budget - others : allowed;
        why << "the DUT advertised " << h << " Mb/s while " << n << " connection(s) were sending to it: above the equal "
            << "share C x U / N = " << static_cast<uint64_t>(cap_mbps) << " x " << umax << " / " << std::max<size_t>(n, 1)
            << " = " << allowed << " Mb/s (MROCE-HINT-001), and as a max-min share (MROCE-HINT-003 (a)) it plus the "
            << "latest hints of the other active connections (" << others << " Mb/s) exceeds max(floor(C x U), N) = "
            << budget << " Mb/s";
      }
    } else if (!ok && reserved) {
      expected = 1;
      why << "the DUT sent an ACK with rate_hint " << h << ", a value a receiver MUST NOT send";
    } else if (!ok) {
      why << "the DUT advertised " << h << " Mb/s while " << n << " connection(s) were sending to it: "
          << (must_equal ? "exactly " : "at most ") << "C x U / N = " << static_cast<uint64_t>(cap_mbps) << " x " << umax
          << " / " << std::max<size_t>(n, 1) << " = " << allowed << " Mb/s";
    }
    if (ok && judge_floor && key) {
      // The floor: no legal hint is below min(equal share at the lowest U, the arrival rate).
      auto& q = arrivals[*key];
      while (!q.empty() && q.front().first < t - active_ns) q.pop_front();
      uint64_t bytes = 0;
      for (const auto& a : q) bytes += a.second;
      const uint64_t rate = bytes * 8 / 100;  // over 100 us, in Mb/s: a lower bound of the DUT's R
      const uint64_t equal_low = std::max<uint64_t>(
          1, static_cast<uint64_t>(std::floor(one_link_mbps * umin / static_cast<double>(std::max<size_t>(n_all, 1)))));
      const uint64_t floor_hint = std::min(equal_low, rate);
      if (h < floor_hint) {
        ok = false;
        expected = floor_hint;
        why << "the DUT advertised " << h << " Mb/s, below every legal hint: the equal share is at least floor(C x U / N) = "
            << static_cast<uint64_t>(one_link_mbps) << " x " << umin << " / " << std::max<size_t>(n_all, 1) << " = "
            << equal_low << " Mb/s (MROCE-HINT-001) and a max-min share at least min(that, the connection's arrival rate "
            << rate << " Mb/s) (MROCE-HINT-003 (b))";
      }
    }
    if (key && !reserved) last_hint[*key] = h;
    if (ok) continue;
    CheckResult res = Mismatch(x, Verdict::kFail, why.str(), "ack.rate_hint", expected, h);
    AttachActual(res, r, x.trace.meta_port);
    // The expected ACK: the same frame with the nearest hint the clauses allow.
    if (auto fr = Trace::Decode(r, x.trace.meta_port); fr.ok() && fr->meta() != nullptr && fr->meta()->ack() != nullptr) {
      wire::Frame want = *fr;
      want.meta()->ack()->rate_hint = static_cast<uint32_t>(std::min<uint64_t>(expected, 0xFFFFFFFEu));
      FrameRecord e = r;
      e.bytes = wire::SerializeFrame(want);
      AttachExpected(res, e, x.trace.meta_port);
    }
    return res;
  }
  if (judged == 0) return With(x, Verdict::kInconclusive, "the DUT sent no MetaRoCE ACK");
  if (max_seen < 2 && !exact) return With(x, Verdict::kInconclusive, "never more than one connection was sending to the DUT");
  if (exact && judged_exactly == 0) {
    return With(x, Verdict::kInconclusive,
                "no ACK left while certainly one connection alone was sending (live: within " +
                    std::to_string((active_ns + 2 * live_margin_ns) / 1000) + " us of its capture), so exact was not judged");
  }
  return Pass(x);
}

// --- completion-latency ---------------------------------------------------------------------------
// MROCE-CMPL-005: a completion within 1 us of the event that makes it deliverable. Such an event is
// always a frame arriving at the DUT (the last ACK, the last data byte, or the frame that completed
// the preceding message), so the latency is bounded below by completion time minus the latest
// arrival at the DUT before it: the check never blames a conforming DUT.
CheckResult CompletionLatency(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const int64_t max_ns = static_cast<int64_t>(Param(x, "max_ns", 1000));
  std::vector<int64_t> arrivals;
  for (const FrameRecord& r : x.trace.frames) {
    if (r.event == FrameRecord::Event::kRx && r.to_dut()) arrivals.push_back(r.time_ns);
  }
  uint64_t judged = 0;
  int64_t worst = -1;
  const ControlRecord* worst_c = nullptr;
  for (const ControlRecord& c : x.trace.control) {
    if (c.kind != ControlRecord::Kind::kCompletion || c.host != kDutHost || c.status != dut::OpStatus::kSuccess) continue;
    auto it = std::upper_bound(arrivals.begin(), arrivals.end(), c.time_ns);
    if (it == arrivals.begin()) continue;  // nothing arrived before it: not judged
    ++judged;
    const int64_t lat = c.time_ns - *(it - 1);
    if (lat > worst) {
      worst = lat;
      worst_c = &c;
    }
  }
  if (judged == 0) return With(x, Verdict::kInconclusive, "the DUT delivered no successful completion to judge");
  if (worst <= max_ns) return Pass(x);
  std::ostringstream why;
  why << "work request " << (worst_c->wr_id & 0xFFFFFFFFull) << " completed at t=" << worst_c->time_ns << " ns, at least "
      << worst << " ns after the last frame that reached the DUT (at most " << max_ns << " ns)";
  return Mismatch(x, Verdict::kFail, why.str(), "completion latency ns", static_cast<uint64_t>(max_ns), static_cast<uint64_t>(worst));
}

// --- completion -----------------------------------------------------------------------------------
// The DUT's completions of one kind (op, stream, status, bytes as given): exactly `count` of them, or
// at least one. What the spec fixes about a work request's end that frames cannot show: its status
// (table 13.1, e.g. MROCE-ERR-007's REM_ACCESS_ERR), stream (MROCE-CMPL-009) and byte count.
CheckResult CompletionOf(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const std::string op = x.params.value("op", std::string("any"));
  const std::string status = x.params.value("status", std::string("success"));
  const std::optional<int64_t> stream = x.params.contains("stream") ? std::optional<int64_t>(x.params["stream"].get<int64_t>()) : std::nullopt;
  const std::optional<int64_t> bytes = x.params.contains("bytes") ? std::optional<int64_t>(x.params["bytes"].get<int64_t>()) : std::nullopt;
  const std::optional<int64_t> count = x.params.contains("count") ? std::optional<int64_t>(x.params["count"].get<int64_t>()) : std::nullopt;
  // imm N: exactly that immediate data; has_imm false: none (MROCE-CMPL-009).
  std::optional<std::optional<uint32_t>> imm;
  if (x.params.contains("imm")) imm = std::optional<uint32_t>(static_cast<uint32_t>(x.params["imm"].get<int64_t>()));
  if (x.params.contains("has_imm") && !x.params["has_imm"].get<bool>()) imm = std::optional<uint32_t>();
  std::ostringstream want;
  want << (op == "any" ? std::string("completion") : op + " completion");
  if (stream) want << " on stream " << *stream;
  want << " with status " << status;
  if (bytes) want << " and " << *bytes << " bytes";
  if (imm) want << (*imm ? " and immediate data " + std::to_string(**imm) : std::string(" and no immediate data"));
  uint64_t n = 0;
  std::ostringstream seen;
  size_t listed = 0;
  for (const ControlRecord& c : x.trace.control) {
    if (c.kind != ControlRecord::Kind::kCompletion || c.host != kDutHost) continue;
    const bool match = (op == "any" || dut::OpKindName(c.op) == op) && (!stream || c.stream == *stream) &&
                       dut::OpStatusName(c.status) == status && (!bytes || c.bytes == *bytes) && (!imm || c.imm == *imm);
    if (match) ++n;
    if (listed++ < 12) {
      seen << (listed > 1 ? "; " : "") << "wr_id " << (c.wr_id & 0xFFFFFFFFull) << ": " << dut::OpKindName(c.op) << " stream "
           << c.stream << " " << dut::OpStatusName(c.status) << " " << c.bytes << " bytes"
           << (c.imm ? " imm " + std::to_string(*c.imm) : std::string());
    }
  }
  const bool ok = count ? n == static_cast<uint64_t>(*count) : n >= 1;
  if (ok) return Pass(x);
  const std::string all = listed == 0 ? std::string("the DUT reported no completion") : "the DUT's completions: " + seen.str() + (listed > 12 ? "; ..." : "");
  return Mismatch(x, Verdict::kFail,
                  (count ? "expected exactly " + std::to_string(*count) : std::string("expected at least one")) + " " + want.str() +
                      ", got " + std::to_string(n) + " (" + all + ")",
                  want.str(), count ? static_cast<uint64_t>(*count) : 1, n);
}

// --- connection-event -----------------------------------------------------------------------------
// The DUT's connection events of one kind (and reason): exactly `count`, or at least one. What the
// adapter reports of a connection's life that frames cannot show (an ERROR entered without any
// packet, MROCE-ERR-008; the adapter guide's event table).
CheckResult ConnectionEvent(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const std::string kind = x.params.is_object() ? x.params.value("kind", std::string("error")) : std::string("error");
  const bool obj = x.params.is_object();
  const std::optional<int64_t> reason = obj && x.params.contains("reason") ? std::optional<int64_t>(x.params["reason"].get<int64_t>()) : std::nullopt;
  const std::optional<int64_t> count = obj && x.params.contains("count") ? std::optional<int64_t>(x.params["count"].get<int64_t>()) : std::nullopt;
  std::string want = kind + " event" + (reason ? " with reason " + std::to_string(*reason) : std::string());
  uint64_t n = 0;
  std::ostringstream seen;
  size_t listed = 0;
  for (const ControlRecord& c : x.trace.control) {
    if (c.kind != ControlRecord::Kind::kConnEvent || c.host != kDutHost) continue;
    if (c.detail == kind && (!reason || c.bytes == static_cast<uint64_t>(*reason))) ++n;
    if (listed++ < 12) seen << (listed > 1 ? "; " : "") << c.detail << " (conn " << c.conn << ", reason " << c.bytes << ")";
  }
  const bool ok = count ? n == static_cast<uint64_t>(*count) : n >= 1;
  if (ok) return Pass(x);
  const std::string all = listed == 0 ? std::string("the DUT reported no connection event")
                                      : "the DUT's events: " + seen.str() + (listed > 12 ? "; ..." : "");
  return Mismatch(x, Verdict::kFail,
                  (count ? "expected exactly " + std::to_string(*count) : std::string("expected at least one")) + " " + want +
                      ", got " + std::to_string(n) + " (" + all + ")",
                  want, count ? static_cast<uint64_t>(*count) : 1, n);
}

// --- state-released -------------------------------------------------------------------------------
// MROCE-LIM-007: 1 ms after the workload, state_bytes is back to its value before the workload.
CheckResult StateReleased(const Ctx& x) {
  if (auto p = Precondition(x)) return *p;
  const double slack = Param(x, "slack_bytes", 0);
  if (!x.rec.state_before) return With(x, Verdict::kSkip, "the DUT does not report its state size");
  if (!x.rec.all_completed) return With(x, Verdict::kInconclusive, "the workload did not complete");
  if (!x.rec.state_after || x.rec.state_after_delay_ns < 1'000'000) {
    return With(x, Verdict::kInconclusive,
                "traffic never stopped for the 1 ms the clause allows before the quiesce ended; lengthen timeouts.quiesce");
  }
  const uint64_t before = *x.rec.state_before, after = *x.rec.state_after;
  if (static_cast<double>(after) <= static_cast<double>(before) + slack) return Pass(x);
  return Mismatch(x, Verdict::kFail,
                  "1 ms after the workload the DUT still holds " + std::to_string(after - before) +
                      " bytes more protocol state than before it",
                  "state bytes", before, after);
}

// --- clause-monitor -------------------------------------------------------------------------------
// One FAIL per violated rule (its first violation, with the count of the others), else one PASS naming
// the clauses whose rules judged something; SKIP when the DUT sent no MetaRoCE frame at all.
void ClauseMonitor(const CheckContext& x, std::vector<CheckResult>& out) {
  if (!x.rec.dut_caps.simulated_time) {
    // On a live path the harness's tap is not at the DUT's port: frames the DUT sent may be lost,
    // reordered, duplicated or CE-marked on the wire (an impair bridge) before the harness sees
    // them, which the rules' picture of the DUT's own sequence does not allow for yet.
    CheckResult r = x.base;
    r.clauses.clear();
    r.verdict = Verdict::kSkip;
    r.reason = "the clause monitor judges DUTs on the simulated clock only: on a live path frames can be lost, "
               "reordered, duplicated or marked between the DUT and the harness's tap";
    out.push_back(std::move(r));
    return;
  }
  const MonitorReport rep = RunClauseMonitor(x.rec);
  const auto& rules = MonitorRules();
  const Trace& t = x.rec.trace;
  std::set<std::string> judged;
  for (size_t k = 0; k < rules.size(); ++k) {
    if (rep.judged[k] > 0) judged.insert(std::string(rules[k].clause));
  }
  bool failed = false;
  for (size_t k = 0; k < rules.size(); ++k) {
    if (rep.violation_counts[k] == 0) continue;
    const MonitorViolation* v = nullptr;
    for (const MonitorViolation& w : rep.violations) {
      if (w.rule == k) {
        v = &w;
        break;
      }
    }
    if (v == nullptr) continue;
    failed = true;
    CheckResult r = x.base;
    r.clauses = {std::string(rules[k].clause)};
    r.verdict = Verdict::kFail;
    r.reason = "[" + std::string(rules[k].id) + "] " + v->reason;
    if (rep.violation_counts[k] > 1) r.reason += " (and " + std::to_string(rep.violation_counts[k] - 1) + " more)";
    if (v->has_values) r.mismatch = harness::ValueMismatch::Scalar(v->field, v->expected, v->actual);
    if (v->frame >= 0) AttachActual(r, t.frames[static_cast<size_t>(v->frame)], t.meta_port);
    if (v->related >= 0) AttachExpected(r, t.frames[static_cast<size_t>(v->related)], t.meta_port);
    if (v->control >= 0) {
      const ControlRecord& c = t.control[static_cast<size_t>(v->control)];
      std::ostringstream d;
      d << "completion at " << c.time_ns << " ns: connection " << c.conn << " stream " << c.stream << " wr_id " << c.wr_id
        << " op " << dut::OpKindName(c.op) << " status " << dut::OpStatusName(c.status) << " bytes " << c.bytes;
      r.actual_packet = d.str();
    }
    out.push_back(std::move(r));
  }
  if (failed) return;
  CheckResult r = x.base;
  r.clauses.assign(judged.begin(), judged.end());
  if (judged.empty()) {
    r.verdict = Verdict::kSkip;
    r.reason = "the DUT sent no MetaRoCE frame and completed nothing: nothing for the clause monitor to judge";
  }
  out.push_back(std::move(r));
}

// --- monitor-rule --------------------------------------------------------------------------------
// A case written to trigger one clause-monitor rule (drive the DUT to the limit it bounds, or into
// the state it judges): PASS when the rule judged the trigger and held, FAIL when it broke,
// INCONCLUSIVE when the trigger never happened (the rule's silence then says nothing). With
// `at_bound`, the trigger is an event right at the rule's limit (the 1024th message of a stream's
// window, the 64th outstanding READ); otherwise any event the rule judged.
void MonitorRule(const CheckContext& x, std::vector<CheckResult>& out) {
  CheckResult r = x.base;
  const std::string rule = x.params.value("rule", "");
  const bool at_bound = x.params.is_object() && x.params.value("at_bound", false);
  const auto& rules = MonitorRules();
  size_t k = 0;
  while (k < rules.size() && rules[k].id != rule) ++k;
  r.clauses = {std::string(rules[k].clause)};
  if (!x.rec.dut_caps.simulated_time) {
    r.verdict = Verdict::kSkip;
    r.reason = "[" + rule + "] the clause monitor judges DUTs on the simulated clock only";
    out.push_back(std::move(r));
    return;
  }
  const MonitorReport rep = RunClauseMonitor(x.rec);
  const size_t triggers = at_bound ? rep.at_bound[k] : rep.judged[k];
  if (rep.violation_counts[k] > 0) {
    r.verdict = Verdict::kFail;
    r.reason = "[" + rule + "] broken " + std::to_string(rep.violation_counts[k]) + " time(s); the clause-monitor result shows the first";
  } else if (triggers == 0) {
    r.verdict = Verdict::kInconclusive;
    r.reason = "[" + rule + "] " +
               (at_bound ? "the DUT never reached the limit (" + std::to_string(rep.judged[k]) + " events judged, none at the bound)"
                         : std::string("judged nothing")) +
               ": the case's trigger never happened";
  } else {
    r.reason = "[" + rule + "] " + std::to_string(triggers) + (at_bound ? " event(s) at the limit, none beyond" : " event(s) judged, none broke it");
  }
  out.push_back(std::move(r));
}

// --- impairment-acted ------------------------------------------------------------------------------
// An end-to-end case whose impairments all show in the trace (drops, duplicates, corruption) and
// none of which touched a frame: its clauses' trigger never happened, so its other checks' passes
// say nothing about them (a live DUT whose handshake outlasted a scheduled blackhole; a schedule
// that misses the workload). Silent for cases without such impairments or with any stage whose
// effect the trace cannot show (delay, reorder, rate-limit).
void ImpairmentActed(const CheckContext& x, std::vector<CheckResult>& out) {
  static const std::set<std::string, std::less<>> kVisible = {
      "drop", "blackhole", "loss.bernoulli", "loss.gilbert-elliott", "loss.4state", "corrupt", "duplicate"};
  std::vector<std::string> names;  // the stage instances, as drop records name them
  bool duplicates = false, corrupts = false;
  for (size_t i = 0; i < x.c.impairments.size(); ++i) {
    const impairment::StageConfig& st = x.c.impairments[i].stage;
    if (st.kind == nullptr || !kVisible.count(st.kind->name)) return;
    names.push_back(st.name.empty() ? std::string(st.kind->name) + "#" : st.name);
    duplicates |= st.kind->name == "duplicate";
    corrupts |= st.kind->name == "corrupt";
  }
  if (names.empty()) return;
  uint64_t acted = 0;
  for (const FrameRecord& r : x.rec.trace.frames) {
    const bool dropped = r.event == FrameRecord::Event::kDrop &&
                         std::any_of(names.begin(), names.end(), [&](const std::string& n) { return r.where.rfind(n, 0) == 0; });
    acted += dropped || (duplicates && r.duplicate) || (corrupts && r.corrupted);
  }
  // A plane whose link went down (blackhole with link_down) acted on the devices even when they
  // then sent nothing into it (MROCE-PATH-013).
  const auto links_down = static_cast<uint64_t>(std::count_if(
      x.rec.trace.links.begin(), x.rec.trace.links.end(), [](const LinkEvent& e) { return !e.up; }));
  CheckResult res = x.base;
  if (acted > 0 || links_down > 0) {
    res.reason = "the impairments acted on " + std::to_string(acted) + " frame(s)";
    if (links_down > 0) res.reason += " and took " + std::to_string(links_down) + " plane link(s) down";
  } else {
    res.verdict = Verdict::kInconclusive;
    res.reason = "the case's impairments never acted on a frame in this run (no drop, duplicate or corruption by them "
                 "in the trace): the trigger of its clauses never happened, so its other checks' passes say nothing "
                 "about them";
  }
  out.push_back(std::move(res));
}

// Adapts a check that gives one result to the registry's form.
template <CheckResult (*F)(const Ctx&)>
void One(const CheckContext& x, std::vector<CheckResult>& out) {
  out.push_back(F(Ctx{x.c, x.rec, x.rec.trace, x.params, x.base}));
}

using harness::ParamSpec;
constexpr auto kNum = ParamSpec::Type::kNumber;
constexpr auto kInt = ParamSpec::Type::kInteger;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::string> TraceCountNames() {
  std::vector<std::string> v;
  for (const TraceCountInfo& i : TraceCounts()) v.emplace_back(i.name);
  return v;
}

std::vector<CheckInfo> Registry() {
  const auto e2e = harness::Style::kEndToEnd;
  const auto scripted = harness::Style::kScripted;
  return {
      {"completions", "every operation completed exactly once, successfully", {}, e2e, false, One<Completions>},
      {"completion-order", "completions in post order per (host, connection, stream)", {}, e2e, false, One<CompletionOrder>},
      {"data-intact", "every byte landed where the workload put it", {}, e2e, false, One<DataIntact>, false, true},
      {"retransmissions-equal-losses",
       "the DUT retransmitted exactly the data frames the fabric lost, on their path with their PSN",
       {{"tolerance", kInt, 0, kInf, false, "retransmissions or losses that may go unmatched"},
        {"require_loss", ParamSpec::Type::kBool, 0, 0, false, "inconclusive when nothing was lost (default true)"}},
       e2e, false, One<RetransmissionsEqualLosses>},
      {"no-spurious-retransmissions", "retransmissions of frames that were never lost stay under a bound",
       {{"max", kInt, 0, kInf, false, "spurious retransmissions allowed"},
        {"max_fraction", kNum, 0, 1, false, "spurious retransmissions allowed, as a fraction of data frames sent"}},
       e2e, false, One<NoSpuriousRetransmissions>},
      {"multipath", "DUT data used at least min_paths paths with distinct UDP source ports",
       {{"min_paths", kInt, 1, 256, false, "distinct paths (default: the topology's paths)"}}, e2e, false, One<Multipath>},
      {"rate-under-hint", "the DUT's send rate never exceeds the receiver's latest rate hint",
       {{"slack", kNum, 1, 100, false, "factor on the hint's allowance (default 1.10)"},
        {"window_rtts", kNum, 0.01, 1e6, false, "sliding window in RTTs (default 4)"}},
       e2e, false, One<RateUnderHint>},
      {"fair-share", "incast senders each get their fair share within k RTTs",
       {{"within_rtts", kNum, 0, 1e6, false, "RTTs allowed to converge (default 2)"},
        {"tolerance", kNum, 0, 1, false, "deviation from the share allowed, fraction (default 0.10)"},
        {"bin_rtts", kNum, 0.01, 1e6, false, "bin width in RTTs (default 4)"}},
       e2e, false, One<FairShare>, false, true},
      {"hint-share", "every ACK of the DUT carries the equal share of its capacity over the active senders, or a max-min share within MROCE-HINT-003",
       {{"max_utilisation", kNum, 0.5, 1.0, false, "largest U of MROCE-HINT-001 (default 1.0)"},
        {"min_utilisation", kNum, 0.5, 1.0, false, "smallest U of MROCE-HINT-001 (default 0.5)"},
        {"active_us", kNum, 1, 1e9, false, "window in microseconds in which a sender counts as active (default 99)"},
        {"exact", ParamSpec::Type::kBool, 0, 0, false,
         "while one sender is active the hint must equal max(1, floor(C x U)) (default false: at most)"}},
       e2e, false, One<HintShare>},
      {"completion-latency", "every successful DUT completion follows the frame that allowed it within max_ns",
       {{"max_ns", kInt, 0, kInf, false, "nanoseconds (default 1000)"}}, e2e, false, One<CompletionLatency>},
      {"completion", "the DUT reported exactly `count` completions (default: at least one) of the given op, stream, status and bytes",
       {{"op", ParamSpec::Type::kString, 0, 0, false, "the work request's kind (default any)", {"any", "send", "write", "read", "recv", "recv_write_imm"}},
        {"stream", kInt, 0, 65535, false, "its stream (default any)"},
        {"status", ParamSpec::Type::kString, 0, 0, false, "its status (default success)",
         {"success", "retry_exceeded", "rnr_retry_exceeded", "remote_access", "local_length", "remote_invalid", "remote_op_error",
          "flushed", "remote_abort", "resource", "connect_timeout", "other"}},
        {"bytes", kInt, 0, 4294967295.0, false, "its byte count (default any)"},
        {"imm", kInt, 0, 4294967295.0, false, "its immediate data (default any)"},
        {"has_imm", ParamSpec::Type::kBool, 0, 0, false, "false: it carries no immediate data (default any)"},
        {"count", kInt, 0, kInf, false, "exactly this many such completions"}},
       e2e, false, One<CompletionOf>},
      {"connection-event", "the DUT reported exactly `count` connection events (default: at least one) of the given kind and reason",
       {{"kind", ParamSpec::Type::kString, 0, 0, false, "the event (default error)",
         {"established", "accepted", "incoming", "rejected", "timeout", "closed", "error"}},
        {"reason", kInt, 0, 255, false, "its reason code (default any)"},
        {"count", kInt, 0, kInf, false, "exactly this many such events"}},
       e2e, false, One<ConnectionEvent>},
      {"state-released", "1 ms after the workload the DUT's protocol state is back to its size before it",
       {{"slack_bytes", kInt, 0, kInf, false, "bytes"}}, e2e, false, One<StateReleased>},
      {"counter", "a DUT telemetry counter equal to what the trace shows, or within bounds",
       {{"name", ParamSpec::Type::kString, 0, 0, true, "a chapter-17 counter name such as crc_errors"},
        {"scope", ParamSpec::Type::kString, 0, 0, false, "where the counter lives (default any: every scope summed)",
         {"any", "endpoint", "connection", "path", "path-rx"}},
        {"equals", ParamSpec::Type::kString, 0, 0, false, "a trace count the counter must equal exactly", TraceCountNames()},
        {"trigger", ParamSpec::Type::kString, 0, 0, false, "a trace count that must be non-zero for the check to judge",
         TraceCountNames()},
        {"excess_if", ParamSpec::Type::kString, 0, 0, false,
         "a DUT counter (same scope) whose events legitimately add to this one unseen by the trace (rto_events for "
         "loss_inferred): when it is non-zero, a count above `equals`, `eq` or `max` is inconclusive; a count below "
         "still fails"},
        {"eq", kInt, 0, kInf, false, "exact value"},
        {"min", kInt, 0, kInf, false, "lower bound"},
        {"max", kInt, 0, kInf, false, "upper bound"},
        {"simulated_only", ParamSpec::Type::kBool, 0, 0, false,
         "eq/min/max hold on the simulated clock only (they depend on how many of the DUT's timers fired before "
         "telemetry was read): a live DUT outside them is inconclusive (default false)"}},
       e2e, false, One<Counter>},
      {"ack-ce-count", "every DUT ACK's ce_count equals the CE-marked data of its path that arrived since the DUT's previous ACK of it",
       {}, e2e, false, One<AckCeCount>},
      {"state-bounded", "the DUT's protocol state never exceeds max_bytes",
       {{"max_bytes", kInt, 0, kInf, true, "bytes"}}, e2e, false, One<StateBounded>},
      {"monitor-rule", "the case triggered the clause-monitor rule it names (an event it judged, or with at_bound one right at its limit) and the rule held",
       {{"rule", ParamSpec::Type::kString, 0, 0, true, "the rule", {"data.stream-window", "data.reads-outstanding", "ack.route"}},
        {"at_bound", ParamSpec::Type::kBool, 0, 0, false, "the trigger is an event right at the rule's limit (data.stream-window, data.reads-outstanding); default false: any event the rule judged"}},
       e2e, false, MonitorRule},
      {"impairment-acted", "the case's impairments touched at least one frame (end-to-end cases whose stages all show in the trace)",
       {}, e2e, true, ImpairmentActed},
      {"clause-monitor", "every DUT frame and completion obeys the MUST clauses decidable from the trace (clause_monitor.h)", {},
       e2e, true, ClauseMonitor, true},
      {"script-steps", "each expect step matched a DUT frame in its window (or none, if absent); no DUT call refused", {},
       scripted, true, ScriptSteps},
      {"reference-match", "the DUT's frames matched by the expect steps are spec-equivalent to the reference endpoint's", {}, scripted,
       true, ReferenceMatch},
  };
}

}  // namespace

const std::vector<CheckInfo>& AllChecks() {
  static const std::vector<CheckInfo> infos = Registry();
  return infos;
}

const CheckInfo* FindCheck(const std::string& name) {
  for (const CheckInfo& i : AllChecks()) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

ref::Status ValidateCheck(const std::string& name, const json& params) {
  const CheckInfo* info = FindCheck(name);
  if (info == nullptr) {
    std::string known;
    for (const CheckInfo& i : AllChecks()) known += (known.empty() ? "" : ", ") + i.name;
    return ref::MakeError("check.name", "unknown check '" + name + "' (known: " + known + ")");
  }
  if (auto bad = harness::CheckParams(info->params, params)) {
    return ref::MakeError("check.params", "check '" + name + "': " + (bad->first.empty() ? "params " : "") + bad->second);
  }
  return ref::OkStatus();
}

std::vector<harness::CheckResult> RunChecks(const harness::Case& c, const RunRecord& rec, const RunRecord* reference,
                                            const harness::Catalog* catalog) {
  std::vector<harness::CheckSpec> specs;
  for (const CheckInfo& info : AllChecks()) {
    if (info.implicit && !info.all_styles && info.style == c.style) specs.push_back(harness::CheckSpec{info.name, json::object(), {}, {}});
  }
  specs.insert(specs.end(), c.checks.begin(), c.checks.end());
  if (c.checks.empty() && c.style == harness::Style::kEndToEnd) {
    for (const char* n : {"completions", "completion-order", "data-intact"}) specs.push_back(harness::CheckSpec{n, json::object(), {}, {}});
  }
  // The checks of every case (the clause monitor) come after the case's own.
  for (const CheckInfo& info : AllChecks()) {
    if (info.implicit && info.all_styles) specs.push_back(harness::CheckSpec{info.name, json::object(), {}, {}});
  }
  std::vector<harness::CheckResult> out;
  for (const RunRecord* r : {&rec, reference}) {
    if (r != nullptr && r->trace.facts.size() != r->trace.frames.size()) {
      harness::CheckResult e;
      e.check = "harness";
      e.verdict = harness::Verdict::kError;
      e.reason = std::string("harness bug: the ") + (r == &rec ? "DUT's" : "reference's") +
                 " trace reached the checks without its facts (Trace::Analyze)";
      return {e};
    }
  }
  for (const harness::CheckSpec& spec : specs) {
    CheckResult base;
    base.check = spec.name;
    for (const auto& cl : spec.clauses.empty() ? c.clauses : spec.clauses) base.clauses.push_back(cl.id);
    base.pcap = rec.pcap;
    base.where = spec.where.ToString();
    if (auto st = ValidateCheck(spec.name, spec.params); !st.ok()) {
      base.verdict = Verdict::kError;
      base.reason = st.error().message;
      out.push_back(base);
      continue;
    }
    FindCheck(spec.name)->fn(CheckContext{c, rec, reference, catalog, spec.params, base}, out);
  }
  return out;
}

std::vector<harness::TimeSeries> BuildSeries(const RunRecord& rec) {
  std::vector<harness::TimeSeries> out;
  const Trace& t = rec.trace;
  const double rtt = static_cast<double>(std::max<int64_t>(rec.rtt_ns, 1));
  const int64_t t0 = rec.workload_start_ns;
  // DUT goodput: data payload bytes the DUT sent that were delivered, per RTT bin, in Gb/s.
  std::map<int64_t, double> goodput, sent;
  std::map<int64_t, uint32_t> hint;  // lowest rate hint the DUT received in the bin, Mb/s
  std::map<uint32_t, std::map<int64_t, double>> per_path;
  for (size_t i = 0; i < t.frames.size(); ++i) {
    const FrameRecord& r = t.frames[i];
    const FrameFacts& f = t.facts[i];
    const int64_t b = static_cast<int64_t>(std::floor(static_cast<double>(r.time_ns - t0) / rtt));
    if (r.event == FrameRecord::Event::kRx && r.to_dut() && f.meta && f.ack && f.rate_hint != 0xFFFFFFFFu) {
      auto [it, fresh] = hint.try_emplace(b, f.rate_hint);
      if (!fresh) it->second = std::min(it->second, f.rate_hint);
    }
    if (!r.from_dut() || !f.data) continue;
    if (r.event == FrameRecord::Event::kRx) goodput[b] += f.payload_bytes;
    if (r.event == FrameRecord::Event::kTx) {
      per_path[f.path][b] += 1;
      sent[b] += static_cast<double>(r.bytes.size());
    }
  }
  if (!goodput.empty()) {
    harness::TimeSeries s{"DUT goodput", "Gbps", "rtt", {}};
    for (const auto& [b, bytes] : goodput) s.points.emplace_back(static_cast<double>(b), bytes * 8.0 / rtt);
    out.push_back(std::move(s));
  }
  // The DUT's data rate on the wire beside the rate hint it was given (spec 10.4).
  if (!sent.empty()) {
    harness::TimeSeries s{"DUT data rate (wire)", "Gbps", "rtt", {}};
    for (const auto& [b, bytes] : sent) s.points.emplace_back(static_cast<double>(b), bytes * 8.0 / rtt);
    out.push_back(std::move(s));
    if (!hint.empty()) {
      harness::TimeSeries h{"rate hint received by the DUT", "Gbps", "rtt", {}};
      for (const auto& [b, mbps] : hint) h.points.emplace_back(static_cast<double>(b), mbps / 1000.0);
      out.push_back(std::move(h));
    }
  }
  if (per_path.size() > 1 || (!per_path.empty() && per_path.begin()->second.size() > 1)) {
    int n = 0;
    for (const auto& [path, bins] : per_path) {
      if (++n > 8) break;
      harness::TimeSeries s{"DUT data frames path " + std::to_string(path), "frames/RTT", "rtt", {}};
      for (const auto& [b, v] : bins) s.points.emplace_back(static_cast<double>(b), v);
      out.push_back(std::move(s));
    }
  }
  // Window per path from the DUT's telemetry (gauge names end in ".cwnd").
  std::map<std::string, harness::TimeSeries> cwnd;
  for (const TelemetrySample& s : t.telemetry) {
    if (s.host != kDutHost) continue;
    for (const auto& [name, v] : s.counters) {
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".cwnd") == 0 && cwnd.size() < 8) {
        auto& ts = cwnd[name];
        ts.name = name;
        ts.unit = "bytes";
        ts.x_unit = "rtt";
        ts.points.emplace_back(static_cast<double>(s.time_ns - t0) / rtt, static_cast<double>(v));
      }
    }
  }
  for (auto& [name, ts] : cwnd) out.push_back(std::move(ts));
  return out;
}

}  // namespace mroce::session
