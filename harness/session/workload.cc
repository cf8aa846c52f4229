// End-to-end runs of a case's workload (see workload.h).
#include "mroce/session/workload.h"

#include <algorithm>
#include <map>

#include "mroce/dut/reference_dut.h"
#include "mroce/dut/rocev2_dut.h"
#include "mroce/session/testbed.h"
#include "mroce/sim/rng.h"

namespace mroce::session {
namespace {

using sim::Time;

// Buffers of one (originator, responder) pair.
struct PairBuffers {
  dut::Buffer orig_src, orig_dst, resp_dst, resp_src;
  uint64_t send_bytes = 0;  // write + send payload bytes
  uint64_t read_bytes = 0;
};

class WorkloadRunner : public sim::EventHandler {
 public:
  WorkloadRunner(const harness::Case& c, const SessionOptions& o) : case_(c), opt_(o) {}

  RunRecord Run();
  void OnEvent(Time now, uint64_t arg) override { SampleTelemetry(now); }

 private:
  bool Setup();
  bool Connect();
  void PlanAndPost();
  void Poll();
  void SampleTelemetry(Time now);
  void Quiesce();
  void VerifyData();
  void Control(ControlRecord r) { rec_.trace.control.push_back(std::move(r)); }
  DutPort& Port(int host) { return bed_->Port(host); }
  sim::Simulator& Sim() { return bed_->sim(); }
  void Fail(std::string msg) {
    if (rec_.dut_error.empty()) rec_.dut_error = std::move(msg);
  }
  // The DUT itself failed (crashed, hung, broke its control protocol): stop waiting for it.
  bool Broken() { return bed_->Attached(kDutHost) && bed_->DeviceFailed(kDutHost); }

  const harness::Case& case_;
  const SessionOptions& opt_;
  RunRecord rec_;
  std::unique_ptr<Testbed> bed_;
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

bool WorkloadRunner::Setup() {
  const harness::Workload& w = case_.workload;
  const int senders = std::max(1, w.senders);
  const bool dut_originates = w.direction == harness::Direction::kDutToPeer;
  int num_hosts = 2;
  if (senders == 1) {
    originators_ = {dut_originates ? 0 : 1};
    responder_ = dut_originates ? 1 : 0;
  } else {
    for (int i = dut_originates ? 0 : 1; i <= (dut_originates ? senders - 1 : senders); ++i) originators_.push_back(i);
    responder_ = dut_originates ? senders : 0;
    num_hosts = senders + 1;
  }
  bed_ = std::make_unique<Testbed>(case_, opt_, &rec_, num_hosts);
  if (!bed_->Build()) return false;

  // Devices: host 0 is the DUT, the others are peers. Without an explicit peer, a DUT speaking
  // RoCEv2 gets RoCEv2 baseline peers (so the report shows how RoCEv2 behaves, not that it cannot
  // talk to MetaRoCE) and every other DUT gets pristine reference endpoints.
  std::vector<std::unique_ptr<dut::Dut>> devs;
  for (int h = 0; h < num_hosts; ++h) {
    ref::Result<std::unique_ptr<dut::Dut>> d = [&]() -> ref::Result<std::unique_ptr<dut::Dut>> {
      if (h == kDutHost) return opt_.make_dut();
      if (opt_.make_peer) return opt_.make_peer();
      if (devs[0]->Caps().protocol == dut::Protocol::kRocev2) return std::unique_ptr<dut::Dut>(std::make_unique<dut::Rocev2Dut>());
      return std::unique_ptr<dut::Dut>(std::make_unique<dut::ReferenceDut>());
    }();
    if (!d.ok()) {
      rec_.harness_error = std::string(h == kDutHost ? "DUT" : "peer") + ": " + d.error().message;
      return false;
    }
    devs.push_back(std::move(d).value());
  }
  rec_.dut_identity = devs[0]->Identity();
  rec_.dut_caps = devs[0]->Caps();
  events_.resize(static_cast<size_t>(num_hosts));
  const auto max_streams = static_cast<uint16_t>(std::clamp(w.streams, 16, 1024));
  for (int h = 0; h < num_hosts; ++h) {
    auto st = bed_->Attach(h, std::move(devs[static_cast<size_t>(h)]), max_streams);
    if (!st.ok()) {
      if (h == kDutHost) {
        Fail("DUT refused Start: " + st.error().message);
        return false;
      }
      rec_.harness_error = "peer refused Start: " + st.error().message;
      return false;
    }
  }
  return true;
}

void WorkloadRunner::Poll() {
  const int64_t now = bed_->now_ns();
  std::vector<dut::Completion> done;
  for (int h = 0; h < rec_.num_hosts; ++h) {
    bed_->Poll(h, &events_[static_cast<size_t>(h)], &done);
    for (const dut::Completion& c : done) {
      auto it = expected_.find({h, c.wr_id});
      if (it != expected_.end() && it->second++ == 0) {
        ++expected_done_;
        if (expected_done_ == expected_.size()) rec_.workload_end_ns = now;
      }
    }
  }
}

bool WorkloadRunner::Connect() {
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
      const bool in_band = bed_->Device(o).Caps().in_band_connect && bed_->Device(responder_).Caps().in_band_connect;
      const int64_t now = bed_->now_ns();
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
      Sim().RunUntil(
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
             std::to_string((bed_->now_ns() - now) / 1000) + " us: originator " +
             (orig_up ? "established" : "never reported established") + ", responder " +
             (resp_up ? "accepted" : "never reported the connection accepted"));
        return false;
      }
    }
  }
  return true;
}

void WorkloadRunner::PlanAndPost() {
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
    sim::seeds::FillPattern(scratch.data(), m.size, sim::seeds::MessagePattern(opt_.seed, i));
    const int host = m.op == dut::OpKind::kRead ? m.responder : m.originator;
    const dut::Buffer& b = m.op == dut::OpKind::kRead ? pb.resp_src : pb.orig_src;
    auto st = Port(host).Call([&](dut::Dut& d) { return d.WriteBuffer(b.id, m.offset, scratch); });
    if (!st.ok()) {
      Fail("host " + std::to_string(host) + " refused WriteBuffer: " + st.error().message);
      return;
    }
  }
  // MROCE-LIM-007 baseline: connected, memory registered, no work request posted yet.
  rec_.state_before = bed_->Device(kDutHost).StateBytes();
  // Receives for SENDs, in stream order, before anything is sent.
  for (const PlannedMessage& m : rec_.messages) {
    if (m.op != dut::OpKind::kSend) continue;
    const PlannedConnection& pc = rec_.conns[m.conn];
    PairBuffers& pb = buffers_[m.originator];
    auto st = Port(m.responder).Call([&](dut::Dut& d) {
      return d.PostRecv(
          {.conn = pc.resp_handle, .stream = m.stream, .local = {pb.resp_dst.id, m.offset, m.size}, .wr_id = m.recv_wr_id});
    });
    ControlRecord r{ControlRecord::Kind::kPost, bed_->now_ns(), m.responder, pc.resp_handle, m.stream, m.recv_wr_id,
                    dut::OpKind::kRecv, dut::OpStatus::kSuccess, m.size, ""};
    if (!st.ok()) {
      r.kind = ControlRecord::Kind::kError;
      r.detail = "PostRecv refused: " + st.error().message;
      Fail("host " + std::to_string(m.responder) + " " + r.detail);
    }
    Control(std::move(r));
    expected_[{m.responder, m.recv_wr_id}] = 0;
  }
  rec_.workload_start_ns = bed_->now_ns();
  for (const PlannedMessage& m : rec_.messages) {
    const PlannedConnection& pc = rec_.conns[m.conn];
    PairBuffers& pb = buffers_[m.originator];
    const int64_t now = bed_->now_ns();
    auto st = Port(m.originator).Call([&](dut::Dut& d) -> dut::Status {
      switch (m.op) {
        case dut::OpKind::kWrite:
          return d.PostWrite({.conn = pc.orig_handle, .stream = m.stream, .local = {pb.orig_src.id, m.offset, m.size},
                              .remote = {pb.resp_dst.va + m.offset, pb.resp_dst.rkey}, .wr_id = m.wr_id},
                             now);
        case dut::OpKind::kSend:
          return d.PostSend({.conn = pc.orig_handle, .stream = m.stream, .local = {pb.orig_src.id, m.offset, m.size},
                             .wr_id = m.wr_id},
                            now);
        default:
          return d.PostRead({.conn = pc.orig_handle, .stream = m.stream, .local = {pb.orig_dst.id, m.offset, m.size},
                             .remote = {pb.resp_src.va + m.offset, pb.resp_src.rkey}, .wr_id = m.wr_id},
                            now);
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

void WorkloadRunner::SampleTelemetry(Time now) {
  bed_->SampleTelemetry(kDutHost);
  // Keep at most ~512 samples: thin out and slow down rather than grow without bound.
  auto& samples = rec_.trace.telemetry;
  if (samples.size() >= 512) {
    std::vector<TelemetrySample> kept;
    for (size_t i = 0; i < samples.size(); i += 2) kept.push_back(std::move(samples[i]));
    samples = std::move(kept);
    sample_interval_ns_ *= 2;
  }
  if (sampling_) Sim().Schedule(now + sim::Duration::Nanos(sample_interval_ns_), this, 0);
}

// Late duplicates, double completions and stray frames still count after the workload ended.
void WorkloadRunner::Quiesce() {
  const int64_t quiesce = std::max<int64_t>(case_.timeouts.quiesce.ToNanoseconds(rec_.rtt_ns), 0);
  const Time quiet_end = Sim().Now() + sim::Duration::Nanos(quiesce);
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
    const Time settle = Time::FromNanos(last_traffic() + kSettleNs);
    if (settle > quiet_end) break;
    const size_t frames = rec_.trace.frames.size();
    Sim().RunUntil([&] { return idle() || rec_.trace.frames.size() != frames; }, settle);
    if (rec_.trace.frames.size() != frames) continue;  // traffic again: wait for the next quiet 1 ms
    rec_.state_after = bed_->Device(kDutHost).StateBytes();
    rec_.state_after_delay_ns = kSettleNs;
    break;
  }
  Sim().RunUntil(idle, quiet_end);
  Poll();
}

void WorkloadRunner::VerifyData() {
  std::vector<uint8_t> want;
  for (size_t i = 0; i < rec_.messages.size(); ++i) {
    const PlannedMessage& m = rec_.messages[i];
    PairBuffers& pb = buffers_[m.originator];
    DataCheck dc;
    dc.message = i;
    const int host = m.op == dut::OpKind::kRead ? m.originator : m.responder;
    const dut::Buffer& b = m.op == dut::OpKind::kRead ? pb.orig_dst : pb.resp_dst;
    auto got = bed_->Device(host).ReadBuffer(b.id, m.offset, m.size);
    if (!got.ok()) {
      dc.intact = false;
      dc.error = "host " + std::to_string(host) + " ReadBuffer failed: " + got.error().message;
      rec_.data.push_back(dc);
      continue;
    }
    want.resize(m.size);
    sim::seeds::FillPattern(want.data(), m.size, sim::seeds::MessagePattern(opt_.seed, i));
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

RunRecord WorkloadRunner::Run() {
  const int64_t rtt = std::max<int64_t>(case_.topology.rtt_ns, 8);
  deadline_ns_ = case_.timeouts.total.ToNanoseconds(rtt);
  auto done = [&] {
    if (bed_ && bed_->Attached(kDutHost)) {
      rec_.dut_failure = bed_->DeviceFailure(kDutHost);
      rec_.stall_ns = bed_->Device(kDutHost).LongestStall();
    }
    rec_.trace.Analyze();  // the record's trace comes with its facts (run_record.h)
    return std::move(rec_);
  };
  if (!Setup()) return done();
  sample_interval_ns_ = rtt * std::max(1, opt_.telemetry_interval_rtts);
  if (!Connect()) {
    Poll();
    SampleTelemetry(Sim().Now());
    return done();
  }
  PlanAndPost();
  sampling_ = true;
  SampleTelemetry(Sim().Now());
  rec_.all_completed = Sim().RunUntil(
      [&] {
        Poll();
        return expected_done_ == expected_.size() || Broken();
      },
      Time::FromNanos(std::max(deadline_ns_, bed_->now_ns())));
  if (!rec_.all_completed) rec_.workload_end_ns = bed_->now_ns();
  sampling_ = false;
  Quiesce();
  for (int h = 0; h < rec_.num_hosts; ++h) bed_->SampleTelemetry(h);
  VerifyData();
  bed_->Finish();
  return done();
}

}  // namespace

RunRecord SimulateWorkload(const harness::Case& c, const SessionOptions& options) {
  WorkloadRunner r(c, options);
  return r.Run();
}

}  // namespace mroce::session
