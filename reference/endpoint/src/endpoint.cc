#include "mroce/endpoint/endpoint.h"

#include <algorithm>

#include "mroce/wire/frame_view.h"

namespace mroce::ref {

using wire::Opcode;

namespace {
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
constexpr TimeNs kCmInitialInterval = 1 * kMillisecond;   // MROCE-CONN-005, MROCE-CONN-013
constexpr int kConnectRetries = 7;
constexpr int kDisconnectRetries = 3;
constexpr TimeNs kAckSentRelease = 255 * kMillisecond;    // MROCE-CONN-009
// MROCE-CONN-013: 3 (deviation disconnect_retries_five: 5).
int DisconnectRetries(const EndpointConfig& c) { return kDisconnectRetries + (c.quirks.Has(Quirk::kDisconnectRetriesFive) ? 2 : 0); }
}  // namespace

Endpoint::Endpoint(EndpointConfig config, FrameSink* sink) : rng_(config.seed) {
  ctx_.config = std::move(config);
  ctx_.sink = sink;
  // A non-zero max_rate below C caps the advertiser's own C of 10.3 (MROCE-CONN-018).
  const uint64_t hint_capacity = ctx_.config.variants.Has(Variant::kMaxRateHalf) ? AdvertisedMaxRate()
                                                                                 : ctx_.config.link_capacity_mbps;
  TimeNs active_window = spec::kActiveSenderWindow;  // MROCE-HINT-002
  if (ctx_.config.quirks.Has(Quirk::kHintIdleWindow1ms)) active_window = 10 * spec::kActiveSenderWindow;  // deviation
  ctx_.rate_hints = RateHintAllocator(hint_capacity, active_window,
                                      ctx_.config.quirks.Has(Quirk::kConstantRateHint),
                                      std::clamp<uint32_t>(ctx_.config.hint_utilisation_permille, 500, 1000),
                                      ctx_.config.variants.Has(Variant::kMaxMinHints));
}

Endpoint::~Endpoint() = default;

uint32_t Endpoint::AdvertisedMaxRate() const {
  const uint64_t c = ctx_.config.link_capacity_mbps;
  if (ctx_.config.variants.Has(Variant::kMaxRateZero)) return 0;
  if (ctx_.config.variants.Has(Variant::kMaxRateHalf)) return static_cast<uint32_t>(std::clamp<uint64_t>(c / 2, 1, 0xFFFFFFFEu));
  return static_cast<uint32_t>(std::min<uint64_t>(c, 0xFFFFFFFEu));
}

ConnId Endpoint::NewConnId() {
  for (;;) {
    ConnId id;
    if (ctx_.config.variants.Has(Variant::kConnIdSequential)) {
      id = static_cast<ConnId>(++id_counter_);
    } else if (ctx_.config.variants.Has(Variant::kConnIdHigh)) {
      id = static_cast<ConnId>(0xFFFFFFFFull - id_counter_++);
    } else {
      id = static_cast<ConnId>(SplitMix64(rng_));
    }
    if (id != 0 && !conns_.contains(id)) return id;  // MROCE-CONN-001
  }
}

Result<MemoryRegion> Endpoint::RegisterMemory(uint8_t* buffer, uint64_t length, uint32_t access, uint64_t va) {
  return ctx_.mrs.Register(buffer, length, access, va);
}

Status Endpoint::DeregisterMemory(uint32_t rkey) { return ctx_.mrs.Deregister(rkey); }

Result<ConnId> Endpoint::Connect(const PeerAddress& peer, const ConnectOptions& options, TimeNs now) {
  if (conns_.size() >= ctx_.config.max_connections) return MakeError("limit.connections", "connection table full");
  const ConnId id = NewConnId();
  auto conn = std::make_unique<Connection>(ctx_, id, peer, SplitMix64(rng_));
  Connection& c = *conn;
  wire::ConnMgmtHeader req;
  req.ver_min = ctx_.config.ver_min;
  req.ver_max = ctx_.config.ver_max;
  if (ctx_.config.variants.Has(Variant::kVerMax2)) req.ver_max = std::max<uint8_t>(req.ver_max, 2);  // variant (VER-004)
  req.num_paths = options.num_paths ? options.num_paths : ctx_.config.num_paths;
  req.num_planes = options.num_planes ? options.num_planes : ctx_.config.num_planes;
  req.mtu = options.mtu ? options.mtu : ctx_.config.mtu;
  req.max_streams = options.max_streams ? options.max_streams : ctx_.config.max_streams;
  req.src_conn_id = id;
  req.max_rate = AdvertisedMaxRate();
  do {
    req.nonce = ctx_.config.variants.Has(Variant::kNonceCounter) ? ++nonce_counter_ : SplitMix64(rng_);
  } while (req.nonce == 0);
  c.nonce_ = req.nonce;
  c.request_ = req;
  c.state_ = ConnState::kReqSent;
  c.SetupPaths(req.num_paths, req.num_planes, req.mtu, req.max_streams, 1);
  c.EmitCm(Opcode::kConnectReq, req, 0);
  c.cm_interval_ = kCmInitialInterval;
  c.cm_retries_ = 0;
  c.cm_deadline_ = now + c.cm_interval_;
  conns_.emplace(id, std::move(conn));
  Touch(id);
  Reindex();
  return id;
}

Status Endpoint::Accept(ConnId id, TimeNs now) {
  auto it = conns_.find(id);
  if (it == conns_.end() || it->second->state_ != ConnState::kPendingAccept) {
    return MakeError("conn.unknown", "no pending connection request with that id");
  }
  SendAccept(*it->second, now);
  Touch(id);
  Reindex();
  return OkStatus();
}

Status Endpoint::Reject(ConnId id, TimeNs now) {
  auto it = conns_.find(id);
  if (it == conns_.end() || it->second->state_ != ConnState::kPendingAccept) {
    return MakeError("conn.unknown", "no pending connection request with that id");
  }
  Connection& c = *it->second;
  wire::ConnMgmtHeader rej = c.request_;
  rej.reason = wire::ConnReason::kNoResources;
  rej.src_conn_id = 0;
  c.EmitCm(Opcode::kConnectRej, rej, c.peer_id_);
  Unindex(c);
  ForgetRequest(c);
  conns_.erase(it);
  return OkStatus();
}

void Endpoint::SendAccept(Connection& c, TimeNs now) {
  wire::ConnMgmtHeader ack;
  ack.ver_min = ack.ver_max = c.version_;
  ack.num_paths = c.num_paths_;
  ack.num_planes = c.num_planes_;
  ack.mtu = c.mtu_;
  ack.max_streams = c.max_streams_;
  ack.src_conn_id = c.local_id_;
  ack.max_rate = AdvertisedMaxRate();
  ack.nonce = c.nonce_;
  c.accept_cmh_ = ack;
  c.EmitCm(Opcode::kConnectAck, ack, c.peer_id_);
  c.state_ = ConnState::kAckSent;
  c.cm_deadline_ = now + kAckSentRelease;
}

Status Endpoint::Disconnect(ConnId id, TimeNs now) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return MakeError("conn.unknown", "no such connection");
  Connection& c = *it->second;
  if (c.state_ == ConnState::kAckSent) c.state_ = ConnState::kEstablished;
  if (c.state_ != ConnState::kEstablished) return MakeError("conn.state", "connection not established");
  c.BeginClose(now);  // MROCE-CONN-012: DISCONNECT once the outstanding work has completed
  Touch(id);
  Reindex();
  return OkStatus();
}

Status Endpoint::PostRecv(ConnId id, uint16_t stream, uint8_t* buffer, uint32_t length, uint64_t wr_id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return MakeError("conn.unknown", "no such connection");
  Status st = it->second->PostRecv(stream, buffer, length, wr_id);
  Touch(id);
  Reindex();
  return st;
}

Status Endpoint::PostSend(ConnId id, uint16_t stream, const uint8_t* buffer, uint32_t length, uint64_t wr_id,
                          std::optional<uint32_t> imm, TimeNs now) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return MakeError("conn.unknown", "no such connection");
  Status st = it->second->PostMessage(imm ? Opcode::kSendImm : Opcode::kSend, stream, buffer, nullptr, length, 0,
                                      0, imm, wr_id, now);
  Touch(id);
  Reindex();
  return st;
}

Status Endpoint::PostWrite(ConnId id, uint16_t stream, const uint8_t* buffer, uint32_t length, uint64_t remote_va,
                           uint32_t rkey, uint64_t wr_id, std::optional<uint32_t> imm, TimeNs now) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return MakeError("conn.unknown", "no such connection");
  Status st = it->second->PostMessage(imm ? Opcode::kWriteImm : Opcode::kWrite, stream, buffer, nullptr, length,
                                      remote_va, rkey, imm, wr_id, now);
  Touch(id);
  Reindex();
  return st;
}

Status Endpoint::PostRead(ConnId id, uint16_t stream, uint8_t* buffer, uint32_t length, uint64_t remote_va,
                          uint32_t rkey, uint64_t wr_id, TimeNs now) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return MakeError("conn.unknown", "no such connection");
  Status st = it->second->PostMessage(Opcode::kReadReq, stream, nullptr, buffer, length, remote_va, rkey,
                                      std::nullopt, wr_id, now);
  Touch(id);
  Reindex();
  return st;
}

std::vector<Completion> Endpoint::PollCompletions(size_t max) { return ctx_.cq.Poll(max); }

std::vector<ConnEvent> Endpoint::PollEvents() {
  std::vector<ConnEvent> out;
  out.swap(ctx_.events);
  return out;
}

const Connection* Endpoint::connection(ConnId id) const {
  auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : it->second.get();
}

std::vector<ConnId> Endpoint::connections() const {
  std::vector<ConnId> out;
  for (const auto& [id, c] : conns_) out.push_back(id);
  return out;
}

size_t Endpoint::StateBytes() const {
  size_t bytes = sizeof(*this) + ctx_.mrs.StateBytes() + ctx_.cq.StateBytes() + ctx_.rate_hints.StateBytes();
  for (const auto& [id, c] : conns_) bytes += c->StateBytes() + 48 /* map node */;
  bytes += timers_.size() * 48;  // deadline index nodes
  return bytes;
}

void Endpoint::ForEachTelemetry(const TelemetryFn& fn, TimeNs now) const {
  ForEachCounter(ctx_.counters, [&](std::string_view name, uint64_t v) { fn("endpoint." + std::string(name), v); });
  uint64_t open = 0;
  for (const auto& [id, c] : conns_) open += c->state_ != ConnState::kClosed;
  fn("endpoint.connections_open", open);
  for (const auto& [id, c] : conns_) c->ForEachTelemetry(fn, now);
}

void Endpoint::OnPlaneLink(uint8_t plane, bool up, TimeNs now) {
  last_now_ = std::max(last_now_, now);
  if (!ctx_.config.variants.Has(Variant::kFailOnLinkDown)) return;
  for (auto& [id, c] : conns_) {
    if (!c->established()) continue;
    c->sender_.OnPlaneLink(plane, up, now);
    Touch(id);
  }
  Reindex();
}

PeerAddress Endpoint::PeerOf(const wire::Frame& frame) const {
  PeerAddress peer;
  peer.mac = frame.eth.src;
  if (const wire::Ipv4Header* ip = frame.ip4()) peer.ip = ip->src;
  if (const wire::Ipv6Header* ip = frame.ip6()) peer.ip6 = ip->src;
  peer.udp_port = ctx_.config.udp_port;
  return peer;
}

void Endpoint::OnFrame(std::span<const uint8_t> bytes, uint8_t plane, TimeNs now) {
  last_now_ = std::max(last_now_, now);
  EndpointCounters& ec = ctx_.counters;
  auto view = wire::FrameView::Locate(bytes);
  if (!view.ok() || !view->is_meta(ctx_.config.udp_port)) {
    ec.Add(EndpointCounter::kMalformedRx);  // chapter 2 layout checks
    return;
  }
  const std::span<const uint8_t> udp = view->udp_payload();
  if (udp.size() < wire::kCommonHeaderSize + wire::kCrcSize) {
    ec.Add(EndpointCounter::kMalformedRx);
    return;
  }
  // CRC first (MROCE-CRC-002): a corrupted packet is counted as such, not as whatever its bits say.
  const size_t n = udp.size() - wire::kCrcSize;
  const uint32_t trailer = static_cast<uint32_t>(udp[n]) << 24 | static_cast<uint32_t>(udp[n + 1]) << 16 |
                           static_cast<uint32_t>(udp[n + 2]) << 8 | udp[n + 3];
  if (trailer != wire::MetaCrc(udp.first(n)) && !ctx_.config.quirks.Has(Quirk::kAcceptBadCrc)) {
    ec.Add(EndpointCounter::kCrcErrors);
    // MROCE-CRC-004 (SHOULD): also charge the connection the (unverified) dst_conn_id names.
    const ConnId dst = static_cast<ConnId>(udp[4]) << 24 | static_cast<ConnId>(udp[5]) << 16 |
                       static_cast<ConnId>(udp[6]) << 8 | udp[7];
    if (auto it = conns_.find(dst); it != conns_.end()) it->second->counters_.Add(ConnCounter::kCrcErrors);
    return;
  }
  auto ch = wire::ParseCommonHeader(udp);
  if (!ch.ok()) {
    ec.Add(EndpointCounter::kMalformedRx);
    return;
  }
  if (!wire::IsKnownOpcode(ch->opcode)) {
    ec.Add(EndpointCounter::kUnknownOpcodeRx);  // MROCE-HDR-009
    return;
  }
  wire::ParseOptions opts;
  opts.meta_port = ctx_.config.udp_port;
  opts.verify_crc = false;  // checked above
  opts.verify_udp_checksum = true;  // MROCE-ENC-006: a non-zero checksum that does not verify is dropped
  auto frame = wire::ParseFrame(bytes, opts);
  if (!frame.ok() || frame->meta() == nullptr) {
    ec.Add(EndpointCounter::kMalformedRx);  // MROCE-ENC-001/002, MROCE-HDR-009 sizes
    return;
  }
  const wire::MetaPacket& pkt = *frame->meta();
  switch (pkt.ch.opcode) {
    case Opcode::kConnectReq:
    case Opcode::kConnectAck:
    case Opcode::kConnectRej:
    case Opcode::kDisconnect:
    case Opcode::kDisconnectAck:
      if (pkt.ch.ver != 1 && !ctx_.config.quirks.Has(Quirk::kAcceptUnknownVersion)) {
        ec.Add(EndpointCounter::kUnexpectedCmRx);  // MROCE-VER-001: CM packets carry ver 1
        return;
      }
      OnConnMgmt(*frame, pkt, now);
      Reindex();
      Reap(now);
      return;
    default:
      break;
  }
  if (pkt.ch.opcode == Opcode::kNack && pkt.nack() != nullptr && pkt.nack()->code == wire::NackCode::kInvalidConn) {
    // MROCE-DUP-008: NACK INVALID_CONN names the peer's id (the refused packet's dst_conn_id).
    for (auto& [id, c] : conns_) {
      if (c->peer_id_ == pkt.ch.dst_conn_id && c->established()) {
        c->sender_.OnInvalidConnNack(pkt, now);
        Touch(id);
        Reindex();
        Reap(now);
        return;
      }
    }
  }
  // MROCE-ENC-010: the connection is named by CH.dst_conn_id alone (no address check, GEN-005).
  auto it = conns_.find(pkt.ch.dst_conn_id);
  if (it == conns_.end()) {
    ec.Add(EndpointCounter::kInvalidConnRx);  // MROCE-DUP-006: dropped, never placed
    if (ctx_.config.quirks.Has(Quirk::kInvalidConnRxUncounted)) ec.Set(EndpointCounter::kInvalidConnRx, ec.Get(EndpointCounter::kInvalidConnRx) - 1);
    if (ctx_.config.variants.Has(Variant::kNackInvalidConn)) NackUnknownConn(*frame, pkt, plane, now);
    return;
  }
  it->second->OnPacket(*frame, pkt, now);
  Touch(it->first);
  Reindex();
  Reap(now);
  (void)plane;
}

void Endpoint::NackUnknownConn(const wire::Frame& frame, const wire::MetaPacket& pkt, uint8_t plane, TimeNs now) {
  if (!wire::IsDataOpcode(pkt.ch.opcode)) return;  // data packets only
  // At most one per 1 ms per source IP address.
  uint64_t addr = 1469598103934665603ull;  // FNV-1a over the source address
  auto mix = [&](std::span<const uint8_t> b) {
    for (uint8_t v : b) addr = (addr ^ v) * 1099511628211ull;
  };
  if (const wire::Ipv4Header* ip = frame.ip4()) mix(ip->src);
  if (const wire::Ipv6Header* ip = frame.ip6()) mix(ip->src);
  NackSlot& slot = invalid_conn_nacked_[addr % invalid_conn_nacked_.size()];
  if (slot.at != kNever && slot.addr == addr && now - slot.at < kMillisecond) return;
  slot = NackSlot{addr, now};
  wire::MetaPacket nack;
  nack.ch.opcode = Opcode::kNack;
  nack.ch.ver = pkt.ch.ver;
  nack.ch.dst_conn_id = pkt.ch.dst_conn_id;  // the id this endpoint did not know (MROCE-ENC-010)
  nack.ch.path_id = pkt.ch.path_id;
  nack.ch.path_epoch = pkt.ch.path_epoch;
  wire::NackHeader h;
  h.code = wire::NackCode::kInvalidConn;
  h.psn = pkt.ch.psn;  // stream_id, msn and info 0 (MROCE-ERR-001, table 16.1)
  nack.ext = h;
  Connection tmp(ctx_, 0, PeerOf(frame), 0);
  tmp.Emit(std::move(nack), 0, plane);
  ctx_.counters.Add(EndpointCounter::kInvalidConnNackTx);
}

void Endpoint::SendReject(const wire::Frame& frame, const wire::MetaPacket& pkt, wire::ConnReason reason,
                          uint8_t ver_min, uint8_t ver_max) {
  Connection tmp(ctx_, 0, PeerOf(frame), 0);
  wire::ConnMgmtHeader rej = *pkt.cmh();
  rej.reason = reason;
  rej.src_conn_id = 0;
  rej.ver_min = ver_min;
  rej.ver_max = ver_max;
  tmp.EmitCm(Opcode::kConnectRej, rej, pkt.cmh()->src_conn_id);
}

void Endpoint::OnConnectReq(const wire::Frame& frame, const wire::MetaPacket& pkt, TimeNs now) {
  const wire::ConnMgmtHeader& req = *pkt.cmh();
  // MROCE-CONN-007: a retransmitted request gets the same answer, no second connection.
  if (auto r = requests_.find({req.src_conn_id, req.nonce}); r != requests_.end()) {
    if (auto it = conns_.find(r->second); it != conns_.end()) {
      Connection* c = it->second.get();
      Touch(c->local_id_);
      if (c->state_ == ConnState::kAckSent || c->state_ == ConnState::kEstablished) {
        c->EmitCm(Opcode::kConnectAck, c->accept_cmh_, c->peer_id_);
      } else {
        ctx_.counters.Add(EndpointCounter::kUnexpectedCmRx);
      }
      return;
    }
  }
  const wire::ConnMgmtHeader& own = req;
  if (req.ver_min > req.ver_max || req.num_paths < 1 || req.num_paths > 64 || req.mtu < 256 || req.mtu > 9000 ||
      req.max_streams < 1 || req.max_streams > 1024 || req.num_planes < 1 || req.num_planes > 8 ||
      req.num_planes > req.num_paths || req.src_conn_id == 0 || req.nonce == 0) {
    SendReject(frame, pkt, wire::ConnReason::kInvalidParams, own.ver_min, own.ver_max);  // MROCE-CONN-006
    return;
  }
  // MROCE-VER-002: highest version in both ranges.
  const uint8_t lo = std::max(req.ver_min, ctx_.config.ver_min);
  const uint8_t hi = std::min(req.ver_max, ctx_.config.ver_max);
  if (lo > hi) {
    SendReject(frame, pkt, wire::ConnReason::kVersionUnsupported, ctx_.config.ver_min, ctx_.config.ver_max);
    return;
  }
  if (conns_.size() >= ctx_.config.max_connections) {
    SendReject(frame, pkt, wire::ConnReason::kNoResources, req.ver_min, req.ver_max);  // MROCE-CONN-006
    return;
  }
  PeerAddress peer = PeerOf(frame);
  if (peer.ip6 && !ctx_.config.ip6) {
    SendReject(frame, pkt, wire::ConnReason::kInvalidParams, req.ver_min, req.ver_max);  // no IPv6 here
    return;
  }
  const ConnId id = NewConnId();
  auto conn = std::make_unique<Connection>(ctx_, id, peer, SplitMix64(rng_));
  Connection& c = *conn;
  c.peer_id_ = req.src_conn_id;
  c.nonce_ = req.nonce;
  c.request_ = req;
  c.peer_max_rate_mbps_ = req.max_rate;  // 10.4: the requester's receive rate caps our sending
  uint16_t mtu = std::min(req.mtu, ctx_.config.mtu);
  if (ctx_.config.quirks.Has(Quirk::kConnectAckKeepsOwnMtu)) mtu = ctx_.config.mtu;  // deviation: above the request
  c.SetupPaths(std::min(req.num_paths, ctx_.config.num_paths), std::min(req.num_planes, ctx_.config.num_planes), mtu,
               std::min(req.max_streams, ctx_.config.max_streams), hi);
  conns_.emplace(id, std::move(conn));
  requests_[{req.src_conn_id, req.nonce}] = id;
  Touch(id);
  if (ctx_.config.auto_accept) {
    SendAccept(c, now);
    ctx_.events.push_back({ConnEventKind::kAccepted, id, 0});
  } else {
    c.state_ = ConnState::kPendingAccept;
    ctx_.events.push_back({ConnEventKind::kIncoming, id, 0});
  }
}

void Endpoint::OnConnMgmt(const wire::Frame& frame, const wire::MetaPacket& pkt, TimeNs now) {
  const wire::ConnMgmtHeader* cmh = pkt.cmh();
  if (cmh == nullptr) return;
  if (pkt.ch.opcode == Opcode::kConnectReq) {
    OnConnectReq(frame, pkt, now);
    return;
  }
  auto it = conns_.find(pkt.ch.dst_conn_id);
  if (it == conns_.end()) {
    ctx_.counters.Add(EndpointCounter::kInvalidConnRx);
    return;
  }
  Connection& c = *it->second;
  Touch(c.local_id_);
  if (cmh->nonce != c.nonce_) {
    ctx_.counters.Add(EndpointCounter::kBadNonceRx);  // MROCE-CONN-003
    return;
  }
  switch (pkt.ch.opcode) {
    case Opcode::kConnectAck: {
      if (c.state_ != ConnState::kReqSent) {
        ctx_.counters.Add(EndpointCounter::kUnexpectedCmRx);
        return;
      }
      const wire::ConnMgmtHeader& req = c.request_;
      if (cmh->num_paths > req.num_paths || cmh->mtu > req.mtu || cmh->max_streams > req.max_streams ||
          cmh->num_planes > req.num_planes || cmh->num_paths == 0 || cmh->num_planes == 0 ||
          cmh->ver_max < req.ver_min || cmh->ver_max > req.ver_max) {
        // MROCE-CONN-008.
        wire::ConnMgmtHeader d;
        d.reason = wire::ConnReason::kError;
        d.src_conn_id = c.local_id_;
        d.nonce = c.nonce_;
        c.peer_id_ = cmh->src_conn_id;
        c.EmitCm(Opcode::kDisconnect, d, c.peer_id_);
        ctx_.events.push_back({ConnEventKind::kRejected, c.local_id_, static_cast<uint8_t>(wire::ConnReason::kInvalidParams)});
        c.EnterQuarantine(now);  // row 8 of table 5.5
        return;
      }
      c.peer_id_ = cmh->src_conn_id;
      c.peer_max_rate_mbps_ = cmh->max_rate;  // 10.4
      if (cmh->num_paths != c.num_paths_ || cmh->mtu != c.mtu_ || cmh->max_streams != c.max_streams_ ||
          cmh->num_planes != c.num_planes_ || cmh->ver_max != c.version_) {
        c.SetupPaths(cmh->num_paths, cmh->num_planes, cmh->mtu, cmh->max_streams, cmh->ver_max);
      }
      c.cc_->SetPeerMaxRate(c.peer_max_rate_mbps_);
      c.counters_.Set(ConnCounter::kRateHintLastRxMbps, c.cc_->latest_hint_mbps());
      c.state_ = ConnState::kEstablished;
      c.cm_deadline_ = kNever;
      ctx_.events.push_back({ConnEventKind::kEstablished, c.local_id_, 0});
      c.sender_.Pump(now);
      return;
    }
    case Opcode::kConnectRej:
      if (c.state_ != ConnState::kReqSent) {
        ctx_.counters.Add(EndpointCounter::kUnexpectedCmRx);
        return;
      }
      ctx_.events.push_back({ConnEventKind::kRejected, c.local_id_, static_cast<uint8_t>(cmh->reason)});
      MarkClosed(c);
      return;
    case Opcode::kDisconnect: {
      wire::ConnMgmtHeader ack;
      ack.reason = cmh->reason;
      ack.src_conn_id = c.local_id_;
      ack.nonce = c.nonce_;
      if (c.state_ == ConnState::kEstablished || c.state_ == ConnState::kAckSent) {
        // MROCE-CONN-014: flush; send-side work REM_ABORT_ERR when the reason is ERROR, and the
        // connection counts as entering ERROR (MROCE-ERR-011).
        const bool error = cmh->reason == wire::ConnReason::kError;
        if (error) {
          ctx_.counters.Add(EndpointCounter::kConnErrors);
          c.state_ = ConnState::kError;
        }
        c.Flush(error ? CompletionStatus::kRemoteAbort : CompletionStatus::kFlushed);
        ctx_.events.push_back({ConnEventKind::kClosed, c.local_id_, static_cast<uint8_t>(cmh->reason)});
        c.EmitCm(Opcode::kDisconnectAck, ack, c.peer_id_);
        c.EnterQuarantine(now);
      } else if (c.state_ == ConnState::kDiscSent) {
        c.EmitCm(Opcode::kDisconnectAck, ack, c.peer_id_);  // row 18: simultaneous close
      } else if (c.state_ == ConnState::kError || c.state_ == ConnState::kQuarantine) {
        c.EmitCm(Opcode::kDisconnectAck, ack, c.peer_id_);  // rows 21, 23
        if (c.state_ == ConnState::kError) {
          ctx_.events.push_back({ConnEventKind::kClosed, c.local_id_, static_cast<uint8_t>(cmh->reason)});
          c.EnterQuarantine(now);
        }
      } else {
        ctx_.counters.Add(EndpointCounter::kUnexpectedCmRx);
      }
      return;
    }
    case Opcode::kDisconnectAck:
      if (c.state_ != ConnState::kDiscSent && c.state_ != ConnState::kError) {
        ctx_.counters.Add(EndpointCounter::kUnexpectedCmRx);
        return;
      }
      ctx_.events.push_back({ConnEventKind::kClosed, c.local_id_, static_cast<uint8_t>(cmh->reason)});
      c.EnterQuarantine(now);  // rows 17, 21
      return;
    default:
      return;
  }
}

TimeNs Endpoint::NextDeadline() const {
  TimeNs d = ctx_.rate_hints.NextExpiry();
  if (!timers_.empty()) d = std::min(d, timers_.begin()->first);
  return d;
}

void Endpoint::OnTimer(TimeNs now) {
  last_now_ = std::max(last_now_, now);
  ctx_.rate_hints.Expire(now);  // MROCE-HINT-002 / MROCE-LIM-007
  // Only connections whose deadline has come: their own timers are all that can fire (a
  // connection's deadline covers every timer it runs), in connection-id order as a full sweep would.
  std::vector<ConnId> due;
  for (auto t = timers_.begin(); t != timers_.end() && t->first <= now; ++t) due.push_back(t->second);
  std::sort(due.begin(), due.end());
  for (const ConnId id : due) {
    auto found = conns_.find(id);
    if (found == conns_.end()) continue;
    Connection& c = *found->second;
    Touch(id);
    if (c.cm_deadline_ <= now) {
      switch (c.state_) {
        case ConnState::kReqSent:
          if (c.cm_retries_ < kConnectRetries) {
            ++c.cm_retries_;
            c.EmitCm(c.last_cm_op_, c.last_cm_, 0);
            c.cm_interval_ *= 2;
            if (ctx_.config.quirks.Has(Quirk::kConnectRetryNoDoubling)) c.cm_interval_ = kCmInitialInterval;  // deviation
            c.cm_deadline_ = now + c.cm_interval_;
          } else {
            ctx_.events.push_back({ConnEventKind::kConnectTimeout, id, 0});
            MarkClosed(c);
            c.cm_deadline_ = kNever;
          }
          break;
        case ConnState::kAckSent:
          MarkClosed(c);  // MROCE-CONN-009: released silently
          c.cm_deadline_ = kNever;
          break;
        case ConnState::kDiscSent:
        case ConnState::kError:
          // MROCE-CONN-013 / MROCE-CONN-016: DISCONNECT again at 1, 2, 4 ms, then QUARANTINE.
          if (c.cm_retries_ < DisconnectRetries(ctx_.config)) {
            ++c.cm_retries_;
            c.EmitCm(Opcode::kDisconnect, c.disc_cmh_, c.peer_id_);
            c.cm_interval_ *= 2;
            c.cm_deadline_ = now + c.cm_interval_;
          } else {
            c.EnterQuarantine(now);
            ctx_.events.push_back({ConnEventKind::kClosed, id, 0});
          }
          break;
        default:
          c.cm_deadline_ = kNever;
          break;
      }
    }
    if (c.state_ == ConnState::kQuarantine && c.quarantine_until_ <= now) MarkClosed(c);
    c.OnTimer(now);
  }
  Reindex();
  Reap(now);
}

void Endpoint::Reap(TimeNs now) {
  (void)now;
  if (closed_.empty()) return;
  std::sort(closed_.begin(), closed_.end());  // id order, as a sweep over the table would erase them
  for (const ConnId id : closed_) {
    auto it = conns_.find(id);
    if (it == conns_.end() || it->second->state_ != ConnState::kClosed) continue;
    ctx_.rate_hints.Forget(id);
    Unindex(*it->second);
    ForgetRequest(*it->second);
    conns_.erase(it);
  }
  closed_.clear();
}

void Endpoint::ForgetRequest(const Connection& c) {
  auto r = requests_.find({c.peer_id_, c.nonce_});
  if (r != requests_.end() && r->second == c.local_id_) requests_.erase(r);
}

void Endpoint::MarkClosed(Connection& c) {
  c.state_ = ConnState::kClosed;
  closed_.push_back(c.local_id_);
}

void Endpoint::Unindex(Connection& c) {
  if (c.indexed_deadline_ != kNever) timers_.erase({c.indexed_deadline_, c.local_id_});
  c.indexed_deadline_ = kNever;
}

void Endpoint::Reindex() {
  for (const ConnId id : touched_) {
    auto it = conns_.find(id);
    if (it == conns_.end()) continue;
    Connection& c = *it->second;
    const TimeNs d = c.NextDeadline();
    if (d == c.indexed_deadline_) continue;
    Unindex(c);
    if (d != kNever) timers_.emplace(d, id);
    c.indexed_deadline_ = d;
  }
  touched_.clear();
}

}  // namespace mroce::ref
