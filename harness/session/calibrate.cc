// Live calibration (see calibrate.h).
#include "mroce/session/calibrate.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "mroce/session/scripted.h"

namespace mroce::session {
namespace {

using harness::FieldPattern;

FieldPattern Exact(uint64_t v) {
  FieldPattern p;
  p.kind = FieldPattern::Kind::kExact;
  p.value = v;
  p.text = std::to_string(v);
  return p;
}
FieldPattern Var(const std::string& name) {
  FieldPattern p;
  p.kind = FieldPattern::Kind::kVariable;
  p.variable = name;
  p.text = "$" + name;
  return p;
}
FieldPattern Bytes(std::vector<uint8_t> b) {
  FieldPattern p;
  p.kind = FieldPattern::Kind::kBytes;
  p.bytes = std::move(b);
  return p;
}

harness::SourceLocation At(int line) { return {"<live calibration>", line, 1}; }

// The script: open, the handshake (CONNECT_REQ answered by CONNECT_ACK), then `samples` times a
// one-packet WRITE with AR and the DUT's ACK of it.
harness::Case CalibrationCase(int samples) {
  harness::Case c;
  c.id = "live-calibration";
  c.title = "Live calibration";
  c.style = harness::Style::kScripted;
  c.timeouts.total = impairment::DurationSpec::Nanoseconds(60e9);
  const auto wide = impairment::DurationSpec::Nanoseconds(1e9);  // + the stall allowance
  int line = 1;
  harness::DutStep open;
  open.action = harness::DutStep::Action::kOpen;
  open.where = At(line++);
  c.script.emplace_back(open);
  harness::ExpectStep req;
  req.within = wide;
  req.match = {{"ch.opcode", Exact(0x20)}, {"ch.dst_conn_id", Exact(0)}, {"cmh.src_conn_id", Var("dut_conn")},
               {"cmh.nonce", Var("nonce")}};
  req.where = At(line++);
  c.script.emplace_back(req);
  harness::InjectStep ack;
  ack.frame = {{"ch.opcode", Exact(0x21)},     {"ch.dst_conn_id", Var("dut_conn")}, {"cmh.src_conn_id", Var("peer_conn")},
               {"cmh.nonce", Var("nonce")},    {"cmh.ver_min", Exact(1)},           {"cmh.ver_max", Exact(1)},
               {"cmh.num_paths", Exact(1)},    {"cmh.mtu", Exact(4096)},            {"cmh.max_streams", Exact(16)},
               {"cmh.num_planes", Exact(1)},   {"cmh.max_rate", Exact(0)}};
  ack.where = At(line++);
  c.script.emplace_back(ack);
  for (int k = 0; k < samples; ++k) {
    harness::InjectStep w;
    w.frame = {{"ch.opcode", Exact(0x01)},          {"ch.psn", Exact(static_cast<uint64_t>(k))}, {"ch.flags.ar", Exact(1)},
               {"meh.va", Var("dut_va")},            {"meh.rkey", Var("dut_rkey")},               {"meh.msn", Exact(static_cast<uint64_t>(k))},
               {"payload", Bytes({0x11, 0x18, 0x1f, 0x26})}};
    w.where = At(line++);
    c.script.emplace_back(w);
    harness::ExpectStep a;
    a.within = wide;
    a.match = {{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(static_cast<uint64_t>(k + 1))}};
    a.where = At(line++);
    c.script.emplace_back(a);
  }
  return c;
}

std::string Us(int64_t ns) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << static_cast<double>(ns) / 1000.0 << " us";
  return os.str();
}

}  // namespace

std::string LiveCalibration::Describe() const {
  if (!ok) return "not calibrated: " + error;
  std::vector<int64_t> s = samples_ns;
  std::sort(s.begin(), s.end());
  return std::to_string(s.size()) + " AR exchanges: beyond the fabric's one-way delay of " + Us(fabric_rtt_ns / 2) + ", median " +
         Us(s[s.size() / 2]) + ", max " + Us(s.back());
}

LiveCalibration CalibrateLive(const SessionOptions& options, int samples) {
  LiveCalibration cal;
  samples = std::max(1, samples);
  const harness::Case c = CalibrationCase(samples);
  SessionOptions o = options;
  o.run_dir.clear();  // no evidence
  o.write_evidence = false;
  o.live_rtt_extra_ns = 0;
  const RunRecord rec = SimulateScript(c, o, o.make_dut, ".calibration");
  cal.fabric_rtt_ns = rec.rtt_ns;
  if (!rec.dut_failure.empty()) {
    cal.error = "the DUT failed: " + rec.dut_failure;
    return cal;
  }
  if (!rec.harness_error.empty()) {
    cal.error = rec.harness_error;
    return cal;
  }
  // Steps: open, CONNECT_REQ, CONNECT_ACK, then (WRITE, ACK) pairs.
  for (size_t i = 0; i < c.script.size() && i < rec.steps.size(); ++i) {
    const ScriptStepOutcome& st = rec.steps[i];
    if (st.state != ScriptStepOutcome::State::kPassed) {
      const std::string what = i == 1 ? "the DUT's CONNECT_REQ" : i >= 3 && (i - 3) % 2 == 1 ? "the DUT's ACK of an AR WRITE" : "a step";
      cal.error = what + " did not come: " + (st.reason.empty() ? std::string("not run") : st.reason);
      return cal;
    }
    if (i >= 4 && (i - 3) % 2 == 1) {
      // The DUT's frames are stamped where they enter the fabric at the DUT's port: the
      // injected WRITE crossed the fabric one way (half its RTT) before the DUT saw it.
      cal.samples_ns.push_back(std::max<int64_t>(0, st.time_ns - rec.steps[i - 1].time_ns - rec.rtt_ns / 2));
    }
  }
  if (cal.samples_ns.empty()) {
    cal.error = "no exchange completed";
    return cal;
  }
  // A sample longer than the stall limit is a stall (the allowance covers those), not latency.
  for (const int64_t s : cal.samples_ns) {
    if (s <= options.max_stall_ns) cal.rtt_extra_ns = std::max(cal.rtt_extra_ns, s);
  }
  if (std::none_of(cal.samples_ns.begin(), cal.samples_ns.end(), [&](int64_t s) { return s <= options.max_stall_ns; })) {
    cal.error = "every exchange took longer than the stall limit (" + Us(options.max_stall_ns) + "): the live path is stalled";
    return cal;
  }
  cal.ok = true;
  return cal;
}

}  // namespace mroce::session
