// DutPort: fabric attachment and timer arming for one device.
#include "mroce/session/dut_port.h"

#include <algorithm>
#include <string>

namespace mroce::session {

DutPort::DutPort(sim::Simulator* sim, impairment::Fabric* fabric, int host, dut::Dut* dut)
    : sim_(sim), fabric_(fabric), host_(host), dut_(dut) {
  fabric_->SetSink(host_, [this](const impairment::Packet& p, sim::Time now) {
    dut_->OnFrame(p.bytes, p.plane, now.nanos());
    Rearm();
  });
}

DutPort::~DutPort() {
  if (timer_ != 0) sim_->Cancel(timer_);
  fabric_->SetSink(host_, nullptr);
}

void DutPort::Rearm() {
  if (!failure_.empty()) return;  // a timer that never lets the clock move on is not armed again
  const dut::TimeNs next = dut_->NextDeadline();
  if (next == armed_ && timer_ != 0) return;
  if (timer_ != 0) {
    sim_->Cancel(timer_);
    timer_ = 0;
  }
  armed_ = next;
  if (next == dut::kNever) return;
  // A deadline already in the past fires now: the clock never goes back.
  const sim::Time at = sim::Time::FromNanos(std::max(next, sim_->Now().nanos()));
  timer_ = sim_->Schedule(at, this, 0);
}

void DutPort::Send(std::span<const uint8_t> frame, uint8_t plane) {
  if (plane >= fabric_->config().num_planes) {
    ++bad_plane_frames_;
    return;
  }
  fabric_->Send(host_, plane, frame);
}

void DutPort::OnEvent(sim::Time now, uint64_t) {
  timer_ = 0;
  armed_ = dut::kNever;
  if (now.nanos() == instant_ns_) {
    ++instant_calls_;
  } else {
    instant_ns_ = now.nanos();
    instant_calls_ = 1;
  }
  dut_->OnTimer(now.nanos());
  if (instant_calls_ >= kMaxTimerCallsAtOneInstant) {
    const dut::TimeNs next = dut_->NextDeadline();
    if (next != dut::kNever && next <= now.nanos()) {
      failure_ = "the device asked for its timer at t=" + std::to_string(now.nanos()) + " ns " +
                 std::to_string(instant_calls_) + " times in a row and still asks for it (next_deadline() = " +
                 std::to_string(next) + " ns after on_timer): a timer that is due but never does its work, which "
                 "would stall the simulated clock for ever; the timer is no longer armed";
      return;
    }
  }
  Rearm();
}

}  // namespace mroce::session
