// Receiver: validation, direct placement, reassembly, in-order completion, ACK generation, PROBE
// answers (chapters 7, 8, 11, 12, 13, 14, 16).
#include <algorithm>
#include <cstring>

#include "mroce/endpoint/connection.h"

namespace mroce::ref {

using wire::Opcode;

int Receiver::AckRoute(int acked) const {
  // MROCE-ACK-011: own sending path p when ACTIVE or SUSPECT, else an ACTIVE path of the same
  // plane, else any ACTIVE path (lowest id first, deterministic); p itself when none is ACTIVE.
  const PathSet& paths = *c_.paths_;
  if (paths[acked].machine.CarriesRetransmissions()) return acked;
  if (c_.HasVariant(Variant::kAckRouteHighest)) {
    // Choice ack-route: any ACTIVE path of the plane, else any ACTIVE path; here the highest id.
    std::optional<int> any;
    for (int q = paths.size() - 1; q >= 0; --q) {
      if (paths[q].state() != PathState::kActive) continue;
      if (paths[q].plane == paths[acked].plane) return q;
      if (!any) any = q;
    }
    return any.value_or(acked);
  }
  for (int q = 0; q < paths.size(); ++q) {
    if (paths[q].state() == PathState::kActive && paths[q].plane == paths[acked].plane) return q;
  }
  for (int q = 0; q < paths.size(); ++q) {
    if (paths[q].state() == PathState::kActive) return q;
  }
  return acked;
}

void Receiver::OnData(const wire::MetaPacket& pkt, bool ce, TimeNs now) {
  Path& path = (*c_.paths_)[pkt.ch.path_id];
  ReceiveWindow& rx = path.rx;
  if (pkt.meh() == nullptr) return;
  // MROCE-HINT-002: the connection counts in N from the arrival of any data packet.
  // IP + UDP + the MetaRoCE packet (IPv6's 40-byte header assumed: never below the IP total length).
  c_.ctx_.rate_hints.OnData(c_.local_id_, now, static_cast<uint32_t>(48 + pkt.size()));
  const int8_t epoch_diff = static_cast<int8_t>(pkt.ch.path_epoch - rx.epoch());
  if (epoch_diff < 0 && !c_.Quirk(Quirk::kAcceptStaleEpoch)) {
    path.rx_counters.Add(PathRxCounter::kStaleEpochRx);  // MROCE-DUP-003: no reply
    return;
  }
  if (epoch_diff > 0) {
    path.rx_counters.Add(PathRxCounter::kBadEpochRx);  // MROCE-PATH-009: no PROBE seen
    return;
  }
  if (ce) path.rx_counters.Add(PathRxCounter::kEcnCeRx);  // MROCE-CC-001
  // MROCE-ACK-008: a change of CE mark against the previous data packet of the path.
  const bool ce_changed = rx.has_prev && rx.prev_ce != ce;
  rx.prev_ce = ce;
  rx.has_prev = true;
  const bool rtx = pkt.ch.Has(wire::kFlagRtx);  // MROCE-LOSS-009: only echoed in TRTX
  const RxVerdict verdict = rx.Classify(pkt.ch.psn);
  if (verdict == RxVerdict::kOutOfWindow) {
    // MROCE-PATH-007: not recorded (deviation oow_nack_info_psn: info names the refused PSN).
    uint32_t info = rx.epsn();
    if (c_.Quirk(Quirk::kOowNackInfoPsn)) info = pkt.ch.psn;
    SendNack(pkt, wire::NackCode::kPsnOutOfWindow, info);
    return;
  }
  auto set_trigger = [&] {
    rx.last_psn = pkt.ch.psn;
    rx.last_ce = ce;
    rx.last_rtx = rtx;
    rx.last_arrival = now;
    rx.acked_since_arrival = false;
    if (ce && rx.ce_since_ack < 0xFFFF) ++rx.ce_since_ack;  // MROCE-ACK-004: saturating
    rx.ce_seen = rx.ce_seen || ce;
  };
  if (verdict == RxVerdict::kDuplicate) {
    // MROCE-DUP-001: not placed, no completion, acknowledged at once with trigger = its PSN.
    path.rx_counters.Add(PathRxCounter::kDupRx);
    if (c_.Quirk(Quirk::kDupRxUncounted)) path.rx_counters.Set(PathRxCounter::kDupRx, path.rx_counters.Get(PathRxCounter::kDupRx) - 1);
    if (rtx) path.rx_counters.Add(PathRxCounter::kDupRtxRx);
    set_trigger();
    if (c_.Quirk(Quirk::kDoubleCompletionOnDup) && pkt.ch.Has(wire::kFlagLast)) {
      // Deviation: the duplicate LAST packet completes its message a second time.
      for (const Completion& done : recent_) {
        if (done.stream == pkt.meh()->stream_id && done.msn == pkt.meh()->msn) {
          c_.PushCompletion(done);
          break;
        }
      }
    }
    if (!c_.Quirk(Quirk::kNoDupAck)) SendAck(pkt.ch.path_id, now);  // MROCE-ACK-007
    return;
  }
  const bool fills_gap = rx.HasGap();
  const Outcome outcome = Place(pkt, now);
  if (outcome != Outcome::kRecord) return;  // MROCE-ACK-001: a refused packet is not recorded
  if (!c_.paths_ || c_.state_ != ConnState::kEstablished) return;
  (void)rx.OnPacket(pkt.ch.psn);
  set_trigger();
  if (rx.first_unacked_at == kNever) rx.first_unacked_at = now;
  ++rx.unacked_packets;
  // MROCE-ACK-006 (AR), MROCE-ACK-007 (opens, extends or fills a gap), MROCE-ACK-008 (CE change).
  bool immediate = pkt.ch.Has(wire::kFlagAr) || verdict == RxVerdict::kOutOfOrder || fills_gap || ce_changed;
  // MROCE-ACK-009: every 4 recorded packets or 4 us after the oldest unacknowledged one.
  if (!c_.Quirk(Quirk::kNoAckCoalescingLimit)) immediate |= rx.unacked_packets >= spec::kAckEveryPackets;
  // MROCE-ACK-010 (MAY): acknowledge earlier, at most one ACK per arriving data packet.
  immediate |= c_.HasVariant(Variant::kAckEveryPacket) || (c_.HasVariant(Variant::kAckEvery2) && rx.unacked_packets >= 2);
  if (immediate) {
    SendAck(pkt.ch.path_id, now);
  } else if (!c_.Quirk(Quirk::kNoAckCoalescingLimit)) {
    path.ack_deadline = std::min(path.ack_deadline, rx.first_unacked_at + spec::kAckMaxDelay);
  }
}

Receiver::Outcome Receiver::Fatal(const wire::MetaPacket& pkt, wire::NackCode code, TimeNs now) {
  // MROCE-ERR-009: fatal NACK, then ERROR (receives flushed), DISCONNECT reason ERROR.
  SendNack(pkt, code, 0);
  wire::NackHeader n;
  n.code = code;
  n.stream_id = pkt.meh()->stream_id;
  n.msn = pkt.meh()->msn;
  c_.fatal_nack_ = n;
  c_.EnterError(now);
  return Outcome::kRefused;
}

Receiver::Outcome Receiver::Place(const wire::MetaPacket& pkt, TimeNs now) {
  const wire::MessageExt& meh = *pkt.meh();
  const Opcode op = pkt.ch.opcode;
  const uint32_t len = static_cast<uint32_t>(pkt.payload.size());
  // MROCE-ERR-002 order: stream id and message fields, stream window, rkey / permission / bounds,
  // receive posted, receive length.
  if (meh.stream_id >= c_.max_streams_) return Fatal(pkt, wire::NackCode::kInvalidRequest, now);  // MROCE-STRM-001
  const uint64_t end = static_cast<uint64_t>(meh.msg_offset) + len;
  bool bad_fields;
  if (op == Opcode::kReadReq) {
    bad_fields = meh.msg_len > spec::kMaxMessageBytes || meh.msg_offset != 0 || len != 0 ||
                 !pkt.ch.Has(wire::kFlagFirst) || !pkt.ch.Has(wire::kFlagLast);
  } else {
    // MROCE-STRM-008 and MROCE-HDR-006 (FIRST iff offset 0, LAST iff offset + len = msg_len).
    const bool last = end == meh.msg_len;
    bad_fields = meh.msg_len > spec::kMaxMessageBytes || end > meh.msg_len || meh.msg_offset % c_.mtu_ != 0 ||
                 len > c_.mtu_ || (!last && len != c_.mtu_) || pkt.ch.Has(wire::kFlagFirst) != (meh.msg_offset == 0) ||
                 pkt.ch.Has(wire::kFlagLast) != last;
  }
  if (bad_fields) return Fatal(pkt, wire::NackCode::kInvalidRequest, now);
  if (op == Opcode::kReadResp) {
    OutMessage* r = c_.sender_.FindRead(meh.stream_id, meh.msn);
    if (r == nullptr) {
      c_.counters_.Add(ConnCounter::kStaleMsgRx);  // MROCE-PLACE-011: recorded, not placed
      return Outcome::kRecord;
    }
    if (meh.msg_len != r->len) return Fatal(pkt, wire::NackCode::kInvalidRequest, now);  // MROCE-PLACE-011
    const uint32_t slot = static_cast<uint32_t>(r - c_.sender_.msgs_.data());
    if (r->len == 0) {
      c_.sender_.MessageDone(slot, CompletionStatus::kSuccess, now);
      return Outcome::kRecord;
    }
    const RangeVerdict v = r->acked.Add(meh.msg_offset, len, c_.mtu());
    if (v == RangeVerdict::kDuplicate) c_.counters_.Add(ConnCounter::kDupSegmentRx);  // MROCE-DUP-005
    if (v == RangeVerdict::kNew) std::memcpy(r->read_dst + meh.msg_offset, pkt.payload.data(), len);
    if (r->acked.Complete()) c_.sender_.MessageDone(slot, CompletionStatus::kSuccess, now);  // MROCE-CMPL-003
    return Outcome::kRecord;
  }
  StreamState& s = c_.streams_[meh.stream_id];
  const int32_t d = static_cast<int32_t>(meh.msn - s.base);
  if (d < 0) {
    // MROCE-DUP-004: below the stream base: recorded and acknowledged, never placed.
    c_.counters_.Add(ConnCounter::kStaleMsgRx);
    if (c_.Quirk(Quirk::kPlaceStalePacket) && (op == Opcode::kWrite || op == Opcode::kWriteImm)) {
      auto dst = c_.ctx_.mrs.Resolve(meh.rkey, meh.va + meh.msg_offset, len, kAccessRemoteWrite);
      if (dst.ok() && len > 0) std::memcpy(dst.value(), pkt.payload.data(), len);
    }
    return Outcome::kRecord;
  }
  if (static_cast<uint32_t>(d) >= kStreamWindow && !c_.Quirk(Quirk::kNoResourceLimit)) {
    SendNack(pkt, wire::NackCode::kResource, 0);  // MROCE-STRM-012
    return Outcome::kRefused;
  }
  auto it = s.in.find(meh.msn);
  if (it != s.in.end() && (it->second.complete || it->second.error)) {
    c_.counters_.Add(ConnCounter::kDupSegmentRx);  // MROCE-DUP-005: copy of a received segment
    return Outcome::kRecord;
  }
  uint8_t* dst = nullptr;
  const bool consumes_recv = op == Opcode::kSend || op == Opcode::kSendImm || op == Opcode::kWriteImm;
  if (op == Opcode::kWrite || op == Opcode::kWriteImm || op == Opcode::kReadReq) {
    // MROCE-PLACE-001: the whole message range on every packet, so a failure shows whichever
    // packet arrives first; no byte written or read on failure.
    const uint32_t need = op == Opcode::kReadReq ? kAccessRemoteRead : kAccessRemoteWrite;
    const bool skip = c_.Quirk(Quirk::kSkipRkeyBoundsCheck);
    auto r = c_.ctx_.mrs.Resolve(meh.rkey, meh.va, meh.msg_len, need, skip);
    if (!r.ok()) return Fatal(pkt, wire::NackCode::kRemoteAccess, now);
    if (skip) {
      // The quirk accepts a range outside the region (no NACK, the packet is acked as placed), but
      // the reference never writes or reads outside the memory it was given: such bytes are dropped.
      auto in = op == Opcode::kReadReq ? c_.ctx_.mrs.Resolve(meh.rkey, meh.va, meh.msg_len, need, false)
                                       : c_.ctx_.mrs.Resolve(meh.rkey, meh.va + meh.msg_offset, len, need, false);
      dst = in.ok() ? in.value() : nullptr;
      if (dst == nullptr && op == Opcode::kReadReq) return Outcome::kRecord;  // nothing readable to answer with
    } else {
      dst = r.value() + meh.msg_offset;
    }
  }
  const PostedRecv* recv = consumes_recv ? s.FindRecv(meh.recv_seq) : nullptr;
  if (consumes_recv && recv == nullptr) {
    if (c_.Quirk(Quirk::kDropSendWithoutRnr)) return Outcome::kDropped;
    // MROCE-RNR-001 / MROCE-PLACE-003 / MROCE-PLACE-006: NACK RNR, not placed, not recorded.
    c_.counters_.Add(ConnCounter::kRnrNackTx);
    SendNack(pkt, wire::NackCode::kRnr, std::clamp(c_.ctx_.config.rnr_delay_us, spec::kRnrDelayMinUs, spec::kRnrDelayMaxUs));
    return Outcome::kRefused;
  }
  if (op == Opcode::kSend || op == Opcode::kSendImm) {
    if (meh.msg_len > recv->length) {
      // MROCE-PLACE-005 / MROCE-ERR-009: the receive completes with LOC_LEN_ERR first.
      Completion c;
      c.wr_id = recv->wr_id;
      c.conn = c_.local_id_;
      c.stream = meh.stream_id;
      c.msn = meh.msn;
      c.op = CompletionOp::kRecv;
      c.status = CompletionStatus::kLocalLength;
      c_.PushCompletion(c);
      s.ConsumeRecv(meh.recv_seq);
      return Fatal(pkt, wire::NackCode::kInvalidRequest, now);
    }
    dst = recv->buffer + meh.msg_offset;
  }
  if (op == Opcode::kReadReq) {
    if (it != s.in.end()) return Outcome::kRecord;  // MROCE-PLACE-010: answered at most once
    if (c_.sender_.owed_read_responses() >= spec::kMaxOutstandingReads) {
      SendNack(pkt, wire::NackCode::kResource, 0);  // MROCE-PLACE-013
      return Outcome::kRefused;
    }
    // Owe a READ_RESP: an outbound message on our own paths echoing stream and msn (MROCE-PLACE-008).
    const uint32_t slot = c_.sender_.AllocMessage();
    OutMessage& m = c_.sender_.msgs_[slot];
    m.op = Opcode::kReadResp;
    m.is_read_resp = true;
    m.stream = meh.stream_id;
    m.msn = meh.msn;
    m.len = meh.msg_len;
    m.src = dst;
    m.acked = MessageReassembly(meh.msg_len);
    ++c_.sender_.owed_reads_;
    c_.sender_.ready_.push_back(slot);
  }
  if (it == s.in.end()) {
    InMessage fresh;
    fresh.op = op;
    fresh.ranges = MessageReassembly(op == Opcode::kReadReq ? 0 : meh.msg_len);
    fresh.recv_seq = meh.recv_seq;
    fresh.arrival_order = arrival_order_++;
    it = s.in.emplace(meh.msn, std::move(fresh)).first;
    if (c_.Quirk(Quirk::kHolBlockStreams)) hol_fifo_.emplace_back(meh.stream_id, meh.msn);
  }
  InMessage& m = it->second;
  if (op != Opcode::kReadReq && meh.msg_len > 0) {
    const RangeVerdict v = m.ranges.Add(meh.msg_offset, len, c_.mtu());
    if (v == RangeVerdict::kDuplicate) c_.counters_.Add(ConnCounter::kDupSegmentRx);  // MROCE-DUP-005
    // MROCE-PLACE-002 / MROCE-PLACE-004: placed on arrival, nothing outside its own range.
    if (v == RangeVerdict::kNew && len > 0 && dst != nullptr) std::memcpy(dst, pkt.payload.data(), len);
  }
  if (pkt.ch.Has(wire::kFlagImm)) {
    m.has_imm = true;
    m.imm = meh.imm;
  }
  if (m.ranges.Complete()) {
    m.complete = true;
    CompleteInbound(meh.stream_id, meh.msn, now);
  }
  return Outcome::kRecord;
}

void Receiver::CompleteInbound(uint16_t stream, Msn msn, TimeNs now) {
  c_.counters_.Add(ConnCounter::kXMessagesRx);
  StreamState& s = c_.streams_[stream];
  if (c_.Quirk(Quirk::kCompleteOutOfOrder)) {
    InMessage& m = s.in[msn];
    EmitRecvCompletion(stream, msn, m);  // deviation: no wait for earlier messages
    m.delivered = true;
  }
  DeliverInOrder(stream);
  (void)now;
}

void Receiver::DeliverInOrder(uint16_t stream) {
  if (c_.Quirk(Quirk::kHolBlockStreams)) {
    // Deviation: one connection-wide order of first arrival, across streams.
    while (!hol_fifo_.empty()) {
      const auto [st, msn] = hol_fifo_.front();
      StreamState& s = c_.streams_[st];
      auto it = s.in.find(msn);
      if (it == s.in.end()) {
        hol_fifo_.pop_front();
        continue;
      }
      if (!it->second.complete || s.base != msn) return;
      if (!it->second.delivered) EmitRecvCompletion(st, msn, it->second);
      s.in.erase(it);
      ++s.base;
      hol_fifo_.pop_front();
    }
    return;
  }
  // MROCE-CMPL-006 / MROCE-STRM-012: deliver and advance the base in msn order.
  StreamState& s = c_.streams_[stream];
  for (;;) {
    auto it = s.in.find(s.base);
    if (it == s.in.end() || !(it->second.complete || it->second.error)) return;
    if (!it->second.delivered) EmitRecvCompletion(stream, s.base, it->second);
    s.in.erase(it);
    ++s.base;
  }
}

void Receiver::EmitRecvCompletion(uint16_t stream, Msn msn, InMessage& m) {
  if (m.op != Opcode::kSend && m.op != Opcode::kSendImm && m.op != Opcode::kWriteImm) return;
  StreamState& s = c_.streams_[stream];
  const PostedRecv* recv = s.FindRecv(m.recv_seq);
  if (recv == nullptr) return;
  Completion c;
  c.wr_id = recv->wr_id;
  c.conn = c_.local_id_;
  c.stream = stream;
  c.msn = msn;
  c.op = m.op == Opcode::kWriteImm ? CompletionOp::kRecvWriteImm : CompletionOp::kRecv;
  c.byte_len = m.ranges.msg_len();  // MROCE-PLACE-007 / MROCE-CMPL-009: msg_len, imm
  c.has_imm = m.has_imm;
  c.imm = m.imm;
  s.ConsumeRecv(m.recv_seq);
  c_.PushCompletion(c);
  recent_.push_back(c);
  if (recent_.size() > 16) recent_.pop_front();
}

void Receiver::SendAck(int pi, TimeNs now) {
  Path& path = (*c_.paths_)[pi];
  ReceiveWindow& rx = path.rx;
  // MROCE-ACK-009: never an ACK for a path with no data arrival since its previous ACK.
  if (rx.acked_since_arrival) {
    path.ack_deadline = kNever;
    return;
  }
  wire::MetaPacket pkt;
  pkt.ch.opcode = Opcode::kAck;
  pkt.ch.dst_conn_id = c_.peer_id_;
  pkt.ch.path_id = path.id;        // MROCE-ACK-003
  pkt.ch.path_epoch = rx.epoch();
  pkt.ch.psn = 0;
  const bool echo_ce = !c_.Quirk(Quirk::kNoCeEcho);
  pkt.ch.Set(wire::kFlagEce, echo_ce && rx.last_ce);  // MROCE-ACK-004
  if (echo_ce && rx.ce_seen && c_.Quirk(Quirk::kEceOnEveryAck)) pkt.ch.Set(wire::kFlagEce);  // deviation
  pkt.ch.Set(wire::kFlagTrtx, rx.last_rtx);
  wire::AckHeader a;
  a.epsn = rx.epsn();
  a.trigger_psn = rx.last_psn;
  if (c_.Quirk(Quirk::kTriggerPsnIsEpsn)) a.trigger_psn = rx.epsn();  // deviation
  a.rate_hint = c_.ctx_.rate_hints.HintFor(c_.local_id_, now);  // MROCE-ACK-005 / HINT-001 / HINT-003
  a.ce_count = echo_ce ? rx.ce_since_ack : 0;
  if (c_.Quirk(Quirk::kCeCountDoubled)) a.ce_count = static_cast<uint16_t>(std::min(0xFFFF, 2 * a.ce_count));
  const TimeNs held = rx.last_arrival == kNever ? 0 : std::max<TimeNs>(0, now - rx.last_arrival);
  const TimeNs unit = c_.Quirk(Quirk::kAckDelayUnitsUs) ? kMicrosecond : spec::kAckDelayUnit;
  a.ack_delay = static_cast<uint16_t>(std::min<TimeNs>(held / unit, 0xFFFF));
  const int shift = c_.Quirk(Quirk::kSackOffByOne) ? 1 : 0;  // deviation: bit i = epsn + i
  for (int i = 0; i + shift < 256; ++i) {
    if (rx.sack().test(static_cast<size_t>(i))) a.SetSackBit(i + shift);  // MROCE-HDR-013
  }
  pkt.ext = a;
  rx.unacked_packets = 0;
  rx.ce_since_ack = 0;
  rx.first_unacked_at = kNever;
  rx.acked_since_arrival = true;
  path.ack_deadline = kNever;
  path.rx_counters.Add(PathRxCounter::kAcksTx);
  c_.counters_.Add(ConnCounter::kRateHintTx);  // MROCE-HINT-004
  if (c_.Quirk(Quirk::kRateHintTxUncounted)) c_.counters_.Set(ConnCounter::kRateHintTx, c_.counters_.Get(ConnCounter::kRateHintTx) - 1);
  c_.counters_.Set(ConnCounter::kRateHintLastTxMbps, a.rate_hint);
  const Path& route = (*c_.paths_)[AckRoute(pi)];
  c_.Emit(std::move(pkt), route.id, route.plane);
}

void Receiver::SendNack(const wire::MetaPacket& in, wire::NackCode code, uint32_t info) {
  // MROCE-ERR-001: path id and epoch of the refused packet, its PSN, its stream and msn (0 for
  // PSN_OUT_OF_WINDOW), on the path MROCE-ACK-011 chooses.
  wire::MetaPacket pkt;
  pkt.ch.opcode = Opcode::kNack;
  pkt.ch.dst_conn_id = c_.peer_id_;
  pkt.ch.path_id = in.ch.path_id;
  pkt.ch.path_epoch = in.ch.path_epoch;
  wire::NackHeader n;
  n.code = code;
  n.psn = in.ch.psn;
  const wire::MessageExt* meh = in.meh();
  if (meh != nullptr && code != wire::NackCode::kPsnOutOfWindow && code != wire::NackCode::kInvalidConn) {
    n.stream_id = meh->stream_id;
    n.msn = meh->msn;
  }
  n.info = info;
  pkt.ext = n;
  c_.counters_.Add(ConnCounter::kNackTx);  // MROCE-ERR-004
  c_.counters_.Add(NackTxCounter(static_cast<uint8_t>(code)));
  const Path& route = (*c_.paths_)[AckRoute(in.ch.path_id)];
  c_.Emit(std::move(pkt), route.id, route.plane);
}

void Receiver::OnProbe(const wire::MetaPacket& pkt, TimeNs now) {
  Path& path = (*c_.paths_)[pkt.ch.path_id];
  const wire::ProbeHeader* prh = pkt.prh();
  if (prh == nullptr) return;
  const int8_t diff = static_cast<int8_t>(pkt.ch.path_epoch - path.rx.epoch());
  if (diff < 0) {
    path.counters.Add(PathCounter::kStaleEpochRx);  // MROCE-PATH-019 (table 17.3: PROBE of another epoch)
    return;
  }
  if (diff > 1 && !c_.Quirk(Quirk::kAcceptEpochJump)) {
    // MROCE-PATH-019 (v0.2 epoch window): a conformant sender's PROBE is of the receiver's epoch or
    // the next one; a PROBE further ahead is forged or corrupt and must not move the path.
    path.rx_counters.Add(PathRxCounter::kBadEpochRx);
    return;
  }
  path.rx_counters.Add(PathRxCounter::kProbesRx);
  if (diff > 0) {
    path.rx.Reset(pkt.ch.psn, pkt.ch.path_epoch);  // MROCE-PATH-019: new epoch, epsn = CH.psn
    path.ack_deadline = kNever;
  }
  wire::MetaPacket ack;
  ack.ch.opcode = Opcode::kProbeAck;
  ack.ch.dst_conn_id = c_.peer_id_;
  ack.ch.path_id = pkt.ch.path_id;
  ack.ch.path_epoch = pkt.ch.path_epoch;
  ack.ch.psn = 0;
  ack.ext = *prh;  // MROCE-PATH-020: probe_seq and tx_time echoed unchanged
  if (c_.Quirk(Quirk::kProbeAckTxTimeZero)) ack.prh()->tx_time = 0;
  c_.Emit(std::move(ack), path.id, path.plane);
  (void)now;
}

void Receiver::OnTimer(TimeNs now) {
  for (int pi = 0; pi < c_.paths_->size(); ++pi) {
    if ((*c_.paths_)[pi].ack_deadline <= now) SendAck(pi, now);
  }
}

TimeNs Receiver::NextDeadline() const {
  TimeNs d = kNever;
  for (const Path& p : c_.paths_->paths()) d = std::min(d, p.ack_deadline);
  return d;
}

}  // namespace mroce::ref
