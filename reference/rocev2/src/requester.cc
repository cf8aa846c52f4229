#include "mroce/rocev2/requester.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "mroce/rocev2/aeth_syndrome.h"
#include "mroce/rocev2/roce_framer.h"

namespace mroce::rocev2 {

using wire::RoceOpcode;

namespace {

// PSNs outstanding are kept well inside half the 24-bit space so serial comparison stays valid.
constexpr int32_t kMaxPsnSpan = 1 << 22;

RoceOpcode DataOpcode(WrOpcode op, uint32_t off, uint32_t npkts) {
  const bool send = op == WrOpcode::kSend;
  if (npkts == 1) return send ? RoceOpcode::kSendOnly : RoceOpcode::kWriteOnly;
  if (off == 0) return send ? RoceOpcode::kSendFirst : RoceOpcode::kWriteFirst;
  if (off + 1 == npkts) return send ? RoceOpcode::kSendLast : RoceOpcode::kWriteLast;
  return send ? RoceOpcode::kSendMiddle : RoceOpcode::kWriteMiddle;
}

CompletionOp CompletionOpOf(WrOpcode op) {
  switch (op) {
    case WrOpcode::kSend: return CompletionOp::kSend;
    case WrOpcode::kWrite: return CompletionOp::kWrite;
    case WrOpcode::kRead: return CompletionOp::kRead;
  }
  return CompletionOp::kSend;
}

}  // namespace

Requester::Requester(const QpConfig& cfg, Qpn local_qpn, QpEnv env)
    : cfg_(cfg),
      local_qpn_(local_qpn),
      env_(env),
      una_(cfg.initial_psn & kPsnMask),
      next_psn_(una_),
      high_psn_(una_),
      alloc_psn_(una_),
      retry_left_(cfg.retry_cnt),
      rnr_left_(cfg.rnr_retry) {}

void Requester::Connect(Qpn remote_qpn) { remote_qpn_ = remote_qpn; }

uint32_t Requester::PacketsFor(uint32_t length) const {
  return length == 0 ? 1 : (length + cfg_.path_mtu - 1) / cfg_.path_mtu;
}

Status Requester::Post(const SendWr& wr) {
  if (error_) return MakeError("qp.state", "QP is in the error state");
  if (sq_.size() >= cfg_.max_send_wr) {
    return MakeError("limit.send_queue", "send queue full (" + std::to_string(cfg_.max_send_wr) + ")");
  }
  SendWqe w;
  w.wr_id = wr.wr_id;
  w.opcode = wr.opcode;
  w.length = wr.local.length;
  w.remote_addr = wr.remote_addr;
  w.rkey = wr.rkey;
  if (wr.local.length > 0) {
    const uint32_t access = wr.opcode == WrOpcode::kRead ? uint32_t{kAccessLocalWrite} : 0u;
    auto p = env_.mrs->Resolve(wr.local.lkey, wr.local.addr, wr.local.length, access);
    if (!p.ok()) return p.error();
    w.local = *p;
  }
  w.npkts = PacketsFor(w.length);
  if (PsnDiff(PsnAdd(alloc_psn_, w.npkts), una_) >= kMaxPsnSpan) {
    return MakeError("limit.psn_space", "too many PSNs outstanding");
  }
  w.first_psn = alloc_psn_;
  alloc_psn_ = PsnAdd(alloc_psn_, w.npkts);
  sq_.push_back(w);
  return OkStatus();
}

const Requester::SendWqe* Requester::Find(Psn psn) const {
  for (const SendWqe& w : sq_) {
    const int32_t off = PsnDiff(psn, w.first_psn);
    if (off >= 0 && static_cast<uint32_t>(off) < w.npkts) return &w;
  }
  return nullptr;
}

bool Requester::HasPacketToSend() const {
  return !error_ && rnr_until_ == kNever && PsnLt(next_psn_, alloc_psn_) &&
         PsnDiff(next_psn_, una_) < static_cast<int32_t>(cfg_.window_pkts);
}

wire::RocePacket Requester::NextPacket(TimeNs now) {
  const Psn p = next_psn_;
  const SendWqe* w = Find(p);
  wire::RocePacket pkt;
  pkt.bth.dest_qp = remote_qpn_;
  pkt.bth.psn = p;
  pkt.bth.pkey = cfg_.pkey;
  if (w == nullptr) return pkt;  // Unreachable while HasPacketToSend() holds.
  const uint32_t off = static_cast<uint32_t>(PsnDiff(p, w->first_psn));
  const uint64_t byte_off = uint64_t{off} * cfg_.path_mtu;
  if (w->opcode == WrOpcode::kRead) {
    // A READ request occupies one PSN per response packet. Re-sent from inside its range (some
    // responses arrived) it asks only for the rest, at the matching offset and PSN.
    pkt.bth.opcode = RoceOpcode::kReadRequest;
    pkt.reth = wire::Reth{w->remote_addr + byte_off, w->rkey, static_cast<uint32_t>(w->length - byte_off)};
    next_psn_ = PsnAdd(w->first_psn, w->npkts);
  } else {
    pkt.bth.opcode = DataOpcode(w->opcode, off, w->npkts);
    const uint32_t len = std::min<uint32_t>(cfg_.path_mtu, static_cast<uint32_t>(w->length - byte_off));
    RoceFramer::SetPaddedPayload(pkt, std::span<const uint8_t>(w->local == nullptr ? nullptr : w->local + byte_off, len));
    if (w->opcode == WrOpcode::kWrite && off == 0) pkt.reth = wire::Reth{w->remote_addr, w->rkey, w->length};
    next_psn_ = PsnAdd(p, 1);
    pkt.bth.ack_req = off + 1 == w->npkts ||
                      PsnDiff(next_psn_, una_) >= static_cast<int32_t>(cfg_.window_pkts);
  }
  if (PsnLt(p, high_psn_)) env_.counters->Add(Counter::kRetransmits);
  if (PsnGt(next_psn_, high_psn_)) high_psn_ = next_psn_;
  if (ack_deadline_ == kNever) ack_deadline_ = now + cfg_.ack_timeout_ns;
  return pkt;
}

void Requester::OnProgress(TimeNs now) {
  retry_left_ = cfg_.retry_cnt;
  rnr_left_ = cfg_.rnr_retry;
  episode_open_ = false;
  if (PsnLt(next_psn_, una_)) next_psn_ = una_;
  ack_deadline_ = PsnLt(una_, next_psn_) ? now + cfg_.ack_timeout_ns : kNever;
}

bool Requester::AckBefore(Psn target, TimeNs now) {
  bool progressed = false;
  while (PsnLt(una_, target) && !sq_.empty()) {
    const SendWqe& w = sq_.front();
    if (w.opcode == WrOpcode::kRead) break;  // acknowledged only by its responses
    const Psn end = PsnAdd(w.first_psn, w.npkts);
    if (PsnLe(end, target)) {
      una_ = end;
      Complete(w, CompletionStatus::kSuccess);
      sq_.pop_front();
    } else {
      una_ = target;
    }
    progressed = true;
  }
  if (progressed) OnProgress(now);
  return !PsnLt(una_, target);
}

void Requester::GoBackN(Psn psn, TimeNs now) {
  next_psn_ = psn;
  episode_open_ = true;
  episode_psn_ = psn;
  ack_deadline_ = kNever;  // re-armed by the first packet re-sent
}

void Requester::RetryFrom(Psn psn, TimeNs now) {
  if (retry_left_ == 0) {
    FailFront(CompletionStatus::kRetryExceeded);
    return;
  }
  --retry_left_;
  GoBackN(psn, now);
}

void Requester::OnAck(const wire::RocePacket& pkt, TimeNs now) {
  if (error_ || !pkt.aeth) return;
  const Psn psn = pkt.bth.psn;
  const uint8_t syndrome = pkt.aeth->syndrome;
  switch (KindOf(syndrome)) {
    case SyndromeKind::kAck: {
      env_.counters->Add(Counter::kAcksRx);
      // An ACK names the last PSN it acknowledges: valid in [una_-1, high_psn_-1].
      if (PsnLt(psn, PsnAdd(una_, -1)) || !PsnLt(psn, high_psn_)) return;
      if (!AckBefore(PsnAdd(psn, 1), now) && !(episode_open_ && episode_psn_ == una_)) {
        // The responder is past a READ whose responses never arrived.
        env_.counters->Add(Counter::kImpliedNaks);
        RetryFrom(una_, now);
      }
      return;
    }
    case SyndromeKind::kRnrNak: {
      env_.counters->Add(Counter::kNaksRx);
      env_.counters->Add(Counter::kRnrNaksRx);
      if (PsnLt(psn, una_) || !PsnLt(psn, high_psn_)) return;
      AckBefore(psn, now);
      if (cfg_.rnr_retry != 7) {  // 7 = retry forever
        if (rnr_left_ == 0) {
          FailFront(CompletionStatus::kRnrRetryExceeded);
          return;
        }
        --rnr_left_;
      }
      env_.counters->Add(Counter::kRnrRetries);
      rnr_until_ = now + RnrTimerNs(RnrTimerCode(syndrome));
      next_psn_ = una_;
      ack_deadline_ = kNever;  // the ACK timer does not run during an RNR wait
      episode_open_ = false;
      return;
    }
    case SyndromeKind::kNak: {
      env_.counters->Add(Counter::kNaksRx);
      if (PsnLt(psn, una_) || !PsnLt(psn, high_psn_)) return;
      AckBefore(psn, now);
      switch (syndrome) {
        case kNakPsnSequenceError:
          env_.counters->Add(Counter::kSeqNaksRx);
          RetryFrom(una_, now);
          return;
        case kNakInvalidRequest: FailFront(CompletionStatus::kRemoteInvalid); return;
        case kNakRemoteAccessError: FailFront(CompletionStatus::kRemoteAccess); return;
        default: FailFront(CompletionStatus::kRemoteOpError); return;
      }
    }
    case SyndromeKind::kReserved: return;
  }
}

void Requester::OnReadResponse(const wire::RocePacket& pkt, TimeNs now) {
  if (error_) return;
  const Psn p = pkt.bth.psn;
  if (PsnLt(p, una_)) {
    env_.counters->Add(Counter::kDupRx);
    return;
  }
  if (!PsnLt(p, high_psn_)) return;  // never requested
  if (!AckBefore(p, now)) {
    // Responses before p are missing: go back to the first missing one, once per episode.
    if (!(episode_open_ && episode_psn_ == una_)) {
      env_.counters->Add(Counter::kImpliedNaks);
      RetryFrom(una_, now);
    }
    return;
  }
  if (sq_.empty() || sq_.front().opcode != WrOpcode::kRead) return;  // response to no READ
  const SendWqe& w = sq_.front();
  const uint32_t off = static_cast<uint32_t>(PsnDiff(p, w.first_psn));
  const uint64_t byte_off = uint64_t{off} * cfg_.path_mtu;
  const uint32_t want = std::min<uint32_t>(cfg_.path_mtu, static_cast<uint32_t>(w.length - byte_off));
  const auto data = RoceFramer::UnpaddedPayload(pkt);
  const bool last = off + 1 == w.npkts;
  const bool last_opcode = pkt.bth.opcode == RoceOpcode::kReadResponseLast ||
                           pkt.bth.opcode == RoceOpcode::kReadResponseOnly;
  if (data.size() != want || last != last_opcode) return;  // malformed: ignored, timer recovers
  if (want > 0) std::memcpy(w.local + byte_off, data.data(), want);
  una_ = PsnAdd(p, 1);
  if (last) {
    Complete(w, CompletionStatus::kSuccess);
    sq_.pop_front();
  }
  OnProgress(now);
}

TimeNs Requester::NextDeadline() const { return std::min(ack_deadline_, rnr_until_); }

void Requester::OnTimer(TimeNs now) {
  if (error_) return;
  if (rnr_until_ <= now) rnr_until_ = kNever;  // resume sending from next_psn_
  if (ack_deadline_ <= now) {
    env_.counters->Add(Counter::kTimeouts);
    ack_deadline_ = kNever;
    RetryFrom(una_, now);
  }
}

void Requester::Complete(const SendWqe& w, CompletionStatus status) {
  Completion c;
  c.wr_id = w.wr_id;
  c.qpn = local_qpn_;
  c.op = CompletionOpOf(w.opcode);
  c.status = status;
  c.byte_len = status == CompletionStatus::kSuccess ? w.length : 0;
  env_.cq->Push(c);
  env_.counters->Add(Counter::kCompletions);
  if (status == CompletionStatus::kSuccess) {
    env_.counters->Add(Counter::kMessagesTx);
  } else {
    env_.counters->Add(Counter::kErrorCompletions);
  }
}

void Requester::FailFront(CompletionStatus status) {
  if (!sq_.empty()) {
    Complete(sq_.front(), status);
    sq_.pop_front();
  }
  EnterError();
}

void Requester::EnterError() {
  error_ = true;
  ack_deadline_ = kNever;
  rnr_until_ = kNever;
  for (const SendWqe& w : sq_) Complete(w, CompletionStatus::kFlushed);
  sq_.clear();
}

size_t Requester::StateBytes() const { return sizeof(*this) + sq_.size() * sizeof(SendWqe); }

}  // namespace mroce::rocev2
