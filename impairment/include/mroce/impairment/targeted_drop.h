// Targeted drop: removes packets chosen by header match, by protocol state, or by time window.
//
// Position: Position::kTargetedDrop (after blackhole, before random loss). No randomness.
#ifndef MROCE_IMPAIRMENT_TARGETED_DROP_H_
#define MROCE_IMPAIRMENT_TARGETED_DROP_H_

#include <optional>
#include <vector>

#include "mroce/impairment/stage.h"

namespace mroce::impairment {

class TargetedDrop : public Stage {
 public:
  struct Window {
    Time start;  // Inclusive.
    Time end;    // Exclusive.
  };
  struct Params {
    // Header match: direction, plane, opcode, path_id, sport, stream_id, psn, rtx flag.
    Match match;
    // If set: only retransmissions (CH RTX flag) count, and only the nth (1-based) matching
    // retransmission is dropped (e.g. match.psn = 7, nth_retransmission = 2: the second resend of 7).
    std::optional<uint32_t> nth_retransmission;
    // If set: drop the ACK that acknowledges this PSN for the first time, i.e. the first ACK (on the
    // matched path) whose epsn is after n (RFC 1982 serial order) or whose SACK bitvector covers n.
    std::optional<uint32_t> ack_for_psn;
    // If non-empty: drop only while now is inside one of these windows.
    std::vector<Window> windows;
    uint64_t skip = 0;   // Let the first `skip` candidate packets through.
    uint64_t count = 0;  // Drop at most this many (0 = unlimited).
  };
  TargetedDrop(std::string name, Params params);
  [[nodiscard]] Position position() const override { return Position::kTargetedDrop; }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void FillStats(StageStats& s) const override;

 private:
  [[nodiscard]] bool IsCandidate(const Packet& p, Time now);
  Params params_;
  uint64_t candidates_ = 0;
  uint64_t rtx_seen_ = 0;
  bool acked_psn_seen_ = false;
};

// True if `ack_frame` is a MetaRoCE ACK whose epsn is after `psn` or whose SACK covers `psn`.
[[nodiscard]] bool AckCoversPsn(const Packet& ack_frame, uint32_t psn);

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_TARGETED_DROP_H_
