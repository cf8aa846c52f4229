#include "mroce/rocev2/endpoint.h"

#include <algorithm>
#include <string>

#include "mroce/wire/frame.h"

namespace mroce::rocev2 {

RoceEndpoint::RoceEndpoint(const EndpointConfig& cfg, FrameSink* sink)
    : cfg_(cfg), sink_(sink), cq_(cfg.cq_capacity), next_qpn_(cfg.first_qpn & 0xFFFFFF) {}

Result<MemoryRegion> RoceEndpoint::RegisterMemory(uint8_t* buffer, uint64_t length, uint32_t access) {
  return mrs_.Register(buffer, length, access);
}

Status RoceEndpoint::DeregisterMemory(uint32_t key) { return mrs_.Deregister(key); }

Result<QpInfo> RoceEndpoint::CreateQp(const QpConfig& cfg) {
  if (qps_.size() >= cfg_.max_qps) {
    return MakeError("limit.qps", "QP table full (" + std::to_string(cfg_.max_qps) + ")");
  }
  if (cfg.path_mtu == 0 || cfg.path_mtu % 4 != 0 || cfg.window_pkts == 0 || cfg.ack_every == 0) {
    return MakeError("qp.config", "path_mtu must be a non-zero multiple of 4; window_pkts and ack_every > 0");
  }
  const Qpn qpn = next_qpn_;
  next_qpn_ = (next_qpn_ + 1) & 0xFFFFFF;
  qps_[qpn] = std::make_unique<QueuePair>(qpn, cfg, cfg_.address, &mrs_, &cq_, sink_, cfg_.plane);
  Reindex(qpn);
  return QpInfo{qpn, cfg.initial_psn & kPsnMask, cfg_.address};
}

QueuePair* RoceEndpoint::Find(Qpn qpn) {
  auto it = qps_.find(qpn);
  return it == qps_.end() ? nullptr : it->second.get();
}

Status RoceEndpoint::ConnectQp(Qpn qpn, const RemoteQp& remote) {
  QueuePair* qp = Find(qpn);
  if (qp == nullptr) return MakeError("qp.unknown", "no QP " + std::to_string(qpn));
  Status st = qp->Connect(remote);
  Reindex(qpn);
  return st;
}

Status RoceEndpoint::PostRecv(Qpn qpn, const RecvWr& wr) {
  QueuePair* qp = Find(qpn);
  if (qp == nullptr) return MakeError("qp.unknown", "no QP " + std::to_string(qpn));
  Status st = qp->PostRecv(wr);
  Reindex(qpn);
  return st;
}

Status RoceEndpoint::PostSend(Qpn qpn, const SendWr& wr, TimeNs now) {
  QueuePair* qp = Find(qpn);
  if (qp == nullptr) return MakeError("qp.unknown", "no QP " + std::to_string(qpn));
  Status st = qp->PostSend(wr, now);
  Reindex(qpn);
  return st;
}

void RoceEndpoint::OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) {
  auto parsed = wire::ParseFrame(frame);
  if (!parsed.ok()) {
    frame_counters_.Add(parsed.error().code == "icrc" ? Counter::kIcrcErrors : Counter::kParseErrors);
    return;
  }
  const wire::RocePacket* pkt = parsed->roce();
  if (pkt == nullptr) {
    frame_counters_.Add(Counter::kParseErrors);  // not UDP 4791
    return;
  }
  QueuePair* qp = Find(pkt->bth.dest_qp);
  if (qp == nullptr) {
    frame_counters_.Add(Counter::kUnknownQpRx);
    return;
  }
  qp->OnPacket(*parsed, frame.size(), now);
  Reindex(pkt->bth.dest_qp);
}

void RoceEndpoint::OnTimer(TimeNs now) {
  std::vector<Qpn> due;  // in QPN order, as a sweep over every QP would run them
  for (auto t = timers_.begin(); t != timers_.end() && t->first <= now; ++t) due.push_back(t->second);
  std::sort(due.begin(), due.end());
  for (const Qpn qpn : due) {
    if (QueuePair* qp = Find(qpn); qp != nullptr && qp->NextDeadline() <= now) qp->OnTimer(now);
    Reindex(qpn);
  }
}

TimeNs RoceEndpoint::NextDeadline() const { return timers_.empty() ? kNever : timers_.begin()->first; }

void RoceEndpoint::Reindex(Qpn qpn) {
  const QueuePair* qp = this->qp(qpn);
  const TimeNs d = qp == nullptr ? kNever : qp->NextDeadline();
  auto it = indexed_.find(qpn);
  const TimeNs old = it == indexed_.end() ? kNever : it->second;
  if (d == old) return;
  if (old != kNever) timers_.erase({old, qpn});
  if (d != kNever) {
    timers_.emplace(d, qpn);
    indexed_[qpn] = d;
  } else if (it != indexed_.end()) {
    indexed_.erase(it);
  }
}

Counters RoceEndpoint::counters() const {
  Counters c = frame_counters_;
  for (const auto& [qpn, qp] : qps_) c += qp->counters();
  return c;
}

const Counters* RoceEndpoint::qp_counters(Qpn qpn) const {
  const QueuePair* q = qp(qpn);
  return q == nullptr ? nullptr : &q->counters();
}

const QueuePair* RoceEndpoint::qp(Qpn qpn) const {
  auto it = qps_.find(qpn);
  return it == qps_.end() ? nullptr : it->second.get();
}

size_t RoceEndpoint::StateBytes() const {
  size_t n = sizeof(*this) + mrs_.StateBytes() + cq_.StateBytes();
  for (const auto& [qpn, qp] : qps_) n += qp->StateBytes();
  return n;
}

size_t RoceEndpoint::QpStateBytes(Qpn qpn) const {
  const QueuePair* q = qp(qpn);
  return q == nullptr ? 0 : q->StateBytes();
}

}  // namespace mroce::rocev2
