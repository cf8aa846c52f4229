#include "mroce/rocev2/responder.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "mroce/rocev2/aeth_syndrome.h"
#include "mroce/rocev2/roce_framer.h"

namespace mroce::rocev2 {

using wire::RoceOpcode;

namespace {
constexpr uint32_t kMsnMask = 0xFFFFFF;
}  // namespace

Responder::Responder(const QpConfig& cfg, Qpn local_qpn, QpEnv env)
    : cfg_(cfg), local_qpn_(local_qpn), env_(env) {}

void Responder::Connect(Qpn remote_qpn, Psn remote_initial_psn) {
  remote_qpn_ = remote_qpn;
  epsn_ = remote_initial_psn & kPsnMask;
}

uint32_t Responder::PacketsFor(uint32_t length) const {
  return length == 0 ? 1 : (length + cfg_.path_mtu - 1) / cfg_.path_mtu;
}

Status Responder::PostRecv(const RecvWr& wr) {
  if (error_) return MakeError("qp.state", "QP is in the error state");
  if (rq_.size() >= cfg_.max_recv_wr) {
    return MakeError("limit.recv_queue", "receive queue full (" + std::to_string(cfg_.max_recv_wr) + ")");
  }
  RecvWqe r;
  r.wr_id = wr.wr_id;
  r.length = wr.local.length;
  if (wr.local.length > 0) {
    auto p = env_.mrs->Resolve(wr.local.lkey, wr.local.addr, wr.local.length, kAccessLocalWrite);
    if (!p.ok()) return p.error();
    r.local = *p;
  }
  rq_.push_back(r);
  return OkStatus();
}

void Responder::QueueAck(Psn psn) {
  unacked_pkts_ = 0;
  if (!out_.empty() && !out_.back().is_read && KindOf(out_.back().syndrome) == SyndromeKind::kAck) {
    out_.back().psn = psn;  // coalesce: a newer cumulative ACK replaces one not yet sent
    out_.back().msn = msn_;
    return;
  }
  OutItem a;
  a.psn = psn;
  a.syndrome = kSyndromeAck;
  a.msn = msn_;
  out_.push_back(a);
}

void Responder::QueueNak(uint8_t syndrome, Psn psn) {
  OutItem n;
  n.psn = psn;
  n.syndrome = syndrome;
  n.msn = msn_;
  out_.push_back(n);
}

void Responder::Fail(uint8_t nak_syndrome, Psn psn) {
  QueueNak(nak_syndrome, psn);
  // Queued output (earlier ACKs, the NAK) still leaves; nothing more is accepted.
  error_ = true;
  auto flush = [&](const RecvWqe& r) {
    env_.cq->Push(Completion{r.wr_id, local_qpn_, CompletionOp::kRecv, CompletionStatus::kFlushed, 0});
    env_.counters->Add(Counter::kCompletions);
    env_.counters->Add(Counter::kErrorCompletions);
  };
  if (in_msg_ == InMessage::kSend) flush(cur_recv_);
  in_msg_ = InMessage::kNone;
  for (const RecvWqe& r : rq_) flush(r);
  rq_.clear();
}

void Responder::EnterError() {
  if (error_) return;
  out_.clear();
  Fail(0, 0);
  out_.clear();  // no NAK for a failure that started on the requester side
}

void Responder::OnDuplicate(const wire::RocePacket& pkt) {
  env_.counters->Add(Counter::kDupRx);
  if (pkt.bth.opcode == RoceOpcode::kReadRequest && pkt.reth) {
    // The responses were lost (or are still in flight): execute the READ again from its PSN.
    const uint32_t len = pkt.reth->dma_len;
    const uint8_t* src = nullptr;
    if (len > 0) {
      auto p = env_.mrs->Resolve(pkt.reth->rkey, pkt.reth->va, len, kAccessRemoteRead);
      if (!p.ok()) return;
      src = *p;
    }
    const uint32_t npkts = PacketsFor(len);
    if (PsnGt(PsnAdd(pkt.bth.psn, npkts), epsn_)) return;  // claims PSNs never accepted
    OutItem r;
    r.is_read = true;
    r.psn = pkt.bth.psn;
    r.msn = msn_;
    r.src = src;
    r.length = len;
    r.npkts = npkts;
    out_.push_back(r);
    return;
  }
  QueueAck(PsnAdd(epsn_, -1));
}

void Responder::OnRequest(const wire::RocePacket& pkt, TimeNs now) {
  if (error_) return;
  const Psn p = pkt.bth.psn;
  const int32_t d = PsnDiff(p, epsn_);
  if (d < 0) {
    OnDuplicate(pkt);
    return;
  }
  if (d > 0) {
    env_.counters->Add(Counter::kOutOfSeqRx);
    if (!nak_episode_) {
      QueueNak(kNakPsnSequenceError, epsn_);
      nak_episode_ = true;
    }
    return;
  }
  nak_episode_ = false;
  const auto data = RoceFramer::UnpaddedPayload(pkt);
  const uint32_t size = static_cast<uint32_t>(data.size());
  const uint32_t mtu = cfg_.path_mtu;
  const RoceOpcode op = pkt.bth.opcode;
  bool message_done = false;

  switch (op) {
    case RoceOpcode::kSendFirst:
    case RoceOpcode::kSendOnly: {
      if (in_msg_ != InMessage::kNone) return Fail(kNakInvalidRequest, p);
      if (op == RoceOpcode::kSendFirst ? size != mtu : size > mtu) return Fail(kNakInvalidRequest, p);
      if (rq_.empty()) {
        QueueNak(RnrNakSyndrome(cfg_.min_rnr_timer), p);
        nak_episode_ = true;  // drop what follows until the requester re-sends p
        return;
      }
      cur_recv_ = rq_.front();
      rq_.pop_front();
      in_msg_ = InMessage::kSend;
      msg_off_ = 0;
      [[fallthrough]];
    }
    case RoceOpcode::kSendMiddle:
    case RoceOpcode::kSendLast: {
      if (in_msg_ != InMessage::kSend) return Fail(kNakInvalidRequest, p);
      if (op == RoceOpcode::kSendMiddle ? size != mtu : size > mtu) return Fail(kNakInvalidRequest, p);
      if (uint64_t{msg_off_} + size > cur_recv_.length) {
        env_.cq->Push(Completion{cur_recv_.wr_id, local_qpn_, CompletionOp::kRecv,
                                 CompletionStatus::kLocalLength, 0});
        env_.counters->Add(Counter::kCompletions);
        env_.counters->Add(Counter::kErrorCompletions);
        in_msg_ = InMessage::kNone;
        return Fail(kNakInvalidRequest, p);
      }
      if (size > 0) std::memcpy(cur_recv_.local + msg_off_, data.data(), size);
      msg_off_ += size;
      if (op == RoceOpcode::kSendLast || op == RoceOpcode::kSendOnly) {
        env_.cq->Push(Completion{cur_recv_.wr_id, local_qpn_, CompletionOp::kRecv,
                                 CompletionStatus::kSuccess, msg_off_});
        env_.counters->Add(Counter::kCompletions);
        message_done = true;
      }
      break;
    }
    case RoceOpcode::kWriteFirst:
    case RoceOpcode::kWriteOnly: {
      if (in_msg_ != InMessage::kNone || !pkt.reth) return Fail(kNakInvalidRequest, p);
      const uint32_t len = pkt.reth->dma_len;
      dst_ = nullptr;
      if (len > 0) {
        auto r = env_.mrs->Resolve(pkt.reth->rkey, pkt.reth->va, len, kAccessRemoteWrite);
        if (!r.ok()) {
          env_.counters->Add(Counter::kRemoteAccessErrors);
          return Fail(kNakRemoteAccessError, p);
        }
        dst_ = *r;
      }
      const bool ok = op == RoceOpcode::kWriteOnly ? size == len : (size == mtu && len > mtu);
      if (!ok) return Fail(kNakInvalidRequest, p);
      in_msg_ = InMessage::kWrite;
      msg_len_ = len;
      msg_off_ = 0;
      [[fallthrough]];
    }
    case RoceOpcode::kWriteMiddle:
    case RoceOpcode::kWriteLast: {
      if (in_msg_ != InMessage::kWrite) return Fail(kNakInvalidRequest, p);
      const uint64_t end = uint64_t{msg_off_} + size;
      const bool ok = op == RoceOpcode::kWriteMiddle ? (size == mtu && end < msg_len_)
                      : op == RoceOpcode::kWriteLast ? (size <= mtu && end == msg_len_)
                                                     : true;
      if (!ok) return Fail(kNakInvalidRequest, p);
      if (size > 0) std::memcpy(dst_ + msg_off_, data.data(), size);
      msg_off_ += size;
      message_done = op == RoceOpcode::kWriteLast || op == RoceOpcode::kWriteOnly;
      break;
    }
    case RoceOpcode::kReadRequest: {
      if (in_msg_ != InMessage::kNone || !pkt.reth) return Fail(kNakInvalidRequest, p);
      const uint32_t len = pkt.reth->dma_len;
      const uint8_t* src = nullptr;
      if (len > 0) {
        auto r = env_.mrs->Resolve(pkt.reth->rkey, pkt.reth->va, len, kAccessRemoteRead);
        if (!r.ok()) {
          env_.counters->Add(Counter::kRemoteAccessErrors);
          return Fail(kNakRemoteAccessError, p);
        }
        src = *r;
      }
      const uint32_t npkts = PacketsFor(len);
      epsn_ = PsnAdd(epsn_, npkts);
      msn_ = (msn_ + 1) & kMsnMask;
      env_.counters->Add(Counter::kMessagesRx);
      unacked_pkts_ = 0;  // the responses acknowledge everything before them
      OutItem r;
      r.is_read = true;
      r.psn = p;
      r.msn = msn_;
      r.src = src;
      r.length = len;
      r.npkts = npkts;
      out_.push_back(r);
      return;
    }
    default:
      // Immediate-data opcodes, atomics and unknown opcodes are not implemented by the baseline.
      return Fail(kNakInvalidRequest, p);
  }

  epsn_ = PsnAdd(epsn_, 1);
  if (message_done) {
    msn_ = (msn_ + 1) & kMsnMask;
    in_msg_ = InMessage::kNone;
    env_.counters->Add(Counter::kMessagesRx);
  }
  ++unacked_pkts_;
  if (pkt.bth.ack_req || unacked_pkts_ >= cfg_.ack_every) QueueAck(p);
}

bool Responder::NextOutputIsData() const { return !out_.empty() && out_.front().is_read; }

wire::RocePacket Responder::NextOutput() {
  OutItem& item = out_.front();
  wire::RocePacket pkt;
  pkt.bth.dest_qp = remote_qpn_;
  pkt.bth.pkey = cfg_.pkey;
  if (!item.is_read) {
    pkt.bth.opcode = RoceOpcode::kAck;
    pkt.bth.psn = item.psn;
    pkt.aeth = wire::Aeth{item.syndrome, item.msn & kMsnMask};
    switch (KindOf(item.syndrome)) {
      case SyndromeKind::kAck: env_.counters->Add(Counter::kAcksTx); break;
      case SyndromeKind::kRnrNak:
        env_.counters->Add(Counter::kNaksTx);
        env_.counters->Add(Counter::kRnrNaksTx);
        break;
      default:
        env_.counters->Add(Counter::kNaksTx);
        if (item.syndrome == kNakPsnSequenceError) env_.counters->Add(Counter::kSeqNaksTx);
        break;
    }
    out_.pop_front();
    return pkt;
  }
  const uint32_t i = item.sent;
  const bool first = i == 0;
  const bool last = i + 1 == item.npkts;
  pkt.bth.psn = PsnAdd(item.psn, i);
  pkt.bth.opcode = first && last ? RoceOpcode::kReadResponseOnly
                   : first       ? RoceOpcode::kReadResponseFirst
                   : last        ? RoceOpcode::kReadResponseLast
                                 : RoceOpcode::kReadResponseMiddle;
  if (first || last) pkt.aeth = wire::Aeth{kSyndromeAck, item.msn & kMsnMask};
  const uint64_t off = uint64_t{i} * cfg_.path_mtu;
  const uint32_t len = std::min<uint32_t>(cfg_.path_mtu, static_cast<uint32_t>(item.length - off));
  RoceFramer::SetPaddedPayload(
      pkt, std::span<const uint8_t>(item.src == nullptr ? nullptr : item.src + off, len));
  if (++item.sent == item.npkts) out_.pop_front();
  return pkt;
}

size_t Responder::StateBytes() const {
  return sizeof(*this) + rq_.size() * sizeof(RecvWqe) + out_.size() * sizeof(OutItem);
}

}  // namespace mroce::rocev2
