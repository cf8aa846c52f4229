#include "mroce/impairment/loss.h"

namespace mroce::impairment {

BernoulliLoss::BernoulliLoss(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())),
      loss_threshold_(sim::Rng::BernoulliThreshold(params.loss)) {}

void BernoulliLoss::OnPacket(Packet&& p, Time now, Emitter& out) {
  if (rng_.BernoulliBelow(loss_threshold_)) DropIt(std::move(p), now, out);
  else Pass(std::move(p), Duration::Zero(), out);
}

void BernoulliLoss::OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) {
  // The same draws in the same order as OnPacket (each a pure function of its index: the CPU
  // overlaps them).
  uint64_t index = rng_.index();  // In a register across the loop (calls included).
  const uint64_t threshold = loss_threshold_;
  PassWriter pass(this, out, n);
  for (size_t i = 0; i < n; ++i) {
    if (rng_.BernoulliBelowAt(index++, threshold)) DropIt(in[i], now, out);
    else pass.Pass(in[i]);
  }
  pass.Done();
  rng_.set_index(index);
}

void BernoulliLoss::FillStats(StageStats& s) const {
  s.kind = "loss.bernoulli";
  s.lines.push_back({"loss", "%", params_.loss, considered_ ? double(dropped_) / double(considered_) : 0.0});
}

GilbertElliottLoss::Params GilbertElliottLoss::Params::FromMeanLossAndBurst(double mean_loss, double mean_burst,
                                                                           Match match) {
  Params p;
  p.k = 0.0;
  p.h = 1.0;
  p.r = mean_burst >= 1.0 ? 1.0 / mean_burst : 1.0;
  p.p = mean_loss <= 0.0 ? 0.0 : (mean_loss >= 1.0 ? 1.0 : mean_loss * p.r / (1.0 - mean_loss));
  if (mean_loss >= 1.0) p.r = 0.0;
  p.match = std::move(match);
  return p;
}

double GilbertElliottLoss::Params::StationaryLoss() const {
  if (p + r <= 0.0) return k;
  const double pi_bad = p / (p + r);
  return (1.0 - pi_bad) * k + pi_bad * h;
}

double GilbertElliottLoss::Params::MeanBurstLength() const { return r > 0.0 ? 1.0 / r : 0.0; }

GilbertElliottLoss::GilbertElliottLoss(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())) {}

void GilbertElliottLoss::OnPacket(Packet&& p, Time now, Emitter& out) {
  // Transition first, then decide loss in the new state (so B = 1/r counts the packets in Bad).
  bad_ = bad_ ? !rng_.Bernoulli(params_.r) : rng_.Bernoulli(params_.p);
  const bool lost = rng_.Bernoulli(bad_ ? params_.h : params_.k);
  if (lost) {
    if (!last_lost_) ++bursts_;
    ++burst_packets_;
  }
  last_lost_ = lost;
  if (lost) DropIt(std::move(p), now, out);
  else Pass(std::move(p), Duration::Zero(), out);
}

double GilbertElliottLoss::AchievedMeanBurst() const {
  return bursts_ ? double(burst_packets_) / double(bursts_) : 0.0;
}

void GilbertElliottLoss::FillStats(StageStats& s) const {
  s.kind = "loss.gilbert-elliott";
  s.lines.push_back({"loss", "%", params_.StationaryLoss(), considered_ ? double(dropped_) / double(considered_) : 0.0});
  s.lines.push_back({"mean burst length", "packets", params_.MeanBurstLength(), AchievedMeanBurst()});
}

double FourStateLoss::Params::StationaryLoss() const {
  // Balance: pi4 = p14 pi1; pi3 = (p13/p31) pi1; pi2 = (p32/p23) pi3.
  if (p31 <= 0.0 || p23 <= 0.0) return p13 > 0.0 || p14 > 0.0 ? 1.0 : 0.0;
  const double pi1 = 1.0;
  const double pi3 = p13 / p31 * pi1;
  const double pi2 = p32 / p23 * pi3;
  const double pi4 = p14 * pi1;
  return (pi3 + pi4) / (pi1 + pi2 + pi3 + pi4);
}

FourStateLoss::FourStateLoss(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())) {}

void FourStateLoss::OnPacket(Packet&& p, Time now, Emitter& out) {
  const double u = rng_.Uniform01();
  switch (state_) {
    case 1:
      if (u < params_.p13) state_ = 3;
      else if (u < params_.p13 + params_.p14) state_ = 4;
      break;
    case 2:
      if (u < params_.p23) state_ = 3;
      break;
    case 3:
      if (u < params_.p31) state_ = 1;
      else if (u < params_.p31 + params_.p32) state_ = 2;
      break;
    case 4:
      state_ = 1;
      break;
  }
  if (state_ == 3 || state_ == 4) DropIt(std::move(p), now, out);
  else Pass(std::move(p), Duration::Zero(), out);
}

void FourStateLoss::FillStats(StageStats& s) const {
  s.kind = "loss.4-state";
  s.lines.push_back({"loss", "%", params_.StationaryLoss(), considered_ ? double(dropped_) / double(considered_) : 0.0});
}

}  // namespace mroce::impairment
