// ReceiveWindow: the receiver's per-path state: epoch, next expected PSN (epsn) and the 256-bit
// bitmap of PSNs received above it, plus the ACK-coalescing bookkeeping for that path.
#pragma once

#include <bitset>

#include "mroce/endpoint/types.h"

namespace mroce::ref {

enum class RxVerdict : uint8_t {
  kInOrder,      // psn == epsn: new, epsn advanced
  kOutOfOrder,   // new, above epsn (a gap exists)
  kDuplicate,    // below epsn or already in the bitmap
  kOutOfWindow,  // p - epsn >= 256: refused (NACK PSN_OUT_OF_WINDOW, MROCE-PATH-007)
};

class ReceiveWindow {
 public:
  explicit ReceiveWindow(Psn first_psn = 0, uint8_t epoch = 0) { Reset(first_psn, epoch); }

  // New epoch (PROBE received): forget the bitmap, expect `first_psn` next.
  void Reset(Psn first_psn, uint8_t epoch);
  // Classify `psn` without recording it.
  [[nodiscard]] RxVerdict Classify(Psn psn) const;
  // Classify and, when new, record it.
  RxVerdict OnPacket(Psn psn);

  [[nodiscard]] Psn epsn() const { return epsn_; }
  [[nodiscard]] uint8_t epoch() const { return epoch_; }
  // Bit i = PSN epsn + 1 + i received.
  [[nodiscard]] const std::bitset<256>& sack() const { return bits_; }
  // Some PSN above epsn is recorded (a packet recorded now fills a gap, MROCE-ACK-007).
  [[nodiscard]] bool HasGap() const { return bits_.any(); }

  // ACK-coalescing state (owned here because it is per path).
  uint32_t unacked_packets = 0;   // recorded data packets since the last ACK for this path
  uint16_t ce_since_ack = 0;      // CE-marked recorded/duplicate packets since the last ACK (saturating)
  bool ce_seen = false;           // a CE-marked packet arrived (only the quirk ece_on_every_ack reads it)
  TimeNs first_unacked_at = kNever;  // arrival time of the oldest unacked recorded packet, ns
  // Trigger of the next ACK (MROCE-ACK-004): the latest recorded or duplicate data packet.
  Psn last_psn = 0;
  bool last_ce = false;
  bool last_rtx = false;
  TimeNs last_arrival = kNever;   // its arrival, ns (ack_delay)
  bool acked_since_arrival = true;  // no data packet arrived since the last ACK (MROCE-ACK-009)
  bool prev_ce = false;           // CE mark of the previous data packet on the path (MROCE-ACK-008)
  bool has_prev = false;

 private:
  Psn epsn_ = 0;
  uint8_t epoch_ = 0;
  std::bitset<256> bits_;
};

}  // namespace mroce::ref
