// Path: everything one connection keeps for one path id, both directions: the sender's state
// machine, scoreboard, RTT estimate, entropy, epoch, RTO and probe timers, and the receiver's
// ReceiveWindow for the peer's path of the same id.
#pragma once

#include <vector>

#include "mroce/endpoint/path_state_machine.h"
#include "mroce/endpoint/receive_window.h"
#include "mroce/endpoint/rtt_estimator.h"
#include "mroce/endpoint/sack_scoreboard.h"
#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/telemetry.h"

namespace mroce::ref {

inline constexpr TimeNs kProbeTimeout = spec::kProbeTimeout;    // MROCE-PATH-016
inline constexpr TimeNs kProbeInterval = spec::kProbeSpacing;   // MROCE-PATH-016

struct Path {
  Path(uint8_t id, uint8_t plane, RttConfig rtt_config) : id(id), plane(plane), rtt(rtt_config) {}

  uint8_t id;
  uint8_t plane;          // id mod num_planes (MROCE-PATH-001)
  uint16_t entropy = 0;   // UDP source port, 49152..65535
  uint8_t epoch = 0;      // current epoch of the sending side
  uint8_t next_epoch = 0; // epoch announced by PROBEs while FAILED/PROBING
  PathStateMachine machine;
  SackScoreboard board;
  RttEstimator rtt;
  std::vector<Psn> lost;      // PSNs deemed lost, waiting to be retransmitted on this path (FIFO)
  std::vector<Psn> released;  // PSNs whose RNR / RESOURCE hold ended, waiting to go again
  TimeNs rto_deadline = kNever;  // ns
  // Probing (sender side).
  Psn probe_psn = 0;       // first PSN of next_epoch
  uint32_t probe_seq = 0;  // of the latest PROBE
  bool probe_outstanding = false;
  TimeNs probe_deadline = kNever;   // probe timeout of the outstanding PROBE
  TimeNs next_probe_at = kNever;    // next PROBE to send after a PROBE_ACK
  bool link_down = false;           // the plane's link is down: no probing until up (table 7.6 row 12)
  TimeNs reintroduced_at = kNever;
  TimeNs optional_reroll_at = kNever;  // last re-roll under MROCE-PATH-005 (reroll_on_ece variant)
  // Receiver side for the peer's path with this id.
  ReceiveWindow rx;
  TimeNs ack_deadline = kNever;     // delayed-ACK deadline, ns
  PathCounters counters;            // table 17.3
  PathRxCounters rx_counters;       // table 17.4

  [[nodiscard]] PathState state() const { return machine.state(); }
  // Bytes of protocol state: fixed part + per outstanding PSN (table 15.3).
  [[nodiscard]] size_t StateBytes() const {
    return sizeof(Path) - sizeof(SackScoreboard) + board.StateBytes() + (lost.size() + released.size()) * sizeof(Psn);
  }
};

}  // namespace mroce::ref
