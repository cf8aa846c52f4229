// Rate limiter: a FIFO output queue that serialises packets at a rate, with per-packet overhead,
// a byte capacity (drop-tail) and an ECN marker (step or RED, at enqueue or dequeue).
//
// Position: Position::kRateLimit (after duplication, before delay/jitter and reordering).
// Serialisation time = (frame bytes + overhead) * 8 / rate; the default overhead of 24 B is
// preamble+SFD (8) + inter-frame gap (12) + FCS (4), which the frame bytes do not include.
#ifndef MROCE_IMPAIRMENT_RATE_LIMIT_H_
#define MROCE_IMPAIRMENT_RATE_LIMIT_H_

#include <deque>
#include <optional>

#include "mroce/impairment/ecn.h"
#include "mroce/impairment/stage.h"

namespace mroce::impairment {

class RateLimitStage : public Stage {
 public:
  struct Params {
    sim::Bandwidth rate = sim::Bandwidth::Gbps(100);
    sim::ByteCount overhead_bytes = 24;  // Per packet, on top of the frame bytes.
    sim::ByteCount capacity_bytes = 0;   // Queue capacity (frame bytes); 0 = unlimited.
    EcnConfig ecn;                       // Marking on queue bytes (frame bytes waiting, excl. the one on the wire).
    Match match;
  };
  RateLimitStage(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kRateLimit; }
  void OnWakeup(Time now, Emitter& out) override;
  [[nodiscard]] sim::ByteCount queue_bytes() const { return queue_bytes_; }
  [[nodiscard]] sim::ByteCount max_queue_bytes() const { return max_queue_bytes_; }
  [[nodiscard]] const EcnMarker& marker() const { return marker_; }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void FillStats(StageStats& s) const override;

 private:
  void StartNext(Time now, Emitter& out);
  struct Entry {
    Packet packet;
    Time enqueued;
  };
  Params params_;
  EcnMarker marker_;
  std::deque<Entry> queue_;      // Waiting packets (front is next to go on the wire).
  std::optional<Entry> on_wire_;  // Being serialised.
  Time wire_done_;
  sim::ByteCount queue_bytes_ = 0;
  sim::ByteCount max_queue_bytes_ = 0;
  uint64_t overflow_drops_ = 0;
  sim::ByteCount wire_bytes_out_ = 0;  // Frame + overhead bytes sent.
  Time first_arrival_ = Time::Infinite();
  Time last_departure_;
  double sum_wait_ns_ = 0;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_RATE_LIMIT_H_
