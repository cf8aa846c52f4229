// ReferenceDut: the bundled MetaRoCE reference endpoint (optionally with quirks) behind Dut.
#pragma once

#include <memory>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/endpoint/endpoint.h"

namespace mroce::dut {

class ReferenceDut final : public Dut {
 public:
  // `quirks` deviate deliberately from the spec (self-test only); empty for the pristine endpoint.
  explicit ReferenceDut(ref::Quirks quirks = {}, ref::Variants variants = {});
  ~ReferenceDut() override;

  [[nodiscard]] std::string Identity() const override;
  [[nodiscard]] Capabilities Caps() const override;
  Status Start(const HostConfig& config, FrameSink* sink) override;

  Result<Buffer> AllocBuffer(uint64_t length, uint32_t access) override;
  Status WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) override;
  Result<std::vector<uint8_t>> ReadBuffer(uint32_t buffer_id, uint64_t offset, uint64_t length) override;

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
  void OnPlaneLink(uint8_t plane, bool up, TimeNs now) override;

  [[nodiscard]] std::vector<Counter> Telemetry() override;
  [[nodiscard]] std::optional<uint64_t> StateBytes() override;

  // The wrapped endpoint (tests and the example plugin reach it directly).
  [[nodiscard]] const ref::Endpoint* endpoint() const { return endpoint_.get(); }

 private:
  // Adapts the Dut sink to the endpoint's sink type.
  class SinkBridge final : public ref::FrameSink {
   public:
    explicit SinkBridge(dut::FrameSink* out) : out_(out) {}
    void Send(std::span<const uint8_t> frame, uint8_t plane) override { out_->Send(frame, plane); }

   private:
    dut::FrameSink* out_;
  };
  struct Region {
    std::vector<uint8_t> bytes;
    ref::MemoryRegion mr;
  };
  Result<uint8_t*> Slice(uint32_t buffer_id, uint64_t offset, uint64_t length);

  ref::Quirks quirks_;
  ref::Variants variants_;
  std::unique_ptr<SinkBridge> bridge_;
  std::unique_ptr<ref::Endpoint> endpoint_;
  std::vector<std::unique_ptr<Region>> regions_;  // index = buffer id; stable addresses
};

}  // namespace mroce::dut
