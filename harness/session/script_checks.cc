// Checks of scripted cases (see script_checks.h).
#include "script_checks.h"

#include "mroce/session/scripted.h"
#include "mroce/wire/dump.h"
#include "mroce/wire/field_map.h"
#include "mroce/wire/frame.h"

namespace mroce::session {
namespace {

using harness::CheckResult;
using harness::Verdict;
using State = ScriptStepOutcome::State;

// Fields of step `s` matched by a variable: judged by the variable, free against the reference.
std::vector<std::string> FreeFor(const harness::ExpectStep& s) {
  std::vector<std::string> f = BuiltinFreeFields();
  f.insert(f.end(), s.free.begin(), s.free.end());
  for (const auto& [name, p] : s.match) {
    if (p.kind == harness::FieldPattern::Kind::kVariable) f.push_back(name);
  }
  return f;
}

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

}  // namespace

const std::vector<std::string>& BuiltinFreeFields() {
  static const std::vector<std::string> k = {"ip4.id",          "ip4.checksum", "ip6.flow_label", "udp.sport", "crc",
                                             "cmh.src_conn_id", "cmh.nonce",    "ack.ack_delay",  "prh.tx_time",
                                             "eth.padding"};
  return k;
}

void ScriptSteps(const CheckContext& x, std::vector<CheckResult>& out) {
  const harness::Case& c = x.c;
  const RunRecord& rec = x.rec;
  for (size_t i = 0; i < c.script.size() && i < rec.steps.size(); ++i) {
    const ScriptStepOutcome& o = rec.steps[i];
    const std::string where = ScriptWhere(StepWhere(c.script[i]));
    const auto* e = std::get_if<harness::ExpectStep>(&c.script[i]);
    if (e == nullptr) {
      // A refused DUT control call is the DUT's failure.
      if (o.state == State::kFailed) {
        CheckResult cr;
        cr.check = "dut-control@" + where;
        cr.clauses = x.base.clauses;
        cr.verdict = Verdict::kFail;
        cr.reason = o.reason;
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
        cr.reason.clear();
        if (o.matched_frame >= 0) cr.packet_index = rec.trace.frames[static_cast<size_t>(o.matched_frame)].frame_no;
        break;
      case State::kFailed: {
        cr.verdict = Verdict::kFail;
        // The check's name already says where; do not repeat it at the front of the reason.
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
    if (d.state != State::kPassed) break;  // Judged by the step's own check.
    if (e->absent || d.matched_frame < 0 || r.matched_frame < 0) continue;
    const FrameRecord& df = dut.trace.frames[static_cast<size_t>(d.matched_frame)];
    const FrameRecord& rf = ref.trace.frames[static_cast<size_t>(r.matched_frame)];
    auto dmap = Trace::Decode(df);
    auto rmap = Trace::Decode(rf);
    if (!dmap.ok() || !rmap.ok()) continue;  // Matched frames always decode.
    auto diffs = wire::DiffFieldMaps(wire::ToFieldMap(rmap.value()), wire::ToFieldMap(dmap.value()), FreeFor(*e));
    if (diffs.empty()) continue;
    rm.verdict = Verdict::kFail;
    rm.where = where;
    rm.mismatch = ToMismatch(diffs.front());
    rm.expected_packet = "reference (frame " + std::to_string(rf.frame_no) + " of " +
                         (ref.pcap.empty() ? std::string("its trace") : ref.pcap) + "):\n" + Trace::Dump(rf);
    rm.actual_packet = Trace::Dump(df);
    rm.packet_index = df.frame_no;
    std::string names;
    for (const auto& diff : diffs) names += (names.empty() ? "" : ", ") + diff.name;
    rm.reason = where + ": the DUT's frame differs from the reference's in " + std::to_string(diffs.size()) +
                " field(s) (" + names + "): " + rm.mismatch->field + " expected (reference) " + rm.mismatch->expected +
                ", actual (DUT) " + rm.mismatch->actual + "; frame " + std::to_string(df.frame_no) + " of " +
                (dut.pcap.empty() ? std::string("the DUT trace") : dut.pcap);
    break;
  }
  out.push_back(rm);
}

}  // namespace mroce::session
