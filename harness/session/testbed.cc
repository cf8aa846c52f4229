// Testbed: the simulated world of one case (see testbed.h).
#include "mroce/session/testbed.h"

#include <algorithm>
#include <filesystem>

#include "mroce/impairment/stage_plan.h"
#include "mroce/sim/rng.h"

namespace mroce::session {
namespace {

using sim::Time;

// Records every frame event the fabric reports into the trace. Frames the DUT sends and receives
// are numbered in the order the DUT tap writes them to its pcap, so a check can name "frame N".
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
    r.dst_host = p.dst_host;  // The fabric routes a frame before it reports it sent.
    r.plane = p.plane;
    r.packet_id = p.id;
    r.origin_id = p.origin_id;
    r.duplicate = p.is_duplicate;
    r.ce = p.ce_marked;
    r.corrupted = p.corrupted;
    r.where = where;
    r.bytes = p.bytes.ToVector();
    if ((e == FrameRecord::Event::kTx && p.src_host == kDutHost) || (e == FrameRecord::Event::kRx && p.dst_host == kDutHost)) {
      r.frame_no = ++dut_frames_;
    }
    trace_->frames.push_back(std::move(r));
  }
  Trace* trace_;
  uint64_t dut_frames_ = 0;
};

}  // namespace

Testbed::Testbed(const harness::Case& c, const SessionOptions& options, RunRecord* rec, int num_hosts,
                 std::string evidence_suffix)
    : case_(c), options_(options), rec_(rec), num_hosts_(num_hosts), evidence_suffix_(std::move(evidence_suffix)) {}

Testbed::~Testbed() {
  // Ports first (they cancel their timers and unhook their sinks), then the devices.
  ports_.clear();
  devices_.clear();
}

bool Testbed::Build() {
  const harness::Topology& t = case_.topology;
  rec_->rtt_ns = std::max<int64_t>(t.rtt_ns, 8);
  rec_->link_rate_bps = t.link_rate_bps;
  rec_->num_hosts = num_hosts_;

  impairment::FabricConfig fc;
  fc.num_hosts = num_hosts_;
  fc.num_planes = std::max(1, t.planes);
  fc.hosts_per_leaf = 1;  // every pair crosses the spines: ECMP and planes matter
  fc.num_spines = std::max(1, t.spines);
  fc.host_rate = sim::Bandwidth::BitsPerSecond(t.link_rate_bps);
  fc.fabric_rate = sim::Bandwidth::BitsPerSecond(t.spine_link_rate_bps > 0 ? t.spine_link_rate_bps : t.link_rate_bps);
  fc.hop_delay = sim::Duration::Nanos(std::max<int64_t>(1, rec_->rtt_ns / 8));  // 4 links each way
  fc.seed = options_.seed;
  fc.ecmp_seed = sim::seeds::Ecmp(options_.seed);
  fabric_ = std::make_unique<impairment::Fabric>(&sim_, fc);
  recorder_ = std::make_unique<Recorder>(&rec_->trace);
  fabric_->AddObserver(recorder_.get());

  if (!options_.run_dir.empty() && options_.write_evidence) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(fs::path(options_.run_dir) / "evidence", ec);
    const std::string stem = "evidence/" + case_.id + evidence_suffix_;
    rec_->pcap = stem + ".pcap";
    rec_->jsonl = stem + ".trace.jsonl";
    impairment::Tap::Options to;
    to.pcap_path = (fs::path(options_.run_dir) / rec_->pcap).string();
    to.jsonl_path = (fs::path(options_.run_dir) / rec_->jsonl).string();
    to.keep_records = false;
    tap_ = std::make_unique<impairment::Tap>(fabric_.get(), kDutHost, to);
    if (!tap_->status().ok()) {
      rec_->harness_error = "cannot write evidence: " + tap_->status().error().message;
      return false;
    }
  }
  return AddStages();
}

// The case's stages at each plane's ingress: one instance per plane (stages keep per-pipeline
// state) unless the match pins a plane.
bool Testbed::AddStages() {
  for (size_t i = 0; i < case_.impairments.size(); ++i) {
    const harness::ImpairmentSpec& is = case_.impairments[i];
    auto placed = impairment::InstantiatePerPlane(is.stage, i, fabric_->config().num_planes, options_.seed, rec_->rtt_ns);
    if (!placed.ok()) {
      rec_->harness_error = is.where.ToString() + ": " + placed.error().message;
      return false;
    }
    for (impairment::PlaneStage& s : placed.value()) fabric_->PlaneIngress(s.plane).Add(std::move(s.stage));
    if (is.stage.params.Has("link_down") && is.stage.params.Bool("link_down")) {
      impairment::Match plane_only;
      plane_only.plane = is.stage.match.plane;
      if (!is.stage.match.plane || !(is.stage.match == plane_only)) {
        rec_->harness_error = is.where.ToString() + ": link_down needs a match on the plane alone (match: {plane: N})";
        return false;
      }
      const uint8_t plane = *is.stage.match.plane;
      const auto& sch = is.stage.schedule;
      const int64_t at = sch ? sch->at.ToNanoseconds(rec_->rtt_ns) : 0;
      sim_.Schedule(sim::Time::FromNanos(at), [this, plane] { SignalLink(plane, false); });
      if (sch && sch->until) {
        sim_.Schedule(sim::Time::FromNanos(sch->until->ToNanoseconds(rec_->rtt_ns)), [this, plane] { SignalLink(plane, true); });
      }
    }
  }
  return true;
}

void Testbed::SignalLink(uint8_t plane, bool up) {
  rec_->trace.links.push_back(LinkEvent{now_ns(), plane, up});
  for (auto& port : ports_) {
    if (port && port->dut() != nullptr) port->Call([&](dut::Dut& d) { d.OnPlaneLink(plane, up, now_ns()); });
  }
}

dut::HostConfig Testbed::HostConfigFor(int host, uint16_t max_streams) const {
  const harness::Topology& t = case_.topology;
  dut::HostConfig hc;
  hc.mac = impairment::Fabric::HostMac(host);
  hc.ip = impairment::Fabric::HostIpv4(host);
  hc.num_paths = static_cast<uint8_t>(std::clamp(t.paths, 1, 64));
  hc.num_planes = static_cast<uint8_t>(fabric_->config().num_planes);
  hc.mtu = static_cast<uint16_t>(std::clamp<int64_t>(t.mtu_bytes, 256, 9000));
  hc.max_streams = max_streams;
  // C of spec 10.3: the sum of the line rates of the host's attachments (one port per plane).
  hc.link_capacity_mbps = static_cast<uint64_t>(t.link_rate_bps / 1'000'000) * static_cast<uint64_t>(hc.num_planes);
  hc.seed = sim::seeds::Host(options_.seed, host);
  return hc;
}

dut::Status Testbed::Attach(int host, std::unique_ptr<dut::Dut> dev, uint16_t max_streams) {
  devices_.push_back(std::move(dev));
  ports_.push_back(std::make_unique<DutPort>(&sim_, fabric_.get(), host, devices_.back().get()));
  hosts_.push_back(host);
  const dut::HostConfig hc = HostConfigFor(host, max_streams);
  DutPort* port = ports_.back().get();
  return port->Call([&](dut::Dut& d) { return d.Start(hc, port); });
}

void Testbed::Watch(int host) {
  fabric_->SetSink(host, [](const impairment::Packet&, Time) {});
}

bool Testbed::Attached(int host) const { return std::find(hosts_.begin(), hosts_.end(), host) != hosts_.end(); }

size_t Testbed::Slot(int host) const {
  return static_cast<size_t>(std::find(hosts_.begin(), hosts_.end(), host) - hosts_.begin());
}

void Testbed::Poll(int host, std::vector<dut::ConnEvent>* events, std::vector<dut::Completion>* completions) {
  dut::Dut& d = Device(host);
  const int64_t now = now_ns();
  std::vector<dut::ConnEvent> ev = d.PollEvents();
  for (const dut::ConnEvent& e : ev) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kConnEvent;
    r.time_ns = now;
    r.host = host;
    r.conn = e.conn;
    r.detail = std::string(dut::ConnEventKindName(e.kind));
    r.bytes = e.reason;
    rec_->trace.control.push_back(std::move(r));
  }
  std::vector<dut::Completion> done = d.PollCompletions();
  for (const dut::Completion& c : done) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kCompletion;
    r.time_ns = now;
    r.host = host;
    r.conn = c.conn;
    r.stream = c.stream;
    r.wr_id = c.wr_id;
    r.op = c.op;
    r.status = c.status;
    r.bytes = c.byte_len;
    r.imm = c.imm;
    rec_->trace.control.push_back(std::move(r));
  }
  if (events != nullptr) events->insert(events->end(), ev.begin(), ev.end());
  if (completions != nullptr) *completions = std::move(done);
}

void Testbed::SampleTelemetry(int host) {
  TelemetrySample s;
  s.time_ns = now_ns();
  s.host = host;
  s.counters = Device(host).Telemetry();
  s.state_bytes = Device(host).StateBytes();
  if (rec_->dut_caps.simulated_time) s.frames_before = rec_->trace.frames.size();
  rec_->trace.telemetry.push_back(std::move(s));
}

void Testbed::Finish() {
  rec_->fabric.sim_events = sim_.events_run();
  rec_->fabric.downlinks.assign(static_cast<size_t>(num_hosts_), {});
  for (int h = 0; h < num_hosts_; ++h) {
    for (int p = 0; p < fabric_->config().num_planes; ++p) {
      rec_->fabric.downlinks[static_cast<size_t>(h)].push_back(fabric_->GetPortStats(fabric_->LeafDownlinkPort(h, p)));
    }
  }
  for (int p = 0; p < fabric_->config().num_planes; ++p) {
    for (const auto& st : fabric_->PlaneIngress(p).Stats()) rec_->trace.stage_stats.push_back(st.ToString());
  }
  if (tap_) tap_->Flush();
}

}  // namespace mroce::session
