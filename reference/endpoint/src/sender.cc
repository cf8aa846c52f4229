// Sender: segmentation, spraying, retransmission, fail-over, probing (chapters 6, 7, 9, 10, 12, 16).
#include <algorithm>
#include <cstring>

#include "mroce/endpoint/connection.h"

namespace mroce::ref {

using wire::Opcode;

namespace {
bool CarriesPayload(const OutMessage& m) { return m.is_read_resp || m.op != Opcode::kReadReq; }

// MROCE-PLACE-013: 64 (deviation reads_outstanding_65: 65).
uint32_t MaxReads(const Connection& c) { return spec::kMaxOutstandingReads + (c.Quirk(Quirk::kReadsOutstanding65) ? 1 : 0); }

// MROCE-LOSS-008: 7 (deviation retry_limit_eight: 8).
int RetryLimit(const Connection& c) { return spec::kRetryLimit + (c.Quirk(Quirk::kRetryLimitEight) ? 1 : 0); }

CompletionOp OpOf(const OutMessage& m) {
  if (m.op == Opcode::kReadReq) return CompletionOp::kRead;
  if (m.op == Opcode::kSend || m.op == Opcode::kSendImm) return CompletionOp::kSend;
  return CompletionOp::kWrite;
}
}  // namespace

uint32_t Sender::SegmentOffset(const OutMessage& m) const {
  if (!CarriesPayload(m) || m.len == 0) return m.next_offset;
  const uint32_t mtu = c_.mtu_;
  const uint32_t segments = (m.len + mtu - 1) / mtu;
  const uint32_t k = m.segments_sent;  // the k-th segment sent, 0-based
  if (c_.HasVariant(Variant::kSegmentsReverse)) return (segments - 1 - k) * mtu;
  if (c_.HasVariant(Variant::kSegmentsOddFirst)) {
    const uint32_t odd = segments / 2;  // segments 1, 3, 5, ...
    return (k < odd ? 2 * k + 1 : 2 * (k - odd)) * mtu;
  }
  return m.next_offset;
}

uint64_t Sender::ProbeClockOffset() const { return c_.HasVariant(Variant::kProbeClockOffset) ? uint64_t{1} << 40 : 0; }

uint32_t Sender::AllocMessage() {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(msgs_.size());
    msgs_.emplace_back();
  }
  const uint32_t gen = msgs_[slot].gen + 1;
  msgs_[slot] = OutMessage{};
  msgs_[slot].gen = gen;
  msgs_[slot].live = true;
  return slot;
}

void Sender::FreeMessage(uint32_t slot) {
  OutMessage& m = msgs_[slot];
  if (!m.live) return;
  if (m.is_read_resp && owed_reads_ > 0) --owed_reads_;
  if (m.read_counted && reads_in_flight_ > 0) --reads_in_flight_;
  m.live = false;
  m.read_counted = false;
  m.acked = MessageReassembly(0);
  ++m.gen;
  free_slots_.push_back(slot);
}

bool Sender::HasWork() const {
  if (!resend_.empty() || !ready_.empty()) return true;
  for (const Path& p : c_.paths_->paths()) {
    if ((!p.lost.empty() || !p.released.empty()) && p.machine.CarriesRetransmissions()) return true;
  }
  return false;
}

bool Sender::HasOutstandingRequests() const {
  for (const OutMessage& m : msgs_) {
    if (m.live && !m.is_read_resp) return true;
  }
  return false;
}

OutMessage* Sender::FindRead(uint16_t stream, Msn msn) {
  if (stream >= c_.streams_.size()) return nullptr;
  for (uint32_t slot : c_.streams_[stream].out_order) {
    OutMessage& m = msgs_[slot];
    if (m.live && !m.done && m.op == Opcode::kReadReq && m.msn == msn) return &m;
  }
  return nullptr;
}

void Sender::ApplyPathEvent(int path, PathEvent ev, TimeNs now) {
  Path& p = (*c_.paths_)[path];
  auto t = p.machine.Apply(ev);
  if (!t.ok()) return;  // undeclared pair: the caller never feeds one; state unchanged
  if (t->changed()) p.counters.Add(PathCounter::kPathStateChanges);  // MROCE-PATH-010
  (void)now;
}

void Sender::ArmRto(Path& path, TimeNs now) {
  // MROCE-RTO-005: the timer runs while some unacknowledged PSN is not held.
  path.rto_deadline = path.board.HasUnheldOutstanding() ? now + path.rtt.rto() : kNever;
}

void Sender::Pump(TimeNs now) {
  if (!c_.established() || !c_.paths_) return;
  pacer_blocked_ = false;
  for (int guard = 0; guard < 1 << 20; ++guard) {
    if (!c_.established()) return;
    if (!HasWork()) return;
    // MROCE-LOSS-004 / MROCE-HINT-005: retransmissions and new data alike obey the rate limit.
    if (!c_.cc_->PacerAllows(now)) {
      pacer_blocked_ = true;
      pacer_wake_at_ = c_.cc_->NextSendTime(now);
      return;
    }
    if (SendOneRetransmission(now)) continue;
    if (SendNewOrResend(now)) continue;
    return;
  }
}

bool Sender::SendOneRetransmission(TimeNs now) {
  // MROCE-LOSS-004: a path's pending retransmissions go before any new data on it; they are not
  // limited by cwnd.
  for (int pi = 0; pi < c_.paths_->size(); ++pi) {
    Path& path = (*c_.paths_)[pi];
    if (!path.machine.CarriesRetransmissions()) continue;
    // Ended RNR / RESOURCE holds (MROCE-RNR-005, MROCE-ERR-006): same path, same PSN, RTX and AR;
    // they count against the RNR / RESOURCE limits, not the loss retry limit (MROCE-RNR-006).
    while (!path.released.empty()) {
      const Psn psn = path.released.front();
      path.released.erase(path.released.begin());
      SentPacket* sp = path.board.FindMutable(psn);
      if (sp == nullptr || sp->acked || !sp->lost) continue;
      const PacketRef ref = sp->ref;
      if (!msgs_[ref.msg_slot].live || msgs_[ref.msg_slot].gen != ref.msg_gen) {
        path.board.Abandon(psn);
        continue;
      }
      const Counts counts{sp->rtx_count, sp->rnr_count, sp->resource_count};
      (void)path.board.OnRetransmitted(psn, now);
      SendDataPacket(pi, ref, true, psn, counts, now);
      return true;
    }
    while (!path.lost.empty()) {
      const Psn psn = path.lost.front();
      path.lost.erase(path.lost.begin());
      SentPacket* sp = path.board.FindMutable(psn);
      if (sp == nullptr) continue;
      const PacketRef ref = sp->ref;
      const OutMessage& m = msgs_[ref.msg_slot];
      if (!m.live || m.gen != ref.msg_gen) {
        path.board.Abandon(psn);  // message already finished (a copy of this packet was acked)
        continue;
      }
      if (sp->acked) {
        if (!c_.Quirk(Quirk::kGoBackN)) continue;
        // Deviation (go_back_n): resend an acknowledged PSN too.
        SendDataPacket(pi, ref, true, psn, Counts{sp->rtx_count, sp->rnr_count, sp->resource_count}, now);
        return true;
      }
      if (!sp->lost) continue;  // acknowledged or held meanwhile
      if (sp->rtx_count >= RetryLimit(c_) && !c_.Quirk(Quirk::kRetryForever)) {
        MessageDone(ref.msg_slot, CompletionStatus::kRetryExceeded, now);  // MROCE-LOSS-008
        return false;
      }
      Counts counts_now{static_cast<uint8_t>(std::min(255, sp->rtx_count + 1)), sp->rnr_count, sp->resource_count};
      if (c_.Quirk(Quirk::kRetransmitOtherPath) || c_.Quirk(Quirk::kRetransmitNewPsn)) {
        // Deviation: the lost content leaves under a new PSN (possibly on another path).
        path.board.Abandon(psn);
        if (c_.Quirk(Quirk::kRetransmitNewPsn) && path.board.HasRoom() && path.machine.CarriesNewData()) {
          SendDataPacket(pi, ref, true, std::nullopt, counts_now, now);
          return true;
        }
        resend_.push_front(Resend{ref, counts_now, static_cast<uint8_t>(pi)});
        return false;
      }
      sp->rtx_count = counts_now.rtx;
      (void)path.board.OnRetransmitted(psn, now);
      SendDataPacket(pi, ref, true, psn, counts_now, now);  // MROCE-LOSS-002: same path, same PSN
      return true;
    }
  }
  return false;
}

bool Sender::StreamHeld(const OutMessage& m) const {
  // MROCE-RNR-008: while a PSN of stream s with recv_seq r is held by RNR, no new packets of
  // messages of s with recv_seq above r.
  if (m.is_read_resp) return false;
  if (m.op != Opcode::kSend && m.op != Opcode::kSendImm && m.op != Opcode::kWriteImm) return false;
  const StreamState& s = c_.streams_[m.stream];
  return s.rnr_held > 0 && static_cast<int32_t>(m.recv_seq - s.rnr_recv_seq) > 0;
}

bool Sender::SendNewOrResend(TimeNs now) {
  uint32_t payload = 0;
  int exclude = -1;  // retransmit_other_path quirk: the path the content was lost on
  auto eligible = [this, &payload, &exclude](const Path& p) {
    if (c_.Quirk(Quirk::kSinglePath) && p.id != 0) return false;
    if (p.id == exclude) return false;
    if (!p.machine.CarriesNewData()) return false;  // MROCE-PATH-011
    if (!p.board.HasRoom()) return false;  // MROCE-PATH-007
    return c_.cc_->WindowAllows(p.id, p.board.inflight_bytes(), payload);  // MROCE-CC-003
  };
  auto available = [this](const Path& p) -> int64_t {
    return static_cast<int64_t>(c_.cc_->cwnd_bytes(p.id)) - static_cast<int64_t>(p.board.inflight_bytes());
  };
  // Re-sends of failed-over packets first (MROCE-PATH-014): they are the oldest data.
  while (!resend_.empty()) {
    const Resend r = resend_.front();
    const OutMessage& m = msgs_[r.ref.msg_slot];
    if (!m.live || m.gen != r.ref.msg_gen || m.done) {
      resend_.pop_front();
      continue;
    }
    if (CarriesPayload(m) && m.len > 0 && m.acked.Contains(r.ref.offset, r.ref.length)) {
      resend_.pop_front();  // acknowledged through another copy meanwhile
      continue;
    }
    if (r.counts.rtx > RetryLimit(c_) && !c_.Quirk(Quirk::kRetryForever)) {
      resend_.pop_front();
      MessageDone(r.ref.msg_slot, CompletionStatus::kRetryExceeded, now);  // MROCE-LOSS-008
      return false;
    }
    payload = r.ref.length;
    exclude = c_.Quirk(Quirk::kRetransmitOtherPath) && c_.paths_->size() > 1 ? r.from_path : -1;
    std::optional<int> path;
    if (c_.HasVariant(Variant::kResendHighestPath)) {
      // Choice resend-path: any other ACTIVE path with room (MROCE-PATH-014); here the highest.
      for (int p = c_.paths_->size() - 1; p >= 0 && !path; --p) {
        if (eligible((*c_.paths_)[p])) path = p;
      }
    } else {
      path = c_.paths_->Pick(eligible, available);
    }
    exclude = -1;
    if (!path) return false;  // MROCE-PATH-015: wait for an ACTIVE path
    resend_.pop_front();
    if (r.from_path != *path) (*c_.paths_)[r.from_path].counters.Add(PathCounter::kFailoverResends);
    SendDataPacket(*path, r.ref, true, std::nullopt, r.counts, now);
    return true;
  }
  // New data, one packet per message in turn so streams interleave (MROCE-STRM-013).
  const size_t n = ready_.size();
  for (size_t k = 0; k < n; ++k) {
    const uint32_t slot = ready_.front();
    ready_.pop_front();
    OutMessage& m = msgs_[slot];
    if (!m.live || m.all_segments_sent || m.done) continue;
    bool wait = false;
    if (m.is_read_resp) {
      // MROCE-PLACE-009: READ_RESP of msn m only once the stream base passed m.
      wait = static_cast<int32_t>(c_.streams_[m.stream].base - m.msn) <= 0;
    } else {
      // MROCE-STRM-011: msn - lowest incomplete msn of the stream < 1024.
      const auto& order = c_.streams_[m.stream].out_order;
      wait = !order.empty() && m.msn - msgs_[order.front()].msn >= kStreamWindow;
      // MROCE-PLACE-013: at most 64 READs outstanding per connection.
      wait |= m.op == Opcode::kReadReq && !m.read_counted && reads_in_flight_ >= MaxReads(c_);
      wait |= StreamHeld(m);
    }
    if (wait) {
      ready_.push_back(slot);
      continue;
    }
    PacketRef ref;
    ref.msg_slot = slot;
    ref.msg_gen = m.gen;
    ref.offset = SegmentOffset(m);  // MROCE-STRM-009: segments in any order (variants)
    ref.length = CarriesPayload(m) ? static_cast<uint16_t>(std::min<uint32_t>(c_.mtu_, m.len - ref.offset)) : 0;
    payload = ref.length;
    const auto path = c_.paths_->Pick(eligible, available);
    if (!path) {
      ready_.push_front(slot);
      return false;
    }
    m.next_offset += ref.length;
    ++m.segments_sent;
    if (m.next_offset >= m.len || !CarriesPayload(m)) m.all_segments_sent = true;
    if (!m.all_segments_sent) {
      if (c_.HasVariant(Variant::kMessageAtATime)) {
        ready_.push_front(slot);
      } else {
        ready_.push_back(slot);
      }
    }
    if (m.op == Opcode::kReadReq && !m.is_read_resp && !m.read_counted) {
      m.read_counted = true;
      ++reads_in_flight_;
    }
    SendDataPacket(*path, ref, false, std::nullopt, Counts{}, now);
    return true;
  }
  return false;
}

void Sender::SendDataPacket(int pi, const PacketRef& ref, bool rtx, std::optional<Psn> psn, Counts counts,
                            TimeNs now) {
  Path& path = (*c_.paths_)[pi];
  const OutMessage& m = msgs_[ref.msg_slot];
  const Opcode op = m.is_read_resp ? Opcode::kReadResp : m.op;
  const uint32_t ip_bytes = c_.DataIpLength(ref.length);
  const bool was_idle = !path.board.HasUnheldOutstanding();
  Psn use_psn;
  if (psn) {
    use_psn = *psn;
  } else {
    use_psn = path.board.OnSent(now, ref);
    if (SentPacket* sp = path.board.FindMutable(use_psn)) {
      sp->rtx_count = counts.rtx;  // MROCE-LOSS-010: the content keeps its retry counts
      sp->rnr_count = counts.rnr;
      sp->resource_count = counts.resource;
    }
  }
  wire::MetaPacket pkt;
  pkt.ch.opcode = op;
  pkt.ch.dst_conn_id = c_.peer_id_;
  pkt.ch.path_id = path.id;
  pkt.ch.path_epoch = path.epoch;
  pkt.ch.psn = use_psn;
  const bool last = (op == Opcode::kReadReq) || ref.offset + ref.length >= m.len;
  pkt.ch.Set(wire::kFlagFirst, ref.offset == 0);  // MROCE-HDR-006
  if (c_.Quirk(Quirk::kFirstOnEverySegment)) pkt.ch.Set(wire::kFlagFirst);  // deviation
  pkt.ch.Set(wire::kFlagLast, last);
  pkt.ch.Set(wire::kFlagRtx, rtx);
  const bool imm = m.has_imm && (op == Opcode::kWriteImm || op == Opcode::kSendImm);
  pkt.ch.Set(wire::kFlagImm, imm);
  if (op == Opcode::kWrite && c_.Quirk(Quirk::kImmFlagOnWrite)) pkt.ch.Set(wire::kFlagImm);  // deviation
  // MROCE-ACK-014: AR on the last packet of a message, on every retransmission and re-send, and on
  // a new packet after which the path's window has no room (PSN - snd_una = 255, or bytes in
  // flight reaching cwnd; a full-MTU packet no longer fitting is included, MROCE-ACK-015).
  const uint64_t inflight = path.board.inflight_bytes();
  const bool window_full = (!path.board.HasRoom() || inflight + c_.mtu_ > c_.cc_->cwnd_bytes(pi)) &&
                           !c_.Quirk(Quirk::kArOnlyOnLast);  // deviation: no AR on a full window
  pkt.ch.Set(wire::kFlagAr, last || rtx || window_full || c_.HasVariant(Variant::kArEveryPacket));
  // MROCE-HDR-008 (MAY): SE on every packet of a SEND, SEND_IMM or WRITE_IMM message.
  pkt.ch.Set(wire::kFlagSe, c_.HasVariant(Variant::kSeOnMessages) &&
                                (op == Opcode::kSend || op == Opcode::kSendImm || op == Opcode::kWriteImm));
  wire::MessageExt meh;
  meh.stream_id = m.stream;
  meh.msn = m.msn;
  meh.msg_len = m.len;
  meh.msg_offset = ref.offset;
  if (op == Opcode::kSend || op == Opcode::kSendImm || op == Opcode::kWriteImm) meh.recv_seq = m.recv_seq;
  if (imm) meh.imm = m.imm;
  if (op == Opcode::kWrite || op == Opcode::kWriteImm || op == Opcode::kReadReq) {
    meh.rkey = m.rkey;
    meh.va = m.remote_va;
  }
  pkt.ext = meh;
  if (ref.length > 0 && m.src != nullptr) pkt.payload.assign(m.src + ref.offset, m.src + ref.offset + ref.length);
  path.counters.Add(PathCounter::kTxPkts);
  path.counters.Add(PathCounter::kTxBytes, ip_bytes);
  c_.counters_.Add(ConnCounter::kTxPkts);
  c_.counters_.Add(ConnCounter::kTxBytes, ip_bytes);
  if (rtx) {
    path.counters.Add(PathCounter::kRetransmits);  // MROCE-LOSS-005, MROCE-PATH-014
    c_.counters_.Add(ConnCounter::kRetransmits);
  }
  // MROCE-RTO-005: start the timer when a packet leaves while nothing was outstanding.
  if (was_idle || path.rto_deadline == kNever) path.rto_deadline = now + path.rtt.rto();
  c_.cc_->OnPacketSent(ip_bytes, now);
  c_.Emit(std::move(pkt), path.id, path.plane);
}

void Sender::CreditBytes(const PacketRef& ref, TimeNs now) {
  if (ref.msg_slot >= msgs_.size()) return;
  OutMessage& m = msgs_[ref.msg_slot];
  if (!m.live || m.gen != ref.msg_gen || m.done) return;
  if (m.op == Opcode::kReadReq && !m.is_read_resp) return;  // a READ completes on its response
  // MROCE-CMPL-002: SUCCESS once every packet of the message is acknowledged.
  if (m.len == 0) {
    MessageDone(ref.msg_slot, CompletionStatus::kSuccess, now);
    return;
  }
  (void)m.acked.Add(ref.offset, ref.length, c_.mtu());
  if (m.acked.Complete()) MessageDone(ref.msg_slot, CompletionStatus::kSuccess, now);
}

void Sender::MessageDone(uint32_t slot, CompletionStatus status, TimeNs now) {
  OutMessage& m = msgs_[slot];
  if (!m.live || m.done) return;
  m.done = true;
  m.status = status;
  if (status != CompletionStatus::kSuccess) {
    // MROCE-CMPL-011: the failing work request completes with its own status first, then the
    // connection enters ERROR and everything else is flushed.
    if (!m.is_read_resp) {
      Completion c;
      c.wr_id = m.wr_id;
      c.conn = c_.local_id_;
      c.stream = m.stream;
      if (c_.Quirk(Quirk::kFatalCompletionStreamZero)) c.stream = 0;  // deviation
      c.msn = m.msn;
      c.op = OpOf(m);
      c.status = status;
      c_.PushCompletion(c);
      auto& order = c_.streams_[m.stream].out_order;
      order.erase(std::remove(order.begin(), order.end(), slot), order.end());
    }
    FreeMessage(slot);
    c_.EnterError(now);
    return;
  }
  if (m.is_read_resp) {
    FreeMessage(slot);
    return;
  }
  if (m.read_counted && reads_in_flight_ > 0) --reads_in_flight_;
  m.read_counted = false;
  DeliverSendCompletions(m.stream);
  c_.MaybeFinishClose(now);
}

void Sender::DeliverSendCompletions(uint16_t stream) {
  auto& order = c_.streams_[stream].out_order;
  const bool any_order = c_.Quirk(Quirk::kCompleteOutOfOrder);
  for (auto it = order.begin(); it != order.end();) {
    OutMessage& m = msgs_[*it];
    if (!m.done) {
      if (!any_order) break;  // MROCE-CMPL-006: msn order per stream
      ++it;
      continue;
    }
    Completion c;
    c.wr_id = m.wr_id;
    c.conn = c_.local_id_;
    c.stream = m.stream;
    c.msn = m.msn;
    c.op = OpOf(m);
    c.status = m.status;
    c.byte_len = m.len;
    c_.PushCompletion(c);
    FreeMessage(*it);
    it = order.erase(it);
  }
}

void Sender::ApplyHint(const wire::AckHeader& a, TimeNs now) {
  // MROCE-HINT-005 / MROCE-HINT-007: the latest hint, from any path or epoch, counted when used.
  c_.cc_->OnRateHint(a.rate_hint, now);
  c_.counters_.Add(ConnCounter::kRateHintRx);
  c_.counters_.Set(ConnCounter::kRateHintLastRxMbps, a.rate_hint == 0 ? 1 : a.rate_hint);
}

void Sender::OnAck(const wire::MetaPacket& pkt, TimeNs now) {
  const int pi = pkt.ch.path_id;
  Path& path = (*c_.paths_)[pi];
  const wire::AckHeader* a = pkt.ack();
  if (a == nullptr) return;
  path.counters.Add(PathCounter::kAcksRx);
  // MROCE-PATH-009: another epoch; MROCE-PATH-014: a FAILED / PROBING path ignores ACKs of the
  // old epoch. Either way only the rate hint is taken (MROCE-HINT-005: any path, any epoch).
  if (pkt.ch.path_epoch != path.epoch || path.machine.Probes()) {
    path.counters.Add(PathCounter::kStaleEpochRx);
    ApplyHint(*a, now);
    return;
  }
  std::bitset<256> sack;
  for (int i = 0; i < 256; ++i) {
    if (a->SackBit(i)) sack.set(static_cast<size_t>(i));
  }
  AckOutcome out = path.board.OnAck(a->epsn, sack, a->trigger_psn, pkt.ch.Has(wire::kFlagTrtx));
  if (!out.valid) {
    path.counters.Add(PathCounter::kBadAckRx);  // MROCE-ACK-013: dropped, hint not used
    return;
  }
  ApplyHint(*a, now);
  const bool congestion = pkt.ch.Has(wire::kFlagEce) || a->ce_count > 0;
  if (congestion) path.counters.Add(PathCounter::kEceRx);
  // MROCE-PATH-005 (MAY): re-roll an ACTIVE path's entropy after ECN marks, at most once per SRTT.
  if (congestion && c_.HasVariant(Variant::kRerollOnEce) && path.machine.state() == PathState::kActive &&
      path.rtt.has_sample() && (path.optional_reroll_at == kNever || now - path.optional_reroll_at >= path.rtt.srtt())) {
    c_.paths_->Reroll(pi);
    path.optional_reroll_at = now;
  }
  TimeNs max_acked_sent = 0;
  for (const AckedPacket& ap : out.newly_acked) {
    max_acked_sent = std::max(max_acked_sent, ap.pkt.time);
    CreditBytes(ap.pkt.ref, now);
    if (!c_.established()) return;
  }
  // MROCE-RTO-001: R = now - t_send - 64 ns * ack_delay, at least 1 us.
  if (out.rtt_sent_at != kNever) path.rtt.OnSample(now - out.rtt_sent_at, TimeNs{a->ack_delay} * spec::kAckDelayUnit);
  const TimeNs srtt = path.rtt.has_sample() ? path.rtt.srtt() : 0;
  if (c_.cc_->OnAck(pi, out.acked_payload, congestion, srtt, now)) path.counters.Add(PathCounter::kCwndDecreases);
  if (out.progress) {
    ApplyPathEvent(pi, PathEvent::kAckProgress, now);  // rows 1 and 3 of table 7.6
    ArmRto(path, now);  // MROCE-RTO-005: restart on ACK progress
  }
  if (c_.Quirk(Quirk::kReorderIsLoss) && max_acked_sent > 0) {
    // Deviation: connection-wide send order, so cross-path reordering is taken as loss.
    for (int q = 0; q < c_.paths_->size(); ++q) {
      if (q == pi || !(*c_.paths_)[q].machine.CarriesRetransmissions()) continue;
      OnLost(q, (*c_.paths_)[q].board.LoseSentBefore(max_acked_sent), now);
    }
  }
  OnLost(pi, out.newly_lost, now);
}

void Sender::OnLost(int pi, const std::vector<Psn>& lost, TimeNs now) {
  if (lost.empty()) return;
  Path& path = (*c_.paths_)[pi];
  path.counters.Add(PathCounter::kLossInferred, lost.size());  // MROCE-LOSS-005
  const TimeNs srtt = path.rtt.has_sample() ? path.rtt.srtt() : 0;
  if (c_.cc_->OnLoss(pi, srtt, now)) path.counters.Add(PathCounter::kCwndDecreases);  // MROCE-CC-005
  if (c_.Quirk(Quirk::kGoBackN)) {
    const Psn first = *std::min_element(lost.begin(), lost.end(), [](Psn a, Psn b) { return PsnLt(a, b); });
    for (Psn psn : path.board.From(first)) {
      if (SentPacket* sp = path.board.FindMutable(psn); sp != nullptr && !sp->acked && !sp->held) sp->lost = 1;
      path.lost.push_back(psn);
    }
    return;
  }
  if (c_.Quirk(Quirk::kRetransmitAllAfterGap)) {
    for (Psn psn : path.board.Unacked()) {
      if (SentPacket* sp = path.board.FindMutable(psn); sp != nullptr && !sp->held) sp->lost = 1;
      path.lost.push_back(psn);
    }
    return;
  }
  // MROCE-LOSS-002: exactly these PSNs; in any order (choice retransmit-order), ascending unless
  // the variant retransmit_descending.
  if (c_.HasVariant(Variant::kRetransmitDescending)) {
    std::vector<Psn> order(lost.begin(), lost.end());
    std::sort(order.begin(), order.end(), [](Psn a, Psn b) { return PsnLt(b, a); });
    for (Psn psn : order) path.lost.push_back(psn);
    return;
  }
  for (Psn psn : lost) path.lost.push_back(psn);
}

void Sender::OnRto(int pi, TimeNs now) {
  Path& path = (*c_.paths_)[pi];
  // MROCE-RTO-006: double the RTO, every unacknowledged PSN lost, cwnd = 1 MTU, lowest PSN first,
  // count rto_events, then the path state machine (table 7.6 rows 2, 4, 5).
  path.counters.Add(PathCounter::kRtoEvents);
  path.rtt.Backoff();
  if (c_.cc_->OnRto(pi, now)) path.counters.Add(PathCounter::kCwndDecreases);  // MROCE-CC-006
  const std::vector<Psn> newly = path.board.OnRto();
  path.counters.Add(PathCounter::kLossInferred, newly.size());
  ApplyPathEvent(pi, PathEvent::kRto, now);
  if (path.machine.state() == PathState::kFailed) {
    FailOver(pi, now);
    return;
  }
  if (!c_.Quirk(Quirk::kNoEntropyChange)) c_.paths_->Reroll(pi);  // MROCE-PATH-004
  path.lost.clear();
  for (Psn psn : path.board.Unacked()) {
    const SentPacket* sp = path.board.Find(psn);
    if (sp != nullptr && sp->lost) path.lost.push_back(psn);  // ascending: lowest first
  }
  ArmRto(path, now);
}

void Sender::FailOver(int pi, TimeNs now) {
  Path& path = (*c_.paths_)[pi];
  // MROCE-PATH-014: every unacknowledged PSN is abandoned and its content re-sent on other ACTIVE
  // paths with new PSNs and RTX; each re-send counts against the content's retry limit.
  // A held PSN's content is re-sent at once (the failure ends its hold) or, with the legal variant
  // hold_through_failover, when its hold ends (MROCE-RNR-005, table 19.3 hold-at-failover).
  for (Psn psn : path.board.Unacked()) {
    const SentPacket* sp = path.board.Find(psn);
    Counts counts{static_cast<uint8_t>(std::min(255, sp->rtx_count + 1)), sp->rnr_count, sp->resource_count};
    if (sp->held && sp->time > now && c_.HasVariant(Variant::kHoldThroughFailover)) {
      held_resend_.emplace_back(sp->time, Resend{sp->ref, counts, static_cast<uint8_t>(pi)});
      continue;  // the stream stays held too (MROCE-RNR-008)
    }
    if (sp->held && msgs_[sp->ref.msg_slot].live) ReleaseStreamHold(sp->ref);
    resend_.push_back(Resend{sp->ref, counts, static_cast<uint8_t>(pi)});
  }
  const Psn next = path.board.snd_nxt();
  path.board.Reset(next);
  path.lost.clear();
  path.released.clear();
  path.rto_deadline = kNever;
  path.next_epoch = static_cast<uint8_t>(path.epoch + (c_.Quirk(Quirk::kProbeEpochSkip) ? 2 : 1));  // rows 5, 6 of table 7.6
  path.probe_psn = next;  // 7.8: the new epoch continues the PSN sequence
  path.rtt.Reset();       // MROCE-RTO-002: the first sample after reintroduction sets SRTT
  // MROCE-PATH-022: a path failing again within 100 ms of its reintroduction needs twice as many
  // PROBE_ACKs (3, 6, 12, 24).
  if (path.reintroduced_at != kNever && now - path.reintroduced_at < spec::kReintroduceDampingWindow) {
    path.machine.set_reintroduce_after(std::min(path.machine.reintroduce_after() * 2, spec::kReintroduceAfterProbeAcksMax));
  } else {
    path.machine.set_reintroduce_after(c_.ReintroduceAfterBase());  // ACTIVE for 100 ms: back to 3 (or 4)
  }
  if (!c_.Quirk(Quirk::kNoEntropyChange)) c_.paths_->Reroll(pi);
  if (!c_.Quirk(Quirk::kNeverReintroducePath) && !path.link_down) SendProbe(pi, now);  // MROCE-PATH-016
}

void Sender::OnPlaneLink(uint8_t plane, bool up, TimeNs now) {
  if (!c_.paths_) return;
  for (int pi = 0; pi < c_.paths_->size(); ++pi) {
    Path& path = (*c_.paths_)[pi];
    if (path.plane != plane || path.link_down == !up) continue;
    const PathState before = path.machine.state();
    if (!up) {
      path.link_down = true;
      ApplyPathEvent(pi, PathEvent::kPlaneDown, now);  // rows 6 and 12
      if (before == PathState::kActive || before == PathState::kSuspect) FailOver(pi, now);  // row 6, no PROBE
      // Row 12: no probing until the link is up; a PROBE outstanding is given up.
      path.probe_outstanding = false;
      path.probe_deadline = kNever;
      path.next_probe_at = kNever;
    } else {
      path.link_down = false;
      if (path.machine.state() != PathState::kFailed) continue;
      ApplyPathEvent(pi, PathEvent::kPlaneUp, now);  // row 7: re-roll, PROBE with probe_seq + 1
      if (!c_.Quirk(Quirk::kNoEntropyChange)) c_.paths_->Reroll(pi);
      if (!c_.Quirk(Quirk::kNeverReintroducePath)) SendProbe(pi, now);
    }
  }
  Pump(now);
}

void Sender::SendProbe(int pi, TimeNs now) {
  Path& path = (*c_.paths_)[pi];
  ++path.probe_seq;
  if (c_.Quirk(Quirk::kProbeSeqStuck)) path.probe_seq = 1;  // deviation: every PROBE carries 1
  wire::MetaPacket pkt;
  pkt.ch.opcode = Opcode::kProbe;
  pkt.ch.dst_conn_id = c_.peer_id_;
  pkt.ch.path_id = path.id;
  pkt.ch.path_epoch = path.next_epoch;
  pkt.ch.psn = path.probe_psn;
  wire::ProbeHeader prh;
  prh.probe_seq = path.probe_seq;
  prh.tx_time = static_cast<uint64_t>(now) + ProbeClockOffset();  // HDR-016: opaque to the receiver
  pkt.ext = prh;
  path.probe_outstanding = true;
  path.probe_deadline = now + kProbeTimeout;
  path.next_probe_at = kNever;
  path.counters.Add(PathCounter::kProbesTx);
  c_.Emit(std::move(pkt), path.id, path.plane);  // MROCE-PATH-021: not paced, not in cwnd
}

void Sender::OnProbeAck(const wire::MetaPacket& pkt, TimeNs now) {
  const int pi = pkt.ch.path_id;
  Path& path = (*c_.paths_)[pi];
  const wire::ProbeHeader* prh = pkt.prh();
  if (prh == nullptr) return;
  if (!path.machine.Probes() || !path.probe_outstanding || pkt.ch.path_epoch != path.next_epoch ||
      prh->probe_seq != path.probe_seq) {
    if (pkt.ch.path_epoch != path.next_epoch) path.counters.Add(PathCounter::kStaleEpochRx);
    return;  // not a matching PROBE_ACK (7.6)
  }
  path.counters.Add(PathCounter::kProbeAcksRx);
  path.probe_outstanding = false;
  path.probe_deadline = kNever;
  path.rtt.OnSample(now - static_cast<TimeNs>(prh->tx_time - ProbeClockOffset()));  // MROCE-RTO-001
  ApplyPathEvent(pi, PathEvent::kProbeAck, now);
  if (path.machine.state() == PathState::kActive) {
    Reintroduce(pi, now);
  } else {
    path.next_probe_at = now + kProbeInterval;
  }
}

void Sender::Reintroduce(int pi, TimeNs now) {
  Path& path = (*c_.paths_)[pi];
  // MROCE-PATH-018.
  path.epoch = path.next_epoch;
  path.board.Reset(path.probe_psn);
  path.lost.clear();
  path.released.clear();
  path.rto_deadline = kNever;
  path.next_probe_at = kNever;
  path.reintroduced_at = now;
  c_.cc_->ResetPath(pi);
  path.counters.Add(PathCounter::kReintroductions);
}

void Sender::ReleaseStreamHold(const PacketRef& ref) {
  StreamState& s = c_.streams_[msgs_[ref.msg_slot].stream];
  if (s.rnr_held > 0) --s.rnr_held;
}

void Sender::OnTimer(TimeNs now) {
  // hold_through_failover: holds of failed paths' content that ended join the re-sends.
  for (size_t i = 0; i < held_resend_.size();) {
    if (held_resend_[i].first > now) {
      ++i;
      continue;
    }
    const Resend r = held_resend_[i].second;
    held_resend_.erase(held_resend_.begin() + static_cast<std::ptrdiff_t>(i));
    if (msgs_[r.ref.msg_slot].live && msgs_[r.ref.msg_slot].gen == r.ref.msg_gen) ReleaseStreamHold(r.ref);
    c_.counters_.Add(ConnCounter::kXRnrHoldsEnded);
    resend_.push_back(r);
  }
  for (int pi = 0; pi < c_.paths_->size(); ++pi) {
    Path& path = (*c_.paths_)[pi];
    // RNR / RESOURCE holds that ended: retransmit on the same path, same PSN (MROCE-RNR-005).
    if (path.board.held_count() > 0) {
      const std::vector<Psn> released = path.board.ReleaseHolds(now);
      for (Psn psn : released) {
        const SentPacket* sp = path.board.Find(psn);
        if (sp != nullptr && msgs_[sp->ref.msg_slot].live && msgs_[sp->ref.msg_slot].gen == sp->ref.msg_gen) {
          ReleaseStreamHold(sp->ref);
        }
        c_.counters_.Add(ConnCounter::kXRnrHoldsEnded);
      }
      path.released.insert(path.released.end(), released.begin(), released.end());
      if (!released.empty() && path.rto_deadline == kNever) ArmRto(path, now);
    }
    if (path.rto_deadline <= now) {
      path.rto_deadline = kNever;
      if (path.machine.CarriesRetransmissions() && path.board.HasUnheldOutstanding()) OnRto(pi, now);
      if (!c_.established()) return;
    }
    if (path.probe_deadline <= now) {
      path.probe_deadline = kNever;
      path.probe_outstanding = false;
      path.counters.Add(PathCounter::kProbeTimeouts);
      ApplyPathEvent(pi, PathEvent::kProbeTimeout, now);  // rows 7 and 11
      if (!c_.Quirk(Quirk::kNoEntropyChange)) c_.paths_->Reroll(pi);  // MROCE-PATH-004
      SendProbe(pi, now);
    }
    if (path.next_probe_at <= now) SendProbe(pi, now);
  }
}

TimeNs Sender::NextDeadline() const {
  TimeNs d = kNever;
  for (const Path& p : c_.paths_->paths()) {
    d = std::min({d, p.rto_deadline, p.probe_deadline, p.next_probe_at, p.board.NextHoldEnd()});
  }
  if (pacer_blocked_) d = std::min(d, pacer_wake_at_);
  for (const auto& h : held_resend_) d = std::min(d, h.first);
  return d;
}

void Sender::OnInvalidConnNack(const wire::MetaPacket& pkt, TimeNs now) {
  // MROCE-DUP-008: act only when the NAKH psn is outstanding on the named path and epoch.
  const wire::NackHeader* n = pkt.nack();
  c_.counters_.Add(ConnCounter::kNackRx);
  c_.counters_.Add(NackRxCounter(0x02));
  if (n == nullptr || pkt.ch.path_id >= c_.paths_->size()) return;
  Path& path = (*c_.paths_)[pkt.ch.path_id];
  const SentPacket* sp = path.board.Find(n->psn);
  if (pkt.ch.path_epoch != path.epoch || sp == nullptr || sp->acked) {
    path.counters.Add(PathCounter::kStaleNackRx);
    return;
  }
  c_.AbortByPeer(now);  // MROCE-ERR-008
}

void Sender::OnNack(const wire::MetaPacket& pkt, TimeNs now) {
  const int pi = pkt.ch.path_id;
  Path& path = (*c_.paths_)[pi];
  const wire::NackHeader* n = pkt.nack();
  if (n == nullptr) return;
  const uint8_t code = static_cast<uint8_t>(n->code);
  c_.counters_.Add(ConnCounter::kNackRx);  // MROCE-ERR-004
  if (code < 0x01 || code > 0x07) {
    c_.counters_.Add(ConnCounter::kUnknownNackRx);  // MROCE-ERR-003: no other effect
    return;
  }
  c_.counters_.Add(NackRxCounter(code));
  if (n->code == wire::NackCode::kRnr) c_.counters_.Add(ConnCounter::kRnrNackRx);  // MROCE-RNR-009
  if (n->code == wire::NackCode::kInvalidConn) {
    // Reached through our own id (not the peer's): not a valid INVALID_CONN (MROCE-DUP-008).
    path.counters.Add(PathCounter::kStaleNackRx);
    return;
  }
  if (pkt.ch.path_epoch != path.epoch || path.machine.Probes()) {
    path.counters.Add(PathCounter::kStaleEpochRx);  // MROCE-PATH-009
    return;
  }
  SentPacket* sp = path.board.FindMutable(n->psn);
  const bool outstanding = sp != nullptr && !sp->acked && msgs_[sp->ref.msg_slot].live &&
                           msgs_[sp->ref.msg_slot].gen == sp->ref.msg_gen;
  if (!outstanding) {
    path.counters.Add(PathCounter::kStaleNackRx);  // MROCE-RNR-007
    return;
  }
  const uint32_t slot = sp->ref.msg_slot;
  switch (n->code) {
    case wire::NackCode::kPsnOutOfWindow:
      // MROCE-ERR-005: deem the PSN lost and retransmit it (counts against the retry limit).
      if (path.board.MarkLost(n->psn)) {
        path.counters.Add(PathCounter::kLossInferred);
        path.lost.push_back(n->psn);
      }
      return;
    case wire::NackCode::kRnr:
    case wire::NackCode::kResource: {
      if (sp->held) return;  // MROCE-DUP-002: a copy of the same NACK changes nothing
      const bool rnr = n->code == wire::NackCode::kRnr;
      uint8_t& count = rnr ? sp->rnr_count : sp->resource_count;
      if (count < 255) ++count;
      const uint8_t limit = rnr ? spec::kRnrRetryLimit : spec::kResourceRetryLimit;
      if (count > limit && !c_.Quirk(Quirk::kRetryForever)) {
        // MROCE-RNR-006 / MROCE-ERR-006: the eighth NACK for the same content.
        MessageDone(slot, rnr ? CompletionStatus::kRnrRetryExceeded : CompletionStatus::kResource, now);
        return;
      }
      // MROCE-RNR-005: hold for info us (at least 1 us); RESOURCE: for the path's RTO.
      TimeNs delay = rnr ? std::max<TimeNs>(1, n->info) * kMicrosecond : path.rtt.rto();
      if (rnr && c_.HasVariant(Variant::kRnrHoldDouble)) delay *= 2;  // "at least info" microseconds
      if (rnr && c_.Quirk(Quirk::kRnrHoldTenfold)) delay *= 10;       // beyond 2 x info + 100 us
      (void)path.board.Hold(n->psn, now + delay);
      path.lost.erase(std::remove(path.lost.begin(), path.lost.end(), n->psn), path.lost.end());
      if (rnr) {
        StreamState& s = c_.streams_[msgs_[slot].stream];
        const uint32_t rs = msgs_[slot].recv_seq;
        if (s.rnr_held == 0 || static_cast<int32_t>(rs - s.rnr_recv_seq) < 0) s.rnr_recv_seq = rs;
        ++s.rnr_held;
      }
      ArmRto(path, now);  // held PSNs do not run the timer
      return;
    }
    case wire::NackCode::kRemoteAccess:
      MessageDone(slot, CompletionStatus::kRemoteAccess, now);  // MROCE-ERR-007
      return;
    case wire::NackCode::kInvalidRequest:
      MessageDone(slot, CompletionStatus::kRemoteInvalid, now);
      return;
    default:
      MessageDone(slot, CompletionStatus::kRemoteOpError, now);
      return;
  }
}

}  // namespace mroce::ref
