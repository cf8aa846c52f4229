// Checks of scripted cases (see script_checks.h).
#include "script_checks.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "mroce/session/scripted.h"
#include "mroce/session/spec_equivalence.h"
#include "mroce/wire/dump.h"
#include "mroce/wire/field_map.h"
#include "mroce/wire/frame.h"

namespace mroce::session {
namespace {

using harness::CheckResult;
using harness::Verdict;
using State = ScriptStepOutcome::State;

// Fields a step leaves to itself: the ones it declares free and the ones it matched with a variable
// (judged by the variable: their values come from each implementation's own earlier choices).
std::vector<std::string> StepFree(const harness::ExpectStep& s) {
  std::vector<std::string> f = s.free;
  for (const auto& [name, p] : s.match) {
    if (p.kind == harness::FieldPattern::Kind::kVariable) f.push_back(name);
  }
  return f;
}

// One field of a DUT frame the comparison refuses.
struct Difference {
  std::string field;
  std::string expected;
  std::string actual;
  std::string rule;  // "determined", "range 49152..65535", "reserved", ...
  std::vector<std::string> clauses;
};

harness::ValueMismatch ToMismatch(const wire::FieldDiff& d) {
  const uint64_t* e = d.expected ? std::get_if<uint64_t>(&*d.expected) : nullptr;
  const uint64_t* a = d.actual ? std::get_if<uint64_t>(&*d.actual) : nullptr;
  if (e && a) return harness::ValueMismatch::Scalar(d.name, *e, *a);
  return {d.name, d.expected ? wire::FormatFieldValue(*d.expected) : "(absent)",
          d.actual ? wire::FormatFieldValue(*d.actual) : "(absent)"};
}

const harness::SourceLocation& StepWhere(const harness::ScriptStep& s) {
  return std::visit([](const auto& step) -> const harness::SourceLocation& { return step.where; }, s);
}

// The spec's shortest fixed timer (table 15.1: the initial RTO, the CONNECT_REQ, DISCONNECT and
// PROBE retransmissions, all 1 ms).
constexpr int64_t kShortestFixedTimerNs = 1'000'000;

// How long after the script's first step step i began: the latest time an earlier step ran at.
// Whether the sender of data frame `index` of `r` (the DUT host) had sent the same segment of the
// connection, (ch.dst_conn_id, meh.stream_id, meh.msn, meh.msg_offset), before it
// (`relative frame.sent_before`, docs/spec/19). False for a frame without a MetaRoCE data header.
bool SentBefore(const RunRecord& r, size_t index) {
  const Trace& t = r.trace;  // analyzed: RunChecks makes sure
  const FrameFacts& mine = t.facts[index];
  if (!mine.segment) return false;
  for (size_t i = 0; i < index; ++i) {
    const FrameRecord& f = t.frames[i];
    if (f.event != FrameRecord::Event::kTx || f.src_host != t.frames[index].src_host) continue;
    if (t.facts[i].segment && t.facts[i].SegmentKey() == mine.SegmentKey()) return true;
  }
  return false;
}

int64_t EntryTime(const RunRecord& r, size_t i) {
  if (r.steps.empty() || i == 0 || r.steps[0].state == ScriptStepOutcome::State::kNotRun) return 0;
  int64_t t = r.steps[0].time_ns;
  for (size_t k = 1; k < i && k < r.steps.size(); ++k) {
    if (r.steps[k].state != ScriptStepOutcome::State::kNotRun) t = std::max(t, r.steps[k].time_ns);
  }
  return t - r.steps[0].time_ns;
}

}  // namespace

const std::vector<std::string>& BuiltinRoceFreeFields() {
  static const std::vector<std::string> k = {"ip4.id", "ip4.checksum", "ip6.flow_label", "udp.sport", "icrc",
                                             "eth.padding"};
  return k;
}

void ScriptSteps(const CheckContext& x, std::vector<CheckResult>& out) {
  const harness::Case& c = x.c;
  const RunRecord& rec = x.rec;
  // A live DUT that reached a step 1 ms or more later than the script does on the fabric's RTT
  // (the reference's run of it) waited, in the live path's latency and in the windows stretched to
  // it, as long as the spec's fixed timers: an RTO or a retransmission of its own may have changed
  // what it does next where the script expects no timer to have fired. A failure there is not
  // judged live; a pass stands.
  auto too_late = [&](size_t i) -> std::string {
    if (rec.dut_caps.simulated_time || x.reference == nullptr) return "";
    const int64_t late = EntryTime(rec, i) - EntryTime(*x.reference, i);
    if (late < kShortestFixedTimerNs) return "";
    return "not judged live: the live DUT reached this step " + std::to_string(late / 1000) +
           " us later than the script does on the fabric's RTT, as long as the spec's 1 ms timers (RTO, "
           "CONNECT_REQ, DISCONNECT and PROBE retransmission): a timer of the DUT's may have fired where the script "
           "expects none; it failed: ";
  };
  for (size_t i = 0; i < c.script.size() && i < rec.steps.size(); ++i) {
    const ScriptStepOutcome& o = rec.steps[i];
    const std::string where = ScriptWhere(StepWhere(c.script[i]));
    if (const auto* rs = std::get_if<harness::RespondStep>(&c.script[i])) {
      // What the standing answer did: the expect steps after it judge the DUT.
      if (o.state == State::kNotRun) continue;
      CheckResult cr;
      cr.check = "respond@" + where;
      cr.clauses = x.base.clauses;
      cr.where = where;
      cr.pcap = rec.pcap;
      cr.verdict = o.state == State::kPassed ? Verdict::kPass : Verdict::kError;
      cr.reason = o.state == State::kPassed ? "answered " + std::to_string(o.answered) + " DUT frame(s) (at most " +
                                                  std::to_string(rs->max) + ")"
                                            : o.reason;
      if (o.matched_frame >= 0) cr.packet_index = rec.trace.frames[static_cast<size_t>(o.matched_frame)].frame_no;
      out.push_back(cr);
      continue;
    }
    const auto* e = std::get_if<harness::ExpectStep>(&c.script[i]);
    if (e == nullptr) {
      // A refused DUT control call is the DUT's failure.
      if (o.state == State::kFailed) {
        CheckResult cr;
        cr.check = "dut-control@" + where;
        cr.clauses = x.base.clauses;
        const std::string late = too_late(i);
        cr.verdict = late.empty() ? Verdict::kFail : Verdict::kInconclusive;
        cr.reason = late + o.reason;
        cr.where = where;
        out.push_back(cr);
      }
      continue;
    }
    CheckResult cr = o.detail;
    cr.check = "expect@" + where;
    cr.clauses = x.base.clauses;
    cr.where = where;
    cr.pcap = rec.pcap;
    switch (o.state) {
      case State::kPassed:
        cr.verdict = Verdict::kPass;
        cr.reason = o.live_window;  // empty on the simulated clock
        if (o.matched_frame >= 0) cr.packet_index = rec.trace.frames[static_cast<size_t>(o.matched_frame)].frame_no;
        break;
      case State::kFailed: {
        const std::string late = too_late(i);
        cr.verdict = late.empty() ? Verdict::kFail : Verdict::kInconclusive;
        // The check's name already says where; do not repeat it at the front of the reason.
        const std::string prefix = where + ": ";
        cr.reason = late + (o.reason.rfind(prefix, 0) == 0 ? o.reason.substr(prefix.size()) : o.reason);
        if (!o.live_window.empty()) cr.reason += " (" + o.live_window + ")";
        break;
      }
      case State::kUnjudged: {
        cr.verdict = Verdict::kInconclusive;
        const std::string prefix = where + ": ";
        cr.reason = o.reason.rfind(prefix, 0) == 0 ? o.reason.substr(prefix.size()) : o.reason;
        break;
      }
      case State::kError:
        cr.verdict = Verdict::kError;
        cr.reason = o.reason;
        break;
      case State::kNotRun:
        cr.verdict = Verdict::kInconclusive;
        cr.reason = "not run: an earlier step failed";
        break;
    }
    out.push_back(cr);
  }
}

void ReferenceMatch(const CheckContext& x, std::vector<CheckResult>& out) {
  const harness::Case& c = x.c;
  const RunRecord& dut = x.rec;
  CheckResult rm = x.base;
  rm.where.clear();
  if (x.reference == nullptr) {
    rm.verdict = Verdict::kError;
    rm.reason = "the reference endpoint's run of the script is missing";
    out.push_back(rm);
    return;
  }
  if (x.catalog == nullptr || x.catalog->field_rules().empty()) {
    rm.verdict = Verdict::kError;
    rm.reason = "no clause catalog with the spec's degrees-of-freedom table (clauses.json \"fields\", spec chapter 19): "
                "the comparison cannot tell determined fields from free ones";
    out.push_back(rm);
    return;
  }
  const RunRecord& ref = *x.reference;
  if (!ref.harness_error.empty()) {
    rm.verdict = Verdict::kError;
    rm.reason = "the reference endpoint could not run the script: " + ref.harness_error;
    out.push_back(rm);
    return;
  }
  for (size_t i = 0; i < c.script.size() && i < dut.steps.size() && i < ref.steps.size(); ++i) {
    const auto* e = std::get_if<harness::ExpectStep>(&c.script[i]);
    if (e == nullptr) continue;
    const std::string where = ScriptWhere(e->where);
    const ScriptStepOutcome& d = dut.steps[i];
    const ScriptStepOutcome& r = ref.steps[i];
    if (r.state != State::kPassed) {
      if (d.state == State::kPassed) {
        rm.verdict = Verdict::kError;
        rm.where = where;
        rm.reason = "the reference endpoint does not satisfy the script at " + where + " (case or reference bug): " + r.reason;
        rm.expected_packet = r.detail.actual_packet;
      } else {
        // Nothing left to compare: the step checks carry the verdict.
        rm.verdict = Verdict::kInconclusive;
        rm.reason = "not compared from " + where + " on: DUT and reference both failed the step";
      }
      break;
    }
    if (d.state == State::kUnjudged) continue;  // An absent step nothing was judged by.
    if (d.state != State::kPassed) break;  // Judged by the step's own check.
    if (e->absent || d.matched_frame < 0 || r.matched_frame < 0) continue;
    const FrameRecord& df = dut.trace.frames[static_cast<size_t>(d.matched_frame)];
    const FrameRecord& rf = ref.trace.frames[static_cast<size_t>(r.matched_frame)];
    auto dframe = Trace::Decode(df, dut.trace.meta_port);
    auto rframe = Trace::Decode(rf, ref.trace.meta_port);
    if (!dframe.ok() || !rframe.ok()) continue;  // Matched frames always decode.
    std::vector<Difference> diffs;
    if (dframe->meta() != nullptr && rframe->meta() != nullptr) {
      SpecContext ctx;
      ctx.num_paths = static_cast<uint64_t>(std::max(1, c.topology.paths));
      ctx.num_planes = static_cast<uint64_t>(std::max(1, c.topology.planes));
      ctx.mtu = static_cast<uint64_t>(c.topology.mtu_bytes);
      ctx.max_streams = 16;
      ctx.dut_time_ns = df.time_ns;
      ctx.ref_time_ns = rf.time_ns;
      ctx.dut_sent_before = SentBefore(dut, static_cast<size_t>(d.matched_frame));
      ctx.ref_sent_before = SentBefore(ref, static_cast<size_t>(r.matched_frame));
      for (const auto& [name, value] : dut.vars) {
        if (auto it = ref.vars.find(name); it != ref.vars.end()) ctx.same_binding.emplace_back(value, it->second);
      }
      std::vector<std::string> free = StepFree(*e);
      if (!dut.dut_caps.simulated_time) {
        // A live DUT's timing is the host's, not the fabric's: a field the spec ties to when the
        // frame left (ack.ack_delay) says what its own clock saw, which the reference's cannot bound.
        for (const harness::FieldRule& fr : x.catalog->field_rules()) {
          if (fr.constraint.find("frame.time") != std::string::npos) free.push_back(fr.field);
        }
      }
      for (SpecDifference& sd : CompareBySpec(*dframe, *rframe, *x.catalog, ctx, free)) {
        diffs.push_back({sd.field, sd.expected, sd.actual, sd.rule, sd.clauses});
      }
    } else {
      // RoCEv2 (or a DUT that answered with another protocol): the spec's table does not cover it.
      std::vector<std::string> free = BuiltinRoceFreeFields();
      const std::vector<std::string> step = StepFree(*e);
      free.insert(free.end(), step.begin(), step.end());
      for (const wire::FieldDiff& fd :
           wire::DiffFieldMaps(wire::ToFieldMap(rframe.value()), wire::ToFieldMap(dframe.value()), free)) {
        const harness::ValueMismatch m = ToMismatch(fd);
        diffs.push_back({fd.name, m.expected + " (reference)", m.actual, "equal to the reference", {}});
      }
    }
    if (diffs.empty()) continue;
    rm.verdict = Verdict::kFail;
    rm.where = where;
    const Difference& first = diffs.front();
    rm.mismatch = harness::ValueMismatch{first.field, first.expected, first.actual};
    rm.expected_packet = "reference (frame " + std::to_string(rf.frame_no) + " of " +
                         (ref.pcap.empty() ? std::string("its trace") : ref.pcap) + "):\n" + Trace::Dump(rf);
    rm.actual_packet = Trace::Dump(df);
    rm.packet_index = df.frame_no;
    std::string names;
    for (const Difference& diff : diffs) names += (names.empty() ? "" : ", ") + diff.field;
    std::string clauses;
    for (const std::string& id : first.clauses) clauses += (clauses.empty() ? "" : ", ") + id;
    rm.reason = where + ": the DUT's frame is not what the spec allows where the reference sent its frame: " +
                std::to_string(diffs.size()) + " field(s) (" + names + "); " + first.field + " is " + first.rule +
                (clauses.empty() ? "" : " by " + clauses) + ": expected " + first.expected + ", actual " + first.actual +
                "; frame " + std::to_string(df.frame_no) + " of " + (dut.pcap.empty() ? std::string("the DUT trace") : dut.pcap);
    break;
  }
  out.push_back(rm);
}

}  // namespace mroce::session
