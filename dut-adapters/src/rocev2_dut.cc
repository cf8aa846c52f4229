// Rocev2Dut: maps the Dut interface onto mroce::rocev2::RoceEndpoint.
#include "mroce/dut/rocev2_dut.h"

#include <cstring>

namespace mroce::dut {
namespace {

OpKind MapOp(rocev2::CompletionOp op) {
  switch (op) {
    case rocev2::CompletionOp::kSend: return OpKind::kSend;
    case rocev2::CompletionOp::kWrite: return OpKind::kWrite;
    case rocev2::CompletionOp::kRead: return OpKind::kRead;
    case rocev2::CompletionOp::kRecv: return OpKind::kRecv;
  }
  return OpKind::kSend;
}

OpStatus MapStatus(rocev2::CompletionStatus s) {
  switch (s) {
    case rocev2::CompletionStatus::kSuccess: return OpStatus::kSuccess;
    case rocev2::CompletionStatus::kRetryExceeded: return OpStatus::kRetryExceeded;
    case rocev2::CompletionStatus::kRnrRetryExceeded: return OpStatus::kRnrRetryExceeded;
    case rocev2::CompletionStatus::kRemoteAccess: return OpStatus::kRemoteAccess;
    case rocev2::CompletionStatus::kLocalLength: return OpStatus::kLocalLength;
    case rocev2::CompletionStatus::kRemoteInvalid: return OpStatus::kRemoteInvalid;
    case rocev2::CompletionStatus::kRemoteOpError: return OpStatus::kRemoteOpError;
    case rocev2::CompletionStatus::kFlushed: return OpStatus::kFlushed;
  }
  return OpStatus::kOther;
}

Error Wrap(const rocev2::Error& e) { return MakeError(e.code, e.message); }

// The MetaRoCE telemetry names (spec chapter 17) of RoCEv2 counters with the same meaning, so a
// report can put both side by side.
const char* MetaAlias(std::string_view roce_name) {
  if (roce_name == "timeouts") return "rto_events";
  if (roce_name == "icrc_errors") return "crc_errors";
  if (roce_name == "naks_tx") return "nacks_tx";
  if (roce_name == "naks_rx") return "nacks_rx";
  return nullptr;
}

}  // namespace

Rocev2Dut::Rocev2Dut() = default;
Rocev2Dut::~Rocev2Dut() = default;

Capabilities Rocev2Dut::Caps() const {
  Capabilities c;
  c.protocol = Protocol::kRocev2;
  c.simulated_time = true;
  c.max_paths = 1;
  c.max_planes = 1;
  c.max_streams = 1;
  c.in_band_connect = false;
  c.features = {"write", "send", "read", "telemetry", "state_bytes"};
  return c;
}

Status Rocev2Dut::Start(const HostConfig& config, FrameSink* sink) {
  if (endpoint_) return MakeError("dut.started", "Start() called twice");
  if (sink == nullptr) return MakeError("dut.sink", "Start() needs a frame sink");
  config_ = config;
  rocev2::EndpointConfig ec;
  ec.address.mac = config.mac;
  ec.address.ip = config.ip;
  ec.plane = 0;
  bridge_ = std::make_unique<SinkBridge>(sink);
  endpoint_ = std::make_unique<rocev2::RoceEndpoint>(ec, bridge_.get());
  return OkStatus();
}

Result<Buffer> Rocev2Dut::AllocBuffer(uint64_t length, uint32_t access) {
  if (!endpoint_) return MakeError("dut.not_started", "AllocBuffer before Start");
  auto region = std::make_unique<Region>();
  region->bytes.assign(length, 0);
  auto mr = endpoint_->RegisterMemory(region->bytes.data(), length, access);
  if (!mr.ok()) return Wrap(mr.error());
  region->mr = mr.value();
  Buffer b;
  b.id = static_cast<uint32_t>(regions_.size());
  b.va = region->mr.va;
  b.rkey = region->mr.rkey;
  b.length = length;
  regions_.push_back(std::move(region));
  return b;
}

Status Rocev2Dut::WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) {
  if (buffer_id >= regions_.size()) return MakeError("dut.buffer", "unknown buffer id " + std::to_string(buffer_id));
  auto& r = regions_[buffer_id]->bytes;
  if (offset > r.size() || bytes.size() > r.size() - offset) return MakeError("dut.bounds", "write outside buffer");
  if (!bytes.empty()) std::memcpy(r.data() + offset, bytes.data(), bytes.size());
  return OkStatus();
}

Result<std::vector<uint8_t>> Rocev2Dut::ReadBuffer(uint32_t buffer_id, uint64_t offset, uint64_t length) {
  if (buffer_id >= regions_.size()) return MakeError("dut.buffer", "unknown buffer id " + std::to_string(buffer_id));
  auto& r = regions_[buffer_id]->bytes;
  if (offset > r.size() || length > r.size() - offset) return MakeError("dut.bounds", "read outside buffer");
  return std::vector<uint8_t>(r.begin() + static_cast<ptrdiff_t>(offset), r.begin() + static_cast<ptrdiff_t>(offset + length));
}

Result<OobInfo> Rocev2Dut::PrepareConnection(uint32_t index, TimeNs) {
  if (!endpoint_) return MakeError("dut.not_started", "PrepareConnection before Start");
  rocev2::QpConfig qc;
  // IB path MTU is a power of two in 256..4096: the largest not above the case's MTU.
  uint32_t mtu = 256;
  while (mtu * 2 <= config_.mtu && mtu < 4096) mtu *= 2;
  qc.path_mtu = mtu;
  qc.line_rate_bps = config_.link_capacity_mbps * 1'000'000;
  qc.udp_sport = static_cast<uint16_t>(0xC000 + (index % 0x4000));
  qc.initial_psn = (index * 0x9E3779u + static_cast<uint32_t>(config_.seed)) & 0xFFFFFF;
  auto qp = endpoint_->CreateQp(qc);
  if (!qp.ok()) return Wrap(qp.error());
  prepared_.push_back(qp.value().qpn);
  return OobInfo{{"qpn", qp.value().qpn}, {"psn", qp.value().initial_psn}};
}

Result<ConnHandle> Rocev2Dut::Connect(const PeerInfo& peer, TimeNs) {
  if (!endpoint_) return MakeError("dut.not_started", "Connect before Start");
  uint64_t qpn = UINT64_MAX, psn = UINT64_MAX;
  for (const auto& [k, v] : peer.oob) {
    if (k == "qpn") qpn = v;
    if (k == "psn") psn = v;
  }
  if (qpn == UINT64_MAX || psn == UINT64_MAX) {
    return MakeError("dut.connect", "RoCEv2 has no in-band connection setup: the peer's qpn and psn are needed "
                                    "(the harness exchanges them through PrepareConnection)");
  }
  if (prepared_.empty()) return MakeError("dut.connect", "no prepared QP: call PrepareConnection first");
  const rocev2::Qpn local = prepared_.front();
  prepared_.pop_front();
  rocev2::RemoteQp remote;
  remote.qpn = static_cast<rocev2::Qpn>(qpn);
  remote.initial_psn = static_cast<rocev2::Psn>(psn);
  remote.address.mac = peer.mac;
  remote.address.ip = peer.ip;
  auto st = endpoint_->ConnectQp(local, remote);
  if (!st.ok()) return Wrap(st.error());
  events_.push_back({ConnEventKind::kEstablished, local, 0});
  return static_cast<ConnHandle>(local);
}

Status Rocev2Dut::Disconnect(ConnHandle conn, TimeNs) {
  events_.push_back({ConnEventKind::kClosed, conn, 0});
  return OkStatus();
}

std::vector<ConnEvent> Rocev2Dut::PollEvents() { return std::exchange(events_, {}); }

Result<rocev2::Sge> Rocev2Dut::Local(const LocalSlice& local) {
  if (local.buffer_id >= regions_.size()) {
    return MakeError("dut.buffer", "unknown buffer id " + std::to_string(local.buffer_id));
  }
  const Region& r = *regions_[local.buffer_id];
  if (local.offset > r.bytes.size() || local.length > r.bytes.size() - local.offset) {
    return MakeError("dut.bounds", "range outside buffer " + std::to_string(local.buffer_id));
  }
  return rocev2::Sge{r.mr.va + local.offset, local.length, r.mr.lkey};
}

Status Rocev2Dut::PostRecv(const RecvRequest& wr) {
  auto sge = Local(wr.local);
  if (!sge.ok()) return sge.error();
  stream_of_wr_[wr.wr_id] = wr.stream;
  auto st = endpoint_->PostRecv(wr.conn, rocev2::RecvWr{wr.wr_id, sge.value()});
  if (!st.ok()) return Wrap(st.error());
  return OkStatus();
}

Status Rocev2Dut::Post(ConnHandle conn, uint16_t stream, const rocev2::SendWr& wr, TimeNs now) {
  stream_of_wr_[wr.wr_id] = stream;
  auto st = endpoint_->PostSend(conn, wr, now);
  if (!st.ok()) return Wrap(st.error());
  return OkStatus();
}

Status Rocev2Dut::PostSend(const SendRequest& wr, TimeNs now) {
  if (wr.imm) return MakeError("dut.unsupported", "the RoCEv2 baseline has no immediate data");
  auto sge = Local(wr.local);
  if (!sge.ok()) return sge.error();
  return Post(wr.conn, wr.stream, rocev2::SendWr{wr.wr_id, rocev2::WrOpcode::kSend, sge.value(), 0, 0}, now);
}

Status Rocev2Dut::PostWrite(const WriteRequest& wr, TimeNs now) {
  if (wr.imm) return MakeError("dut.unsupported", "the RoCEv2 baseline has no immediate data");
  auto sge = Local(wr.local);
  if (!sge.ok()) return sge.error();
  return Post(wr.conn, wr.stream,
              rocev2::SendWr{wr.wr_id, rocev2::WrOpcode::kWrite, sge.value(), wr.remote.va, wr.remote.rkey}, now);
}

Status Rocev2Dut::PostRead(const ReadRequest& wr, TimeNs now) {
  auto sge = Local(wr.local);
  if (!sge.ok()) return sge.error();
  return Post(wr.conn, wr.stream,
              rocev2::SendWr{wr.wr_id, rocev2::WrOpcode::kRead, sge.value(), wr.remote.va, wr.remote.rkey}, now);
}

std::vector<Completion> Rocev2Dut::PollCompletions() {
  std::vector<Completion> out;
  if (!endpoint_) return out;
  for (const auto& c : endpoint_->PollCompletions()) {
    Completion d;
    d.wr_id = c.wr_id;
    d.conn = c.qpn;
    auto it = stream_of_wr_.find(c.wr_id);
    if (it != stream_of_wr_.end()) {
      d.stream = it->second;
      stream_of_wr_.erase(it);
    }
    d.op = MapOp(c.op);
    d.status = MapStatus(c.status);
    d.byte_len = c.byte_len;
    out.push_back(d);
  }
  return out;
}

void Rocev2Dut::OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) {
  if (endpoint_) endpoint_->OnFrame(frame, plane, now);
}

TimeNs Rocev2Dut::NextDeadline() const { return endpoint_ ? endpoint_->NextDeadline() : kNever; }

void Rocev2Dut::OnTimer(TimeNs now) {
  if (endpoint_) endpoint_->OnTimer(now);
}

std::vector<Counter> Rocev2Dut::Telemetry() {
  std::vector<Counter> out;
  if (!endpoint_) return out;
  auto add = [&](const std::string& prefix, const rocev2::Counters& cs) {
    cs.ForEach([&](std::string_view name, uint64_t v) {
      out.emplace_back(prefix + std::string(name), v);
      if (const char* alias = MetaAlias(name)) out.emplace_back(prefix + alias, v);
    });
  };
  add("endpoint.", endpoint_->counters());
  return out;
}

std::optional<uint64_t> Rocev2Dut::StateBytes() {
  if (!endpoint_) return std::nullopt;
  return endpoint_->StateBytes();
}

}  // namespace mroce::dut
