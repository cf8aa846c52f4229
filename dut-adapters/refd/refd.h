// Refd: the reference endpoint as a live daemon (mroce-refd).
//
// Control: JSON lines on `in_fd` (requests) and `out_fd` (replies, completion and connection
// events), as docs/process-protocol.md specifies. Data: MetaRoCE over kernel UDP sockets (UdpIo),
// one per plane, bound to the addresses the `start` request names (plane_ips). Planes are parallel
// subnets: a peer's plane-p address is its plane-0 address plus (our plane-p address - our plane-0
// address); the endpoint sees every peer by its plane-0 address, as in the simulated fabric. Time: CLOCK_MONOTONIC, nanoseconds since the
// daemon started. One thread, one ppoll loop over the control input and the data socket, woken by
// the endpoint's next deadline.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "mroce/dut/reference_dut.h"
#include "mroce/dut/udp_io.h"

namespace mroce::refd {

// Deliberate misbehaviour for the harness's own tests (a DUT that crashes, hangs or breaks its
// control protocol mid-run): after `after_frames` received data frames. Or a slow control path:
// each request after `start` is carried out at once, its reply written `reply_delay_us` later.
struct Fault {
  enum class Kind { kNone, kCrash, kHang, kGarbage, kReplyDelay };
  Kind kind = Kind::kNone;
  uint64_t after_frames = 0;
  uint64_t reply_delay_us = 0;
  // "crash-after-frames=N", "hang-after-frames=N", "garbage-after-frames=N", "reply-delay-us=N".
  static ref::Result<Fault> Parse(const std::string& text);
};

struct Options {
  ref::Quirks quirks;
  Fault fault;
};

class Refd final : public dut::FrameSink {
 public:
  explicit Refd(Options options);
  ~Refd() override;

  // Serves until the control input ends or a `quit` request; returns the exit status.
  int Run(int in_fd, int out_fd);

  // dut::FrameSink (frames the endpoint sends)
  void Send(std::span<const uint8_t> frame, uint8_t plane) override;

 private:
  nlohmann::json Handle(const nlohmann::json& req);
  void HandleLine(std::string_view line);
  // Hands every datagram waiting on plane `plane`'s socket to OnDatagram.
  void ReceiveOn(size_t plane);
  void OnDatagram(uint8_t plane, const dut::Datagram& d);
  void FlushEvents();
  void Write(const nlohmann::json& j);
  void FlushOut();
  [[nodiscard]] int64_t Now() const;
  // Starvation the daemon saw (issue: a loaded host deschedules it, and the harness, which only
  // sees its own gaps, would judge the late frames): the time it was runnable but off the CPU while
  // working (wall minus thread CPU time), and how late a timed wait returned. Measured from `start`.
  void NoteWork(int64_t wall_ns, int64_t cpu_ns);
  void NoteWaitReturned(int64_t waited_ns, int64_t asked_ns);

  Options options_;
  std::unique_ptr<dut::ReferenceDut> dut_;
  std::vector<std::unique_ptr<dut::UdpIo>> udp_;  // one per plane
  std::vector<uint32_t> plane_delta_;             // address of plane p minus address of plane 0
  dut::HostConfig config_;
  bool started_ = false;
  bool quit_ = false;
  int out_fd_ = -1;
  std::string out_;
  struct Delayed {
    int64_t due_ns = 0;  // MonotonicNs
    std::string text;
  };
  std::deque<Delayed> delayed_;  // replies held back by --fault reply-delay-us, in order
  void ReleaseDelayed();
  int64_t t0_ = 0;
  uint64_t frames_rx_ = 0;
  uint64_t send_errors_ = 0;
  int64_t longest_stall_ns_ = 0;  // sent as stall_ns in every reply (docs/process-protocol.md)
};

}  // namespace mroce::refd
