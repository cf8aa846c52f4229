// RateHintAllocator: the receiver's fair share of its receive capacity (docs/spec 10.3):
// hint = max(1, floor(C x U / N)) Mb/s, N = connections with a data packet in the last 100 us.
#pragma once

#include <map>
#include <set>

#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/types.h"

namespace mroce::ref {

class RateHintAllocator {
 public:
  // `capacity_mbps`: C. `window`: activity window of N, ns. `utilisation_permille`: U x 1000.
  RateHintAllocator(uint64_t capacity_mbps, TimeNs window, bool constant = false,
                    uint32_t utilisation_permille = spec::kHintUtilisationDefaultPermille)
      : capacity_mbps_(capacity_mbps), window_(window), constant_(constant), permille_(utilisation_permille) {}

  // A data packet of connection `conn` arrived (MROCE-HINT-002: counted from this instant).
  void OnData(ConnId conn, TimeNs now);
  // A connection went away.
  void Forget(ConnId conn);
  // MROCE-HINT-001: hint for any sender at `now`, Mb/s, never 0 nor 0xFFFFFFFF.
  [[nodiscard]] uint32_t Hint(TimeNs now);
  // N at `now` (>= 0; the hint uses max(1, N)); exact, expiring connections idle for the window.
  [[nodiscard]] size_t ActiveSenders(TimeNs now);
  // The same count without expiring anything (telemetry must not change state, MROCE-TEL-003).
  [[nodiscard]] size_t CountActive(TimeNs now) const;

  // When the next connection stops counting (kNever when none counts): the endpoint's timer expires
  // it then, so an idle receiver holds no activity records (MROCE-LIM-007).
  [[nodiscard]] TimeNs NextExpiry() const;
  void Expire(TimeNs now) { (void)ActiveSenders(now); }

  // Two ordered-tree nodes per connection (by id and by time).
  [[nodiscard]] size_t StateBytes() const { return last_seen_.size() * 2 * (sizeof(ConnId) + sizeof(TimeNs) + 32); }

 private:
  uint64_t capacity_mbps_;
  TimeNs window_;
  bool constant_;      // quirk constant_rate_hint
  uint32_t permille_;  // U x 1000
  std::map<ConnId, TimeNs> last_seen_;  // ordered: no hash-order dependence anywhere
  std::set<std::pair<TimeNs, ConnId>> by_time_;  // the same entries, oldest first (O(log N) expiry)
};

}  // namespace mroce::ref
