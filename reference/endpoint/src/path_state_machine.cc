#include "mroce/endpoint/path_state_machine.h"

#include <string>

namespace mroce::ref {

std::string_view PathStateName(PathState s) {
  switch (s) {
    case PathState::kActive: return "active";
    case PathState::kSuspect: return "suspect";
    case PathState::kFailed: return "failed";
    case PathState::kProbing: return "probing";
  }
  return "?";
}

std::string_view PathEventName(PathEvent e) {
  switch (e) {
    case PathEvent::kAckProgress: return "ack_progress";
    case PathEvent::kRto: return "rto";
    case PathEvent::kPlaneDown: return "plane_down";
    case PathEvent::kPlaneUp: return "plane_up";
    case PathEvent::kProbeAck: return "probe_ack";
    case PathEvent::kProbeTimeout: return "probe_timeout";
  }
  return "?";
}

std::string TransitionError::ToString() const {
  return "undeclared path transition: state=" + std::string(PathStateName(state)) +
         " event=" + std::string(PathEventName(event));
}

const PathStateMachine::Row PathStateMachine::kTable[] = {
    {1, PathState::kActive, PathEvent::kAckProgress, &PathStateMachine::OnAckProgress},
    {2, PathState::kActive, PathEvent::kRto, &PathStateMachine::OnRto},
    {3, PathState::kSuspect, PathEvent::kAckProgress, &PathStateMachine::OnAckProgress},
    {4, PathState::kSuspect, PathEvent::kRto, &PathStateMachine::OnRto},  // and row 5
    {6, PathState::kActive, PathEvent::kPlaneDown, &PathStateMachine::OnFail},
    {6, PathState::kSuspect, PathEvent::kPlaneDown, &PathStateMachine::OnFail},
    {7, PathState::kFailed, PathEvent::kProbeTimeout, &PathStateMachine::OnReprobe},
    {7, PathState::kFailed, PathEvent::kPlaneUp, &PathStateMachine::OnReprobe},
    {8, PathState::kFailed, PathEvent::kProbeAck, &PathStateMachine::OnProbeAck},
    {9, PathState::kProbing, PathEvent::kProbeAck, &PathStateMachine::OnProbeAck},  // and row 10
    {11, PathState::kProbing, PathEvent::kProbeTimeout, &PathStateMachine::OnProbeTimeout},
    {12, PathState::kFailed, PathEvent::kPlaneDown, &PathStateMachine::OnFail},
    {12, PathState::kProbing, PathEvent::kPlaneDown, &PathStateMachine::OnFail},
};

Result<Transition> PathStateMachine::Apply(PathEvent event) {
  for (const Row& row : kTable) {
    if (row.state == state_ && row.event == event) {
      const PathState from = state_;
      state_ = (this->*row.handler)();
      int number = row.number;
      if (number == 4 && state_ == PathState::kFailed) number = 5;
      if (number == 9 && state_ == PathState::kActive) number = 10;
      return Transition{from, state_, number};
    }
  }
  const TransitionError err{state_, event};
  return MakeError("path.transition", err.ToString());
}

PathState PathStateMachine::OnAckProgress() {
  consecutive_rtos_ = 0;
  return PathState::kActive;
}

PathState PathStateMachine::OnRto() {
  ++consecutive_rtos_;
  if (consecutive_rtos_ >= thresholds_.fail_after_rtos) {
    consecutive_probe_acks_ = 0;
    return PathState::kFailed;
  }
  return PathState::kSuspect;
}

PathState PathStateMachine::OnFail() {
  consecutive_probe_acks_ = 0;
  return PathState::kFailed;
}

PathState PathStateMachine::OnReprobe() { return PathState::kFailed; }

PathState PathStateMachine::OnProbeAck() {
  ++consecutive_probe_acks_;
  if (consecutive_probe_acks_ >= thresholds_.reintroduce_after_probe_acks) {
    consecutive_rtos_ = 0;
    consecutive_probe_acks_ = 0;
    return PathState::kActive;
  }
  return PathState::kProbing;
}

PathState PathStateMachine::OnProbeTimeout() {
  consecutive_probe_acks_ = 0;
  return PathState::kFailed;
}

}  // namespace mroce::ref
