// SackScoreboard: the sender's record of one path's packets in flight in the current epoch, and
// loss inference from the receiver's epsn plus 256-bit SACK (docs/spec chapters 8.5 and 9).
//
// Loss rules, applied per path only (cross-path reordering never implies loss, MROCE-LOSS-003):
//  - a PSN never retransmitted on this path is lost when it lies serially below H, the highest PSN
//    the ACK acknowledges (MROCE-LOSS-001);
//  - a retransmitted PSN is lost again when the ACK newly acknowledges a PSN whose latest
//    transmission came after the PSN's own latest transmission (MROCE-LOSS-007);
//  - a PSN held by an RNR or RESOURCE NACK is never deemed lost and does not run the RTO
//    (MROCE-RNR-005, MROCE-ERR-006); a PSN deemed lost is not deemed lost again until it has been
//    retransmitted (one pending retransmission per PSN, MROCE-LIM-008).
#pragma once

#include <array>
#include <bitset>
#include <vector>

#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/types.h"

namespace mroce::ref {

inline constexpr uint32_t kMaxPathWindow = spec::kPathWindow;

// What a packet in flight carries, opaque to the scoreboard: the sender rebuilds the packet from
// it (payload bytes stay in the application's buffer, not copied here).
struct PacketRef {
  uint32_t msg_slot = 0;  // sender's outbound message slot
  uint32_t msg_gen = 0;   // generation of that slot, to detect a reused slot
  uint32_t offset = 0;    // bytes into the message
  uint16_t length = 0;    // payload bytes (<= MTU <= 9000)
};

// One PSN's send record: 32 bytes, the per-PSN budget of table 15.3.
struct SentPacket {
  TimeNs time = 0;         // ns: latest transmission; while `held`, the end of the hold
  uint32_t tx_order = 0;   // path transmission counter of the latest transmission
  PacketRef ref;
  uint8_t rtx_count = 0;   // retransmissions and re-sends of this content (MROCE-LOSS-008)
  uint8_t rnr_count = 0;   // RNR NACKs for this content (MROCE-RNR-006)
  uint8_t resource_count = 0;  // RESOURCE NACKs for this content (MROCE-ERR-006)
  uint8_t in_use : 1 = 0;
  uint8_t acked : 1 = 0;
  uint8_t lost : 1 = 0;    // deemed lost, retransmission pending
  uint8_t held : 1 = 0;    // held by an RNR / RESOURCE NACK until `time`
  uint8_t tx_count : 2 = 0;  // transmissions of this PSN on this path, saturating at 3 (Karn)
};
static_assert(sizeof(SentPacket) == 32, "table 15.3 budgets 32 bytes per outstanding PSN");

struct AckedPacket {
  Psn psn;
  SentPacket pkt;
};

struct AckOutcome {
  bool valid = true;               // false: MROCE-ACK-013 (epsn or SACK beyond snd_nxt), dropped
  std::vector<AckedPacket> newly_acked;
  std::vector<Psn> newly_lost;     // ascending PSN order
  bool progress = false;           // something was acknowledged for the first time
  uint64_t acked_payload = 0;      // bytes newly acknowledged
  TimeNs rtt_sent_at = kNever;     // MROCE-RTO-001: send time to sample from, kNever = no sample
};

class SackScoreboard {
 public:
  explicit SackScoreboard(Psn first_psn = 0) { Reset(first_psn); }

  // Forget everything; the next packet gets `first_psn` (path reintroduced with a new epoch).
  void Reset(Psn first_psn);

  [[nodiscard]] Psn snd_una() const { return snd_una_; }
  [[nodiscard]] Psn snd_nxt() const { return snd_nxt_; }
  [[nodiscard]] uint32_t in_flight() const { return snd_nxt_ - snd_una_; }  // PSNs
  [[nodiscard]] uint32_t unacked_count() const { return unacked_; }
  [[nodiscard]] uint32_t held_count() const { return held_; }
  // Bytes in flight (10.2): payload of unacknowledged PSNs not deemed lost.
  [[nodiscard]] uint64_t inflight_bytes() const { return inflight_bytes_; }
  // MROCE-PATH-007: a new PSN p needs p - snd_una < 256.
  [[nodiscard]] bool HasRoom() const { return in_flight() < kMaxPathWindow; }
  // MROCE-RTO-005: the timer runs while some unacknowledged PSN is not held.
  [[nodiscard]] bool HasUnheldOutstanding() const { return unacked_ > held_; }

  // Record a first transmission; returns its PSN. Requires HasRoom().
  Psn OnSent(TimeNs now, const PacketRef& ref);
  // Record a retransmission of `psn` with the same PSN. Returns false if psn is not outstanding.
  bool OnRetransmitted(Psn psn, TimeNs now);

  // Process an ACK (SACK bit i covers PSN epsn + 1 + i).
  AckOutcome OnAck(Psn epsn, const std::bitset<256>& sack, Psn trigger_psn, bool trtx);
  // Deem `psn` lost (NACK PSN_OUT_OF_WINDOW, MROCE-ERR-005). False if not outstanding or already
  // pending.
  bool MarkLost(Psn psn);
  // Hold `psn` until `until` (RNR / RESOURCE). False if not outstanding.
  bool Hold(Psn psn, TimeNs until);
  // Holds that ended by `now`, released (the caller retransmits them).
  std::vector<Psn> ReleaseHolds(TimeNs now);
  [[nodiscard]] TimeNs NextHoldEnd() const;

  // RTO (MROCE-RTO-006): every unacknowledged, unheld PSN not yet pending is deemed lost.
  std::vector<Psn> OnRto();
  // Every unacknowledged PSN (fail-over), in PSN order; no state change.
  [[nodiscard]] std::vector<Psn> Unacked() const;
  // Outstanding PSNs from `from` up to snd_nxt, acked or not (go_back_n quirk).
  [[nodiscard]] std::vector<Psn> From(Psn from) const;
  // reorder_is_loss quirk: deem lost every unacked, unheld PSN sent before `t` (any path's clock).
  std::vector<Psn> LoseSentBefore(TimeNs t);

  [[nodiscard]] const SentPacket* Find(Psn psn) const;
  SentPacket* FindMutable(Psn psn);
  // Drop a packet as if acknowledged, without crediting it (content moved elsewhere).
  void Abandon(Psn psn);

  // Bytes of protocol state (table 15.3 model): the fixed part plus 32 per outstanding PSN. The
  // ring itself is a fixed array of 256 slots; only the slots in use count as held state.
  [[nodiscard]] size_t StateBytes() const {
    return sizeof(SackScoreboard) - sizeof(ring_) + size_t{in_flight()} * sizeof(SentPacket);
  }

 private:
  void SetLost(SentPacket& p, bool lost);
  void MarkAcked(Psn psn, SentPacket& p, AckOutcome& out);
  void Slide();

  std::array<SentPacket, kMaxPathWindow> ring_{};  // index psn % 256
  Psn snd_una_ = 0;
  Psn snd_nxt_ = 0;
  uint32_t next_tx_order_ = 1;
  uint32_t unacked_ = 0;
  uint32_t held_ = 0;
  uint64_t inflight_bytes_ = 0;
};

}  // namespace mroce::ref
