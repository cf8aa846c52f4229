// ReferenceDut: maps the Dut interface onto mroce::ref::Endpoint.
#include "mroce/dut/reference_dut.h"

#include <cstring>

namespace mroce::dut {
namespace {

OpKind MapOp(ref::CompletionOp op) {
  switch (op) {
    case ref::CompletionOp::kSend: return OpKind::kSend;
    case ref::CompletionOp::kWrite: return OpKind::kWrite;
    case ref::CompletionOp::kRead: return OpKind::kRead;
    case ref::CompletionOp::kRecv: return OpKind::kRecv;
    case ref::CompletionOp::kRecvWriteImm: return OpKind::kRecvWriteImm;
  }
  return OpKind::kSend;
}

OpStatus MapStatus(ref::CompletionStatus s) {
  switch (s) {
    case ref::CompletionStatus::kSuccess: return OpStatus::kSuccess;
    case ref::CompletionStatus::kRetryExceeded: return OpStatus::kRetryExceeded;
    case ref::CompletionStatus::kRnrRetryExceeded: return OpStatus::kRnrRetryExceeded;
    case ref::CompletionStatus::kRemoteAccess: return OpStatus::kRemoteAccess;
    case ref::CompletionStatus::kLocalLength: return OpStatus::kLocalLength;
    case ref::CompletionStatus::kRemoteInvalid: return OpStatus::kRemoteInvalid;
    case ref::CompletionStatus::kRemoteOpError: return OpStatus::kRemoteOpError;
    case ref::CompletionStatus::kFlushed: return OpStatus::kFlushed;
    case ref::CompletionStatus::kRemoteAbort: return OpStatus::kRemoteAbort;
    case ref::CompletionStatus::kResource: return OpStatus::kResource;
    case ref::CompletionStatus::kConnectTimeout: return OpStatus::kConnectTimeout;
  }
  return OpStatus::kOther;
}

ConnEventKind MapEvent(ref::ConnEventKind k) {
  switch (k) {
    case ref::ConnEventKind::kEstablished: return ConnEventKind::kEstablished;
    case ref::ConnEventKind::kIncoming: return ConnEventKind::kIncoming;
    case ref::ConnEventKind::kRejected: return ConnEventKind::kRejected;
    case ref::ConnEventKind::kConnectTimeout: return ConnEventKind::kTimeout;
    case ref::ConnEventKind::kClosed: return ConnEventKind::kClosed;
    case ref::ConnEventKind::kError: return ConnEventKind::kError;
    case ref::ConnEventKind::kAccepted: return ConnEventKind::kAccepted;
  }
  return ConnEventKind::kError;
}

}  // namespace

ReferenceDut::ReferenceDut(ref::Quirks quirks, ref::Variants variants) : quirks_(quirks), variants_(variants) {}
ReferenceDut::~ReferenceDut() = default;

std::string ReferenceDut::Identity() const {
  std::string id = "reference";
  std::string sep = ":";
  if (!quirks_.Empty()) {
    id += sep + "quirk=" + quirks_.ToString();
    sep = ",";
  }
  if (!variants_.Empty()) id += sep + "variant=" + variants_.ToString();
  return id;
}

Capabilities ReferenceDut::Caps() const {
  Capabilities c;
  c.protocol = Protocol::kMetaRoce;
  c.simulated_time = true;
  c.max_paths = 64;
  c.max_planes = 8;
  c.max_streams = 1024;
  c.in_band_connect = true;
  c.features = {"write", "write_imm", "send", "send_imm", "read", "multipath", "multiplane",
                "telemetry", "state_bytes", "rate_hint", "ecn"};
  return c;
}

Status ReferenceDut::Start(const HostConfig& config, FrameSink* sink) {
  if (endpoint_) return MakeError("dut.started", "Start() called twice");
  if (sink == nullptr) return MakeError("dut.sink", "Start() needs a frame sink");
  ref::EndpointConfig ec;
  ec.mac = config.mac;
  ec.ip = config.ip;
  ec.udp_port = config.udp_port;
  ec.num_paths = config.num_paths;
  ec.num_planes = config.num_planes;
  ec.mtu = config.mtu;
  ec.max_streams = config.max_streams;
  ec.link_capacity_mbps = config.link_capacity_mbps;
  ec.seed = config.seed;
  ec.quirks = quirks_;
  ec.variants = variants_;
  bridge_ = std::make_unique<SinkBridge>(sink);
  endpoint_ = std::make_unique<ref::Endpoint>(ec, bridge_.get());
  return OkStatus();
}

Result<Buffer> ReferenceDut::AllocBuffer(uint64_t length, uint32_t access) {
  if (!endpoint_) return MakeError("dut.not_started", "AllocBuffer before Start");
  auto region = std::make_unique<Region>();
  region->bytes.assign(length, 0);
  auto mr = endpoint_->RegisterMemory(region->bytes.data(), length, access);
  if (!mr.ok()) return mr.error();
  region->mr = mr.value();
  Buffer b;
  b.id = static_cast<uint32_t>(regions_.size());
  b.va = region->mr.va;
  b.rkey = region->mr.rkey;
  b.length = length;
  regions_.push_back(std::move(region));
  return b;
}

Result<uint8_t*> ReferenceDut::Slice(uint32_t buffer_id, uint64_t offset, uint64_t length) {
  if (buffer_id >= regions_.size()) {
    return MakeError("dut.buffer", "unknown buffer id " + std::to_string(buffer_id));
  }
  auto& bytes = regions_[buffer_id]->bytes;
  if (offset > bytes.size() || length > bytes.size() - offset) {
    return MakeError("dut.bounds", "range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                       ") outside buffer " + std::to_string(buffer_id) + " of " +
                                       std::to_string(bytes.size()) + " bytes");
  }
  return bytes.data() + offset;
}

Status ReferenceDut::WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) {
  auto p = Slice(buffer_id, offset, bytes.size());
  if (!p.ok()) return p.error();
  if (!bytes.empty()) std::memcpy(p.value(), bytes.data(), bytes.size());
  return OkStatus();
}

Result<std::vector<uint8_t>> ReferenceDut::ReadBuffer(uint32_t buffer_id, uint64_t offset, uint64_t length) {
  auto p = Slice(buffer_id, offset, length);
  if (!p.ok()) return p.error();
  return std::vector<uint8_t>(p.value(), p.value() + length);
}

Result<ConnHandle> ReferenceDut::Connect(const PeerInfo& peer, TimeNs now) {
  if (!endpoint_) return MakeError("dut.not_started", "Connect before Start");
  ref::PeerAddress pa;
  pa.mac = peer.mac;
  pa.ip = peer.ip;
  pa.udp_port = peer.udp_port;
  auto c = endpoint_->Connect(pa, ref::ConnectOptions{}, now);
  if (!c.ok()) return c.error();
  return static_cast<ConnHandle>(c.value());
}

Status ReferenceDut::Disconnect(ConnHandle conn, TimeNs now) { return endpoint_->Disconnect(conn, now); }

std::vector<ConnEvent> ReferenceDut::PollEvents() {
  std::vector<ConnEvent> out;
  if (!endpoint_) return out;
  for (const auto& e : endpoint_->PollEvents()) out.push_back({MapEvent(e.kind), e.conn, e.reason});
  return out;
}

Status ReferenceDut::PostRecv(const RecvRequest& wr) {
  auto p = Slice(wr.local.buffer_id, wr.local.offset, wr.local.length);
  if (!p.ok()) return p.error();
  return endpoint_->PostRecv(wr.conn, wr.stream, p.value(), wr.local.length, wr.wr_id);
}

Status ReferenceDut::PostSend(const SendRequest& wr, TimeNs now) {
  auto p = Slice(wr.local.buffer_id, wr.local.offset, wr.local.length);
  if (!p.ok()) return p.error();
  return endpoint_->PostSend(wr.conn, wr.stream, p.value(), wr.local.length, wr.wr_id, wr.imm, now);
}

Status ReferenceDut::PostWrite(const WriteRequest& wr, TimeNs now) {
  auto p = Slice(wr.local.buffer_id, wr.local.offset, wr.local.length);
  if (!p.ok()) return p.error();
  return endpoint_->PostWrite(wr.conn, wr.stream, p.value(), wr.local.length, wr.remote.va, wr.remote.rkey, wr.wr_id,
                              wr.imm, now);
}

Status ReferenceDut::PostRead(const ReadRequest& wr, TimeNs now) {
  auto p = Slice(wr.local.buffer_id, wr.local.offset, wr.local.length);
  if (!p.ok()) return p.error();
  return endpoint_->PostRead(wr.conn, wr.stream, p.value(), wr.local.length, wr.remote.va, wr.remote.rkey, wr.wr_id,
                             now);
}

std::vector<Completion> ReferenceDut::PollCompletions() {
  std::vector<Completion> out;
  if (!endpoint_) return out;
  for (const auto& c : endpoint_->PollCompletions()) {
    Completion d;
    d.wr_id = c.wr_id;
    d.conn = c.conn;
    d.stream = c.stream;
    d.op = MapOp(c.op);
    d.status = MapStatus(c.status);
    d.byte_len = c.byte_len;
    if (c.has_imm) d.imm = c.imm;
    out.push_back(d);
  }
  return out;
}

void ReferenceDut::OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) {
  if (endpoint_) endpoint_->OnFrame(frame, plane, now);
}

TimeNs ReferenceDut::NextDeadline() const { return endpoint_ ? endpoint_->NextDeadline() : kNever; }

void ReferenceDut::OnTimer(TimeNs now) {
  if (endpoint_) endpoint_->OnTimer(now);
}

void ReferenceDut::OnPlaneLink(uint8_t plane, bool up, TimeNs now) {
  if (endpoint_) endpoint_->OnPlaneLink(plane, up, now);
}

std::vector<Counter> ReferenceDut::Telemetry() {
  std::vector<Counter> out;
  if (!endpoint_) return out;
  // Names exactly as docs/spec chapter 17: endpoint.<name>, conn.<id>.<name>,
  // path.<id>.<p>.<name>, path.<id>.<p>.rx.<name>.
  endpoint_->ForEachTelemetry([&](std::string_view name, uint64_t v) { out.emplace_back(std::string(name), v); });
  return out;
}

std::optional<uint64_t> ReferenceDut::StateBytes() {
  if (!endpoint_) return std::nullopt;
  return endpoint_->StateBytes();
}

}  // namespace mroce::dut
