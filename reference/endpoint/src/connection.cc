#include "mroce/endpoint/connection.h"

#include <algorithm>
#include <string>

namespace mroce::ref {

using wire::Opcode;

namespace {
constexpr TimeNs kCmInitialInterval = 1 * kMillisecond;  // MROCE-CONN-013
constexpr TimeNs kQuarantine = 128 * kMillisecond;       // MROCE-CONN-015
}  // namespace

std::string_view ConnStateName(ConnState s) {
  switch (s) {
    case ConnState::kReqSent: return "req_sent";
    case ConnState::kPendingAccept: return "pending_accept";
    case ConnState::kAckSent: return "ack_sent";
    case ConnState::kEstablished: return "established";
    case ConnState::kDiscSent: return "disc_sent";
    case ConnState::kQuarantine: return "quarantine";
    case ConnState::kError: return "error";
    case ConnState::kClosed: return "closed";
  }
  return "?";
}

uint64_t ConnStateGauge(ConnState s) {
  switch (s) {
    case ConnState::kClosed: return 0;
    case ConnState::kPendingAccept: return 0;  // listening: no CONNECT_ACK sent yet
    case ConnState::kReqSent: return 1;
    case ConnState::kAckSent: return 2;
    case ConnState::kEstablished: return 3;
    case ConnState::kDiscSent: return 4;
    case ConnState::kError: return 5;
    case ConnState::kQuarantine: return 6;
  }
  return 0;
}

Connection::Connection(EndpointContext& ctx, ConnId local_id, const PeerAddress& peer, uint64_t seed)
    : ctx_(ctx), local_id_(local_id), peer_(peer), seed_(seed) {}

void Connection::SetupPaths(uint8_t num_paths, uint8_t num_planes, uint16_t mtu, uint16_t max_streams,
                            uint8_t version) {
  num_paths_ = num_paths;
  num_planes_ = num_planes;
  mtu_ = mtu;
  max_streams_ = max_streams;
  version_ = version;
  RttConfig rtt;
  rtt.backoff = !Quirk(Quirk::kNoRtoBackoff);
  if (Quirk(Quirk::kRtoInitial2ms)) rtt.initial_rto = 2 * spec::kRtoInitial;
  const int port_order = HasVariant(Variant::kEntropySequential) ? 1 : HasVariant(Variant::kEntropyDescending) ? -1 : 0;
  const int first_path = HasVariant(Variant::kFirstPathLast) ? num_paths - 1 : HasVariant(Variant::kFirstPathMiddle) ? num_paths / 2 : 0;
  paths_ = std::make_unique<PathSet>(num_paths, num_planes, seed_ ^ (uint64_t{local_id_} << 17), rtt, port_order, first_path);
  if (HasVariant(Variant::kReintroduceAfter4)) {
    for (Path& p : paths_->paths()) p.machine.set_reintroduce_after(ReintroduceAfterBase());
  }
  CongestionConfig cc;
  cc.mtu = mtu;
  cc.link_rate_mbps = ctx_.config.link_capacity_mbps;
  cc.full_packet_ip_bytes = DataIpLength(mtu);
  if (HasVariant(Variant::kBurstToB)) {
    // Bursts up to 10.4's B = max(16384, 2 full packets) instead of pacing (HINT-006 is a SHOULD).
    cc.bucket_bytes = std::max<uint32_t>(16384, 2 * cc.full_packet_ip_bytes) - cc.full_packet_ip_bytes;
  }
  cc.ignore_ecn = Quirk(Quirk::kIgnoreEcn);
  if (Quirk(Quirk::kInitialWindow8Mtu)) cc.init_mtus = 8;
  if (Quirk(Quirk::kRtoWindowTwoMtu)) cc.rto_mtus = 2;
  if (Quirk(Quirk::kAdditiveIncreaseDouble)) cc.ai_mtus = 2;
  cc.halve_every_ece = Quirk(Quirk::kHalveEveryEce);
  cc.ignore_rate_hint = Quirk(Quirk::kIgnoreRateHint);
  cc.ignore_cwnd = Quirk(Quirk::kIgnoreWindow);
  cc_ = std::make_unique<CongestionController>(cc, num_paths);
  cc_->SetPeerMaxRate(peer_max_rate_mbps_);
  counters_.Set(ConnCounter::kRateHintLastRxMbps, cc_->latest_hint_mbps());
  ResizeStreams(max_streams);  // keeps what was posted before a CONNECT_ACK lowered max_streams
}

size_t Connection::StateBytes() const {
  // Protocol state held now (table 15.3 model): fixed parts plus live records; allocator slack of
  // containers is not state.
  size_t bytes = sizeof(*this);
  if (paths_) {
    for (int p = 0; p < paths_->size(); ++p) bytes += (*paths_)[p].StateBytes();
    bytes += sizeof(PathSet) + sizeof(CongestionController) + paths_->size() * 24;
  }
  for (const StreamState& s : streams_) bytes += s.StateBytes();
  size_t live = 0;
  for (const OutMessage& m : sender_.msgs_) {
    if (!m.live) continue;
    ++live;
    bytes += m.acked.StateBytes() - sizeof(MessageReassembly);
  }
  bytes += live * sizeof(OutMessage) + sender_.ready_.size() * 4 + sender_.resend_.size() * sizeof(Sender::Resend);
  return bytes;
}

void Connection::PushCompletion(const Completion& c) {
  // MROCE-CMPL-012; MROCE-CMPL-011: no SUCCESS once the connection left ESTABLISHED for ERROR.
  if (c.status == CompletionStatus::kSuccess &&
      (state_ == ConnState::kError || state_ == ConnState::kQuarantine || state_ == ConnState::kClosed)) {
    return;
  }
  counters_.Add(c.status == CompletionStatus::kSuccess ? ConnCounter::kCmplSuccess : ConnCounter::kCmplError);
  if (!ctx_.cq.Push(c)) ctx_.counters.Add(EndpointCounter::kXCqOverflows);
}

namespace {
bool FlushesPosts(ConnState s) {
  return s == ConnState::kError || s == ConnState::kDiscSent || s == ConnState::kQuarantine;
}
}  // namespace

Status Connection::PostRecv(uint16_t stream, uint8_t* buffer, uint32_t length, uint64_t wr_id) {
  if (stream >= max_streams_) return MakeError("limit.streams", "stream id beyond negotiated max_streams");
  if (FlushesPosts(state_)) {
    if (Quirk(Quirk::kRecvAfterErrorLost)) return OkStatus();  // deviation: no completion
    // MROCE-CMPL-011: completes with WR_FLUSH_ERR, nothing sent.
    Completion c;
    c.wr_id = wr_id;
    c.conn = local_id_;
    c.stream = stream;
    c.op = CompletionOp::kRecv;
    c.status = CompletionStatus::kFlushed;
    PushCompletion(c);
    return OkStatus();
  }
  StreamState& s = streams_[stream];
  // MROCE-LIM-004: at least 1024 per stream; beyond our limit the post fails locally.
  if (s.posted.size() >= kMaxPostedRecvs) return MakeError("limit.posted_recvs", "too many posted receives");
  s.posted.push_back(PostedRecv{buffer, length, wr_id});
  return OkStatus();
}

Status Connection::PostMessage(Opcode op, uint16_t stream, const uint8_t* src, uint8_t* read_dst, uint32_t len,
                               uint64_t remote_va, uint32_t rkey, std::optional<uint32_t> imm, uint64_t wr_id,
                               TimeNs now) {
  // MROCE-LIM-002: local errors, no packet.
  if (stream >= max_streams_) return MakeError("limit.streams", "stream id beyond negotiated max_streams");
  if (len > spec::kMaxMessageBytes) return MakeError("limit.msg_len", "message longer than 2^31 bytes");
  if (FlushesPosts(state_)) {
    // MROCE-CMPL-011: a work request posted in ERROR, DISC_SENT or QUARANTINE completes with
    // WR_FLUSH_ERR without any packet being sent.
    Completion c;
    c.wr_id = wr_id;
    c.conn = local_id_;
    c.stream = stream;
    c.op = op == Opcode::kReadReq ? CompletionOp::kRead
           : (op == Opcode::kSend || op == Opcode::kSendImm) ? CompletionOp::kSend
                                                             : CompletionOp::kWrite;
    c.status = CompletionStatus::kFlushed;
    PushCompletion(c);
    return OkStatus();
  }
  if (state_ != ConnState::kEstablished && state_ != ConnState::kAckSent && state_ != ConnState::kReqSent) {
    return MakeError("conn.state", "connection not usable: " + std::string(ConnStateName(state_)));
  }
  if (closing_) return MakeError("conn.closing", "Disconnect() called: no new work requests (MROCE-CONN-012)");
  if (!paths_) return MakeError("conn.state", "connection not established yet");
  StreamState& s = streams_[stream];
  const uint32_t slot = sender_.AllocMessage();
  OutMessage& m = sender_.msgs_[slot];
  m.op = op;
  m.stream = stream;
  m.msn = s.next_msn++;  // MROCE-STRM-004
  m.len = len;
  m.has_imm = imm.has_value();
  m.imm = imm.value_or(0);
  // MROCE-STRM-006: recv_seq consecutively for messages that consume a receive.
  if (op == Opcode::kSend || op == Opcode::kSendImm || op == Opcode::kWriteImm) m.recv_seq = s.next_recv_seq++;
  m.remote_va = remote_va;
  m.rkey = rkey;
  m.src = src;
  m.read_dst = read_dst;
  m.wr_id = wr_id;
  m.acked = MessageReassembly(len);
  s.out_order.push_back(slot);
  sender_.ready_.push_back(slot);
  counters_.Add(ConnCounter::kXMessagesTx);
  if (established()) sender_.Pump(now);
  return OkStatus();
}

void Connection::Emit(wire::MetaPacket pkt, uint8_t path_for_entropy, uint8_t plane) {
  wire::Frame f;
  f.eth.dst = peer_.mac;
  f.eth.src = ctx_.config.mac;
  if (ipv6()) {
    wire::Ipv6Header ip;  // flow label 0, hop limit 64, ECT(0) (MROCE-ENC-007/008)
    ip.src = *ctx_.config.ip6;
    ip.dst = *peer_.ip6;
    f.ip = ip;
  } else {
    wire::Ipv4Header ip;  // DF, id 0, TTL 64, ECT(0)
    if (Quirk(Quirk::kControlNotEct) && !wire::IsDataOpcode(pkt.ch.opcode)) ip.ecn = 0;  // deviation: Not-ECT
    ip.src = ctx_.config.ip;
    ip.dst = peer_.ip;
    f.ip = ip;
  }
  f.udp.dport = peer_.udp_port;
  f.udp.sport = paths_ ? (*paths_)[path_for_entropy].entropy : wire::kEntropyPortMin;
  if (HasVariant(Variant::kCmSportMirrored) && wire::ExtKindOf(pkt.ch.opcode) == wire::ExtKind::kConnMgmt && pkt.ch.opcode != Opcode::kConnectReq) {
    // Variant (choice sport-per-path): any port of the range for these (table 19.3); the mirror
    // of path 0's entropy is never path 0's entropy (their sum is odd).
    f.udp.sport = static_cast<uint16_t>(wire::kEntropyPortMin + wire::kEntropyPortMax - f.udp.sport);
  }
  if (pkt.ch.ver == 0) pkt.ch.ver = version_;  // MROCE-VER-005
  f.l4 = std::move(pkt);
  const std::vector<uint8_t> bytes = wire::SerializeFrame(f);
  if (ctx_.sink != nullptr) ctx_.sink->Send(bytes, plane);
}

void Connection::EmitCm(Opcode op, const wire::ConnMgmtHeader& given, ConnId dst) {
  wire::ConnMgmtHeader cmh = given;
  if (op == Opcode::kDisconnect || op == Opcode::kDisconnectAck) {
    // MROCE-HDR-015: teardown packets carry no negotiation fields (the codec's defaults are 1/1).
    cmh.ver_min = cmh.ver_max = 0;
    cmh.num_paths = 0;
    cmh.mtu = 0;
    cmh.max_streams = 0;
    cmh.num_planes = 0;
    cmh.max_rate = 0;
  }
  wire::MetaPacket pkt;
  pkt.ch.ver = 1;  // MROCE-VER-001
  pkt.ch.opcode = op;
  pkt.ch.dst_conn_id = dst;
  pkt.ext = cmh;
  last_cm_ = cmh;
  last_cm_op_ = op;
  if (op == Opcode::kDisconnect) disc_cmh_ = cmh;
  if (op == Opcode::kConnectAck) accept_cmh_ = cmh;
  // CM packets use path 0's entropy and plane (MROCE-CONN-004, MROCE-CONN-011).
  Emit(std::move(pkt), 0, 0);
}

void Connection::FlushStream(uint16_t st, CompletionStatus wr_status) {
  // MROCE-CMPL-011: the stream's outstanding work requests in msn order, then its receives.
  for (uint32_t slot : streams_[st].out_order) {
    OutMessage& m = sender_.msgs_[slot];
    if (!m.live) continue;
    Completion c;
    c.wr_id = m.wr_id;
    c.conn = local_id_;
    c.stream = m.stream;
    c.msn = m.msn;
    c.op = m.op == Opcode::kReadReq ? CompletionOp::kRead
           : (m.op == Opcode::kSend || m.op == Opcode::kSendImm) ? CompletionOp::kSend
                                                                 : CompletionOp::kWrite;
    c.status = wr_status;
    PushCompletion(c);
    sender_.FreeMessage(slot);
  }
  streams_[st].out_order.clear();
  for (auto& r : streams_[st].posted) {
    if (!r) continue;
    Completion c;
    c.wr_id = r->wr_id;
    c.conn = local_id_;
    c.stream = st;
    c.op = CompletionOp::kRecv;
    c.status = CompletionStatus::kFlushed;
    PushCompletion(c);
  }
  streams_[st].posted.clear();
  streams_[st].in.clear();
  streams_[st].rnr_held = 0;
}

void Connection::Flush(CompletionStatus wr_status) {
  // MROCE-CMPL-011: every outstanding work request, each stream in msn order, then receives.
  for (uint16_t st = 0; st < streams_.size(); ++st) FlushStream(st, wr_status);
  for (uint32_t slot = 0; slot < sender_.msgs_.size(); ++slot) {
    if (sender_.msgs_[slot].live) sender_.FreeMessage(slot);  // READ_RESPs owed to the peer
  }
  sender_.ready_.clear();
  sender_.resend_.clear();
  if (paths_) {
    for (Path& p : paths_->paths()) {
      p.lost.clear();
      p.released.clear();
    }
  }
}

void Connection::EnterError(TimeNs now) {
  if (state_ == ConnState::kError || state_ == ConnState::kQuarantine || state_ == ConnState::kClosed) return;
  // MROCE-ERR-011: visible in conn_errors and conn_state.
  ctx_.counters.Add(EndpointCounter::kConnErrors);
  state_ = ConnState::kError;
  Flush(CompletionStatus::kFlushed);
  ctx_.events.push_back({ConnEventKind::kError, local_id_, 0});
  // MROCE-CONN-016: DISCONNECT reason ERROR, retransmitted as in DISC_SENT, then QUARANTINE.
  wire::ConnMgmtHeader cmh;
  cmh.reason = wire::ConnReason::kError;
  cmh.src_conn_id = local_id_;
  cmh.nonce = nonce_;
  EmitCm(Opcode::kDisconnect, cmh, peer_id_);
  cm_interval_ = kCmInitialInterval;
  cm_retries_ = 0;
  cm_deadline_ = now + cm_interval_;
}

void Connection::AbortByPeer(TimeNs now) {
  if (state_ == ConnState::kError || state_ == ConnState::kQuarantine || state_ == ConnState::kClosed) return;
  ctx_.counters.Add(EndpointCounter::kConnErrors);  // MROCE-ERR-011
  state_ = ConnState::kError;
  Flush(CompletionStatus::kRemoteAbort);
  ctx_.events.push_back({ConnEventKind::kError, local_id_, 0});
  EnterQuarantine(now);  // MROCE-ERR-008: no DISCONNECT, the peer has no state
}

void Connection::EnterQuarantine(TimeNs now) {
  state_ = ConnState::kQuarantine;
  cm_deadline_ = kNever;
  quarantine_until_ = now + kQuarantine;
  if (Quirk(Quirk::kQuarantine64ms)) quarantine_until_ = now + kQuarantine / 2;  // deviation
}

void Connection::BeginClose(TimeNs now) {
  closing_ = true;
  MaybeFinishClose(now);
}

void Connection::MaybeFinishClose(TimeNs now) {
  // MROCE-CONN-012: DISCONNECT NORMAL only after every outstanding work request completed.
  if (!closing_ || !established() || sender_.HasOutstandingRequests()) return;
  closing_ = false;
  Flush(CompletionStatus::kFlushed);  // posted receives
  wire::ConnMgmtHeader cmh;
  cmh.reason = wire::ConnReason::kNormal;
  cmh.src_conn_id = local_id_;
  cmh.nonce = nonce_;
  EmitCm(Opcode::kDisconnect, cmh, peer_id_);
  state_ = ConnState::kDiscSent;
  cm_interval_ = kCmInitialInterval;
  cm_retries_ = 0;
  cm_deadline_ = now + cm_interval_;
}

void Connection::OnPacket(const wire::Frame& frame, const wire::MetaPacket& pkt, TimeNs now) {
  const bool data = wire::IsDataOpcode(pkt.ch.opcode);
  if (state_ == ConnState::kQuarantine) {
    ctx_.counters.Add(EndpointCounter::kStaleConnRx);  // MROCE-CONN-015
    return;
  }
  if (state_ == ConnState::kError) {
    // MROCE-ERR-010: every data packet gets a copy of the fatal NACK; nothing is placed.
    if (data && fatal_nack_ && paths_ && pkt.ch.path_id < num_paths_) {
      wire::NackHeader n = *fatal_nack_;
      wire::MetaPacket nack;
      nack.ch.opcode = Opcode::kNack;
      nack.ch.dst_conn_id = peer_id_;
      nack.ch.path_id = pkt.ch.path_id;
      nack.ch.path_epoch = pkt.ch.path_epoch;
      n.psn = pkt.ch.psn;
      nack.ext = n;
      counters_.Add(ConnCounter::kNackTx);
      counters_.Add(NackTxCounter(static_cast<uint8_t>(n.code)));
      const Path& path = (*paths_)[pkt.ch.path_id];
      Emit(std::move(nack), path.id, path.plane);
    } else {
      ctx_.counters.Add(EndpointCounter::kStaleConnRx);
    }
    return;
  }
  if (state_ == ConnState::kAckSent) {
    state_ = ConnState::kEstablished;  // row 11 of table 5.5: first packet on our id
    cm_deadline_ = kNever;
    ctx_.events.push_back({ConnEventKind::kEstablished, local_id_, 0});
  }
  if (!paths_ || (state_ != ConnState::kEstablished && state_ != ConnState::kDiscSent)) {
    ctx_.counters.Add(EndpointCounter::kStaleConnRx);
    return;
  }
  // MROCE-HDR-002: wrong version for this connection: dropped, no ACK or NACK.
  if (pkt.ch.ver != version_ && !Quirk(Quirk::kAcceptUnknownVersion)) {
    counters_.Add(ConnCounter::kBadVersionRx);
    return;
  }
  if (pkt.ch.path_id >= num_paths_) {
    counters_.Add(ConnCounter::kBadPathRx);  // MROCE-PATH-001
    return;
  }
  if (data) {
    // rx_pkts / rx_bytes: data packets passing CRC, IP total length (tables 17.2, 17.4).
    const uint32_t ip_len = DataIpLength(static_cast<uint32_t>(pkt.payload.size()));
    counters_.Add(ConnCounter::kRxPkts);
    counters_.Add(ConnCounter::kRxBytes, ip_len);
    Path& path = (*paths_)[pkt.ch.path_id];
    path.rx_counters.Add(PathRxCounter::kRxPkts);
    path.rx_counters.Add(PathRxCounter::kRxBytes, ip_len);
  }
  switch (pkt.ch.opcode) {
    case Opcode::kWrite:
    case Opcode::kWriteImm:
    case Opcode::kSend:
    case Opcode::kSendImm:
    case Opcode::kReadReq:
    case Opcode::kReadResp:
      receiver_.OnData(pkt, frame.ecn() == wire::kEcnCe, now);
      break;
    case Opcode::kAck:
      sender_.OnAck(pkt, now);
      break;
    case Opcode::kNack:
      sender_.OnNack(pkt, now);
      break;
    case Opcode::kProbe:
      receiver_.OnProbe(pkt, now);
      break;
    case Opcode::kProbeAck:
      sender_.OnProbeAck(pkt, now);
      break;
    default:
      break;
  }
  if (established()) sender_.Pump(now);
  MaybeFinishClose(now);
}

TimeNs Connection::NextDeadline() const {
  TimeNs d = std::min(cm_deadline_, quarantine_until_);
  if (paths_ && (state_ == ConnState::kEstablished || state_ == ConnState::kDiscSent)) {
    d = std::min(d, sender_.NextDeadline());
    d = std::min(d, receiver_.NextDeadline());
    if (no_usable_path_since_ != kNever) d = std::min(d, no_usable_path_since_ + spec::kConnDeadTimeout);
  }
  return d;
}

void Connection::OnTimer(TimeNs now) {
  if (paths_ && (state_ == ConnState::kEstablished || state_ == ConnState::kDiscSent)) {
    receiver_.OnTimer(now);
    if (state_ == ConnState::kEstablished) {
      sender_.OnTimer(now);
      if (!established()) return;
      // MROCE-CONN-017: no ACTIVE or SUSPECT path for 100 ms -> ERROR.
      const int usable = paths_->CountInState(PathState::kActive) + paths_->CountInState(PathState::kSuspect);
      if (usable > 0) {
        no_usable_path_since_ = kNever;
      } else if (no_usable_path_since_ == kNever) {
        no_usable_path_since_ = now;
      } else if (now - no_usable_path_since_ >= spec::kConnDeadTimeout) {
        EnterError(now);
      }
      if (established()) sender_.Pump(now);
    }
  }
}

void Connection::ForEachTelemetry(const TelemetryFn& fn, TimeNs now) const {
  const std::string conn = "conn." + std::to_string(local_id_) + ".";
  ForEachCounter(counters_, [&](std::string_view name, uint64_t v) {
    if (name == "rate_hint_last_rx_mbps" && cc_) v = cc_->latest_hint_mbps();
    if (name == "x_pacing_rate_mbps" && cc_) v = cc_->pacing_rate_mbps(now);
    fn(conn + std::string(name), v);
  });
  uint64_t state_gauge = ConnStateGauge(state_);
  if (state_ == ConnState::kQuarantine && Quirk(Quirk::kQuarantineGaugeClosed)) state_gauge = 0;  // deviation
  fn(conn + "conn_state", state_gauge);
  fn(conn + "active_senders", ctx_.rate_hints.CountActive(now));
  fn(conn + "state_bytes", StateBytes());
  if (!paths_) return;
  for (int p = 0; p < paths_->size(); ++p) {
    const Path& path = (*paths_)[p];
    const std::string tx = "path." + std::to_string(local_id_) + "." + std::to_string(p) + ".";
    const std::string rx = tx + "rx.";
    ForEachCounter(path.counters, [&](std::string_view name, uint64_t v) { fn(tx + std::string(name), v); });
    // Gauges of table 17.3: the values the next packet on the path uses (MROCE-TEL-009).
    fn(tx + "state", static_cast<uint64_t>(path.state()));
    fn(tx + "entropy", path.entropy);
    fn(tx + "epoch", path.epoch);
    fn(tx + "cwnd_bytes", cc_->cwnd_bytes(p));
    fn(tx + "inflight_bytes", path.board.inflight_bytes());
    fn(tx + "srtt_ns", static_cast<uint64_t>(path.rtt.srtt()));
    fn(tx + "rttvar_ns", static_cast<uint64_t>(path.rtt.rttvar()));
    fn(tx + "rto_ns", static_cast<uint64_t>(path.rtt.rto()));
    ForEachCounter(path.rx_counters, [&](std::string_view name, uint64_t v) { fn(rx + std::string(name), v); });
    fn(rx + "rx_epoch", path.rx.epoch());
    fn(rx + "epsn", path.rx.epsn());
  }
}

void Connection::ResizeStreams(uint16_t max_streams) {
  // A CONNECT_ACK that lowers max_streams sets the paths up again: receives and work requests posted
  // while the request was outstanding stay posted (MROCE-CMPL-007); those on a stream the
  // connection no longer has can never be carried and complete WR_FLUSH_ERR.
  for (size_t st = max_streams; st < streams_.size(); ++st) FlushStream(static_cast<uint16_t>(st), CompletionStatus::kFlushed);
  streams_.resize(max_streams);
}

}  // namespace mroce::ref
