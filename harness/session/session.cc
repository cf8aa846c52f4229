// Session: one end-to-end case in the simulated fabric (see session.h).
#include "mroce/session/session.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "mroce/dut/reference_dut.h"
#include "mroce/dut/rocev2_dut.h"
#include "mroce/impairment/fabric.h"
#include "mroce/impairment/stage_plan.h"
#include "mroce/impairment/tap.h"
#include "mroce/session/checks.h"
#include "mroce/session/dut_port.h"
#include "mroce/session/scripted.h"
#include "mroce/sim/simulator.h"

namespace mroce::session {
namespace {

using sim::Time;

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The bytes message `msg` carries: a function of (seed, message) only, so a misplaced packet shows.
void FillPattern(uint8_t* out, uint32_t size, uint64_t seed, size_t msg) {
  uint64_t state = Mix(seed ^ Mix(msg + 1));
  for (uint32_t i = 0; i < size; i += 8) {
    state = Mix(state);
    for (uint32_t b = 0; b < 8 && i + b < size; ++b) out[i + b] = static_cast<uint8_t>(state >> (8 * b));
  }
}

// Records every frame event the fabric reports into the trace.
class Recorder final : public impairment::FabricObserver {
 public:
  explicit Recorder(Trace* trace) : trace_(trace) {}
  void OnSend(int host, const impairment::Packet& p, Time now) override { Add(FrameRecord::Event::kTx, p, "", now); }
  void OnDeliver(int host, const impairment::Packet& p, Time now) override { Add(FrameRecord::Event::kRx, p, "", now); }
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
    // The DUT tap's pcap holds the DUT's transmissions and receptions, in this order.
    if ((e == FrameRecord::Event::kTx && p.src_host == kDutHost) || (e == FrameRecord::Event::kRx && p.dst_host == kDutHost)) {
      r.frame_no = ++dut_frames_;
    }
    trace_->frames.push_back(std::move(r));
  }
  Trace* trace_;
  uint64_t dut_frames_ = 0;
};

// Buffers of one (originator, responder) pair.
struct PairBuffers {
  dut::Buffer orig_src, orig_dst, resp_dst, resp_src;
  uint64_t send_bytes = 0;  // write + send payload bytes
  uint64_t read_bytes = 0;
};

class Runner : public sim::EventHandler {
 public:
  Runner(const harness::Case& c, const SessionOptions& o) : case_(c), opt_(o) {}

  RunRecord Run();
  RunRecord RunSteps();
  void OnEvent(Time now, uint64_t arg) override { SampleTelemetry(now); }

 private:
  bool Setup();
  bool Connect();
  void PlanAndPost();
  void Poll();
  void SampleTelemetry(Time now);
  void VerifyData();
  void Control(ControlRecord r) { rec_.trace.control.push_back(std::move(r)); }
  DutPort& Port(int host) { return *ports_[static_cast<size_t>(host)]; }
  void Fail(std::string msg) {
    if (rec_.dut_error.empty()) rec_.dut_error = std::move(msg);
  }
  // The DUT itself failed (crashed, hung, broke its control protocol): stop waiting for it.
  bool Broken() const { return !devs_.empty() && devs_[0]->Failed(); }

  const harness::Case& case_;
  const SessionOptions& opt_;
  RunRecord rec_;
  sim::Simulator sim_;
  std::unique_ptr<impairment::Fabric> fabric_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<impairment::Tap> tap_;
  std::vector<std::unique_ptr<dut::Dut>> devs_;
  std::vector<std::unique_ptr<DutPort>> ports_;
  std::vector<int> originators_;
  int responder_ = 1;
  std::map<int, PairBuffers> buffers_;  // by originator
  // Expected completions: (host, wr_id) -> seen count.
  std::map<std::pair<int, uint64_t>, int> expected_;
  size_t expected_done_ = 0;
  std::vector<std::vector<dut::ConnEvent>> events_;  // per host, not yet consumed
  int64_t sample_interval_ns_ = 0;
  bool sampling_ = false;
  int64_t deadline_ns_ = 0;
};

bool Runner::Setup() {
  const harness::Topology& t = case_.topology;
  const harness::Workload& w = case_.workload;
  rec_.rtt_ns = std::max<int64_t>(t.rtt_ns, 8);
  rec_.link_rate_bps = t.link_rate_bps;
  const int senders = std::max(1, w.senders);
  const bool dut_originates = w.direction == harness::Direction::kDutToPeer;
  if (senders == 1) {
    originators_ = {dut_originates ? 0 : 1};
    responder_ = dut_originates ? 1 : 0;
    rec_.num_hosts = 2;
  } else {
    for (int i = dut_originates ? 0 : 1; i <= (dut_originates ? senders - 1 : senders); ++i) originators_.push_back(i);
    responder_ = dut_originates ? senders : 0;
    rec_.num_hosts = senders + 1;
  }

  impairment::FabricConfig fc;
  fc.num_hosts = rec_.num_hosts;
  fc.num_planes = std::max(1, t.planes);
  fc.hosts_per_leaf = 1;  // every pair crosses the spines: ECMP and planes matter
  fc.num_spines = std::max(1, t.spines);
  fc.host_rate = sim::Bandwidth::BitsPerSecond(t.link_rate_bps);
  fc.fabric_rate = sim::Bandwidth::BitsPerSecond(t.spine_link_rate_bps > 0 ? t.spine_link_rate_bps : t.link_rate_bps);
  fc.hop_delay = sim::Duration::Nanos(std::max<int64_t>(1, rec_.rtt_ns / 8));  // 4 links each way
  fc.seed = opt_.seed;
  fc.ecmp_seed = static_cast<uint32_t>(Mix(opt_.seed));
  fabric_ = std::make_unique<impairment::Fabric>(&sim_, fc);
  recorder_ = std::make_unique<Recorder>(&rec_.trace);
  fabric_->AddObserver(recorder_.get());

  if (!opt_.run_dir.empty() && opt_.write_evidence) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(opt_.run_dir) / "evidence", ec);
    impairment::Tap::Options to;
    rec_.pcap = "evidence/" + case_.id + ".pcap";
    to.pcap_path = (std::filesystem::path(opt_.run_dir) / rec_.pcap).string();
    to.jsonl_path = (std::filesystem::path(opt_.run_dir) / "evidence" / (case_.id + ".trace.jsonl")).string();
    to.keep_records = false;
    tap_ = std::make_unique<impairment::Tap>(fabric_.get(), kDutHost, to);
    if (!tap_->status().ok) {
      rec_.setup_error = "cannot write evidence: " + tap_->status().message;
      return false;
    }
  }

  // Impairments: one stage per plane unless the spec pins a plane (stages keep per-pipeline state).
  for (size_t i = 0; i < case_.impairments.size(); ++i) {
    const harness::ImpairmentSpec& is = case_.impairments[i];
    auto placed = impairment::InstantiatePerPlane(is.stage, i, fc.num_planes, opt_.seed, rec_.rtt_ns);
    if (!placed.ok()) {
      rec_.setup_error = is.where.ToString() + ": " + placed.error().message;
      return false;
    }
    for (impairment::PlaneStage& s : placed.value()) fabric_->PlaneIngress(s.plane).Add(std::move(s.stage));
  }

  // Devices: host 0 is the DUT, the others are peers. Without an explicit peer, a DUT speaking
  // RoCEv2 gets RoCEv2 baseline peers (so the report shows how RoCEv2 behaves, not that it cannot
  // talk to MetaRoCE) and every other DUT gets pristine reference endpoints.
  for (int h = 0; h < rec_.num_hosts; ++h) {
    ref::Result<std::unique_ptr<dut::Dut>> d = [&]() -> ref::Result<std::unique_ptr<dut::Dut>> {
      if (h == kDutHost) return opt_.make_dut();
      if (opt_.make_peer) return opt_.make_peer();
      if (devs_[0]->Caps().protocol == dut::Protocol::kRocev2) return std::unique_ptr<dut::Dut>(std::make_unique<dut::Rocev2Dut>());
      return std::unique_ptr<dut::Dut>(std::make_unique<dut::ReferenceDut>());
    }();
    if (!d.ok()) {
      rec_.setup_error = std::string(h == kDutHost ? "DUT" : "peer") + ": " + d.error().message;
      return false;
    }
    devs_.push_back(std::move(d).value());
  }
  rec_.dut_identity = devs_[0]->Identity();
  rec_.dut_caps = devs_[0]->Caps();
  events_.resize(static_cast<size_t>(rec_.num_hosts));
  for (int h = 0; h < rec_.num_hosts; ++h) {
    dut::HostConfig hc;
    hc.mac = impairment::Fabric::HostMac(h);
    hc.ip = impairment::Fabric::HostIpv4(h);
    hc.num_paths = static_cast<uint8_t>(std::clamp(t.paths, 1, 64));
    hc.num_planes = static_cast<uint8_t>(fc.num_planes);
    hc.mtu = static_cast<uint16_t>(std::clamp<int64_t>(t.mtu_bytes, 256, 9000));
    hc.max_streams = static_cast<uint16_t>(std::clamp(w.streams, 16, 1024));
    // C of spec 10.3: the sum of the line rates of the host's attachments (one port per plane).
    hc.link_capacity_mbps = static_cast<uint64_t>(t.link_rate_bps / 1'000'000) * fc.num_planes;
    hc.seed = Mix(opt_.seed * 1000003ull + static_cast<uint64_t>(h));
    ports_.push_back(std::make_unique<DutPort>(&sim_, fabric_.get(), h, devs_[static_cast<size_t>(h)].get()));
    auto st = Port(h).Call([&](dut::Dut& d) { return d.Start(hc, ports_.back().get()); });
    if (!st.ok()) {
      if (h == kDutHost) {
        Fail("DUT refused Start: " + st.error().message);
        return false;
      }
      rec_.setup_error = "peer refused Start: " + st.error().message;
      return false;
    }
  }
  return true;
}

void Runner::Poll() {
  const int64_t now = sim_.Now().nanos();
  for (int h = 0; h < rec_.num_hosts; ++h) {
    dut::Dut& d = *devs_[static_cast<size_t>(h)];
    for (const dut::ConnEvent& e : d.PollEvents()) {
      ControlRecord r;
      r.kind = ControlRecord::Kind::kConnEvent;
      r.time_ns = now;
      r.host = h;
      r.conn = e.conn;
      r.detail = std::string(dut::ConnEventKindName(e.kind));
      r.status = dut::OpStatus::kSuccess;
      r.bytes = e.reason;
      Control(std::move(r));
      events_[static_cast<size_t>(h)].push_back(e);
    }
    for (const dut::Completion& c : d.PollCompletions()) {
      ControlRecord r;
      r.kind = ControlRecord::Kind::kCompletion;
      r.time_ns = now;
      r.host = h;
      r.conn = c.conn;
      r.stream = c.stream;
      r.wr_id = c.wr_id;
      r.op = c.op;
      r.status = c.status;
      r.bytes = c.byte_len;
      Control(std::move(r));
      auto it = expected_.find({h, c.wr_id});
      if (it != expected_.end() && it->second++ == 0) {
        ++expected_done_;
        if (expected_done_ == expected_.size()) rec_.workload_end_ns = now;
      }
    }
  }
}

bool Runner::Connect() {
  const harness::Workload& w = case_.workload;
  const int per = std::max(1, w.connections);
  const int64_t connect_limit = 20 * 1'000'000;  // 20 ms: the spec's CONNECT_REQ retries fit in it
  for (int o : originators_) {
    for (int k = 0; k < per; ++k) {
      PlannedConnection pc;
      pc.originator = o;
      pc.responder = responder_;
      dut::PeerInfo to_resp{impairment::Fabric::HostMac(responder_), impairment::Fabric::HostIpv4(responder_), 4797, {}};
      dut::PeerInfo to_orig{impairment::Fabric::HostMac(o), impairment::Fabric::HostIpv4(o), 4797, {}};
      const uint32_t index = static_cast<uint32_t>(rec_.conns.size());
      const bool in_band = devs_[static_cast<size_t>(o)]->Caps().in_band_connect &&
                           devs_[static_cast<size_t>(responder_)]->Caps().in_band_connect;
      const int64_t now = sim_.Now().nanos();
      if (!in_band) {
        auto oi = Port(o).Call([&](dut::Dut& d) { return d.PrepareConnection(index, now); });
        auto ri = Port(responder_).Call([&](dut::Dut& d) { return d.PrepareConnection(index, now); });
        if (!oi.ok() || !ri.ok()) {
          Fail("connection " + std::to_string(index) + ": PrepareConnection refused: " +
               (!oi.ok() ? oi.error().message : ri.error().message));
          return false;
        }
        // Each side connects to the other with the other's half.
        to_orig.oob = oi.value();
        to_resp.oob = ri.value();
        auto rh = Port(responder_).Call([&](dut::Dut& d) { return d.Connect(to_orig, now); });
        if (!rh.ok()) {
          Fail("connection " + std::to_string(index) + ": responder refused Connect: " + rh.error().message);
          return false;
        }
        pc.resp_handle = rh.value();
      }
      auto oh = Port(o).Call([&](dut::Dut& d) { return d.Connect(to_resp, now); });
      if (!oh.ok()) {
        Fail("connection " + std::to_string(index) + ": host " + std::to_string(o) + " refused Connect: " + oh.error().message);
        return false;
      }
      pc.orig_handle = oh.value();
      bool orig_up = false, resp_up = !in_band;
      auto& oev = events_[static_cast<size_t>(o)];
      auto& rev = events_[static_cast<size_t>(responder_)];
      sim_.RunUntil(
          [&] {
            Poll();
            for (auto it = oev.begin(); it != oev.end();) {
              if (it->conn == pc.orig_handle && it->kind == dut::ConnEventKind::kEstablished) {
                orig_up = true;
                it = oev.erase(it);
              } else {
                ++it;
              }
            }
            if (in_band) {
              for (auto it = rev.begin(); it != rev.end() && !resp_up;) {
                if (it->kind == dut::ConnEventKind::kEstablished || it->kind == dut::ConnEventKind::kAccepted) {
                  resp_up = true;
                  pc.resp_handle = it->conn;
                  it = rev.erase(it);
                } else {
                  ++it;
                }
              }
            }
            return (orig_up && resp_up) || Broken();
          },
          Time::FromNanos(std::min(deadline_ns_, now + connect_limit)));
      pc.established = orig_up && resp_up;
      rec_.conns.push_back(pc);
      if (!pc.established) {
        Fail("connection " + std::to_string(index) + " (host " + std::to_string(o) + " -> host " +
             std::to_string(responder_) + ") not established within " +
             std::to_string((sim_.Now().nanos() - now) / 1000) + " us: originator " +
             (orig_up ? "established" : "never reported established") + ", responder " +
             (resp_up ? "accepted" : "never reported the connection accepted"));
        return false;
      }
    }
  }
  return true;
}

void Runner::PlanAndPost() {
  const harness::Workload& w = case_.workload;
  const int per = std::max(1, w.connections);
  const int streams = std::max(1, w.streams);
  // Plan messages per originator.
  for (size_t oi = 0; oi < originators_.size(); ++oi) {
    const int o = originators_[oi];
    PairBuffers& pb = buffers_[o];
    uint64_t n = 0;
    for (const harness::WorkloadOp& op : w.ops) {
      for (int64_t j = 0; j < op.count; ++j, ++n) {
        PlannedMessage m;
        m.originator = o;
        m.responder = responder_;
        m.conn = oi * static_cast<size_t>(per) + static_cast<size_t>(n % static_cast<uint64_t>(per));
        m.stream = static_cast<uint16_t>(op.stream.value_or(static_cast<int>(n % static_cast<uint64_t>(streams))));
        m.op = op.kind == harness::OpKind::kWrite ? dut::OpKind::kWrite
               : op.kind == harness::OpKind::kRead ? dut::OpKind::kRead
                                                   : dut::OpKind::kSend;
        m.size = static_cast<uint32_t>(op.size_bytes);
        m.wr_id = (static_cast<uint64_t>(o) << 32) | (n + 1);
        if (m.op == dut::OpKind::kRead) {
          m.offset = pb.read_bytes;
          pb.read_bytes += m.size;
        } else {
          m.offset = pb.send_bytes;
          pb.send_bytes += m.size;
        }
        if (m.op == dut::OpKind::kSend) m.recv_wr_id = (static_cast<uint64_t>(o) << 32) | 0x80000000ull | (n + 1);
        rec_.messages.push_back(m);
      }
    }
  }
  // Buffers, filled with each message's pattern.
  auto alloc = [&](int host, uint64_t bytes, uint32_t access, dut::Buffer& out, const char* what) {
    auto b = Port(host).Call([&](dut::Dut& d) { return d.AllocBuffer(std::max<uint64_t>(bytes, 1), access); });
    if (!b.ok()) {
      Fail(std::string("host ") + std::to_string(host) + " refused AllocBuffer (" + what + ", " + std::to_string(bytes) +
           " B): " + b.error().message);
      return false;
    }
    out = b.value();
    return true;
  };
  for (int o : originators_) {
    PairBuffers& pb = buffers_[o];
    if (!alloc(o, pb.send_bytes, dut::kAccessLocalWrite, pb.orig_src, "source") ||
        !alloc(o, pb.read_bytes, dut::kAccessLocalWrite, pb.orig_dst, "read sink") ||
        !alloc(responder_, pb.send_bytes, dut::kAccessLocalWrite | dut::kAccessRemoteWrite, pb.resp_dst, "target") ||
        !alloc(responder_, pb.read_bytes, dut::kAccessLocalWrite | dut::kAccessRemoteRead, pb.resp_src, "read source")) {
      return;
    }
  }
  std::vector<uint8_t> scratch;
  for (size_t i = 0; i < rec_.messages.size(); ++i) {
    const PlannedMessage& m = rec_.messages[i];
    PairBuffers& pb = buffers_[m.originator];
    scratch.resize(m.size);
    FillPattern(scratch.data(), m.size, opt_.seed, i);
    const int host = m.op == dut::OpKind::kRead ? m.responder : m.originator;
    const dut::Buffer& b = m.op == dut::OpKind::kRead ? pb.resp_src : pb.orig_src;
    auto st = Port(host).Call([&](dut::Dut& d) { return d.WriteBuffer(b.id, m.offset, scratch); });
    if (!st.ok()) {
      Fail("host " + std::to_string(host) + " refused WriteBuffer: " + st.error().message);
      return;
    }
  }
  // MROCE-LIM-007 baseline: connected, memory registered, no work request posted yet.
  rec_.state_before = devs_[0]->StateBytes();
  // Receives for SENDs, in stream order, before anything is sent.
  for (const PlannedMessage& m : rec_.messages) {
    if (m.op != dut::OpKind::kSend) continue;
    const PlannedConnection& pc = rec_.conns[m.conn];
    PairBuffers& pb = buffers_[m.originator];
    auto st = Port(m.responder).Call([&](dut::Dut& d) {
      return d.PostRecv(pc.resp_handle, m.stream, pb.resp_dst.id, m.offset, m.size, m.recv_wr_id);
    });
    ControlRecord r{ControlRecord::Kind::kPost, sim_.Now().nanos(), m.responder, pc.resp_handle, m.stream, m.recv_wr_id,
                    dut::OpKind::kRecv, dut::OpStatus::kSuccess, m.size, ""};
    if (!st.ok()) {
      r.kind = ControlRecord::Kind::kError;
      r.detail = "PostRecv refused: " + st.error().message;
      Fail("host " + std::to_string(m.responder) + " " + r.detail);
    }
    Control(std::move(r));
    expected_[{m.responder, m.recv_wr_id}] = 0;
  }
  rec_.workload_start_ns = sim_.Now().nanos();
  for (const PlannedMessage& m : rec_.messages) {
    const PlannedConnection& pc = rec_.conns[m.conn];
    PairBuffers& pb = buffers_[m.originator];
    const int64_t now = sim_.Now().nanos();
    auto st = Port(m.originator).Call([&](dut::Dut& d) -> dut::Status {
      switch (m.op) {
        case dut::OpKind::kWrite:
          return d.PostWrite(pc.orig_handle, m.stream, pb.orig_src.id, m.offset, m.size, pb.resp_dst.va + m.offset,
                             pb.resp_dst.rkey, m.wr_id, std::nullopt, now);
        case dut::OpKind::kSend:
          return d.PostSend(pc.orig_handle, m.stream, pb.orig_src.id, m.offset, m.size, m.wr_id, std::nullopt, now);
        default:
          return d.PostRead(pc.orig_handle, m.stream, pb.orig_dst.id, m.offset, m.size, pb.resp_src.va + m.offset,
                            pb.resp_src.rkey, m.wr_id, now);
      }
    });
    ControlRecord r{ControlRecord::Kind::kPost, now, m.originator, pc.orig_handle, m.stream, m.wr_id, m.op,
                    dut::OpStatus::kSuccess, m.size, ""};
    if (!st.ok()) {
      r.kind = ControlRecord::Kind::kError;
      r.detail = std::string("Post") + std::string(dut::OpKindName(m.op)) + " refused: " + st.error().message;
      Fail("host " + std::to_string(m.originator) + " " + r.detail);
    }
    Control(std::move(r));
    expected_[{m.originator, m.wr_id}] = 0;
  }
}

void Runner::SampleTelemetry(Time now) {
  TelemetrySample s;
  s.time_ns = now.nanos();
  s.host = kDutHost;
  s.counters = devs_[0]->Telemetry();
  s.state_bytes = devs_[0]->StateBytes();
  rec_.trace.telemetry.push_back(std::move(s));
  // Keep at most ~512 samples: thin out and slow down rather than grow without bound.
  if (rec_.trace.telemetry.size() >= 512) {
    std::vector<TelemetrySample> kept;
    for (size_t i = 0; i < rec_.trace.telemetry.size(); i += 2) kept.push_back(std::move(rec_.trace.telemetry[i]));
    rec_.trace.telemetry = std::move(kept);
    sample_interval_ns_ *= 2;
  }
  if (sampling_) sim_.Schedule(now + sim::Duration::Nanos(sample_interval_ns_), this, 0);
}

void Runner::VerifyData() {
  std::vector<uint8_t> want;
  for (size_t i = 0; i < rec_.messages.size(); ++i) {
    const PlannedMessage& m = rec_.messages[i];
    PairBuffers& pb = buffers_[m.originator];
    DataCheck dc;
    dc.message = i;
    const int host = m.op == dut::OpKind::kRead ? m.originator : m.responder;
    const dut::Buffer& b = m.op == dut::OpKind::kRead ? pb.orig_dst : pb.resp_dst;
    auto got = devs_[static_cast<size_t>(host)]->ReadBuffer(b.id, m.offset, m.size);
    if (!got.ok()) {
      dc.intact = false;
      dc.error = "host " + std::to_string(host) + " ReadBuffer failed: " + got.error().message;
      rec_.data.push_back(dc);
      continue;
    }
    want.resize(m.size);
    FillPattern(want.data(), m.size, opt_.seed, i);
    const auto& bytes = got.value();
    for (uint32_t k = 0; k < m.size; ++k) {
      if (bytes[k] != want[k]) {
        if (dc.intact) {
          dc.intact = false;
          dc.first_bad = k;
          dc.expected = want[k];
          dc.actual = bytes[k];
        }
        ++dc.bad_bytes;
      }
    }
    rec_.data.push_back(dc);
  }
}

RunRecord Runner::Run() {
  RunRecord rec = RunSteps();
  if (!devs_.empty()) {
    rec.dut_failure = devs_[0]->Failure();
    rec.stall_ns = devs_[0]->LongestStall();
  }
  return rec;
}

RunRecord Runner::RunSteps() {
  const int64_t rtt = std::max<int64_t>(case_.topology.rtt_ns, 8);
  deadline_ns_ = case_.timeouts.total.ToNanoseconds(rtt);
  if (!Setup()) return std::move(rec_);
  sample_interval_ns_ = rtt * std::max(1, opt_.telemetry_interval_rtts);
  if (!Connect()) {
    Poll();
    SampleTelemetry(sim_.Now());
    return std::move(rec_);
  }
  PlanAndPost();
  sampling_ = true;
  SampleTelemetry(sim_.Now());
  rec_.all_completed = sim_.RunUntil(
      [&] {
        Poll();
        return expected_done_ == expected_.size() || Broken();
      },
      Time::FromNanos(std::max(deadline_ns_, sim_.Now().nanos())));
  if (!rec_.all_completed) rec_.workload_end_ns = sim_.Now().nanos();
  sampling_ = false;
  // Quiesce: late duplicates, double completions and stray frames still count.
  const int64_t quiesce = std::max<int64_t>(case_.timeouts.quiesce.ToNanoseconds(rtt), 0);
  const Time quiet_end = sim_.Now() + sim::Duration::Nanos(quiesce);
  auto idle = [&] {
    Poll();
    return Broken();
  };
  // MROCE-LIM-007: the DUT's state is sampled 1 ms after traffic stopped (the workload ended and
  // no frame moved since), if the quiesce lasts that long; late frames push the sample back.
  constexpr int64_t kSettleNs = 1'000'000;
  auto last_traffic = [&] {
    const int64_t f = rec_.trace.frames.empty() ? 0 : rec_.trace.frames.back().time_ns;
    return std::max<int64_t>(f, rec_.workload_end_ns);
  };
  while (true) {
    const int64_t quiet_since = last_traffic();
    const Time settle = Time::FromNanos(quiet_since + kSettleNs);
    if (settle > quiet_end) break;
    const size_t frames = rec_.trace.frames.size();
    sim_.RunUntil([&] { return idle() || rec_.trace.frames.size() != frames; }, settle);
    if (rec_.trace.frames.size() != frames) continue;  // traffic again: wait for the next quiet 1 ms
    rec_.state_after = devs_[0]->StateBytes();
    rec_.state_after_delay_ns = kSettleNs;
    break;
  }
  sim_.RunUntil(idle, quiet_end);
  Poll();
  for (int h = 0; h < rec_.num_hosts; ++h) {
    TelemetrySample s;
    s.time_ns = sim_.Now().nanos();
    s.host = h;
    s.counters = devs_[static_cast<size_t>(h)]->Telemetry();
    s.state_bytes = devs_[static_cast<size_t>(h)]->StateBytes();
    rec_.trace.telemetry.push_back(std::move(s));
  }
  VerifyData();
  rec_.fabric.sim_events = sim_.events_run();
  rec_.fabric.downlinks.resize(static_cast<size_t>(rec_.num_hosts));
  for (int h = 0; h < rec_.num_hosts; ++h) {
    for (int p = 0; p < fabric_->config().num_planes; ++p) {
      rec_.fabric.downlinks[static_cast<size_t>(h)].push_back(fabric_->GetPortStats(fabric_->LeafDownlinkPort(h, p)));
    }
  }
  for (int p = 0; p < fabric_->config().num_planes; ++p) {
    for (const auto& st : fabric_->PlaneIngress(p).Stats()) rec_.trace.stage_stats.push_back(st.ToString());
  }
  if (tap_) tap_->Flush();
  return std::move(rec_);
}

}  // namespace

RunRecord Simulate(const harness::Case& c, const SessionOptions& options) {
  Runner r(c, options);
  return r.Run();
}

// Runs the case once into `t` (verdict, checks, evidence, series); returns the DUT's longest stall.
static int64_t RunAttempt(const harness::Case& c, const SessionOptions& options, harness::TestResult& t);

harness::TestResult RunCase(const harness::Case& c, const SessionOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  harness::TestResult t;
  t.id = c.id;
  t.title = c.title;
  t.clauses = c.clauses;
  t.level = c.level();
  t.seed = options.seed;
  t.reproduce = "mroce-cts run --filter '" + c.id + "' --seed " + std::to_string(options.seed) + " --dut '" +
                options.dut_spec + "'";

  // Capabilities first: a case the DUT cannot run is a skip, not a failure.
  {
    auto probe = options.make_dut();
    if (!probe.ok()) {
      t.verdict = harness::Verdict::kError;
      t.reason = "DUT: " + probe.error().message;
      return t;
    }
    const dut::Capabilities caps = probe.value()->Caps();
    if (c.style == harness::Style::kScripted && !caps.simulated_time) {
      t.verdict = harness::Verdict::kSkip;
      t.reason = "scripted cases need a DUT on the harness's simulated clock; this DUT runs live";
      return t;
    }
    for (const std::string& need : c.requires_caps) {
      if (!caps.Has(need)) {
        t.verdict = harness::Verdict::kSkip;
        t.reason = "DUT lacks capability '" + need + "'";
        return t;
      }
    }
  }
  if (c.style == harness::Style::kScripted) return RunScripted(c, options);
  // A live DUT keeps its own clock: when the harness stops serving it for a while (a loaded host
  // descheduled it), the DUT sees a network stall the case never asked for. A run that did not pass
  // after such a stall says nothing about the DUT: it is rerun, and if every run stalled, the
  // verdict is inconclusive with the stall named.
  const int attempts = std::max(1, options.live_attempts);
  for (int attempt = 1;; ++attempt) {
    harness::TestResult a = t;
    const int64_t stall = RunAttempt(c, options, a);
    a.attempts = attempt;
    const bool judged = stall <= options.max_stall_ns || a.verdict == harness::Verdict::kPass ||
                        a.verdict == harness::Verdict::kError;
    if (!judged && attempt < attempts) continue;
    a.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (judged) return a;
    std::ostringstream why;
    why << std::fixed << std::setprecision(3) << "the harness left the live DUT unserved for " << stall / 1e6
        << " ms (limit " << options.max_stall_ns / 1e6 << " ms) in each of " << attempts
        << " run(s): the host is too loaded to judge; the last run said "
        << harness::ToString(a.verdict) << " (" << a.reason << ")";
    a.verdict = harness::Verdict::kInconclusive;
    a.reason = why.str();
    return a;
  }
}

static int64_t RunAttempt(const harness::Case& c, const SessionOptions& options, harness::TestResult& t) {
  RunRecord rec = Simulate(c, options);
  t.stall_ms = static_cast<double>(rec.stall_ns) / 1e6;
  if (!rec.pcap.empty()) {
    t.evidence.push_back(rec.pcap);
    t.evidence.push_back("evidence/" + c.id + ".trace.jsonl");
  }
  if (!rec.dut_failure.empty()) {
    t.verdict = harness::Verdict::kError;
    t.reason = rec.dut_failure;
  } else if (!rec.setup_error.empty()) {
    t.verdict = harness::Verdict::kError;
    t.reason = rec.setup_error;
  } else {
    t.checks = RunChecks(c, rec);
    t.verdict = harness::CombineChecks(t.checks);
    for (const auto& ch : t.checks) {
      if (ch.verdict == t.verdict && t.verdict != harness::Verdict::kPass) {
        t.reason = ch.check + ": " + ch.reason;
        break;
      }
    }
    t.series = BuildSeries(rec);
  }
  return rec.stall_ns;
}

}  // namespace mroce::session
