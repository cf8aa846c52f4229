// ECN marking policy of a queue: step threshold K or RED (Kmin, Kmax, Pmax), at enqueue or dequeue.
//
// Used by RateLimitStage (Position::kRateLimit) and by every fabric output queue. Only ECT(0)/ECT(1)
// packets are marked; CE is set through mroce::wire::FrameView, which keeps the IPv4 checksum valid.
#ifndef MROCE_IMPAIRMENT_ECN_H_
#define MROCE_IMPAIRMENT_ECN_H_

#include "mroce/impairment/packet.h"
#include "mroce/sim/rng.h"

namespace mroce::impairment {

struct EcnConfig {
  enum class Mode : uint8_t { kOff, kStep, kRed };
  enum class Where : uint8_t { kEnqueue, kDequeue };
  Mode mode = Mode::kOff;
  Where where = Where::kEnqueue;
  sim::ByteCount k = 0;     // Step: mark when queue bytes >= k.
  sim::ByteCount kmin = 0;  // RED: probability 0 below kmin,
  sim::ByteCount kmax = 0;  //      rising linearly to pmax at kmax, 1 at and above kmax.
  double pmax = 0.0;

  static EcnConfig Step(sim::ByteCount k, Where w = Where::kEnqueue) { return {Mode::kStep, w, k, 0, 0, 0}; }
  static EcnConfig Red(sim::ByteCount kmin, sim::ByteCount kmax, double pmax, Where w = Where::kEnqueue) {
    return {Mode::kRed, w, 0, kmin, kmax, pmax};
  }
  // DCTCP-style step K = 30 KB per 10 Gb/s of port rate (PROTOCOL.md): 300 KB at 100G, 1.2 MB at 400G.
  static EcnConfig DefaultStepFor(sim::Bandwidth rate) {
    return Step(static_cast<sim::ByteCount>(static_cast<__int128>(30'000) * rate.bits_per_second() / 10'000'000'000LL));
  }
  // RED Kmin/Kmax 100/400 KB per 25 Gb/s, Pmax 0.2 (PROTOCOL.md), scaled to the port rate.
  static EcnConfig DefaultRedFor(sim::Bandwidth rate) {
    const int64_t bps = rate.bits_per_second();
    return Red(static_cast<sim::ByteCount>(static_cast<__int128>(100'000) * bps / 25'000'000'000LL),
               static_cast<sim::ByteCount>(static_cast<__int128>(400'000) * bps / 25'000'000'000LL), 0.2);
  }
  // Marking probability for an instantaneous queue of `queue_bytes`.
  [[nodiscard]] double Probability(sim::ByteCount queue_bytes) const;
};

class EcnMarker {
 public:
  EcnMarker() = default;
  EcnMarker(const EcnConfig& config, sim::Rng rng) : config_(config), rng_(rng) {}
  [[nodiscard]] const EcnConfig& config() const { return config_; }
  // Decides and, if due, marks `p` (noting kMarked by `stage`; nullptr: no note). Returns true if the
  // packet was marked.
  bool Apply(Packet& p, sim::ByteCount queue_bytes, const char* stage, Time now);

  uint64_t decisions = 0;        // Packets that reached the marker.
  uint64_t ect_seen = 0;         // ECN-capable packets that met a non-zero marking probability.
  uint64_t marks = 0;            // CE set.
  uint64_t not_ect_skipped = 0;  // Would have been marked but Not-ECT.
  double expected_marks = 0;     // Sum of marking probabilities over ECT packets.

 private:
  EcnConfig config_;
  sim::Rng rng_;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_ECN_H_
