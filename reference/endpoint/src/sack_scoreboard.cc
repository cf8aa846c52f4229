#include "mroce/endpoint/sack_scoreboard.h"

#include <algorithm>
#include <cassert>

namespace mroce::ref {
namespace {
// tx_order wraps; compare serially like PSNs.
bool SentAfter(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) > 0; }
}  // namespace

void SackScoreboard::Reset(Psn first_psn) {
  for (SentPacket& p : ring_) p = SentPacket{};
  snd_una_ = snd_nxt_ = first_psn;
  unacked_ = 0;
  held_ = 0;
  inflight_bytes_ = 0;
}

void SackScoreboard::SetLost(SentPacket& p, bool lost) {
  if (p.lost == lost) return;
  p.lost = lost;
  if (lost) {
    inflight_bytes_ -= p.ref.length;
  } else {
    inflight_bytes_ += p.ref.length;
  }
}

Psn SackScoreboard::OnSent(TimeNs now, const PacketRef& ref) {
  assert(HasRoom());
  const Psn psn = snd_nxt_++;
  SentPacket& p = ring_[psn % kMaxPathWindow];
  p = SentPacket{};
  p.time = now;
  p.tx_order = next_tx_order_++;
  p.ref = ref;
  p.in_use = 1;
  p.tx_count = 1;
  ++unacked_;
  inflight_bytes_ += ref.length;
  return psn;
}

const SentPacket* SackScoreboard::Find(Psn psn) const {
  if (PsnLt(psn, snd_una_) || PsnGe(psn, snd_nxt_)) return nullptr;
  const SentPacket& p = ring_[psn % kMaxPathWindow];
  return p.in_use ? &p : nullptr;
}

SentPacket* SackScoreboard::FindMutable(Psn psn) {
  return const_cast<SentPacket*>(static_cast<const SackScoreboard*>(this)->Find(psn));
}

bool SackScoreboard::OnRetransmitted(Psn psn, TimeNs now) {
  SentPacket* p = FindMutable(psn);
  if (p == nullptr || p->acked) return false;
  if (p->held) {
    p->held = 0;
    --held_;
  }
  p->time = now;
  p->tx_order = next_tx_order_++;
  if (p->tx_count < 3) ++p->tx_count;
  SetLost(*p, false);
  return true;
}

void SackScoreboard::MarkAcked(Psn psn, SentPacket& p, AckOutcome& out) {
  if (p.held) {
    p.held = 0;
    --held_;
  }
  if (!p.lost) inflight_bytes_ -= p.ref.length;
  p.lost = 0;
  p.acked = 1;
  --unacked_;
  out.progress = true;
  out.acked_payload += p.ref.length;
  out.newly_acked.push_back(AckedPacket{psn, p});
}

void SackScoreboard::Slide() {
  while (snd_una_ != snd_nxt_) {
    SentPacket& p = ring_[snd_una_ % kMaxPathWindow];
    if (p.in_use && !p.acked) break;
    p.in_use = 0;
    ++snd_una_;
  }
}

AckOutcome SackScoreboard::OnAck(Psn epsn, const std::bitset<256>& sack, Psn trigger_psn, bool trtx) {
  AckOutcome out;
  // MROCE-ACK-013: epsn above snd_nxt, or a SACK bit at or above snd_nxt, is a bad ACK.
  if (PsnGt(epsn, snd_nxt_)) {
    out.valid = false;
    return out;
  }
  Psn highest = epsn - 1;  // H of section 9.1
  for (uint32_t i = 0; i < 256; ++i) {
    if (!sack.test(i)) continue;
    const Psn psn = epsn + 1 + i;
    if (PsnGe(psn, snd_nxt_)) {
      out.valid = false;
      return out;
    }
    highest = psn;
  }
  // MROCE-ACK-012: cumulative part, then selective part; acknowledgements only accumulate.
  if (PsnLt(snd_una_, epsn)) {
    for (Psn psn = snd_una_; psn != epsn; ++psn) {
      SentPacket& p = ring_[psn % kMaxPathWindow];
      if (p.in_use && !p.acked) MarkAcked(psn, p, out);
    }
  }
  for (uint32_t i = 0; i < 256; ++i) {
    if (!sack.test(i)) continue;
    const Psn psn = epsn + 1 + i;
    if (PsnLt(psn, snd_una_)) continue;
    SentPacket& p = ring_[psn % kMaxPathWindow];
    if (p.in_use && !p.acked) MarkAcked(psn, p, out);
  }
  // MROCE-RTO-001: sample only when the trigger is acknowledged for the first time by this ACK
  // and its transmission count is unambiguous (Karn).
  uint32_t newest_acked_order = 0;
  bool any_acked = false;
  for (const AckedPacket& a : out.newly_acked) {
    if (!any_acked || SentAfter(a.pkt.tx_order, newest_acked_order)) newest_acked_order = a.pkt.tx_order;
    any_acked = true;
    if (a.psn == trigger_psn) {
      if ((!trtx && a.pkt.tx_count == 1) || (trtx && a.pkt.tx_count == 2)) out.rtt_sent_at = a.pkt.time;
    }
  }
  // Loss inference (MROCE-LOSS-001 for PSNs sent once, MROCE-LOSS-007 for retransmitted ones).
  for (Psn psn = snd_una_; psn != snd_nxt_; ++psn) {
    SentPacket& p = ring_[psn % kMaxPathWindow];
    if (!p.in_use || p.acked || p.lost || p.held) continue;
    const bool lost = p.tx_count == 1 ? PsnLt(psn, highest)
                                      : any_acked && SentAfter(newest_acked_order, p.tx_order);
    if (lost) {
      SetLost(p, true);
      out.newly_lost.push_back(psn);
    }
  }
  Slide();
  return out;
}

bool SackScoreboard::MarkLost(Psn psn) {
  SentPacket* p = FindMutable(psn);
  if (p == nullptr || p->acked || p->lost || p->held) return false;
  SetLost(*p, true);
  return true;
}

bool SackScoreboard::Hold(Psn psn, TimeNs until) {
  SentPacket* p = FindMutable(psn);
  if (p == nullptr || p->acked) return false;
  if (!p->held) ++held_;
  p->held = 1;
  p->time = until;
  SetLost(*p, false);  // a held PSN is not pending a loss retransmission
  return true;
}

std::vector<Psn> SackScoreboard::ReleaseHolds(TimeNs now) {
  std::vector<Psn> out;
  if (held_ == 0) return out;
  for (Psn psn = snd_una_; psn != snd_nxt_; ++psn) {
    SentPacket& p = ring_[psn % kMaxPathWindow];
    if (p.in_use && !p.acked && p.held && p.time <= now) {
      p.held = 0;
      --held_;
      SetLost(p, true);  // due for retransmission now
      out.push_back(psn);
    }
  }
  return out;
}

TimeNs SackScoreboard::NextHoldEnd() const {
  TimeNs t = kNever;
  if (held_ == 0) return t;
  for (Psn psn = snd_una_; psn != snd_nxt_; ++psn) {
    const SentPacket& p = ring_[psn % kMaxPathWindow];
    if (p.in_use && !p.acked && p.held) t = std::min(t, p.time);
  }
  return t;
}

std::vector<Psn> SackScoreboard::OnRto() {
  std::vector<Psn> out;
  for (Psn psn = snd_una_; psn != snd_nxt_; ++psn) {
    SentPacket& p = ring_[psn % kMaxPathWindow];
    if (!p.in_use || p.acked || p.held || p.lost) continue;
    SetLost(p, true);
    out.push_back(psn);
  }
  return out;
}

std::vector<Psn> SackScoreboard::LoseSentBefore(TimeNs t) {
  std::vector<Psn> out;
  for (Psn psn = snd_una_; psn != snd_nxt_; ++psn) {
    SentPacket& p = ring_[psn % kMaxPathWindow];
    if (!p.in_use || p.acked || p.lost || p.held) continue;
    if (p.time < t) {
      SetLost(p, true);
      out.push_back(psn);
    }
  }
  return out;
}

std::vector<Psn> SackScoreboard::Unacked() const {
  std::vector<Psn> out;
  for (Psn psn = snd_una_; psn != snd_nxt_; ++psn) {
    const SentPacket& p = ring_[psn % kMaxPathWindow];
    if (p.in_use && !p.acked) out.push_back(psn);
  }
  return out;
}

std::vector<Psn> SackScoreboard::From(Psn from) const {
  std::vector<Psn> out;
  for (Psn psn = from; PsnLt(psn, snd_nxt_); ++psn) {
    if (Find(psn) != nullptr) out.push_back(psn);
  }
  return out;
}

void SackScoreboard::Abandon(Psn psn) {
  SentPacket* p = FindMutable(psn);
  if (p == nullptr || p->acked) return;
  if (p->held) {
    p->held = 0;
    --held_;
  }
  if (!p->lost) inflight_bytes_ -= p->ref.length;
  p->lost = 0;
  p->acked = 1;
  --unacked_;
  Slide();
}

}  // namespace mroce::ref
