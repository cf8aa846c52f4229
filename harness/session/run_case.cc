// RunCase: probe, dispatch, judge, retry (see session.h).
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>

#include "mroce/dut/reference_dut.h"
#include "mroce/session/calibrate.h"
#include "mroce/session/checks.h"
#include "mroce/session/scripted.h"
#include "mroce/session/session.h"
#include "mroce/session/stall_log.h"
#include "mroce/session/workload.h"

namespace mroce::session {
namespace {

// The shortest retransmission timeout a conformant DUT may use (MROCE-RTO-004, table 15.1), and
// the fixed timer of connection management retransmissions (MROCE-CONN-005, MROCE-CONN-013: 1 ms
// less the clock granularity).
constexpr int64_t kSpecMinRtoNs = 50'000;
constexpr int64_t kSpecCmTimerNs = 999'000;

// What one live run of a scripted case shows besides its verdict.
struct AttemptSigns {
  // The DUT sent nothing at all in the window of a step that failed, which a starved DUT (or path)
  // would do too.
  bool silent = false;
  // A frame of the DUT's own timers (a retransmission, a PROBE, a CONNECT_REQ or DISCONNECT sent
  // again) that no step of the script expected: the DUT's timers fired where the script's did not.
  // 0: none; else its pcap frame number.
  uint64_t timer_frame = 0;
  int64_t timer_floor_ns = kSpecMinRtoNs;  // the shortest timer that may have sent it
  // A retransmission: how long after the DUT's previous transmission of the same packet it came on
  // the harness's clock; -1 for a PROBE or when no earlier transmission is in the trace.
  int64_t timer_gap_ns = -1;
  bool timer_probe = false;
  int64_t rtt_ns = 0;  // the live RTT the expect windows used
};

// Whether starvation explains the timer frame of a live run that failed: the host left the DUT
// unserved for `stall`, so an ACK due one RTT after a transmission reached it up to `stall` late.
// A conformant DUT's retransmission timer is at least kSpecMinRtoNs, so it fires spuriously only if
// rtt + stall exceeds that; and the harness stamps each frame up to `stall` late, so a
// retransmission that came `gap` after the previous transmission had a timer of at least gap - stall,
// which the stall outlasted only if gap < rtt + 2 stall.
bool StarvationExplainsTimerFrame(const AttemptSigns& s, int64_t stall) {
  if (s.timer_frame == 0 || s.rtt_ns + stall < s.timer_floor_ns) return false;
  return s.timer_gap_ns < 0 || s.timer_gap_ns < s.rtt_ns + 2 * stall;
}

// The first DUT frame of a failed live run that its own timers sent and no step matched.
void FindTimerFrame(const harness::Case& c, const RunRecord& rec, AttemptSigns& signs) {
  // Expected: a frame a step matched, or one an absent step found (that step judged it itself); a
  // failed expect step's closest candidate is not.
  std::set<long> matched;
  int64_t failed_at = -1;
  for (size_t i = 0; i < rec.steps.size(); ++i) {
    const ScriptStepOutcome& o = rec.steps[i];
    const auto* e = i < c.script.size() ? std::get_if<harness::ExpectStep>(&c.script[i]) : nullptr;
    if (o.matched_frame >= 0 && (o.state == ScriptStepOutcome::State::kPassed || (e != nullptr && e->absent))) {
      matched.insert(o.matched_frame);
    }
    if (o.state == ScriptStepOutcome::State::kFailed && failed_at < 0) failed_at = o.time_ns;  // a failed expect: its window's end
  }
  if (failed_at < 0) return;
  const Trace& t = rec.trace;
  for (size_t i = 0; i < t.frames.size() && i < t.facts.size(); ++i) {
    const FrameRecord& f = t.frames[i];
    const FrameFacts& x = t.facts[i];
    if (f.time_ns > failed_at) break;
    if (f.event != FrameRecord::Event::kTx || !f.from_dut() || !x.meta || matched.count(static_cast<long>(i)) != 0) continue;
    const bool probe = x.opcode == static_cast<uint8_t>(wire::Opcode::kProbe);
    const bool cm = x.opcode == static_cast<uint8_t>(wire::Opcode::kConnectReq) ||
                    x.opcode == static_cast<uint8_t>(wire::Opcode::kDisconnect);
    // A connection management frame counts when the DUT sent the same bytes before (CONN-005).
    bool cm_again = false;
    for (size_t j = i; cm && j-- > 0;) {
      if (t.frames[j].event == FrameRecord::Event::kTx && t.frames[j].from_dut() && t.facts[j].opcode == x.opcode &&
          t.frames[j].bytes == f.bytes) {
        cm_again = true;
        signs.timer_gap_ns = f.time_ns - t.frames[j].time_ns;
        break;
      }
    }
    if (!probe && !(x.data && x.rtx) && !cm_again) continue;
    signs.timer_frame = f.frame_no != 0 ? f.frame_no : i + 1;
    signs.timer_probe = probe;
    signs.timer_floor_ns = cm_again ? kSpecCmTimerNs : kSpecMinRtoNs;
    if (cm_again) return;
    signs.timer_gap_ns = -1;
    for (size_t j = i; !probe && j-- > 0;) {
      const FrameFacts& y = t.facts[j];
      const bool same = x.segment ? y.segment && y.SegmentKey() == x.SegmentKey()
                                  : y.data && y.conn == x.conn && y.path == x.path && y.psn == x.psn;
      if (t.frames[j].event == FrameRecord::Event::kTx && t.frames[j].from_dut() && same) {
        signs.timer_gap_ns = f.time_ns - t.frames[j].time_ns;
        break;
      }
    }
    return;
  }
}

// Judges one run of the case into `t` (verdict, checks, evidence, series); returns the DUT's
// longest stall; `signs` says what else a live run showed.
int64_t RunAttempt(const harness::Case& c, const SessionOptions& base, bool live, harness::TestResult& t, AttemptSigns* signs) {
  const bool scripted = c.style == harness::Style::kScripted;
  // A scripted case on a live DUT: the live path's own round trip, measured now (this attempt's
  // load), widens the expect windows (calibrate.h).
  SessionOptions options = base;
  std::optional<harness::CheckResult> calibration;
  if (scripted && live) {
    const LiveCalibration cal = CalibrateLive(base);
    harness::CheckResult row;
    row.check = "live-calibration";
    row.verdict = cal.ok ? harness::Verdict::kPass : harness::Verdict::kSkip;
    std::ostringstream why;
    why << cal.Describe() << "; expect windows use a live RTT of " << std::fixed << std::setprecision(1)
        << static_cast<double>(cal.fabric_rtt_ns + cal.rtt_extra_ns) / 1000.0 << " us plus a "
        << static_cast<double>(base.max_stall_ns) / 1000.0 << " us stall allowance";
    if (!cal.ok) why << " (the stall allowance only)";
    row.reason = why.str();
    if (cal.ok) options.live_rtt_extra_ns = cal.rtt_extra_ns;
    calibration = row;
  }
  RunRecord rec = Simulate(c, options);
  *signs = AttemptSigns{};
  signs->rtt_ns = rec.rtt_ns + std::max<int64_t>(0, options.live_rtt_extra_ns);
  signs->silent = live && std::any_of(rec.steps.begin(), rec.steps.end(), [](const ScriptStepOutcome& o) {
    return o.state == ScriptStepOutcome::State::kFailed && o.nothing_came;
  });
  if (live && scripted) FindTimerFrame(c, rec, *signs);
  t.stall_ms = static_cast<double>(rec.stall_ns) / 1e6;
  if (!rec.pcap.empty()) {
    t.evidence.push_back(rec.pcap);
    t.evidence.push_back(rec.jsonl);
  }
  if (!rec.dut_failure.empty()) {
    t.verdict = harness::Verdict::kError;
    t.reason = rec.dut_failure;
    return rec.stall_ns;
  }
  if (!rec.harness_error.empty()) {
    t.verdict = harness::Verdict::kError;
    t.reason = rec.harness_error;
    return rec.stall_ns;
  }
  // A scripted case also runs against the bundled reference endpoint: the reference-match check
  // compares the two.
  std::optional<RunRecord> reference;
  if (scripted) {
    const DutFactory make_ref = [] {
      return ref::Result<std::unique_ptr<dut::Dut>>(std::unique_ptr<dut::Dut>(std::make_unique<dut::ReferenceDut>()));
    };
    reference = SimulateScript(c, options, make_ref, ".reference");
    if (!reference->pcap.empty()) t.evidence.push_back(reference->pcap);
  }
  t.checks = RunChecks(c, rec, reference ? &*reference : nullptr, options.catalog);
  if (calibration) t.checks.insert(t.checks.begin(), *calibration);
  t.verdict = harness::CombineChecks(t.checks);
  for (const auto& ch : t.checks) {
    if (ch.verdict == t.verdict && t.verdict != harness::Verdict::kPass) {
      t.reason = ch.check + ": " + ch.reason;
      break;
    }
  }
  if (!scripted) t.series = BuildSeries(rec);
  return rec.stall_ns;
}

}  // namespace

RunRecord Simulate(const harness::Case& c, const SessionOptions& options) {
  if (c.style == harness::Style::kScripted) return SimulateScript(c, options, options.make_dut);
  return SimulateWorkload(c, options);
}

std::string ReproduceCommand(const harness::Case& c, const SessionOptions& options) {
  // Its own run directory: a rerun never overwrites the run it came from (./mroce-run by default).
  auto quoted = [](const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
  };
  return options.reproduce_prefix + " --filter " + quoted(c.id) + " --seed " + std::to_string(options.seed) +
         " --dut " + quoted(options.dut_spec) + " --out " + quoted("mroce-repro/" + c.id);
}

harness::TestResult RunCase(const harness::Case& c, const SessionOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  harness::TestResult t;
  t.id = c.id;
  t.title = c.title;
  t.clauses = c.clauses;
  t.level = c.level();
  t.seed = options.seed;
  t.reproduce = ReproduceCommand(c, options);
  auto finish = [&](harness::TestResult r) {
    r.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
  };

  // Capabilities first: a case the DUT cannot run is a skip, not a failure.
  bool live = false;
  {
    auto probe = options.make_dut();
    if (!probe.ok()) {
      t.verdict = harness::Verdict::kError;
      t.reason = "DUT: " + probe.error().message;
      return t;
    }
    const dut::Capabilities caps = probe.value()->Caps();
    live = !caps.simulated_time;
    // What the case declares, and the optional features its content uses (declared or not).
    std::vector<std::string> needs = c.requires_caps;
    for (const std::string& f : c.FeaturesUsed()) {
      if (std::find(needs.begin(), needs.end(), f) == needs.end()) needs.push_back(f);
    }
    for (const std::string& need : needs) {
      if (!caps.Has(need)) {
        t.verdict = harness::Verdict::kSkip;
        t.reason = need == "simulated_time"
                       ? "the case needs the harness's simulated clock, this DUT runs live" +
                             (c.simulated_time_reason.empty() ? std::string() : ": " + c.simulated_time_reason)
                       : "DUT lacks capability '" + need + "'";
        if (need == "raw_frames") {
          t.reason = "the case injects Ethernet/IP/UDP header fields that this DUT's data plane (kernel UDP sockets) "
                     "rebuilds: it cannot reach the DUT as the case sends it (a dpdk: data plane carries whole frames)";
        }
        // simulated_time and raw_frames are no protocol features: the harness's limits with this DUT.
        t.skip_cause = need == "simulated_time" || need == "raw_frames" ? "harness" : "feature";
        return t;
      }
    }
  }
  // A live DUT keeps its own clock: when the harness stops serving it for a while, or the DUT's
  // host keeps it off the CPU (a loaded host descheduled either: Dut::LongestStall counts both),
  // the DUT sees a network stall the case never asked for. A run that did not pass
  // after such a stall says nothing about the DUT: it is rerun, and if every run stalled, the
  // verdict is inconclusive with the stall named. (DUTs on the simulated clock never stall.)
  const int attempts = std::max(1, options.live_attempts);
  for (int attempt = 1;; ++attempt) {
    harness::TestResult a = t;
    const int64_t began = MonotonicNs();
    AttemptSigns signs;
    int64_t stall = RunAttempt(c, options, live, a, &signs);
    const int64_t ended = MonotonicNs();
    if (live) {  // the simulated clock never stalls, whatever other processes do
      for (const std::string& log : options.stall_logs) stall = std::max(stall, LongestLoggedStall(log, began, ended));
      a.stall_ms = std::max(a.stall_ms, static_cast<double>(stall) / 1e6);
    }
    a.attempts = attempt;
    const bool judged = stall <= options.max_stall_ns || a.verdict == harness::Verdict::kPass ||
                        a.verdict == harness::Verdict::kError;
    // A live DUT that sent nothing at all where a frame was due, with no stall measured: a
    // starvation the stall detector did not see looks the same, so the case is run again; a DUT
    // that never answers fails every run.
    if (judged && signs.silent && a.verdict == harness::Verdict::kFail && attempt < attempts) continue;
    // A run that failed after the DUT's own timers fired where the script's did not, while a stall
    // long enough to have fired them spuriously was measured: a conformant DUT on a starved host
    // does that (a spurious RTO may legally change what it sends next), so the run judges nothing.
    // It is run again; if every run shows it, the case is inconclusive, naming the frame.
    const bool timers_starved = judged && a.verdict == harness::Verdict::kFail && StarvationExplainsTimerFrame(signs, stall);
    if (timers_starved) {
      if (attempt < attempts) continue;
      std::ostringstream why;
      why << std::fixed << std::setprecision(3) << "in each of " << attempts
          << " run(s) the DUT's own timers fired where the script's did not (frame " << signs.timer_frame
          << " of the last run: "
          << (signs.timer_probe ? std::string("a PROBE")
              : signs.timer_gap_ns < 0 ? std::string("a retransmission")
                                        : "a retransmission " + std::to_string(signs.timer_gap_ns / 1000) + " us after the previous transmission")
          << ") while the DUT went unserved for " << stall / 1e6 << " ms: longer than the shortest legal timer that sends it ("
          << (signs.timer_floor_ns == kSpecMinRtoNs ? "the 50 us RTO floor, MROCE-RTO-004" : "1 ms, MROCE-CONN-005 and MROCE-CONN-013")
          << ") less the RTT, so a starved host explains it; the last run said "
          << harness::ToString(a.verdict) << " (" << a.reason << ")";
      a.verdict = harness::Verdict::kInconclusive;
      a.reason = why.str();
      return finish(std::move(a));
    }
    if (!judged && attempt < attempts) continue;
    if (judged) return finish(std::move(a));
    std::ostringstream why;
    why << std::fixed << std::setprecision(3) << "the live DUT went unserved for " << stall / 1e6
        << " ms (limit " << options.max_stall_ns / 1e6 << " ms) in each of " << attempts
        << " run(s), by the harness, by the DUT's own host or by a process of the live path (--stall-log): the host is "
           "too loaded to judge; the last run said "
        << harness::ToString(a.verdict) << " (" << a.reason << ")";
    a.verdict = harness::Verdict::kInconclusive;
    a.reason = why.str();
    return finish(std::move(a));
  }
}

}  // namespace mroce::session
