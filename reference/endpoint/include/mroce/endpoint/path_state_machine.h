// PathStateMachine: the sender's view of one path's health, declared as a (state, event) table.
//
// The table is section 7.6 of the spec (MROCE-PATH-010), rows 1..12:
//
//                 ACK progress
//          +--------------------------+
//          v                          |
//     +--------+   RTO (1st)     +---------+  RTO (3rd consecutive)  +--------+
// --->| ACTIVE |---------------->| SUSPECT |------------------------>| FAILED |<--+
//     +--------+                 +---------+                         +--------+   |
//       ^   |   plane down            | RTO (2nd): stay               ^  |        | probe timeout
//       |   +---------------------------------------------------------+  |        |
//       |                                       1st matching PROBE_ACK   v        |
//       |        3rd consecutive PROBE_ACK                       +---------+      |
//       +--------------------------------------------------------| PROBING |------+
//                                                                +---------+
// The machine decides states only; the owner (Path) performs the actions of each row (re-roll,
// fail over, probe, reintroduce) after seeing the Transition. Any (state, event) pair absent from
// the table is a typed TransitionError naming both.
#pragma once

#include <string_view>

#include "mroce/endpoint/types.h"

namespace mroce::ref {

enum class PathState : uint8_t { kActive, kSuspect, kFailed, kProbing };
enum class PathEvent : uint8_t {
  kAckProgress,   // an ACK of the current epoch acknowledged a PSN not acknowledged before
  kRto,           // the path's retransmission timer expired
  kPlaneDown,     // the attachment to the path's plane reports link down
  kPlaneUp,       // ... and up again
  kProbeTimeout,  // 1 ms without a PROBE_ACK matching the latest PROBE
  kProbeAck,      // a matching PROBE_ACK arrived
};

[[nodiscard]] std::string_view PathStateName(PathState s);
[[nodiscard]] std::string_view PathEventName(PathEvent e);

struct PathThresholds {
  int fail_after_rtos = 3;               // consecutive RTOs (MROCE-PATH-012)
  int reintroduce_after_probe_acks = 3;  // consecutive PROBE_ACKs (MROCE-PATH-017)
};

struct TransitionError {
  PathState state;
  PathEvent event;
  [[nodiscard]] std::string ToString() const;
};

struct Transition {
  PathState from;
  PathState to;
  int row;  // row number of the spec's table 7.6
  [[nodiscard]] bool changed() const { return from != to; }
};

class PathStateMachine {
 public:
  explicit PathStateMachine(PathThresholds t = {}) : thresholds_(t) {}

  // Apply one event; on an undeclared pair the state is unchanged and the error names it.
  Result<Transition> Apply(PathEvent event);

  [[nodiscard]] PathState state() const { return state_; }
  [[nodiscard]] int consecutive_rtos() const { return consecutive_rtos_; }
  [[nodiscard]] int consecutive_probe_acks() const { return consecutive_probe_acks_; }
  // New data only on ACTIVE paths; SUSPECT paths carry retransmissions of their own PSNs only
  // (MROCE-PATH-011).
  [[nodiscard]] bool CarriesNewData() const { return state_ == PathState::kActive; }
  [[nodiscard]] bool CarriesRetransmissions() const {
    return state_ == PathState::kActive || state_ == PathState::kSuspect;
  }
  [[nodiscard]] bool Probes() const {
    return state_ == PathState::kFailed || state_ == PathState::kProbing;
  }
  void set_reintroduce_after(int n) { thresholds_.reintroduce_after_probe_acks = n; }
  [[nodiscard]] int reintroduce_after() const { return thresholds_.reintroduce_after_probe_acks; }

  // Handler signature used by the table: returns the next state.
  using Handler = PathState (PathStateMachine::*)();

 private:
  PathState OnAckProgress();    // rows 1, 3
  PathState OnRto();            // rows 2, 4, 5
  PathState OnFail();           // rows 6, 12
  PathState OnReprobe();        // row 7
  PathState OnProbeAck();       // rows 8, 9, 10
  PathState OnProbeTimeout();   // row 11

  struct Row {
    int number;  // first row of table 7.6 the entry implements
    PathState state;
    PathEvent event;
    Handler handler;
  };
  static const Row kTable[];

  PathThresholds thresholds_;
  PathState state_ = PathState::kActive;
  int consecutive_rtos_ = 0;
  int consecutive_probe_acks_ = 0;
};

}  // namespace mroce::ref
