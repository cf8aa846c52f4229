// ProcessDut: a device under test that is a separate process speaking the JSON-lines control
// protocol (docs/process-protocol.md) with MetaRoCE on kernel UDP sockets: mroce-refd, or a vendor's
// host software driving its NIC.
//
//   --dut process:[net=A.B.C.D,][timeout_ms=N,][tick_us=N,]COMMAND ...
//
// COMMAND runs under /bin/sh -c in its own process group, one process per test case; its stdin and
// stdout carry the protocol, its stderr goes to a file whose tail is quoted when it fails.
//
// Addresses: the fabric's host h has 10.0.0.(h+1); on the wire, plane p of host h is
// net + 256 p + (h + 1) (default net: a 127.X.Y.0 block of the loopback, different for every case,
// so runs may overlap), one subnet per plane as on a rail-optimised cluster. The DUT binds one
// socket per plane; the harness binds one per peer and plane and one per UDP source port it sends
// from, so path entropy, DSCP and ECN survive the kernel. At most 253 peers. Those sockets are the
// default data plane (UdpDataPlane, data_plane.h); Options::data_plane replaces them (the `dpdk`
// adapter carries the same on-wire frames through an ethdev).
//
// Time: the process runs on its own clock. Every tick (tick_us of simulated time) the adapter holds
// the harness's simulated clock until the wall clock has reached it (sim::WallClockDriver: simulated
// time follows the wall clock, never ahead of it), reading the process's frames and events meanwhile.
//
// A process that exits, stops answering (timeout_ms per request) or writes anything that is not the
// protocol makes Failure() non-empty with the reason and the tail of its stderr: the case is an
// ERROR and the campaign goes on with a fresh process for the next case.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mroce/dut/dut.h"
#include "mroce/dut/data_plane.h"
#include "mroce/sim/wall_clock_driver.h"

namespace mroce::dut {

class ProcessDut final : public Dut {
 public:
  struct Options {
    std::string command;
    std::optional<wire::Ipv4Address> net;  // base of the on-wire addresses (default: a loopback block)
    int timeout_ms = 5000;                  // per control request
    int64_t tick_ns = 5000;                 // how often the process's output is read (simulated = wall)
    // How frames reach the DUT (empty: kernel UDP sockets, UdpDataPlane); built at Start().
    DataPlaneFactory data_plane;
    uint8_t max_planes = 8;  // planes the data plane can carry (eight plane subnets per address block)
  };
  // Parses the text after "process:" (options, then the command). Errors name the part.
  [[nodiscard]] static Result<Options> ParseSpec(std::string_view text);
  // Starts the process and says hello; errors carry the process's own words (stderr tail).
  [[nodiscard]] static Result<std::unique_ptr<ProcessDut>> Create(const Options& options);
  ~ProcessDut() override;

  [[nodiscard]] std::string Identity() const override { return identity_; }
  [[nodiscard]] Capabilities Caps() const override { return caps_; }
  Status Start(const HostConfig& config, FrameSink* sink) override;

  Result<Buffer> AllocBuffer(uint64_t length, uint32_t access) override;
  Status WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) override;
  Result<std::vector<uint8_t>> ReadBuffer(uint32_t buffer_id, uint64_t offset, uint64_t length) override;

  Result<OobInfo> PrepareConnection(uint32_t index, TimeNs now) override;
  Result<ConnHandle> Connect(const PeerInfo& peer, TimeNs now) override;
  Status Disconnect(ConnHandle conn, TimeNs now) override;
  std::vector<ConnEvent> PollEvents() override;

  Status PostRecv(const RecvRequest& wr) override;
  Status PostSend(const SendRequest& wr, TimeNs now) override;
  Status PostWrite(const WriteRequest& wr, TimeNs now) override;
  Status PostRead(const ReadRequest& wr, TimeNs now) override;
  std::vector<Completion> PollCompletions() override;

  void OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) override;
  [[nodiscard]] TimeNs NextDeadline() const override;
  void OnTimer(TimeNs now) override;

  [[nodiscard]] std::vector<Counter> Telemetry() override;
  [[nodiscard]] std::optional<uint64_t> StateBytes() override;
  [[nodiscard]] std::string Failure() const override { return failure_; }
  [[nodiscard]] bool Failed() const override { return !failure_.empty(); }
  // The longest of the stall the harness caused (gaps in serving the DUT, and the longest a frame of
  // the DUT waited on this host before the harness read it) and the one the DUT itself reports
  // (`stall_ns` in its replies: the time its host kept it off the CPU, docs/process-protocol.md).
  [[nodiscard]] TimeNs LongestStall() const override {
    const TimeNs waited = data_ ? data_->LongestReceiveWait() : 0;
    return std::max<TimeNs>({clock_.longest_stall().nanos(), reported_stall_ns_, waited});
  }

  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  explicit ProcessDut(Options options) : options_(std::move(options)) {}
  Status Spawn();
  // Sends one request and waits for its reply (events read meanwhile are queued). A transport
  // failure sets failure_; a reply with ok:false is returned as the DUT's error.
  Result<nlohmann::json> Request(const std::string& op, nlohmann::json args = nlohmann::json::object());
  // Reads whatever the process wrote (non-blocking unless timeout_ms > 0); handles complete lines.
  // Returns false once the process has failed.
  bool ReadControl(int timeout_ms);
  void HandleLine(std::string_view line);
  void SetFailure(const std::string& why);
  [[nodiscard]] std::string ExitText() const;
  [[nodiscard]] std::string StderrTail() const;
  // Hands the DUT's frames received since the last call to the sink; returns how many.
  size_t DrainData();
  // The harness's side of fabric peer `virtual_ip` on `plane` (data plane AddPeer on its on-wire address).
  Status AddPeer(uint8_t plane, const wire::Ipv4Address& virtual_ip);
  // On-wire address of a fabric address on a plane: net + plane * 256 + (host + 1).
  [[nodiscard]] wire::Ipv4Address Real(uint8_t plane, const wire::Ipv4Address& virtual_ip) const;
  // (plane, fabric address) of an on-wire address, if it is one of this case's.
  [[nodiscard]] std::optional<std::pair<uint8_t, wire::Ipv4Address>> Virtual(const wire::Ipv4Address& real_ip) const;
  // The driver sleeps on the control pipe and the data plane's ReadFds() between services; on
  // none (a polled data plane) it spins.
  void RebuildWaitFds();

  Options options_;
  std::string identity_;
  Capabilities caps_;
  HostConfig config_;
  FrameSink* sink_ = nullptr;
  wire::Ipv4Address net_{};

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string stderr_path_;
  std::string in_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, nlohmann::json> replies_;
  std::vector<ConnEvent> events_;
  std::vector<Completion> completions_;
  std::string failure_;
  int exit_status_ = -1;  // waitpid status once reaped

  std::unique_ptr<DataPlane> data_;  // from Start()
  sim::WallClockDriver clock_;  // started at the first tick; measures LongestStall()
  TimeNs next_tick_ = 0;
  bool sending_ = false;  // the DUT was asked to send: requests now stall it
  TimeNs reported_stall_ns_ = 0;  // the largest stall_ns the DUT's replies carried
};

}  // namespace mroce::dut
