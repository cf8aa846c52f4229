#include "mroce/impairment/ecn.h"

#include "mroce/wire/constants.h"

namespace mroce::impairment {

double EcnConfig::Probability(sim::ByteCount q) const {
  switch (mode) {
    case Mode::kOff: return 0.0;
    case Mode::kStep: return q >= k ? 1.0 : 0.0;
    case Mode::kRed:
      if (q < kmin) return 0.0;
      if (q >= kmax) return 1.0;
      return pmax * static_cast<double>(q - kmin) / static_cast<double>(kmax - kmin);
  }
  return 0.0;
}

bool EcnMarker::Apply(Packet& p, sim::ByteCount queue_bytes, const char* stage, Time now) {
  if (config_.mode == EcnConfig::Mode::kOff) return false;
  ++decisions;
  const double prob = config_.Probability(queue_bytes);
  if (prob <= 0.0) return false;  // Common case: no header access at all.
  const uint8_t ecn = p.Info().ecn;
  const bool ect = p.Info().ip && ecn != wire::kEcnNotEct;
  if (ect) {
    ++ect_seen;
    expected_marks += prob;
  }
  // RED draws only in the linear region, so a step/threshold decision consumes no randomness.
  const bool due = prob >= 1.0 || rng_.Bernoulli(prob);
  if (!due) return false;
  if (!ect) {
    ++not_ect_skipped;
    return false;
  }
  if (ecn == wire::kEcnCe) return false;  // Already CE: nothing to do.
  if (!p.MarkCe()) return false;
  ++marks;
  if (stage != nullptr) p.Note(stage, FateKind::kMarked, static_cast<uint32_t>(queue_bytes > 0xFFFFFFFF ? 0xFFFFFFFF : queue_bytes), now);
  return true;
}

}  // namespace mroce::impairment
