#include "mroce/endpoint/congestion_controller.h"

#include <algorithm>

namespace mroce::ref {

CongestionController::CongestionController(CongestionConfig config, int num_paths)
    : config_(config), paths_(static_cast<size_t>(num_paths)) {
  for (int p = 0; p < num_paths; ++p) ResetPath(p);
  tokens_ = BucketCap();
}

int64_t CongestionController::BucketCap() const {
  const uint32_t depth = config_.bucket_bytes != 0 ? config_.bucket_bytes : config_.full_packet_ip_bytes;
  return static_cast<int64_t>(depth) * 8 * 1000;
}

void CongestionController::ResetPath(int path) {
  PathWindow& w = paths_[path];
  w.cwnd_bytes = uint64_t{config_.init_mtus} * config_.mtu;  // MROCE-CC-002
  w.last_decrease_at = kNever;
}

bool CongestionController::Halve(int path, TimeNs srtt, TimeNs now) {
  PathWindow& w = paths_[path];
  // MROCE-CC-005: at most one decrease per SRTT of the path (no sample yet: no spacing).
  if (w.last_decrease_at != kNever && now - w.last_decrease_at < srtt && !config_.halve_every_ece) return false;
  w.cwnd_bytes = std::max<uint64_t>(uint64_t{spec::kCwndMinMtus} * config_.mtu, w.cwnd_bytes / 2);
  w.last_decrease_at = now;
  return true;
}

bool CongestionController::OnAck(int path, uint64_t acked_payload, bool congestion, TimeNs srtt, TimeNs now) {
  PathWindow& w = paths_[path];
  if (congestion && !config_.ignore_ecn) return Halve(path, srtt, now);
  if (acked_payload == 0) return false;
  // MROCE-CC-004: cwnd += floor(MTU * B / cwnd), up to cwnd_max.
  w.cwnd_bytes += config_.ai_mtus * config_.mtu * acked_payload / std::max<uint64_t>(w.cwnd_bytes, 1);
  w.cwnd_bytes = std::min<uint64_t>(w.cwnd_bytes, uint64_t{spec::kCwndMaxMtus} * config_.mtu);
  return false;
}

bool CongestionController::OnLoss(int path, TimeNs srtt, TimeNs now) { return Halve(path, srtt, now); }

bool CongestionController::OnRto(int path, TimeNs now) {
  PathWindow& w = paths_[path];
  const uint64_t one = uint64_t{config_.rto_mtus} * config_.mtu;
  w.last_decrease_at = now;
  if (w.cwnd_bytes == one) return false;
  w.cwnd_bytes = one;  // MROCE-CC-006 / MROCE-RTO-006
  return true;
}

bool CongestionController::WindowAllows(int path, uint64_t inflight, uint64_t payload) const {
  if (config_.ignore_cwnd) return true;
  return inflight == 0 || inflight + payload <= paths_[path].cwnd_bytes;  // MROCE-CC-003
}

void CongestionController::SetPeerMaxRate(uint32_t mbps) {
  peer_max_rate_mbps_ = mbps;
  if (!any_ack_) hint_mbps_ = prev_hint_mbps_ = mbps != 0 ? mbps : kRateHintUnlimited;  // 10.4
}

void CongestionController::OnRateHint(uint32_t hint_mbps, TimeNs now) {
  Advance(now);
  if (hint_mbps == 0) hint_mbps = 1;  // 10.4: a hint of 0 is taken as 1 Mb/s
  any_ack_ = true;
  const uint32_t old = now < hint_effective_at_ ? prev_hint_mbps_ : hint_mbps_;  // in force now
  // MROCE-HINT-005: a lower hint applies at once; a higher one 1 us after the ACK arrived.
  const bool higher = hint_mbps > old;
  prev_hint_mbps_ = higher ? old : hint_mbps;
  hint_mbps_ = hint_mbps;
  hint_effective_at_ = higher ? now + spec::kHintReaction : now;
}

uint64_t CongestionController::RateAt(TimeNs t) const {
  uint64_t rate = config_.link_rate_mbps;
  if (!config_.ignore_rate_hint) {
    const uint32_t hint = t < hint_effective_at_ ? prev_hint_mbps_ : hint_mbps_;
    if (hint != kRateHintUnlimited) rate = std::min<uint64_t>(rate, hint);
  }
  if (peer_max_rate_mbps_ != 0) rate = std::min<uint64_t>(rate, peer_max_rate_mbps_);  // MROCE-HINT-005
  return std::max<uint64_t>(rate, 1);
}

uint64_t CongestionController::pacing_rate_mbps(TimeNs now) const { return RateAt(now); }

int64_t CongestionController::TokensAt(TimeNs t) const {
  const int64_t cap = BucketCap();
  int64_t tokens = tokens_;
  TimeNs from = tokens_at_;
  // At most one rate change (hint_effective_at_) lies inside [tokens_at_, t].
  while (from < t && tokens < cap) {
    const TimeNs seg_end = (from < hint_effective_at_ && hint_effective_at_ < t) ? hint_effective_at_ : t;
    const uint64_t rate = RateAt(from);
    const TimeNs dt = seg_end - from;
    const int64_t need = cap - tokens;
    if (dt >= need / static_cast<int64_t>(rate) + 1) return cap;
    tokens += static_cast<int64_t>(rate) * dt;
    from = seg_end;
  }
  return std::min(tokens, cap);
}

void CongestionController::Advance(TimeNs now) {
  if (now <= tokens_at_) return;
  tokens_ = TokensAt(now);
  tokens_at_ = now;
}

TimeNs CongestionController::NextSendTime(TimeNs now) const {
  const int64_t tokens = TokensAt(std::max(now, tokens_at_));
  if (tokens >= 0) return std::max(now, tokens_at_);
  const TimeNs base = std::max(now, tokens_at_);
  const uint64_t rate = RateAt(base);
  TimeNs t = base + (-tokens + static_cast<int64_t>(rate) - 1) / static_cast<int64_t>(rate);
  if (base < hint_effective_at_ && hint_effective_at_ < t) t = hint_effective_at_;  // re-evaluate then
  return t;
}

void CongestionController::OnPacketSent(uint64_t ip_bytes, TimeNs now) {
  Advance(now);
  tokens_ -= static_cast<int64_t>(ip_bytes) * 8 * 1000;
}

}  // namespace mroce::ref
