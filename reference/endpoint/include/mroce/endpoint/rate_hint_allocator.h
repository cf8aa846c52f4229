// RateHintAllocator: the receiver's fair share of its receive capacity (docs/spec 10.3):
// hint = max(1, floor(C x U / N)) Mb/s, N = connections with a data packet in the last 100 us.
// With max_min (variant max_min_hints, MROCE-HINT-003) a connection's hint is its max-min share of
// floor(C x U) by the arrival rates of the last 100 us, kept within HINT-003's bounds.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <utility>

#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/types.h"

namespace mroce::ref {

class RateHintAllocator {
 public:
  // `capacity_mbps`: C. `window`: activity window of N, ns. `utilisation_permille`: U x 1000.
  RateHintAllocator(uint64_t capacity_mbps, TimeNs window, bool constant = false,
                    uint32_t utilisation_permille = spec::kHintUtilisationDefaultPermille, bool max_min = false)
      : capacity_mbps_(capacity_mbps), window_(window), constant_(constant), permille_(utilisation_permille),
        max_min_(max_min) {}

  // A data packet of connection `conn` arrived (MROCE-HINT-002: counted from this instant), with
  // `ip_bytes` its IP total length (or more: an over-estimate only raises the floor of HINT-003 (b)).
  void OnData(ConnId conn, TimeNs now, uint32_t ip_bytes = 0);
  // A connection went away.
  void Forget(ConnId conn);
  // MROCE-HINT-001: hint for any sender at `now`, Mb/s, never 0 nor 0xFFFFFFFF.
  [[nodiscard]] uint32_t Hint(TimeNs now);
  // The hint for an ACK to `conn`: Hint(now), or with max_min its max-min share where HINT-003
  // allows it (the sum of the latest hints of the active connections within max(floor(C x U), N),
  // none below min(equal share, its arrival rate)); remembered as the connection's latest hint.
  [[nodiscard]] uint32_t HintFor(ConnId conn, TimeNs now);
  // Arrival rate of `conn` over the window ending at `now`, Mb/s (8 x bytes / window).
  [[nodiscard]] uint64_t ArrivalRateMbps(ConnId conn, TimeNs now);
  // N at `now` (>= 0; the hint uses max(1, N)); exact, expiring connections idle for the window.
  [[nodiscard]] size_t ActiveSenders(TimeNs now);
  // The same count without expiring anything (telemetry must not change state, MROCE-TEL-003).
  [[nodiscard]] size_t CountActive(TimeNs now) const;

  // When the next connection stops counting (kNever when none counts): the endpoint's timer expires
  // it then, so an idle receiver holds no activity records (MROCE-LIM-007).
  [[nodiscard]] TimeNs NextExpiry() const;
  void Expire(TimeNs now) { (void)ActiveSenders(now); }

  // Two ordered-tree nodes per connection (by id and by time); with max_min also the arrivals of the
  // window and the latest hint per connection.
  [[nodiscard]] size_t StateBytes() const {
    size_t arrivals = 0;
    for (const auto& [conn, q] : arrivals_) arrivals += 32 + q.size() * sizeof(Arrival);
    return last_seen_.size() * 2 * (sizeof(ConnId) + sizeof(TimeNs) + 32) + arrivals +
           last_hint_.size() * (sizeof(ConnId) + sizeof(uint32_t) + 32);
  }

 private:
  uint64_t capacity_mbps_;
  TimeNs window_;
  bool constant_;      // quirk constant_rate_hint
  uint32_t permille_;  // U x 1000
  bool max_min_;       // variant max_min_hints
  using Arrival = std::pair<TimeNs, uint32_t>;  // (arrival, IP bytes)
  std::map<ConnId, std::deque<Arrival>> arrivals_;  // max_min: data arrivals of the last window
  std::map<ConnId, uint32_t> last_hint_;            // max_min: the latest hint sent per connection
  void Drop(ConnId conn);
  std::map<ConnId, TimeNs> last_seen_;  // ordered: no hash-order dependence anywhere
  std::set<std::pair<TimeNs, ConnId>> by_time_;  // the same entries, oldest first (O(log N) expiry)
};

}  // namespace mroce::ref
