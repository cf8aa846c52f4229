#include "mroce/rocev2/queue_pair.h"

#include <algorithm>

namespace mroce::rocev2 {

using wire::RoceOpcode;

QueuePair::QueuePair(Qpn qpn, const QpConfig& cfg, const RoceAddress& local,
                     const MemoryRegionTable* mrs, CompletionQueue* cq, FrameSink* sink, uint8_t plane)
    : qpn_(qpn),
      cfg_(cfg),
      local_(local),
      sink_(sink),
      plane_(plane),
      requester_(cfg, qpn, QpEnv{mrs, cq, &counters_}),
      responder_(cfg, qpn, QpEnv{mrs, cq, &counters_}),
      pacer_(cfg.line_rate_bps),
      framer_(FramerConfig{local, {}, cfg.udp_sport, cfg.dscp, cfg.ecn}) {}

Status QueuePair::Connect(const RemoteQp& remote) {
  if (state_ != QpState::kInit) return MakeError("qp.state", "QP already connected or in error");
  remote_qpn_ = remote.qpn & 0xFFFFFF;
  requester_.Connect(remote_qpn_);
  responder_.Connect(remote_qpn_, remote.initial_psn);
  framer_ = RoceFramer(FramerConfig{local_, remote.address, cfg_.udp_sport, cfg_.dscp, cfg_.ecn});
  state_ = QpState::kReadyToSend;
  return OkStatus();
}

Status QueuePair::PostSend(const SendWr& wr, TimeNs now) {
  if (state_ == QpState::kInit) return MakeError("qp.state", "QP not connected");
  Status s = requester_.Post(wr);
  if (s.ok()) Pump(now);
  return s;
}

Status QueuePair::PostRecv(const RecvWr& wr) { return responder_.PostRecv(wr); }

void QueuePair::OnPacket(const wire::Frame& frame, size_t frame_bytes, TimeNs now) {
  const wire::RocePacket& pkt = *frame.roce();
  counters_.Add(Counter::kRxPkts);
  counters_.Add(Counter::kRxBytes, frame_bytes);
  if (frame.ecn() == wire::kEcnCe) {
    counters_.Add(Counter::kEcnCeRx);
    // CNP rate limit: one per cnp_interval_ns per QP (the baseline reacts to no CNP: no DCQCN).
    if (cfg_.send_cnp && state_ == QpState::kReadyToSend &&
        (last_cnp_ < 0 || now - last_cnp_ >= cfg_.cnp_interval_ns)) {
      last_cnp_ = now;
      wire::RocePacket cnp;
      cnp.bth.opcode = RoceOpcode::kCnp;
      cnp.bth.dest_qp = remote_qpn_;
      cnp.bth.pkey = cfg_.pkey;
      cnp.bth.becn = true;
      cnp.payload.assign(16, 0);  // 16 reserved bytes (RoCEv2 annex A17)
      counters_.Add(Counter::kCnpTx);
      Emit(cnp, now, /*paced=*/false);
    }
  }
  if (state_ != QpState::kReadyToSend) return;
  const auto op = static_cast<uint8_t>(pkt.bth.opcode);
  if (op <= static_cast<uint8_t>(RoceOpcode::kReadRequest)) {
    responder_.OnRequest(pkt, now);
  } else if (op <= static_cast<uint8_t>(RoceOpcode::kReadResponseOnly)) {
    requester_.OnReadResponse(pkt, now);
  } else if (pkt.bth.opcode == RoceOpcode::kAck) {
    requester_.OnAck(pkt, now);
  } else if (pkt.bth.opcode == RoceOpcode::kCnp) {
    counters_.Add(Counter::kCnpRx);
  } else {
    counters_.Add(Counter::kUnknownOpcodeRx);
  }
  SyncErrorState();
  Pump(now);
}

void QueuePair::OnTimer(TimeNs now) {
  if (state_ == QpState::kInit) return;
  requester_.OnTimer(now);
  SyncErrorState();
  Pump(now);
}

TimeNs QueuePair::NextDeadline() const {
  TimeNs t = requester_.NextDeadline();
  const bool data_waiting = responder_.NextOutputIsData() || requester_.HasPacketToSend();
  if (data_waiting) t = std::min(t, pacer_.NextSendTime());
  return t;
}

void QueuePair::SyncErrorState() {
  if (state_ == QpState::kError) return;
  if (requester_.in_error() || responder_.in_error()) {
    // An IB QP has one state: a failure on either side stops both.
    state_ = QpState::kError;
    if (!responder_.in_error()) responder_.EnterError();
    if (!requester_.in_error()) requester_.EnterError();
  }
}

void QueuePair::Pump(TimeNs now) {
  for (;;) {
    // ACK/NAK at the head of the responder's queue leave at once (they are small and not paced);
    // they stay behind earlier READ responses so the peer sees them in PSN order.
    while (responder_.HasOutput() && !responder_.NextOutputIsData()) Emit(responder_.NextOutput(), now, false);
    const bool resp = responder_.NextOutputIsData();
    if (!resp && !requester_.HasPacketToSend()) return;
    if (!pacer_.CanSend(now)) return;
    // READ responses go before new requests: the peer's requests are older.
    if (resp) {
      Emit(responder_.NextOutput(), now, true);
    } else {
      Emit(requester_.NextPacket(now), now, true);
    }
  }
}

void QueuePair::Emit(const wire::RocePacket& pkt, TimeNs now, bool paced) {
  framer_.Build(pkt, tx_buf_);
  counters_.Add(Counter::kTxPkts);
  counters_.Add(Counter::kTxBytes, tx_buf_.size());
  if (paced) pacer_.OnSend(now, tx_buf_.size());
  sink_->SendFrame(tx_buf_, plane_, now);
}

size_t QueuePair::StateBytes() const {
  return sizeof(*this) - sizeof(Requester) - sizeof(Responder) + requester_.StateBytes() +
         responder_.StateBytes() + tx_buf_.capacity();
}

}  // namespace mroce::rocev2
