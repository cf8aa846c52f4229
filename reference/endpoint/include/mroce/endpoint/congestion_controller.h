// CongestionController: one per connection (docs/spec chapter 10). Per-path AIMD windows driven by
// ECN echo, loss and RTO (10.2), and one connection-wide rate limiter whose rate is the receiver's
// latest rate hint, capped by the peer's CMH max_rate (10.4).
//
// The limiter is a token bucket of depth one full-size data packet (IP total length) that may go
// one packet negative: a packet may leave when the bucket is not negative. Hence every interval
// sees at most rate x time + 2 full packets <= rate x time + B (MROCE-HINT-005), and consecutive
// packets are spaced by length x 8 / rate (MROCE-HINT-006). A higher hint takes effect 1 us after
// its ACK arrived (the bound integrates hint(t - 1 us)); a lower one at once.
#pragma once

#include <vector>

#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/types.h"

namespace mroce::ref {

inline constexpr uint32_t kRateHintUnlimited = spec::kRateUnlimited;

struct CongestionConfig {
  uint32_t mtu = 4096;                 // negotiated payload bytes per full packet
  uint64_t link_rate_mbps = 100000;    // local link, Mb/s: the limiter never exceeds it
  uint32_t full_packet_ip_bytes = spec::DataIpLength(4096, false);
  // Token bucket depth, bytes; 0: one full packet (paced, MROCE-HINT-006). A packet leaves while
  // the bucket is not empty, so a burst is at most the depth plus one packet: at most B of 10.4.
  uint32_t bucket_bytes = 0;
  bool ignore_ecn = false;             // quirk ignore_ecn
  uint32_t init_mtus = spec::kCwndInitMtus;  // cwnd_init / MTU (quirk initial_window_8mtu: 8)
  uint32_t rto_mtus = spec::kCwndMinMtus;    // cwnd after an RTO / MTU (quirk rto_window_two_mtu: 2)
  uint64_t ai_mtus = 1;                      // additive increase per window (quirk additive_increase_double: 2)
  bool halve_every_ece = false;              // quirk halve_every_ece: no once-per-SRTT spacing
  bool ignore_rate_hint = false;       // quirk ignore_rate_hint
  bool ignore_cwnd = false;            // quirk ignore_window
};

class CongestionController {
 public:
  CongestionController(CongestionConfig config, int num_paths);

  // MROCE-CC-004/005: an ACK of `path` newly acknowledged `acked_payload` bytes; `congestion` is
  // ECE set or ce_count > 0. `srtt` (ns, 0 = no sample yet) spaces decreases. True if cwnd halved.
  bool OnAck(int path, uint64_t acked_payload, bool congestion, TimeNs srtt, TimeNs now);
  // MROCE-CC-005: a loss inference on `path`. True if cwnd halved.
  bool OnLoss(int path, TimeNs srtt, TimeNs now);
  // MROCE-CC-006: RTO of `path`: cwnd = 1 MTU. True if cwnd changed.
  bool OnRto(int path, TimeNs now);
  // MROCE-CC-002: established / reintroduced path starts from the initial window.
  void ResetPath(int path);

  // Latest rate hint (Mb/s; 0 means 1, 0xFFFFFFFF unlimited) from an ACK that arrived at `now`.
  void OnRateHint(uint32_t hint_mbps, TimeNs now);
  // Peer's CMH max_rate, Mb/s (0 = unspecified): the latest hint before any ACK, and a cap.
  void SetPeerMaxRate(uint32_t mbps);

  // MROCE-CC-003: may a new packet of `payload` bytes go on `path` with `inflight` bytes in flight?
  [[nodiscard]] bool WindowAllows(int path, uint64_t inflight, uint64_t payload) const;
  // Rate limiter.
  [[nodiscard]] bool PacerAllows(TimeNs now) const { return NextSendTime(now) <= now; }
  [[nodiscard]] TimeNs NextSendTime(TimeNs now) const;
  void OnPacketSent(uint64_t ip_bytes, TimeNs now);

  [[nodiscard]] uint64_t cwnd_bytes(int path) const { return paths_[path].cwnd_bytes; }
  [[nodiscard]] uint64_t pacing_rate_mbps(TimeNs now) const;
  // Latest hint in force (0xFFFFFFFF = unlimited), as rate_hint_last_rx_mbps reports it.
  [[nodiscard]] uint32_t latest_hint_mbps() const { return hint_mbps_; }

 private:
  [[nodiscard]] int64_t BucketCap() const;  // tokens (bit-ns) of a full bucket
  struct PathWindow {
    uint64_t cwnd_bytes = 0;            // congestion window, bytes
    TimeNs last_decrease_at = kNever;   // ns; kNever = never decreased
  };
  bool Halve(int path, TimeNs srtt, TimeNs now);
  [[nodiscard]] uint64_t RateAt(TimeNs t) const;   // limiter rate in force at t, Mb/s
  [[nodiscard]] int64_t TokensAt(TimeNs t) const;  // bucket level at t, millibits
  void Advance(TimeNs now);

  CongestionConfig config_;
  std::vector<PathWindow> paths_;
  uint32_t hint_mbps_ = kRateHintUnlimited;   // latest hint received (or max_rate before any ACK)
  uint32_t prev_hint_mbps_ = kRateHintUnlimited;  // in force until hint_effective_at_
  TimeNs hint_effective_at_ = 0;
  uint32_t peer_max_rate_mbps_ = 0;
  bool any_ack_ = false;
  int64_t tokens_ = 0;      // millibits (bits x 1000 = Mb/s x ns)
  TimeNs tokens_at_ = 0;    // ns, time tokens_ refers to
};

}  // namespace mroce::ref
