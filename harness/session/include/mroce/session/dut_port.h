// DutPort: attaches a Dut to one host of the simulated fabric and to the simulator's clock.
//
// Frames the device sends enter the fabric at its host on the plane it names; frames the fabric
// delivers to the host are handed to the device; the device's NextDeadline() is kept armed as one
// simulator event. Every call into the device goes through here so the timer is re-armed after it.
#pragma once

#include <functional>
#include <string>
#include <type_traits>

#include "mroce/dut/dut.h"
#include "mroce/impairment/fabric.h"
#include "mroce/sim/simulator.h"

namespace mroce::session {

class DutPort final : public dut::FrameSink, public sim::EventHandler {
 public:
  // `dut` must outlive the port; the port registers itself as the host's fabric sink.
  DutPort(sim::Simulator* sim, impairment::Fabric* fabric, int host, dut::Dut* dut);
  ~DutPort() override;

  [[nodiscard]] int host() const { return host_; }
  [[nodiscard]] dut::Dut* dut() const { return dut_; }
  // Frames the device tried to send on a plane the fabric does not have (a device error).
  [[nodiscard]] uint64_t bad_plane_frames() const { return bad_plane_frames_; }
  // Non-empty once the device kept asking for its timer at one simulated instant: after
  // kMaxTimerCallsAtOneInstant calls of on_timer at the same time, each leaving NextDeadline() at
  // or before it, the port stops arming the timer (the simulated clock would never move on again)
  // and says so here; the case then ends as an ERROR of the device instead of hanging the run.
  [[nodiscard]] const std::string& Failure() const { return failure_; }
  static constexpr uint64_t kMaxTimerCallsAtOneInstant = 1'000'000;

  // Runs `fn` against the device now and re-arms its timer afterwards.
  template <typename Fn>
  auto Call(Fn&& fn) -> std::invoke_result_t<Fn&, dut::Dut&> {
    if constexpr (std::is_void_v<std::invoke_result_t<Fn&, dut::Dut&>>) {
      fn(*dut_);
      Rearm();
    } else {
      auto r = fn(*dut_);
      Rearm();
      return r;
    }
  }
  // Re-reads NextDeadline() and (re)schedules the timer event.
  void Rearm();

  // dut::FrameSink
  void Send(std::span<const uint8_t> frame, uint8_t plane) override;
  // sim::EventHandler (timer)
  void OnEvent(sim::Time now, uint64_t arg) override;

 private:
  sim::Simulator* sim_;
  impairment::Fabric* fabric_;
  int host_;
  dut::Dut* dut_;
  sim::EventId timer_ = 0;
  dut::TimeNs armed_ = dut::kNever;
  uint64_t bad_plane_frames_ = 0;
  int64_t instant_ns_ = -1;      // the time of the last timer call
  uint64_t instant_calls_ = 0;   // timer calls in a row at instant_ns_
  std::string failure_;
};

}  // namespace mroce::session
