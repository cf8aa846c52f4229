// PluginDut: a device in a shared object speaking the C ABI of mroce_dut.h, behind Dut.
//
// `--dut plugin:PATH.so[,key=value...]`: the library is dlopen()ed once per process (kept open
// until exit, so instances of many test cases share it), its entry point mroce_dut_plugin_v1 is
// checked for the ABI version and required ops, and each PluginDut is one plugin instance created
// with the key=value options.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/dut/mroce_dut.h"

namespace mroce::dut {

class PluginLibrary;

class PluginDut final : public Dut {
 public:
  using Options = std::vector<std::pair<std::string, std::string>>;

  // Loads (or reuses) the library at `path` and creates one instance with `options`. Errors name
  // the path and say what went wrong (dlopen's message, missing entry point, ABI version, ...).
  [[nodiscard]] static Result<std::unique_ptr<PluginDut>> Create(const std::string& path, const Options& options);
  ~PluginDut() override;
  PluginDut(const PluginDut&) = delete;
  PluginDut& operator=(const PluginDut&) = delete;

  [[nodiscard]] std::string Identity() const override;
  [[nodiscard]] Capabilities Caps() const override;
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
  void OnPlaneLink(uint8_t plane, bool up, TimeNs now) override;

  [[nodiscard]] std::vector<Counter> Telemetry() override;
  [[nodiscard]] std::optional<uint64_t> StateBytes() override;

  // The plugin's table as this host sees it (members past the plugin's struct_size are NULL).
  [[nodiscard]] const mroce_dut_plugin& ops() const;

 private:
  PluginDut(std::shared_ptr<const PluginLibrary> lib, mroce_dut_instance* inst);
  // Error for a failed op: the plugin's last_error() if it gave one, else the status name.
  [[nodiscard]] Error Fail(const char* op, int rc) const;
  static void SinkThunk(void* ctx, const uint8_t* frame, size_t length, uint8_t plane);

  std::shared_ptr<const PluginLibrary> lib_;
  mroce_dut_instance* inst_;
  FrameSink* sink_ = nullptr;
};

// Name of a mroce_dut_status for messages ("MROCE_DUT_ERR_INVALID").
[[nodiscard]] std::string_view PluginStatusName(int rc);

}  // namespace mroce::dut
