// Scripted sessions: the packetdrill-style peer (see scripted.h).
#include "mroce/session/scripted.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "mroce/session/testbed.h"
#include "mroce/sim/rng.h"
#include "mroce/sim/wall_clock_driver.h"
#include "mroce/wire/dump.h"
#include "mroce/wire/field_map.h"
#include "mroce/wire/frame.h"

namespace mroce::session {
namespace {

// All ones in the width of field `name` ("$id+1" of a 32-bit id wraps to 0).
uint64_t FieldMask(const std::string& name) {
  for (const wire::FieldInfo& fi : wire::AllFieldInfos()) {
    if (fi.name == name && fi.bit_width < 64) return (1ull << fi.bit_width) - 1;
  }
  return ~0ull;
}

using sim::Time;

std::mutex& ScapyMutex() {
  static std::mutex m;
  return m;
}
ScapyEvaluator& ScapyHook() {
  static ScapyEvaluator e;
  return e;
}


// "ch.opcode = 16 (0x10)" lines of a pattern list: the "script packet" of a failure message.
std::string FormatPattern(const harness::FieldPattern& p, const std::map<std::string, uint64_t>& vars) {
  using K = harness::FieldPattern::Kind;
  switch (p.kind) {
    case K::kExact: return harness::FormatDecHex(p.value);
    case K::kBytes: return wire::FormatFieldValue(wire::FieldValue(p.bytes));
    case K::kVariable: {
      std::string s = p.text.empty() ? "$" + p.variable : p.text;
      auto it = vars.find(p.variable);
      if (it != vars.end()) s += " = " + harness::FormatDecHex(it->second + static_cast<uint64_t>(p.offset));
      else s += " (unbound: binds here)";
      return s;
    }
    default: return p.text.empty() ? std::string("*") : p.text;
  }
}
std::string ScriptPacket(const harness::FieldPatterns& pats, const std::map<std::string, uint64_t>& vars, bool absent) {
  std::ostringstream os;
  os << (absent ? "script packet (must be absent):\n" : "script packet:\n");
  for (const auto& [name, p] : pats) {
    os << "  " << name;
    for (size_t i = name.size(); i < 20; ++i) os << ' ';
    os << "= " << FormatPattern(p, vars) << "\n";
  }
  return os.str();
}

// Result of matching one frame against a pattern list.
struct MatchResult {
  int mismatches = 0;
  std::optional<harness::ValueMismatch> first;
  std::map<std::string, uint64_t> new_vars;  // Bindings made by this frame (commit on success).
  bool ok() const { return mismatches == 0; }
};

MatchResult Match(const wire::FieldMap& m, const harness::FieldPatterns& pats, const std::map<std::string, uint64_t>& vars) {
  using K = harness::FieldPattern::Kind;
  MatchResult r;
  auto miss = [&](harness::ValueMismatch vm) {
    if (!r.first) r.first = std::move(vm);
    ++r.mismatches;
  };
  for (const auto& [name, p] : pats) {
    const wire::FieldValue* v = m.Find(name);
    if (v == nullptr) {
      miss({name, FormatPattern(p, vars), "(field absent)"});
      continue;
    }
    const uint64_t* u = std::get_if<uint64_t>(v);
    if (p.kind == K::kBytes) {
      const wire::Bytes* b = std::get_if<wire::Bytes>(v);
      if (b == nullptr || *b != p.bytes) miss({name, FormatPattern(p, vars), wire::FormatFieldValue(*v)});
      continue;
    }
    if (u == nullptr) {
      miss({name, FormatPattern(p, vars) + " (a number)", wire::FormatFieldValue(*v) + " (a byte field)"});
      continue;
    }
    if (p.kind == K::kVariable) {
      auto it = vars.find(p.variable);
      auto nt = r.new_vars.find(p.variable);
      if (it == vars.end() && nt == r.new_vars.end()) {
        r.new_vars[p.variable] = *u - static_cast<uint64_t>(p.offset);  // Serial: wraps like the field.
        continue;
      }
      const uint64_t base = it != vars.end() ? it->second : nt->second;
      const uint64_t want = base + static_cast<uint64_t>(p.offset);
      // Compare in the field's width: "$psn+1" of a 32-bit PSN wraps.
      const uint64_t mask = FieldMask(name);
      if ((want & mask) != (*u & mask)) {
        auto vm = harness::ValueMismatch::Scalar(name, want & mask, *u);
        vm.expected = (p.text.empty() ? "$" + p.variable : p.text) + " = " + vm.expected;
        miss(std::move(vm));
      }
      continue;
    }
    if (!p.MatchesScalar(*u)) {
      if (p.kind == K::kExact) miss(harness::ValueMismatch::Scalar(name, p.value, *u));
      else miss({name, FormatPattern(p, vars), harness::FormatDecHex(*u)});
    }
  }
  return r;
}

const std::vector<std::string>& LengthFields() {
  static const std::vector<std::string> k = {"ip4.total_len", "ip6.payload_len", "udp.length", "ch.payload_len", "eth.type"};
  return k;
}
const std::vector<std::string>& CheckFields() {
  static const std::vector<std::string> k = {"ip4.checksum", "udp.checksum", "crc", "icrc"};
  return k;
}

class ScriptRunner {
 public:
  ScriptRunner(const harness::Case& c, const SessionOptions& o, const DutFactory& make_dut, std::string pcap_suffix)
      : case_(c), opt_(o), make_dut_(make_dut), pcap_suffix_(std::move(pcap_suffix)) {}

  RunRecord Run();

 private:
  bool Setup();
  void Poll();
  void Respond();
  void RunTo(int64_t t_ns) {
    if (t_ns > bed_->now_ns()) {
      bed_->sim().RunUntil(
          [&] {
            Poll();
            return false;
          },
          Time::FromNanos(t_ns));
    }
    Poll();
  }
  bool DoDut(const harness::DutStep& s, ScriptStepOutcome& out);
  bool DoInject(const harness::InjectStep& s, ScriptStepOutcome& out);
  bool DoExpect(const harness::ExpectStep& s, ScriptStepOutcome& out);
  bool DoRespond(const harness::RespondStep& s, ScriptStepOutcome& out);
  ref::Result<std::vector<uint8_t>> BuildFrame(const harness::FieldPatterns& frame, int path,
                                               const std::map<std::string, uint64_t>& vars);
  // Sends a built frame from the script's host on the path's plane; false when the fabric cannot route it.
  bool SendFrame(int path, const std::vector<uint8_t>& bytes);
  const wire::FieldMap* MapOf(size_t i);

  const harness::Case& case_;
  const SessionOptions& opt_;
  const DutFactory& make_dut_;
  std::string pcap_suffix_;
  RunRecord rec_;
  std::unique_ptr<Testbed> bed_;
  DutPort* port_ = nullptr;
  int64_t start_ns_ = 0;
  int64_t cursor_ns_ = 0;
  // Live DUTs: the wall clock less the simulated one when the cursor last moved. A harness that
  // cannot keep up with the DUT's ticks lets its simulated clock fall behind the wall clock (it
  // never runs ahead), so a simulated interval can be shorter than the DUT's own.
  int64_t cursor_lag_ns_ = 0;
  [[nodiscard]] int64_t Lag() const { return sim::MonotonicWallNs() - bed_->now_ns(); }
  // A live DUT's extra round-trip time over the fabric's (calibrated, SessionOptions::
  // live_rtt_extra_ns); 0 on the simulated clock.
  [[nodiscard]] int64_t LiveExtra() const {
    return rec_.dut_caps.simulated_time ? 0 : std::max<int64_t>(0, opt_.live_rtt_extra_ns);
  }
  // A control call (Fn: Status(Dut&, now)). A live DUT's control channel and its data plane are
  // separate paths: a call the script makes once the frames it sent must have arrived can reach a
  // live DUT before them (the live path holds a frame up to its RTT, a loaded host longer), and a
  // conformant DUT refuses what the state they bring would allow. So a live DUT's refusal is
  // final only when it lasts the live RTT plus the tolerated stall (max_stall_ns): the call is
  // made again meanwhile, serving the DUT, and *refused_ns says how long it was refused. On the
  // simulated clock every frame arrives when due: the first answer decides.
  template <class Fn>
  dut::Status CallPatiently(Fn&& fn, int64_t* refused_ns, int* calls) {
    const int64_t first = bed_->now_ns();
    dut::Status st = port_->Call([&](dut::Dut& d) { return fn(d, first); });
    *calls = 1;
    *refused_ns = 0;
    if (st.ok() || rec_.dut_caps.simulated_time) return st;
    const int64_t deadline = first + rec_.rtt_ns + LiveExtra() + opt_.max_stall_ns;
    while (!st.ok() && bed_->now_ns() < deadline) {
      RunTo(std::min(deadline, bed_->now_ns() + kRetryEveryNs));
      const int64_t now = bed_->now_ns();
      st = port_->Call([&](dut::Dut& d) { return fn(d, now); });
      ++*calls;
      *refused_ns = now - first;
    }
    return st;
  }
  static constexpr int64_t kRetryEveryNs = 20'000;
  size_t consumed_ = 0;  // DUT frames up to this trace index were matched by an expect (or are older).
  // The current group of unordered expect steps: where it started, the frames it took, its end.
  bool in_group_ = false;
  size_t group_consumed_ = 0;
  int64_t group_from_ns_ = 0;
  std::set<size_t> group_taken_;
  size_t group_end_consumed_ = 0;
  std::vector<dut::ConnHandle> conns_;
  dut::Buffer buf_;
  uint64_t buf_cursor_ = 0;
  uint64_t peer_cursor_ = 0;
  uint64_t next_wr_ = 1;
  std::map<size_t, wire::FieldMap> maps_;  // Decoded DUT frames by trace index.
  std::map<size_t, bool> undecodable_;
  // Respond steps in force: the step, its outcome, the next trace index it looks at.
  struct Responder {
    const harness::RespondStep* step;
    ScriptStepOutcome* out;
    size_t next;
  };
  std::vector<Responder> responders_;
};

bool ScriptRunner::Setup() {
  bed_ = std::make_unique<Testbed>(case_, opt_, &rec_, 2, pcap_suffix_);
  if (!bed_->Build()) return false;
  bed_->Watch(kScriptHost);  // The script's host only watches (the recorder sees every delivery).
  auto d = make_dut_();
  if (!d.ok()) {
    rec_.harness_error = "DUT: " + d.error().message;
    return false;
  }
  rec_.dut_identity = d.value()->Identity();
  rec_.dut_caps = d.value()->Caps();
  auto st = bed_->Attach(kDutHost, std::move(d).value(), 16);
  if (!st.ok()) {
    rec_.harness_error = "DUT refused Start: " + st.error().message;
    return false;
  }
  port_ = &bed_->Port(kDutHost);
  // The scripted WRITE/READ target.
  auto b = port_->Call([&](dut::Dut& dd) {
    return dd.AllocBuffer(kScriptBufferBytes, dut::kAccessLocalWrite | dut::kAccessRemoteWrite | dut::kAccessRemoteRead);
  });
  if (!b.ok()) {
    rec_.harness_error = "DUT refused AllocBuffer (" + std::to_string(kScriptBufferBytes) + " B script buffer): " + b.error().message;
    return false;
  }
  buf_ = b.value();
  std::vector<uint8_t> fill(kScriptBufferBytes);
  sim::seeds::FillPattern(fill.data(), fill.size(), sim::seeds::ScriptBuffer(opt_.seed));
  auto ws = port_->Call([&](dut::Dut& dd) { return dd.WriteBuffer(buf_.id, 0, fill); });
  if (!ws.ok()) {
    rec_.harness_error = "DUT refused WriteBuffer: " + ws.error().message;
    return false;
  }
  rec_.vars["dut_va"] = buf_.va;
  rec_.vars["dut_rkey"] = buf_.rkey;
  rec_.vars["dut_buf_len"] = buf_.length;
  rec_.vars["peer_va"] = kScriptPeerVa;
  rec_.vars["peer_rkey"] = kScriptPeerRkey;
  rec_.vars["peer_conn"] = kScriptPeerConnId;
  return true;
}

void ScriptRunner::Poll() {
  bed_->Poll(kDutHost, nullptr, nullptr);
  Respond();
}

// Called after every simulator event (Poll): a DUT frame is answered at the time it was sent.
void ScriptRunner::Respond() {
  auto& frames = rec_.trace.frames;
  for (Responder& r : responders_) {
    const harness::RespondStep& s = *r.step;
    for (; r.next < frames.size() && r.out->answered < s.max && r.out->state == ScriptStepOutcome::State::kPassed; ++r.next) {
      // By value: sending the answer appends to the trace, which may move its frames.
      const FrameRecord& at = frames[r.next];
      if (at.event != FrameRecord::Event::kTx || at.src_host != kDutHost) continue;
      const uint64_t frame_no = at.frame_no;
      const int64_t sent_ns = at.time_ns;
      const wire::FieldMap* m = MapOf(r.next);
      if (m == nullptr) continue;
      MatchResult mr = Match(*m, s.match, rec_.vars);
      if (!mr.ok()) continue;
      std::map<std::string, uint64_t> vars = rec_.vars;  // The frame's own bindings stay with its answer.
      for (auto& [k, v] : mr.new_vars) vars[k] = v;
      const int path = s.path.value_or(static_cast<int>(m->GetU64("ch.path_id").value_or(0)));
      auto bytes = BuildFrame(s.frame, path, vars);
      std::string error;
      if (!bytes.ok()) {
        error = "cannot build the answer to frame " + std::to_string(frame_no) + ": " + bytes.error().message;
      } else if (!SendFrame(path, bytes.value())) {
        error = "the fabric cannot route the answer to frame " + std::to_string(frame_no) +
                " (not IP/UDP or unknown destination)";
      }
      if (!error.empty()) {
        r.out->state = ScriptStepOutcome::State::kError;
        r.out->reason = ScriptWhere(s.where) + ": " + error;
        if (rec_.harness_error.empty()) rec_.harness_error = r.out->reason;
        break;
      }
      ++r.out->answered;
      r.out->time_ns = sent_ns;
      r.out->matched_frame = static_cast<long>(r.next);
    }
  }
}

bool ScriptRunner::DoRespond(const harness::RespondStep& s, ScriptStepOutcome& out) {
  out.state = ScriptStepOutcome::State::kPassed;
  out.time_ns = bed_->now_ns();
  responders_.push_back(Responder{&s, &out, consumed_});
  Respond();  // DUT frames already sent after the last matched one.
  return out.state == ScriptStepOutcome::State::kPassed;
}

bool ScriptRunner::SendFrame(int path, const std::vector<uint8_t>& bytes) {
  const int plane = path % bed_->fabric().config().num_planes;
  const uint64_t id = bed_->fabric().Send(kScriptHost, plane, bytes);
  const auto& fr = rec_.trace.frames;
  return id != 0 && std::none_of(fr.begin(), fr.end(), [&](const FrameRecord& r) {
           return r.event == FrameRecord::Event::kDrop && r.packet_id == id && r.where == "fabric.route";
         });
}

bool ScriptRunner::DoDut(const harness::DutStep& s, ScriptStepOutcome& out) {
  const int64_t now = bed_->now_ns();
  const uint16_t stream = static_cast<uint16_t>(s.stream.value_or(0));
  auto error = [&](const std::string& what) {
    out.state = ScriptStepOutcome::State::kFailed;
    out.reason = ScriptWhere(s.where) + ": DUT refused " + std::string(harness::ToString(s.action)) + ": " + what;
    ControlRecord r;
    r.kind = ControlRecord::Kind::kError;
    r.time_ns = bed_->now_ns();
    r.detail = out.reason;
    rec_.trace.control.push_back(std::move(r));
    if (rec_.dut_error.empty()) rec_.dut_error = out.reason;
    return false;
  };
  if (s.action == harness::DutStep::Action::kOpen) {
    dut::PeerInfo to{impairment::Fabric::HostMac(kScriptHost), impairment::Fabric::HostIpv4(kScriptHost), 4797, {}};
    auto h = port_->Call([&](dut::Dut& d) { return d.Connect(to, now); });
    if (!h.ok()) return error(h.error().message);
    conns_.push_back(h.value());
    out.state = ScriptStepOutcome::State::kPassed;
    return true;
  }
  if (conns_.empty()) {
    out.state = ScriptStepOutcome::State::kError;
    out.reason = ScriptWhere(s.where) + ": '" + std::string(harness::ToString(s.action)) + "' before any 'open'";
    return false;
  }
  const dut::ConnHandle conn = conns_.back();
  // A live DUT's refusal that lasted (CallPatiently): how long, for the reason.
  auto refusal = [&](const dut::Status& st, int64_t refused_ns, int calls) {
    std::string why = st.error().message;
    if (calls > 1) {
      why += " (live: refused by each of " + std::to_string(calls) + " calls over " + std::to_string(refused_ns / 1000) +
             " us, longer than the live path's RTT plus the tolerated stall could hold a frame the script sent)";
    }
    return why;
  };
  // The step took effect when the DUT accepted it: later `after`s and windows count from there.
  auto accepted = [&](int64_t refused_ns) {
    if (refused_ns <= 0) return;
    out.time_ns = cursor_ns_ = bed_->now_ns();
    cursor_lag_ns_ = Lag();
  };
  int64_t refused_ns = 0;
  int calls = 0;
  if (s.action == harness::DutStep::Action::kClose) {
    auto st = CallPatiently([&](dut::Dut& d, int64_t at) { return d.Disconnect(conn, at); }, &refused_ns, &calls);
    if (!st.ok()) return error(refusal(st, refused_ns, calls));
    accepted(refused_ns);
    ControlRecord r;
    r.kind = ControlRecord::Kind::kClose;
    r.time_ns = bed_->now_ns();
    r.host = kDutHost;
    r.conn = conn;
    rec_.trace.control.push_back(std::move(r));
    out.state = ScriptStepOutcome::State::kPassed;
    return true;
  }
  const uint64_t size = static_cast<uint64_t>(std::max<int64_t>(s.size_bytes, 0));
  if (size > kScriptBufferBytes) {
    out.state = ScriptStepOutcome::State::kError;
    out.reason = ScriptWhere(s.where) + ": size " + std::to_string(size) + " exceeds the script buffer (" +
                 std::to_string(kScriptBufferBytes) + " B)";
    return false;
  }
  for (int64_t i = 0; i < std::max<int64_t>(s.count, 1); ++i) {
    if (buf_cursor_ + size > kScriptBufferBytes) buf_cursor_ = 0;
    const uint64_t off = buf_cursor_;
    const uint64_t peer_off = peer_cursor_;
    buf_cursor_ += size;
    peer_cursor_ += size;
    const uint64_t wr = next_wr_++;
    const dut::LocalSlice local{buf_.id, off, static_cast<uint32_t>(size)};
    const dut::RemoteSlice remote{kScriptPeerVa + peer_off, kScriptPeerRkey};
    dut::OpKind op = dut::OpKind::kWrite;
    auto post = [&](dut::Dut& d, int64_t at) -> dut::Status {
      switch (s.action) {
        case harness::DutStep::Action::kWrite:
          op = dut::OpKind::kWrite;
          return d.PostWrite({.conn = conn, .stream = stream, .local = local, .remote = remote, .wr_id = wr, .imm = s.imm}, at);
        case harness::DutStep::Action::kRead:
          op = dut::OpKind::kRead;
          return d.PostRead({.conn = conn, .stream = stream, .local = local, .remote = remote, .wr_id = wr}, at);
        case harness::DutStep::Action::kSend:
          op = dut::OpKind::kSend;
          return d.PostSend({.conn = conn, .stream = stream, .local = local, .wr_id = wr, .imm = s.imm}, at);
        default:
          op = dut::OpKind::kRecv;
          return d.PostRecv({.conn = conn, .stream = stream, .local = local, .wr_id = wr});
      }
    };
    // A post the step requires refused is judged at once: waiting would only hide an acceptance.
    auto st = s.refused ? port_->Call([&](dut::Dut& d) { return post(d, now); })
                        : CallPatiently(post, &refused_ns, &calls);
    if (st.ok()) accepted(refused_ns);
    ControlRecord r{ControlRecord::Kind::kPost, bed_->now_ns(), kDutHost, conn, stream, wr, op, dut::OpStatus::kSuccess,
                    static_cast<uint32_t>(size), ""};
    if (!st.ok()) {  // A refused post is no work request: nothing will complete it.
      r.kind = ControlRecord::Kind::kError;
      r.detail = std::string("Post") + std::string(dut::OpKindName(op)) + " refused" + (s.refused ? " (as the step requires)" : "") +
                 ": " + st.error().message;
    }
    rec_.trace.control.push_back(r);
    if (s.refused && st.ok()) {
      out.state = ScriptStepOutcome::State::kFailed;
      out.reason = ScriptWhere(s.where) + ": the DUT accepted Post" + std::string(dut::OpKindName(op)) + " (stream " +
                   std::to_string(stream) + ", " + std::to_string(size) + " B), which it must refuse locally";
      return false;
    }
    if (!st.ok() && !s.refused) return error(refusal(st, refused_ns, calls));
  }
  out.state = ScriptStepOutcome::State::kPassed;
  return true;
}

ref::Result<std::vector<uint8_t>> ScriptRunner::BuildFrame(const harness::FieldPatterns& frame, int path,
                                                          const std::map<std::string, uint64_t>& vars) {
  using K = harness::FieldPattern::Kind;
  wire::FieldMap given;
  for (const auto& [name, p] : frame) {
    if (p.kind == K::kBytes) {
      given.Set(name, wire::FieldValue(p.bytes));
    } else if (p.kind == K::kExact) {
      given.Set(name, p.value);
    } else if (p.kind == K::kVariable) {
      auto it = vars.find(p.variable);
      if (it == vars.end()) return ref::MakeError("script.unbound", name + ": variable $" + p.variable + " is not bound");
      given.Set(name, (it->second + static_cast<uint64_t>(p.offset)) & FieldMask(name));  // wraps like the field
    } else {
      return ref::MakeError("script.pattern", name + ": an injected frame takes literal values only, not '" + p.text + "'");
    }
  }
  bool roce = false, meta = false;
  for (const auto& e : given) {
    roce = roce || e.name.rfind("bth.", 0) == 0;
    meta = meta || e.name.rfind("ch.", 0) == 0 || e.name.rfind("meh.", 0) == 0 || e.name.rfind("ack.", 0) == 0 ||
           e.name.rfind("nack.", 0) == 0 || e.name.rfind("cmh.", 0) == 0 || e.name.rfind("prh.", 0) == 0;
  }
  if (!roce) meta = true;
  const bool v6 = std::any_of(given.begin(), given.end(), [](const wire::FieldEntry& e) { return e.name.rfind("ip6.", 0) == 0; });
  wire::FieldMap m;
  auto def = [&](std::string_view name, wire::FieldValue v) {
    if (!given.Contains(name)) m.Set(name, std::move(v));
  };
  auto mac = [](int h) {
    auto a = impairment::Fabric::HostMac(h);
    return wire::FieldValue(wire::Bytes(a.begin(), a.end()));
  };
  auto ip = [](int h) {
    auto a = impairment::Fabric::HostIpv4(h);
    return wire::FieldValue(wire::Bytes(a.begin(), a.end()));
  };
  def("eth.dst", mac(kDutHost));
  def("eth.src", mac(kScriptHost));
  if (!v6) {
    def("ip4.ecn", uint64_t{2});
    def("ip4.flags", uint64_t{2});
    def("ip4.ttl", uint64_t{64});
    def("ip4.src", ip(kScriptHost));
    def("ip4.dst", ip(kDutHost));
  }
  def("udp.sport", uint64_t{kScriptBaseSport + static_cast<uint64_t>(path)});
  def("udp.dport", uint64_t{roce ? wire::kRoceUdpPort : wire::kMetaUdpPort});
  if (meta) {
    def("ch.ver", uint64_t{1});
    def("ch.path_id", static_cast<uint64_t>(path));
    auto dc = vars.find("dut_conn");
    if (dc != vars.end()) def("ch.dst_conn_id", dc->second);
    const uint64_t opcode = given.GetU64("ch.opcode").value_or(0x01);
    const bool data_with_payload = (opcode == 0x01 || opcode == 0x02 || opcode == 0x03 || opcode == 0x04 || opcode == 0x06);
    if (data_with_payload && given.Contains("payload")) {
      def("meh.msg_len", static_cast<uint64_t>(given.GetBytes("payload")->size()));
      def("ch.flags.first", uint64_t{1});
      def("ch.flags.last", uint64_t{1});
    }
  }
  for (const auto& e : given) m.Set(e.name, e.value);

  auto f0 = wire::FromFieldMap(m);
  if (!f0.ok()) return ref::MakeError("script.frame", f0.error().code + ": " + f0.error().message);
  // Computed fields in two passes (lengths, then checksums/CRC over them); a value the step gives
  // explicitly is written back after each pass, so a deliberately wrong one survives.
  auto override_given = [&](const wire::Frame& f, const std::vector<std::string>& names) -> ref::Result<wire::Frame> {
    bool any = false;
    for (const std::string& n : names) any = any || given.Contains(n);
    if (!any) return f;
    wire::FieldMap fm = wire::ToFieldMap(f);
    for (const std::string& n : names) {
      if (const wire::FieldValue* v = given.Find(n)) fm.Set(n, *v);
    }
    auto r = wire::FromFieldMap(fm);
    if (!r.ok()) return ref::MakeError("script.frame", r.error().code + ": " + r.error().message);
    return r.value();
  };
  wire::SerializeOptions lengths{true, false, false, true};
  auto f1 = override_given(wire::WithComputedFields(f0.value(), lengths), LengthFields());
  if (!f1.ok()) return f1.error();
  wire::SerializeOptions sums{false, true, true, false};
  auto f2 = override_given(wire::WithComputedFields(f1.value(), sums), CheckFields());
  if (!f2.ok()) return f2.error();
  return wire::SerializeFrame(f2.value(), wire::SerializeOptions::Exact());
}

bool ScriptRunner::DoInject(const harness::InjectStep& s, ScriptStepOutcome& out) {
  ref::Result<std::vector<uint8_t>> bytes = std::vector<uint8_t>{};
  const int path = s.path.value_or(0);
  if (!s.scapy.empty()) {
    ScapyEvaluator eval;
    {
      std::lock_guard<std::mutex> lock(ScapyMutex());
      eval = ScapyHook();
    }
    if (!eval) {
      out.state = ScriptStepOutcome::State::kError;
      out.reason = ScriptWhere(s.where) + ": scapy step needs the embedded Python interpreter, which this program did not "
                   "install (link mroce_session_scapy and call InstallEmbeddedScapy())";
      return false;
    }
    std::map<std::string, uint64_t> vars = rec_.vars;
    vars["sport"] = kScriptBaseSport + static_cast<uint64_t>(path);
    vars["path"] = static_cast<uint64_t>(path);
    bytes = eval(s.scapy, vars);
  } else {
    bytes = BuildFrame(s.frame, path, rec_.vars);
  }
  if (!bytes.ok()) {
    out.state = ScriptStepOutcome::State::kError;
    out.reason = ScriptWhere(s.where) + ": cannot build the injected frame: " + bytes.error().message;
    return false;
  }
  if (!SendFrame(path, bytes.value())) {
    out.state = ScriptStepOutcome::State::kError;
    out.reason = ScriptWhere(s.where) + ": the fabric cannot route the injected frame (not IP/UDP or unknown destination)";
    return false;
  }
  out.state = ScriptStepOutcome::State::kPassed;
  return true;
}

const wire::FieldMap* ScriptRunner::MapOf(size_t i) {
  auto it = maps_.find(i);
  if (it != maps_.end()) return &it->second;
  if (undecodable_.count(i)) return nullptr;
  auto f = Trace::Decode(rec_.trace.frames[i], rec_.trace.meta_port);
  if (!f.ok()) {
    undecodable_[i] = true;
    return nullptr;
  }
  return &(maps_[i] = wire::ToFieldMap(f.value()));
}

bool ScriptRunner::DoExpect(const harness::ExpectStep& s, ScriptStepOutcome& out) {
  const int64_t wall_entry = sim::MonotonicWallNs();
  if (s.unordered && !in_group_) {
    in_group_ = true;
    group_consumed_ = group_end_consumed_ = consumed_;
    group_from_ns_ = cursor_ns_;
    group_taken_.clear();
  } else if (!s.unordered) {
    in_group_ = false;
  }
  int64_t from = s.unordered ? group_from_ns_ : cursor_ns_;
  const size_t first = s.unordered ? group_consumed_ : consumed_;
  int64_t until = from + std::max<int64_t>(0, s.within.ToNanoseconds(rec_.rtt_ns));
  int64_t absent_end = until;  // where an absent step leaves the script's cursor
  int64_t live_edge = 0;       // live DUTs, absent steps: the unjudged end of the window
  if (!rec_.dut_caps.simulated_time) {
    // A live DUT (SessionOptions::live_rtt_extra_ns): only timing widens.
    const int64_t extra = LiveExtra();
    std::ostringstream note;
    if (!s.absent) {
      until = from + std::max<int64_t>(0, s.within.ToNanoseconds(rec_.rtt_ns + extra)) + opt_.max_stall_ns;
      note << "live window " << s.within.ToString() << " at a live RTT of " << (rec_.rtt_ns + extra) / 1000.0
           << " us + " << opt_.max_stall_ns / 1000.0 << " us stall allowance = " << (until - from) / 1000.0 << " us";
    } else {
      // Measured at the live RTT like the others when written in RTTs (a DUT's RTT-driven timers
      // run on the RTT it sees), as written when absolute (the spec's fixed timers). The frame that
      // opened the window may have been stamped late by as much as the path's latency, so the last
      // `edge` of the window is not judged: a frame there may have left the DUT after the window.
      until = from + std::max<int64_t>(0, s.within.ToNanoseconds(rec_.rtt_ns + extra));
      absent_end = until;
      live_edge = extra + rec_.rtt_ns;
      until -= live_edge;
      note << "live window " << s.within.ToString() << " at a live RTT of " << (rec_.rtt_ns + extra) / 1000.0
           << " us, its last " << live_edge / 1000.0 << " us (the path's latency) not judged";
      if (from >= until) {
        out.state = ScriptStepOutcome::State::kUnjudged;
        out.time_ns = absent_end;
        out.live_window = note.str();
        out.reason = ScriptWhere(s.where) + ": not judged live: the " + s.within.ToString() + " (" +
                     std::to_string(absent_end - from) + " ns) window in which the frame must be absent is no longer than "
                     "the live path's latency (" + std::to_string(live_edge) + " ns): a frame seen in it may have left the DUT "
                     "after the window (the case needs the harness's simulated clock)";
        RunTo(absent_end);
        return true;
      }
    }
    out.live_window = note.str();
  }
  auto& frames = rec_.trace.frames;
  size_t scan = first;
  long found = -1;
  MatchResult found_match;
  int64_t found_lag = 0;  // Lag() when the frame was found (it is polled as it arrives)
  auto scan_new = [&]() {
    for (; scan < frames.size() && found < 0; ++scan) {
      const FrameRecord& r = frames[scan];
      if (r.event != FrameRecord::Event::kTx || r.src_host != kDutHost || r.time_ns < from || r.time_ns > until) continue;
      if (s.unordered && group_taken_.count(scan) != 0) continue;
      const wire::FieldMap* m = MapOf(scan);
      if (m == nullptr) continue;
      MatchResult mr = Match(*m, s.match, rec_.vars);
      if (mr.ok()) {
        found = static_cast<long>(scan);
        found_match = std::move(mr);
        found_lag = Lag();
      }
    }
    return found >= 0;
  };
  auto run_until = [&] {  // until a matching frame or `until`
    bed_->sim().RunUntil(
        [&] {
          Poll();
          return scan_new();
        },
        Time::FromNanos(until));
    Poll();
  };
  if (!scan_new()) run_until();
  if (found < 0 && !s.absent && !rec_.dut_caps.simulated_time && opt_.live_wall_bound) {
    // A simulated clock that was behind the wall clock catches up faster than it: the window must
    // also have lasted its length on the wall clock before a frame is missing.
    const int64_t wall_end = wall_entry + (until - from);
    for (int64_t left; found < 0 && (left = wall_end - sim::MonotonicWallNs()) > 0;) {
      until = std::max(until, bed_->now_ns() + left);
      run_until();
    }
  }
  const std::string pcap = rec_.pcap;
  if (s.absent) {
    if (found < 0) {
      RunTo(absent_end);
      out.state = ScriptStepOutcome::State::kPassed;
      out.time_ns = absent_end;
      return true;
    }
    const FrameRecord& r = frames[static_cast<size_t>(found)];
    out.time_ns = r.time_ns;
    out.matched_frame = found;
    if (live_edge > 0) {
      // The harness left the DUT unserved for `stall` at some point: a frame may have waited that
      // long before it was stamped. One that close to either edge of the window may have left the
      // DUT outside it: starvation is inconclusive, never a failure. A window written in RTTs was
      // stretched to the live RTT: a frame in it may be one the DUT's own timers sent on that RTT
      // (an RTO of a few live RTTs), which the script's fabric RTT did not allow for.
      const int64_t stall = bed_->Device(kDutHost).LongestStall() + rec_.rtt_ns;
      const bool stretched = s.within.ToNanoseconds(rec_.rtt_ns) != s.within.ToNanoseconds(rec_.rtt_ns + LiveExtra());
      if (stretched) {
        out.state = ScriptStepOutcome::State::kUnjudged;
        out.reason = ScriptWhere(s.where) + ": not judged live: the DUT sent a frame the script says must be absent (frame " +
                     std::to_string(r.frame_no) + ", " + std::to_string(r.time_ns - from) + " ns into the " +
                     s.within.ToString() + " window as stretched to the live RTT), but a timer of the DUT's own, running on "
                     "that RTT, may have sent it";
        out.detail.actual_packet = Trace::Dump(r);
        RunTo(absent_end);
        out.time_ns = absent_end;
        return true;
      }
      // On the wall clock the frame came this long after the window opened (the window opened at
      // the cursor, or at the group's start: the same cursor).
      const int64_t wall_into = r.time_ns - from + (found_lag - cursor_lag_ns_);
      if (opt_.live_wall_bound && (wall_into < 0 || wall_into > absent_end - live_edge - from)) {
        out.state = ScriptStepOutcome::State::kUnjudged;
        out.reason = ScriptWhere(s.where) + ": not judged live: the DUT sent a frame the script says must be absent (frame " +
                     std::to_string(r.frame_no) + ", " + std::to_string(r.time_ns - from) +
                     " ns into the window on the simulated clock), but the harness's clock fell behind the wall clock by " +
                     std::to_string(found_lag - cursor_lag_ns_) + " ns meanwhile: on the wall clock it came " +
                     std::to_string(wall_into) + " ns into the window, in its unjudged end";
        out.detail.actual_packet = Trace::Dump(r);
        RunTo(absent_end);
        out.time_ns = absent_end;
        return true;
      }
      if (r.time_ns < from + stall || r.time_ns > absent_end - stall) {
        out.state = ScriptStepOutcome::State::kUnjudged;
        out.reason = ScriptWhere(s.where) + ": not judged live: the DUT sent a frame the script says must be absent (frame " +
                     std::to_string(r.frame_no) + ", " + std::to_string(r.time_ns - from) +
                     " ns into the window), but the DUT was left unserved for up to " + std::to_string(stall) +
                     " ns in this run, long enough for a frame sent outside the window to be seen in it";
        out.detail.actual_packet = Trace::Dump(r);
        RunTo(absent_end);
        out.time_ns = absent_end;
        return true;
      }
    }
    out.state = ScriptStepOutcome::State::kFailed;
    out.reason = ScriptWhere(s.where) + ": the DUT sent a frame the script says must be absent (frame " +
                 std::to_string(r.frame_no) + " of " + (pcap.empty() ? "the DUT trace" : pcap) + ", at " +
                 std::to_string(r.time_ns - from) + " ns into the " + s.within.ToString() + " window)";
    harness::CheckResult& d = out.detail;
    d.expected_packet = ScriptPacket(s.match, rec_.vars, true);
    d.actual_packet = Trace::Dump(r);
    d.packet_index = r.frame_no;
    return false;
  }
  if (found >= 0) {
    const FrameRecord& r = frames[static_cast<size_t>(found)];
    for (auto& [k, v] : found_match.new_vars) rec_.vars[k] = v;
    // Automatic bindings from the DUT's connection-management frames.
    if (const wire::FieldMap* m = MapOf(static_cast<size_t>(found))) {
      const uint64_t op = m->GetU64("ch.opcode").value_or(0);
      if (op == 0x20 || op == 0x21) {
        if (!rec_.vars.count("dut_conn")) rec_.vars["dut_conn"] = m->GetU64("cmh.src_conn_id").value_or(0);
        if (!rec_.vars.count("nonce")) rec_.vars["nonce"] = m->GetU64("cmh.nonce").value_or(0);
      }
    }
    consumed_ = static_cast<size_t>(found) + 1;
    out.time_ns = r.time_ns;
    if (s.unordered) {
      // The script goes on after the group's latest frame.
      group_taken_.insert(static_cast<size_t>(found));
      group_end_consumed_ = std::max(group_end_consumed_, consumed_);
      consumed_ = group_end_consumed_;
      for (size_t t : group_taken_) out.time_ns = std::max(out.time_ns, frames[t].time_ns);
    }
    out.state = ScriptStepOutcome::State::kPassed;
    out.matched_frame = found;
    return true;
  }
  // Failed: find the closest candidate (fewest mismatching fields; the earliest on ties).
  long best = -1;
  MatchResult best_match;
  size_t candidates = 0;
  for (size_t i = first; i < frames.size(); ++i) {
    const FrameRecord& r = frames[i];
    if (r.event != FrameRecord::Event::kTx || r.src_host != kDutHost || r.time_ns < from || r.time_ns > until) continue;
    if (s.unordered && group_taken_.count(i) != 0) continue;
    ++candidates;
    const wire::FieldMap* m = MapOf(i);
    if (m == nullptr) {
      if (best < 0) best = static_cast<long>(i), best_match.mismatches = static_cast<int>(s.match.size()) + 1;
      continue;
    }
    MatchResult mr = Match(*m, s.match, rec_.vars);
    if (best < 0 || mr.mismatches < best_match.mismatches) {
      best = static_cast<long>(i);
      best_match = std::move(mr);
    }
  }
  out.state = ScriptStepOutcome::State::kFailed;
  out.time_ns = until;
  harness::CheckResult& d = out.detail;
  d.expected_packet = ScriptPacket(s.match, rec_.vars, false);
  if (best < 0) {
    out.nothing_came = true;
    out.reason = ScriptWhere(s.where) + ": no frame from the DUT within " + s.within.ToString() + " (" +
                 std::to_string(until - from) + " ns)";
    return false;
  }
  const FrameRecord& r = frames[static_cast<size_t>(best)];
  out.matched_frame = best;
  d.actual_packet = Trace::Dump(r);
  d.packet_index = r.frame_no;
  d.mismatch = best_match.first;
  out.reason = ScriptWhere(s.where) + ": no DUT frame within " + s.within.ToString() + " matches (" + std::to_string(candidates) +
               " candidate(s)); closest is frame " + std::to_string(r.frame_no) + " of " +
               (pcap.empty() ? std::string("the DUT trace") : pcap);
  if (best_match.first) {
    out.reason += ": " + best_match.first->field + " expected " + best_match.first->expected + ", actual " +
                  best_match.first->actual;
    if (best_match.mismatches > 1) out.reason += " (+" + std::to_string(best_match.mismatches - 1) + " more)";
  } else {
    out.reason += " (undecodable)";
  }
  return false;
}

RunRecord ScriptRunner::Run() {
  rec_.steps.resize(case_.script.size());
  auto done = [&] {
    if (bed_ && bed_->Attached(kDutHost)) {
      rec_.dut_failure = bed_->DeviceFailure(kDutHost);
      rec_.stall_ns = bed_->Device(kDutHost).LongestStall();
    }
    rec_.trace.Analyze();  // the record's trace comes with its facts (run_record.h)
    return std::move(rec_);
  };
  const int64_t wall_setup = sim::MonotonicWallNs();
  if (!Setup()) return done();
  if (!rec_.dut_caps.simulated_time && opt_.live_wall_bound) {
    // Setup blocked the simulation on the DUT's control calls while the wall clock ran on: let
    // the simulated clock catch up with the wall clock (it never runs ahead) before the script
    // starts, or the first intervals would be measured short while it does.
    RunTo(bed_->now_ns() + (sim::MonotonicWallNs() - wall_setup));
  }
  start_ns_ = cursor_ns_ = bed_->now_ns();
  cursor_lag_ns_ = Lag();
  for (size_t i = 0; i < case_.script.size(); ++i) {
    ScriptStepOutcome& out = rec_.steps[i];
    bool ok = std::visit(
        [&](const auto& s) -> bool {
          using T = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<T, harness::ExpectStep>) {
            bool r = DoExpect(s, out);
            if (r && out.time_ns > cursor_ns_) cursor_ns_ = out.time_ns, cursor_lag_ns_ = Lag();
            return r;
          } else if constexpr (std::is_same_v<T, harness::RespondStep>) {
            return DoRespond(s, out);
          } else {
            // `after` the previous step: a live DUT's frames take the live RTT (calibrated), so an
            // `after` in RTTs is measured in it, as expect windows are.
            const int64_t rtt = rec_.rtt_ns + LiveExtra();
            const int64_t at = s.after ? cursor_ns_ + std::max<int64_t>(0, s.after->ToNanoseconds(rtt))
                                       : std::max(start_ns_ + s.at.ToNanoseconds(rec_.rtt_ns), cursor_ns_);
            RunTo(at);
            if (s.after && !rec_.dut_caps.simulated_time && opt_.live_wall_bound) {
              // A simulated clock behind the wall clock catches up faster than it: the wait must also
              // last its length on the wall clock.
              const int64_t wall_at = cursor_ns_ + cursor_lag_ns_ + (at - cursor_ns_);
              for (int64_t left; (left = wall_at - (bed_->now_ns() + Lag())) > 0;) RunTo(bed_->now_ns() + left);
            }
            out.time_ns = bed_->now_ns();
            cursor_ns_ = out.time_ns;
            cursor_lag_ns_ = Lag();
            if constexpr (std::is_same_v<T, harness::InjectStep>) return DoInject(s, out);
            else return DoDut(s, out);
          }
        },
        case_.script[i]);
    if (!ok || !rec_.harness_error.empty()) {  // (a respond step may have failed meanwhile)
      // A step the harness could not carry out (a case bug, a missing interpreter) is an ERROR.
      if (out.state == ScriptStepOutcome::State::kError && rec_.harness_error.empty()) rec_.harness_error = out.reason;
      break;
    }
  }
  Poll();
  rec_.workload_end_ns = bed_->now_ns();
  bed_->SampleTelemetry(kDutHost);
  // A live DUT's completions and events travel on its control channel, its frames on the data
  // plane: the last ones may not have been read when the last expected frame was. The telemetry
  // requests' replies come after every line the DUT wrote before them, so poll once more.
  Poll();
  bed_->Finish();
  return done();
}

}  // namespace

std::string ScriptWhere(const harness::SourceLocation& w) {
  std::string s = w.file.empty() ? "<script>" : w.file;
  if (w.line > 0) s += ":" + std::to_string(w.line);
  return s;
}

void SetScapyEvaluator(ScapyEvaluator eval) {
  std::lock_guard<std::mutex> lock(ScapyMutex());
  ScapyHook() = std::move(eval);
}

RunRecord SimulateScript(const harness::Case& c, const SessionOptions& options, const DutFactory& make_dut,
                         const std::string& pcap_suffix) {
  ScriptRunner r(c, options, make_dut, pcap_suffix);
  return r.Run();
}

}  // namespace mroce::session
