// RttEstimator: per-path SRTT, RTTVAR and RTO exactly as docs/spec 9.4 and 9.5 state (RFC 6298
// with alpha 1/8, beta 1/4, G = 1 us, integer ns rounded down).
#pragma once

#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/types.h"

namespace mroce::ref {

struct RttConfig {
  TimeNs initial_rto = spec::kRtoInitial;  // before the first sample
  TimeNs min_rto = spec::kRtoMin;
  TimeNs max_rto = spec::kRtoMax;
  TimeNs granularity = spec::kRttGranularity;  // G: floor of the 4*RTTVAR term
  bool backoff = true;                    // false only under the no_rto_backoff quirk
};

class RttEstimator {
 public:
  explicit RttEstimator(RttConfig config = {}) : config_(config), rto_(config.initial_rto) {}

  // One RTT sample: R = rtt - ack_delay, at least 1 us (MROCE-RTO-001), both in ns. The caller
  // applies Karn's rule (which ACKs may give a sample at all).
  void OnSample(TimeNs rtt, TimeNs ack_delay = 0);
  // The RTO expired: double it (bounded by max_rto) until the next sample.
  void Backoff();
  // The path restarts (reintroduced after failure): forget the estimate.
  void Reset();

  [[nodiscard]] bool has_sample() const { return has_sample_; }
  [[nodiscard]] TimeNs srtt() const { return srtt_; }      // ns, 0 before the first sample
  [[nodiscard]] TimeNs rttvar() const { return rttvar_; }  // ns
  [[nodiscard]] TimeNs rto() const { return rto_; }        // ns, includes backoff
  [[nodiscard]] int backoff_count() const { return backoff_count_; }

 private:
  TimeNs Clamp(TimeNs v) const;

  RttConfig config_;
  bool has_sample_ = false;
  TimeNs srtt_ = 0;
  TimeNs rttvar_ = 0;
  TimeNs base_rto_ = 0;  // RTO from the estimate, without backoff
  TimeNs rto_;
  int backoff_count_ = 0;
};

}  // namespace mroce::ref
