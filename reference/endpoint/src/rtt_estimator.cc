#include "mroce/endpoint/rtt_estimator.h"

#include <algorithm>
#include <cstdlib>

namespace mroce::ref {

TimeNs RttEstimator::Clamp(TimeNs v) const {
  return std::clamp(v, config_.min_rto, config_.max_rto);
}

void RttEstimator::OnSample(TimeNs rtt, TimeNs ack_delay) {
  rtt = std::max(spec::kMinRttSample, rtt - ack_delay);  // MROCE-RTO-001
  // MROCE-RTO-002: first sample SRTT = R, RTTVAR = R/2; then RTTVAR before SRTT, rounded down.
  if (!has_sample_) {
    srtt_ = rtt;
    rttvar_ = rtt / 2;
    has_sample_ = true;
  } else {
    const TimeNs err = std::llabs(srtt_ - rtt);
    rttvar_ = (3 * rttvar_ + err) / 4;  // beta = 1/4
    srtt_ = (7 * srtt_ + rtt) / 8;      // alpha = 1/8
  }
  base_rto_ = Clamp(srtt_ + std::max(config_.granularity, 4 * rttvar_));  // MROCE-RTO-004
  rto_ = base_rto_;
  backoff_count_ = 0;
}

void RttEstimator::Backoff() {
  ++backoff_count_;
  if (config_.backoff) rto_ = Clamp(rto_ * 2);  // MROCE-RTO-006: x2, capped at 64 ms
}

void RttEstimator::Reset() {
  has_sample_ = false;
  srtt_ = rttvar_ = 0;
  rto_ = config_.initial_rto;
  backoff_count_ = 0;
}

}  // namespace mroce::ref
