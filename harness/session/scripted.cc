// Scripted sessions: the packetdrill-style peer (see scripted.h).
#include "mroce/session/scripted.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>

#include "mroce/dut/reference_dut.h"
#include "mroce/impairment/fabric.h"
#include "mroce/impairment/stage_plan.h"
#include "mroce/impairment/tap.h"
#include "mroce/session/dut_port.h"
#include "mroce/sim/simulator.h"
#include "mroce/wire/dump.h"
#include "mroce/wire/field_map.h"
#include "mroce/wire/frame.h"

namespace mroce::session {
namespace {

using sim::Time;
constexpr int kScriptHost = 1;

std::mutex& ScapyMutex() {
  static std::mutex m;
  return m;
}
ScapyEvaluator& ScapyHook() {
  static ScapyEvaluator e;
  return e;
}

// Same mixing as session.cc (seeds of the fabric and of the devices must agree with end-to-end runs).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string Where(const harness::SourceLocation& w) {
  std::string s = w.file.empty() ? "<script>" : w.file;
  if (w.line > 0) s += ":" + std::to_string(w.line);
  return s;
}

// Records every frame event (as session.cc's Recorder: DUT-tap frame numbers in pcap order).
class Recorder final : public impairment::FabricObserver {
 public:
  explicit Recorder(Trace* trace) : trace_(trace) {}
  void OnSend(int, const impairment::Packet& p, Time now) override { Add(FrameRecord::Event::kTx, p, "", now); }
  void OnDeliver(int, const impairment::Packet& p, Time now) override { Add(FrameRecord::Event::kRx, p, "", now); }
  void OnDrop(const impairment::Packet& p, const char* where, Time now) override {
    Add(FrameRecord::Event::kDrop, p, where, now);
  }

 private:
  void Add(FrameRecord::Event e, const impairment::Packet& p, const char* where, Time now) {
    FrameRecord r;
    r.event = e;
    r.time_ns = now.nanos();
    r.src_host = p.src_host;
    r.dst_host = p.dst_host;
    r.plane = p.plane;
    r.packet_id = p.id;
    r.origin_id = p.origin_id;
    r.duplicate = p.is_duplicate;
    r.ce = p.ce_marked;
    r.corrupted = p.corrupted;
    r.where = where;
    r.bytes = p.bytes.ToVector();
    // Fabric::Send reports OnSend before it resolves the destination (p.dst_host is stale then); with
    // two hosts the destination of a sent frame is the other one.
    if (e == FrameRecord::Event::kTx) r.dst_host = p.src_host == kDutHost ? kScriptHost : kDutHost;
    if ((e == FrameRecord::Event::kTx && p.src_host == kDutHost) || (e == FrameRecord::Event::kRx && p.dst_host == kDutHost)) {
      r.frame_no = ++dut_frames_;
    }
    trace_->frames.push_back(std::move(r));
  }
  Trace* trace_;
  uint64_t dut_frames_ = 0;
};

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
      uint64_t mask = ~0ull;
      for (const wire::FieldInfo& fi : wire::AllFieldInfos()) {
        if (fi.name == name && fi.bit_width < 64) mask = (1ull << fi.bit_width) - 1;
      }
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

  ScriptRun Run();

 private:
  bool Setup();
  void Poll();
  void RunTo(int64_t t_ns) {
    if (t_ns > sim_.Now().nanos()) {
      sim_.RunUntil(
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
  ref::Result<std::vector<uint8_t>> BuildFrame(const harness::InjectStep& s);
  const wire::FieldMap* MapOf(size_t i);

  const harness::Case& case_;
  const SessionOptions& opt_;
  const DutFactory& make_dut_;
  std::string pcap_suffix_;
  ScriptRun run_;
  sim::Simulator sim_;
  std::unique_ptr<impairment::Fabric> fabric_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<impairment::Tap> tap_;
  std::unique_ptr<dut::Dut> dut_;
  std::unique_ptr<DutPort> port_;
  int64_t start_ns_ = 0;
  int64_t cursor_ns_ = 0;
  size_t consumed_ = 0;  // DUT frames up to this trace index were matched by an expect (or are older).
  std::vector<dut::ConnHandle> conns_;
  dut::Buffer buf_;
  uint64_t buf_cursor_ = 0;
  uint64_t peer_cursor_ = 0;
  uint64_t next_wr_ = 1;
  std::map<size_t, wire::FieldMap> maps_;  // Decoded DUT frames by trace index.
  std::map<size_t, bool> undecodable_;
};

bool ScriptRunner::Setup() {
  const harness::Topology& t = case_.topology;
  run_.rec.rtt_ns = std::max<int64_t>(t.rtt_ns, 8);
  run_.rec.link_rate_bps = t.link_rate_bps;
  run_.rec.num_hosts = 2;

  // Keep in step with session.cc's Runner::Setup: one fabric model for both styles.
  impairment::FabricConfig fc;
  fc.num_hosts = 2;
  fc.num_planes = std::max(1, t.planes);
  fc.hosts_per_leaf = 1;
  fc.num_spines = std::max(1, t.spines);
  fc.host_rate = sim::Bandwidth::BitsPerSecond(t.link_rate_bps);
  fc.fabric_rate = sim::Bandwidth::BitsPerSecond(t.spine_link_rate_bps > 0 ? t.spine_link_rate_bps : t.link_rate_bps);
  fc.hop_delay = sim::Duration::Nanos(std::max<int64_t>(1, run_.rec.rtt_ns / 8));
  fc.seed = opt_.seed;
  fc.ecmp_seed = static_cast<uint32_t>(Mix(opt_.seed));
  fabric_ = std::make_unique<impairment::Fabric>(&sim_, fc);
  recorder_ = std::make_unique<Recorder>(&run_.rec.trace);
  fabric_->AddObserver(recorder_.get());
  // The script's host only watches (the Recorder sees every delivery).
  fabric_->SetSink(kScriptHost, [](const impairment::Packet&, Time) {});

  if (!opt_.run_dir.empty() && opt_.write_evidence) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(opt_.run_dir) / "evidence", ec);
    impairment::Tap::Options to;
    run_.rec.pcap = "evidence/" + case_.id + pcap_suffix_ + ".pcap";
    to.pcap_path = (std::filesystem::path(opt_.run_dir) / run_.rec.pcap).string();
    to.jsonl_path = (std::filesystem::path(opt_.run_dir) / "evidence" / (case_.id + pcap_suffix_ + ".trace.jsonl")).string();
    to.keep_records = false;
    tap_ = std::make_unique<impairment::Tap>(fabric_.get(), kDutHost, to);
    if (!tap_->status().ok) {
      run_.error = "cannot write evidence: " + tap_->status().message;
      return false;
    }
  }

  for (size_t i = 0; i < case_.impairments.size(); ++i) {
    const harness::ImpairmentSpec& is = case_.impairments[i];
    auto placed = impairment::InstantiatePerPlane(is.stage, i, fc.num_planes, opt_.seed, run_.rec.rtt_ns);
    if (!placed.ok()) {
      run_.error = is.where.ToString() + ": " + placed.error().message;
      return false;
    }
    for (impairment::PlaneStage& s : placed.value()) fabric_->PlaneIngress(s.plane).Add(std::move(s.stage));
  }

  auto d = make_dut_();
  if (!d.ok()) {
    run_.error = "DUT: " + d.error().message;
    return false;
  }
  dut_ = std::move(d).value();
  run_.rec.dut_identity = dut_->Identity();
  run_.rec.dut_caps = dut_->Caps();
  dut::HostConfig hc;
  hc.mac = impairment::Fabric::HostMac(kDutHost);
  hc.ip = impairment::Fabric::HostIpv4(kDutHost);
  hc.num_paths = static_cast<uint8_t>(std::clamp(t.paths, 1, 64));
  hc.num_planes = static_cast<uint8_t>(fc.num_planes);
  hc.mtu = static_cast<uint16_t>(std::clamp<int64_t>(t.mtu_bytes, 256, 9000));
  hc.max_streams = 16;
  // C of spec 10.3: the sum of the line rates of the host's attachments (one port per plane).
  hc.link_capacity_mbps = static_cast<uint64_t>(t.link_rate_bps / 1'000'000) * fc.num_planes;
  hc.seed = Mix(opt_.seed * 1000003ull + static_cast<uint64_t>(kDutHost));
  port_ = std::make_unique<DutPort>(&sim_, fabric_.get(), kDutHost, dut_.get());
  auto st = port_->Call([&](dut::Dut& dd) { return dd.Start(hc, port_.get()); });
  if (!st.ok()) {
    run_.error = "DUT refused Start: " + st.error().message;
    return false;
  }
  // The scripted WRITE/READ target.
  auto b = port_->Call([&](dut::Dut& dd) {
    return dd.AllocBuffer(kScriptBufferBytes, dut::kAccessLocalWrite | dut::kAccessRemoteWrite | dut::kAccessRemoteRead);
  });
  if (!b.ok()) {
    run_.error = "DUT refused AllocBuffer (" + std::to_string(kScriptBufferBytes) + " B script buffer): " + b.error().message;
    return false;
  }
  buf_ = b.value();
  std::vector<uint8_t> fill(kScriptBufferBytes);
  uint64_t s = Mix(opt_.seed ^ 0x5c21);
  for (size_t i = 0; i < fill.size(); i += 8) {
    s = Mix(s);
    for (size_t k = 0; k < 8 && i + k < fill.size(); ++k) fill[i + k] = static_cast<uint8_t>(s >> (8 * k));
  }
  auto ws = port_->Call([&](dut::Dut& dd) { return dd.WriteBuffer(buf_.id, 0, fill); });
  if (!ws.ok()) {
    run_.error = "DUT refused WriteBuffer: " + ws.error().message;
    return false;
  }
  run_.vars["dut_va"] = buf_.va;
  run_.vars["dut_rkey"] = buf_.rkey;
  run_.vars["dut_buf_len"] = buf_.length;
  run_.vars["peer_va"] = kScriptPeerVa;
  run_.vars["peer_rkey"] = kScriptPeerRkey;
  run_.vars["peer_conn"] = kScriptPeerConnId;
  return true;
}

void ScriptRunner::Poll() {
  const int64_t now = sim_.Now().nanos();
  for (const dut::ConnEvent& e : dut_->PollEvents()) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kConnEvent;
    r.time_ns = now;
    r.host = kDutHost;
    r.conn = e.conn;
    r.detail = std::string(dut::ConnEventKindName(e.kind));
    r.bytes = e.reason;
    run_.rec.trace.control.push_back(std::move(r));
  }
  for (const dut::Completion& c : dut_->PollCompletions()) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kCompletion;
    r.time_ns = now;
    r.host = kDutHost;
    r.conn = c.conn;
    r.stream = c.stream;
    r.wr_id = c.wr_id;
    r.op = c.op;
    r.status = c.status;
    r.bytes = c.byte_len;
    run_.rec.trace.control.push_back(std::move(r));
  }
}

bool ScriptRunner::DoDut(const harness::DutStep& s, ScriptStepOutcome& out) {
  const int64_t now = sim_.Now().nanos();
  const uint16_t stream = static_cast<uint16_t>(s.stream.value_or(0));
  auto error = [&](const std::string& what) {
    out.state = ScriptStepOutcome::State::kFailed;
    out.reason = Where(s.where) + ": DUT refused " + std::string(harness::ToString(s.action)) + ": " + what;
    ControlRecord r;
    r.kind = ControlRecord::Kind::kError;
    r.time_ns = now;
    r.detail = out.reason;
    run_.rec.trace.control.push_back(std::move(r));
    if (run_.rec.dut_error.empty()) run_.rec.dut_error = out.reason;
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
    out.reason = Where(s.where) + ": '" + std::string(harness::ToString(s.action)) + "' before any 'open'";
    return false;
  }
  const dut::ConnHandle conn = conns_.back();
  if (s.action == harness::DutStep::Action::kClose) {
    auto st = port_->Call([&](dut::Dut& d) { return d.Disconnect(conn, now); });
    if (!st.ok()) return error(st.error().message);
    out.state = ScriptStepOutcome::State::kPassed;
    return true;
  }
  const uint64_t size = static_cast<uint64_t>(std::max<int64_t>(s.size_bytes, 0));
  if (size > kScriptBufferBytes) {
    out.state = ScriptStepOutcome::State::kError;
    out.reason = Where(s.where) + ": size " + std::to_string(size) + " exceeds the script buffer (" +
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
    dut::OpKind op = dut::OpKind::kWrite;
    auto st = port_->Call([&](dut::Dut& d) -> dut::Status {
      switch (s.action) {
        case harness::DutStep::Action::kWrite:
          op = dut::OpKind::kWrite;
          return d.PostWrite(conn, stream, buf_.id, off, static_cast<uint32_t>(size), kScriptPeerVa + peer_off,
                             kScriptPeerRkey, wr, std::nullopt, now);
        case harness::DutStep::Action::kRead:
          op = dut::OpKind::kRead;
          return d.PostRead(conn, stream, buf_.id, off, static_cast<uint32_t>(size), kScriptPeerVa + peer_off,
                            kScriptPeerRkey, wr, now);
        case harness::DutStep::Action::kSend:
          op = dut::OpKind::kSend;
          return d.PostSend(conn, stream, buf_.id, off, static_cast<uint32_t>(size), wr, std::nullopt, now);
        default:
          op = dut::OpKind::kRecv;
          return d.PostRecv(conn, stream, buf_.id, off, static_cast<uint32_t>(size), wr);
      }
    });
    ControlRecord r{ControlRecord::Kind::kPost, now, kDutHost, conn, stream, wr, op, dut::OpStatus::kSuccess,
                    static_cast<uint32_t>(size), ""};
    run_.rec.trace.control.push_back(r);
    if (!st.ok()) return error(st.error().message);
  }
  out.state = ScriptStepOutcome::State::kPassed;
  return true;
}

ref::Result<std::vector<uint8_t>> ScriptRunner::BuildFrame(const harness::InjectStep& s) {
  using K = harness::FieldPattern::Kind;
  const int path = s.path.value_or(0);
  wire::FieldMap given;
  for (const auto& [name, p] : s.frame) {
    if (p.kind == K::kBytes) {
      given.Set(name, wire::FieldValue(p.bytes));
    } else if (p.kind == K::kExact) {
      given.Set(name, p.value);
    } else if (p.kind == K::kVariable) {
      auto it = run_.vars.find(p.variable);
      if (it == run_.vars.end()) return ref::MakeError("script.unbound", name + ": variable $" + p.variable + " is not bound");
      given.Set(name, it->second + static_cast<uint64_t>(p.offset));
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
    auto dc = run_.vars.find("dut_conn");
    if (dc != run_.vars.end()) def("ch.dst_conn_id", dc->second);
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
  if (!f0.ok()) return ref::MakeError("script.frame", f0.error().field + ": " + f0.error().message);
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
    if (!r.ok()) return ref::MakeError("script.frame", r.error().field + ": " + r.error().message);
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
      out.reason = Where(s.where) + ": scapy step needs the embedded Python interpreter, which this program did not "
                   "install (link mroce_session_scapy and call InstallEmbeddedScapy())";
      return false;
    }
    std::map<std::string, uint64_t> vars = run_.vars;
    vars["sport"] = kScriptBaseSport + static_cast<uint64_t>(path);
    vars["path"] = static_cast<uint64_t>(path);
    bytes = eval(s.scapy, vars);
  } else {
    bytes = BuildFrame(s);
  }
  if (!bytes.ok()) {
    out.state = ScriptStepOutcome::State::kError;
    out.reason = Where(s.where) + ": cannot build the injected frame: " + bytes.error().message;
    return false;
  }
  const int plane = path % fabric_->config().num_planes;
  const uint64_t id = fabric_->Send(kScriptHost, plane, bytes.value());
  const auto& fr = run_.rec.trace.frames;
  const bool unroutable = id == 0 || std::any_of(fr.begin(), fr.end(), [&](const FrameRecord& r) {
                            return r.event == FrameRecord::Event::kDrop && r.packet_id == id && r.where == "fabric.route";
                          });
  if (unroutable) {
    out.state = ScriptStepOutcome::State::kError;
    out.reason = Where(s.where) + ": the fabric cannot route the injected frame (not IP/UDP or unknown destination)";
    return false;
  }
  out.state = ScriptStepOutcome::State::kPassed;
  return true;
}

const wire::FieldMap* ScriptRunner::MapOf(size_t i) {
  auto it = maps_.find(i);
  if (it != maps_.end()) return &it->second;
  if (undecodable_.count(i)) return nullptr;
  auto f = Trace::Decode(run_.rec.trace.frames[i]);
  if (!f.ok()) {
    undecodable_[i] = true;
    return nullptr;
  }
  return &(maps_[i] = wire::ToFieldMap(f.value()));
}

bool ScriptRunner::DoExpect(const harness::ExpectStep& s, ScriptStepOutcome& out) {
  const int64_t from = cursor_ns_;
  const int64_t until = from + std::max<int64_t>(0, s.within.ToNanoseconds(run_.rec.rtt_ns));
  auto& frames = run_.rec.trace.frames;
  size_t scan = consumed_;
  long found = -1;
  MatchResult found_match;
  auto scan_new = [&]() {
    for (; scan < frames.size() && found < 0; ++scan) {
      const FrameRecord& r = frames[scan];
      if (r.event != FrameRecord::Event::kTx || r.src_host != kDutHost || r.time_ns < from || r.time_ns > until) continue;
      const wire::FieldMap* m = MapOf(scan);
      if (m == nullptr) continue;
      MatchResult mr = Match(*m, s.match, run_.vars);
      if (mr.ok()) {
        found = static_cast<long>(scan);
        found_match = std::move(mr);
      }
    }
    return found >= 0;
  };
  if (!scan_new()) {
    sim_.RunUntil(
        [&] {
          Poll();
          return scan_new();
        },
        Time::FromNanos(until));
    Poll();
  }
  const std::string pcap = run_.rec.pcap;
  if (s.absent) {
    if (found < 0) {
      RunTo(until);
      out.state = ScriptStepOutcome::State::kPassed;
      out.time_ns = until;
      return true;
    }
    const FrameRecord& r = frames[static_cast<size_t>(found)];
    out.state = ScriptStepOutcome::State::kFailed;
    out.time_ns = r.time_ns;
    out.matched_frame = found;
    out.reason = Where(s.where) + ": the DUT sent a frame the script says must be absent (frame " +
                 std::to_string(r.frame_no) + " of " + (pcap.empty() ? "the DUT trace" : pcap) + ", at " +
                 std::to_string(r.time_ns - from) + " ns into the " + s.within.ToString() + " window)";
    harness::CheckResult& d = out.detail;
    d.expected_packet = ScriptPacket(s.match, run_.vars, true);
    d.actual_packet = Trace::Dump(r);
    d.packet_index = r.frame_no;
    return false;
  }
  if (found >= 0) {
    const FrameRecord& r = frames[static_cast<size_t>(found)];
    for (auto& [k, v] : found_match.new_vars) run_.vars[k] = v;
    // Automatic bindings from the DUT's connection-management frames.
    if (const wire::FieldMap* m = MapOf(static_cast<size_t>(found))) {
      const uint64_t op = m->GetU64("ch.opcode").value_or(0);
      if (op == 0x20 || op == 0x21) {
        if (!run_.vars.count("dut_conn")) run_.vars["dut_conn"] = m->GetU64("cmh.src_conn_id").value_or(0);
        if (!run_.vars.count("nonce")) run_.vars["nonce"] = m->GetU64("cmh.nonce").value_or(0);
      }
    }
    consumed_ = static_cast<size_t>(found) + 1;
    out.state = ScriptStepOutcome::State::kPassed;
    out.time_ns = r.time_ns;
    out.matched_frame = found;
    return true;
  }
  // Failed: find the closest candidate (fewest mismatching fields; the earliest on ties).
  long best = -1;
  MatchResult best_match;
  size_t candidates = 0;
  for (size_t i = consumed_; i < frames.size(); ++i) {
    const FrameRecord& r = frames[i];
    if (r.event != FrameRecord::Event::kTx || r.src_host != kDutHost || r.time_ns < from || r.time_ns > until) continue;
    ++candidates;
    const wire::FieldMap* m = MapOf(i);
    if (m == nullptr) {
      if (best < 0) best = static_cast<long>(i), best_match.mismatches = static_cast<int>(s.match.size()) + 1;
      continue;
    }
    MatchResult mr = Match(*m, s.match, run_.vars);
    if (best < 0 || mr.mismatches < best_match.mismatches) {
      best = static_cast<long>(i);
      best_match = std::move(mr);
    }
  }
  out.state = ScriptStepOutcome::State::kFailed;
  out.time_ns = until;
  harness::CheckResult& d = out.detail;
  d.expected_packet = ScriptPacket(s.match, run_.vars, false);
  if (best < 0) {
    out.reason = Where(s.where) + ": no frame from the DUT within " + s.within.ToString() + " (" +
                 std::to_string(until - from) + " ns)";
    return false;
  }
  const FrameRecord& r = frames[static_cast<size_t>(best)];
  out.matched_frame = best;
  d.actual_packet = Trace::Dump(r);
  d.packet_index = r.frame_no;
  d.mismatch = best_match.first;
  out.reason = Where(s.where) + ": no DUT frame within " + s.within.ToString() + " matches (" + std::to_string(candidates) +
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

ScriptRun ScriptRunner::Run() {
  run_.steps.resize(case_.script.size());
  if (!Setup()) return std::move(run_);
  start_ns_ = cursor_ns_ = sim_.Now().nanos();
  for (size_t i = 0; i < case_.script.size(); ++i) {
    ScriptStepOutcome& out = run_.steps[i];
    bool ok = std::visit(
        [&](const auto& s) -> bool {
          using T = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<T, harness::ExpectStep>) {
            bool r = DoExpect(s, out);
            if (r) cursor_ns_ = std::max(cursor_ns_, out.time_ns);
            return r;
          } else {
            const int64_t at = std::max(start_ns_ + s.at.ToNanoseconds(run_.rec.rtt_ns), cursor_ns_);
            RunTo(at);
            out.time_ns = sim_.Now().nanos();
            cursor_ns_ = out.time_ns;
            if constexpr (std::is_same_v<T, harness::InjectStep>) return DoInject(s, out);
            else return DoDut(s, out);
          }
        },
        case_.script[i]);
    if (!ok) {
      if (out.state == ScriptStepOutcome::State::kError && run_.error.empty()) run_.error = out.reason;
      break;
    }
  }
  Poll();
  run_.rec.workload_end_ns = sim_.Now().nanos();
  TelemetrySample ts;
  ts.time_ns = sim_.Now().nanos();
  ts.host = kDutHost;
  ts.counters = dut_->Telemetry();
  ts.state_bytes = dut_->StateBytes();
  run_.rec.trace.telemetry.push_back(std::move(ts));
  for (int p = 0; p < fabric_->config().num_planes; ++p) {
    for (const auto& st : fabric_->PlaneIngress(p).Stats()) run_.rec.trace.stage_stats.push_back(st.ToString());
  }
  if (tap_) tap_->Flush();
  return std::move(run_);
}

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

}  // namespace

const std::vector<std::string>& BuiltinFreeFields() {
  static const std::vector<std::string> k = {"ip4.id",          "ip4.checksum", "ip6.flow_label", "udp.sport", "crc",
                                             "cmh.src_conn_id", "cmh.nonce",    "ack.ack_delay",  "prh.tx_time",
                                             "eth.padding"};
  return k;
}

void SetScapyEvaluator(ScapyEvaluator eval) {
  std::lock_guard<std::mutex> lock(ScapyMutex());
  ScapyHook() = std::move(eval);
}

ScriptRun SimulateScript(const harness::Case& c, const SessionOptions& options, const DutFactory& make_dut,
                         const std::string& pcap_suffix) {
  ScriptRunner r(c, options, make_dut, pcap_suffix);
  return r.Run();
}

harness::TestResult RunScripted(const harness::Case& c, const SessionOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  harness::TestResult t;
  t.id = c.id;
  t.title = c.title;
  t.clauses = c.clauses;
  t.level = c.level();
  t.seed = options.seed;
  t.reproduce = "mroce-cts run --filter '" + c.id + "' --seed " + std::to_string(options.seed) + " --dut '" +
                options.dut_spec + "'";
  std::vector<std::string> clause_ids;
  for (const auto& cr : c.clauses) clause_ids.push_back(cr.id);

  ScriptRun dut = SimulateScript(c, options, options.make_dut);
  if (!dut.rec.pcap.empty()) {
    t.evidence.push_back(dut.rec.pcap);
    t.evidence.push_back("evidence/" + c.id + ".trace.jsonl");
  }
  auto finish = [&]() {
    t.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return t;
  };
  if (!dut.error.empty()) {
    t.verdict = harness::Verdict::kError;
    t.reason = dut.error;
    return finish();
  }
  DutFactory make_ref = [] { return ref::Result<std::unique_ptr<dut::Dut>>(std::unique_ptr<dut::Dut>(std::make_unique<dut::ReferenceDut>())); };
  ScriptRun ref_run = SimulateScript(c, options, make_ref, ".reference");
  if (!ref_run.rec.pcap.empty()) t.evidence.push_back(ref_run.rec.pcap);

  // One check per expect step.
  for (size_t i = 0; i < c.script.size(); ++i) {
    const auto* e = std::get_if<harness::ExpectStep>(&c.script[i]);
    if (e == nullptr) {
      // A refused DUT control call is the DUT's failure.
      const ScriptStepOutcome& o = dut.steps[i];
      if (o.state == ScriptStepOutcome::State::kFailed) {
        harness::CheckResult cr;
        cr.check = "dut-control@" + Where(std::visit([](const auto& s) { return s.where; }, c.script[i]));
        cr.clauses = clause_ids;
        cr.verdict = harness::Verdict::kFail;
        cr.reason = o.reason;
        cr.where = Where(std::visit([](const auto& s) { return s.where; }, c.script[i]));
        t.checks.push_back(cr);
      }
      continue;
    }
    const ScriptStepOutcome& o = dut.steps[i];
    harness::CheckResult cr = o.detail;
    cr.check = "expect@" + Where(e->where);
    cr.clauses = clause_ids;
    cr.where = Where(e->where);
    cr.pcap = dut.rec.pcap;
    switch (o.state) {
      case ScriptStepOutcome::State::kPassed:
        cr.verdict = harness::Verdict::kPass;
        cr.reason.clear();
        if (o.matched_frame >= 0) cr.packet_index = dut.rec.trace.frames[static_cast<size_t>(o.matched_frame)].frame_no;
        break;
      case ScriptStepOutcome::State::kFailed: {
        cr.verdict = harness::Verdict::kFail;
        // The check's name already says where; do not repeat it at the front of the reason.
        const std::string prefix = cr.where + ": ";
        cr.reason = o.reason.rfind(prefix, 0) == 0 ? o.reason.substr(prefix.size()) : o.reason;
        break;
      }
      case ScriptStepOutcome::State::kError:
        cr.verdict = harness::Verdict::kError;
        cr.reason = o.reason;
        break;
      case ScriptStepOutcome::State::kNotRun:
        cr.verdict = harness::Verdict::kInconclusive;
        cr.reason = "not run: an earlier step failed";
        break;
    }
    t.checks.push_back(cr);
  }

  // Reference comparison.
  harness::CheckResult rm;
  rm.check = "reference-match";
  rm.clauses = clause_ids;
  rm.pcap = dut.rec.pcap;
  if (!ref_run.error.empty()) {
    rm.verdict = harness::Verdict::kError;
    rm.reason = "the reference endpoint could not run the script: " + ref_run.error;
  } else {
    int compared = 0;
    for (size_t i = 0; i < c.script.size() && rm.verdict == harness::Verdict::kPass; ++i) {
      const auto* e = std::get_if<harness::ExpectStep>(&c.script[i]);
      if (e == nullptr) continue;
      const ScriptStepOutcome& d = dut.steps[i];
      const ScriptStepOutcome& r = ref_run.steps[i];
      if (r.state != ScriptStepOutcome::State::kPassed) {
        if (d.state == ScriptStepOutcome::State::kPassed) {
          rm.verdict = harness::Verdict::kError;
          rm.where = Where(e->where);
          rm.reason = "the reference endpoint does not satisfy the script at " + Where(e->where) + " (case or reference bug): " + r.reason;
          rm.expected_packet = r.detail.actual_packet;
        } else if (rm.reason.empty()) {
          rm.reason = "not compared from " + Where(e->where) + " on: DUT and reference both failed the step";
        }
        break;
      }
      if (d.state != ScriptStepOutcome::State::kPassed) break;  // Judged by the step's own check.
      if (e->absent || d.matched_frame < 0 || r.matched_frame < 0) continue;
      const FrameRecord& df = dut.rec.trace.frames[static_cast<size_t>(d.matched_frame)];
      const FrameRecord& rf = ref_run.rec.trace.frames[static_cast<size_t>(r.matched_frame)];
      auto dmap = Trace::Decode(df);
      auto rmap = Trace::Decode(rf);
      if (!dmap.ok() || !rmap.ok()) continue;  // Matched frames always decode.
      const std::vector<std::string> free = FreeFor(*e);
      auto diffs = wire::DiffFieldMaps(wire::ToFieldMap(rmap.value()), wire::ToFieldMap(dmap.value()), free);
      ++compared;
      if (diffs.empty()) continue;
      rm.verdict = harness::Verdict::kFail;
      rm.where = Where(e->where);
      rm.mismatch = ToMismatch(diffs.front());
      rm.expected_packet = "reference (frame " + std::to_string(rf.frame_no) + " of " +
                           (ref_run.rec.pcap.empty() ? std::string("its trace") : ref_run.rec.pcap) + "):\n" + Trace::Dump(rf);
      rm.actual_packet = Trace::Dump(df);
      rm.packet_index = df.frame_no;
      std::string names;
      for (const auto& df2 : diffs) names += (names.empty() ? "" : ", ") + df2.name;
      rm.reason = Where(e->where) + ": the DUT's frame differs from the reference's in " + std::to_string(diffs.size()) +
                  " field(s) (" + names + "): " + rm.mismatch->field + " expected (reference) " + rm.mismatch->expected +
                  ", actual (DUT) " + rm.mismatch->actual + "; frame " + std::to_string(df.frame_no) + " of " +
                  (dut.rec.pcap.empty() ? std::string("the DUT trace") : dut.rec.pcap);
    }
    if (rm.verdict == harness::Verdict::kPass && rm.reason.empty()) {
      rm.reason.clear();
    }
    if (rm.verdict == harness::Verdict::kPass && !rm.reason.empty()) {
      // Nothing left to compare: the step checks carry the verdict.
      rm.verdict = harness::Verdict::kInconclusive;
    }
    (void)compared;
  }
  t.checks.push_back(rm);

  t.verdict = harness::CombineChecks(t.checks);
  for (const auto& ch : t.checks) {
    if (ch.verdict == t.verdict && t.verdict != harness::Verdict::kPass) {
      t.reason = ch.check + ": " + ch.reason;
      break;
    }
  }
  return finish();
}

}  // namespace mroce::session
