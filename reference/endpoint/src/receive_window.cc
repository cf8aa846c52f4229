#include "mroce/endpoint/receive_window.h"

namespace mroce::ref {

void ReceiveWindow::Reset(Psn first_psn, uint8_t epoch) {
  epsn_ = first_psn;
  epoch_ = epoch;
  bits_.reset();
  unacked_packets = 0;
  ce_since_ack = 0;
  first_unacked_at = kNever;
  acked_since_arrival = true;
}

RxVerdict ReceiveWindow::Classify(Psn psn) const {
  const int32_t d = PsnDiff(psn, epsn_);
  if (d < 0) return RxVerdict::kDuplicate;
  if (d == 0) return RxVerdict::kInOrder;
  if (d >= 256) return RxVerdict::kOutOfWindow;  // MROCE-PATH-007: p - epsn >= 256
  return bits_.test(static_cast<size_t>(d - 1)) ? RxVerdict::kDuplicate : RxVerdict::kOutOfOrder;
}

RxVerdict ReceiveWindow::OnPacket(Psn psn) {
  const RxVerdict v = Classify(psn);
  if (v == RxVerdict::kOutOfOrder) {
    bits_.set(static_cast<size_t>(PsnDiff(psn, epsn_) - 1));
  } else if (v == RxVerdict::kInOrder) {
    // bits_[i] covers epsn+1+i: each advance of epsn shifts the bitmap down by one.
    bool next = true;
    while (next) {
      ++epsn_;
      next = bits_.test(0);
      bits_ >>= 1;
    }
  }
  return v;
}

}  // namespace mroce::ref
