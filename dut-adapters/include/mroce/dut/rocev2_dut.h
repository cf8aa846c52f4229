// Rocev2Dut: the bundled RoCEv2 baseline endpoint behind Dut (out-of-band QP setup, single path).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/rocev2/endpoint.h"

namespace mroce::dut {

class Rocev2Dut final : public Dut {
 public:
  Rocev2Dut();
  ~Rocev2Dut() override;

  [[nodiscard]] std::string Identity() const override { return "rocev2"; }
  [[nodiscard]] Capabilities Caps() const override;
  Status Start(const HostConfig& config, FrameSink* sink) override;

  Result<Buffer> AllocBuffer(uint64_t length, uint32_t access) override;
  Status WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) override;
  Result<std::vector<uint8_t>> ReadBuffer(uint32_t buffer_id, uint64_t offset, uint64_t length) override;

  // Creates QP `index` and returns its half of the exchange: {"qpn", "psn"}.
  Result<OobInfo> PrepareConnection(uint32_t index, TimeNs now) override;
  // Connects the oldest prepared, unconnected QP to the peer's {"qpn", "psn"}.
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

 private:
  class SinkBridge final : public rocev2::FrameSink {
   public:
    explicit SinkBridge(dut::FrameSink* out) : out_(out) {}
    void SendFrame(std::span<const uint8_t> frame, uint8_t plane, rocev2::TimeNs) override { out_->Send(frame, plane); }

   private:
    dut::FrameSink* out_;
  };
  struct Region {
    std::vector<uint8_t> bytes;
    rocev2::MemoryRegion mr;
  };
  Result<rocev2::Sge> Local(const LocalSlice& local);
  Status Post(ConnHandle conn, uint16_t stream, const rocev2::SendWr& wr, TimeNs now);

  HostConfig config_;
  std::unique_ptr<SinkBridge> bridge_;
  std::unique_ptr<rocev2::RoceEndpoint> endpoint_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::deque<rocev2::Qpn> prepared_;            // created, not yet connected
  std::vector<ConnEvent> events_;
  std::map<uint64_t, uint16_t> stream_of_wr_;   // RoCEv2 has no streams: remembered for completions
};

}  // namespace mroce::dut
