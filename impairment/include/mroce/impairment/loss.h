// Random loss stages: Bernoulli, Gilbert-Elliott (by mean loss and mean burst length), 4-state Markov.
//
// Position: Position::kLoss (after blackhole and targeted drop, before corruption). Each model draws
// from its own counter-based stream (run seed, ComponentId(name)), one or two draws per packet.
#ifndef MROCE_IMPAIRMENT_LOSS_H_
#define MROCE_IMPAIRMENT_LOSS_H_

#include "mroce/impairment/stage.h"

namespace mroce::impairment {

// Drops each matching packet independently with probability `loss`.
class BernoulliLoss : public Stage {
 public:
  struct Params {
    double loss = 0.0;  // Probability in [0, 1].
    Match match;
  };
  BernoulliLoss(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kLoss; }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) override;
  void FillStats(StageStats& s) const override;

 private:
  Params params_;
  sim::Rng rng_;
  uint64_t loss_threshold_;  // Rng::BernoulliThreshold(params_.loss).
};

// Two-state Gilbert-Elliott: Good (loss prob k) and Bad (loss prob h). Transition probabilities per
// packet: p = P(Good->Bad), r = P(Bad->Good). Set either directly or from mean loss L and mean burst
// length B with k = 0, h = 1: r = 1/B, p = L*r/(1-L) (stationary P(Bad) = p/(p+r) = L; bursts are
// geometric with mean 1/r = B packets).
class GilbertElliottLoss : public Stage {
 public:
  struct Params {
    double p = 0.0;  // P(Good -> Bad) per packet.
    double r = 1.0;  // P(Bad -> Good) per packet.
    double k = 0.0;  // Loss probability in Good.
    double h = 1.0;  // Loss probability in Bad.
    Match match;
    // Mean loss in [0, 1), mean burst length >= 1 packet.
    static Params FromMeanLossAndBurst(double mean_loss, double mean_burst_packets, Match match = {});
    [[nodiscard]] double StationaryLoss() const;
    [[nodiscard]] double MeanBurstLength() const;  // Of consecutive losses, for k = 0, h = 1.
  };
  GilbertElliottLoss(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kLoss; }
  // Measured mean length (packets) of runs of consecutive drops among matching packets.
  [[nodiscard]] double AchievedMeanBurst() const;

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void FillStats(StageStats& s) const override;

 private:
  Params params_;
  sim::Rng rng_;
  bool bad_ = false;
  bool last_lost_ = false;
  uint64_t bursts_ = 0;
  uint64_t burst_packets_ = 0;
};

// 4-state Markov loss model (Salvo Sanna, as in Linux netem "loss state"):
//   1 = received in gap, 2 = received in burst, 3 = lost in burst, 4 = isolated loss (in gap).
//   1->3 p13, 1->4 p14, 1->1 otherwise; 3->1 p31, 3->2 p32, 3->3 otherwise;
//   2->3 p23, 2->2 otherwise; 4->1 always. Packets are lost in states 3 and 4.
// The state is advanced once per matching packet and the packet's fate is the new state.
class FourStateLoss : public Stage {
 public:
  struct Params {
    double p13 = 0.0;
    double p31 = 1.0;
    double p32 = 0.0;
    double p23 = 1.0;
    double p14 = 0.0;
    Match match;
    [[nodiscard]] double StationaryLoss() const;
  };
  FourStateLoss(std::string name, const Params& params, uint64_t run_seed);
  [[nodiscard]] Position position() const override { return Position::kLoss; }
  [[nodiscard]] int state() const { return state_; }

 protected:
  void OnPacket(Packet&& p, Time now, Emitter& out) override;
  void FillStats(StageStats& s) const override;

 private:
  Params params_;
  sim::Rng rng_;
  int state_ = 1;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_LOSS_H_
