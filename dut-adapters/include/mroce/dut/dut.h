// Dut: the one interface through which the harness reaches any device under test (and its peer).
//
// An implementation is driven in the harness's time: every call that can make the device act carries
// `now` (ns); the device asks to be woken through NextDeadline() and sends frames through the
// FrameSink it was started with. Memory lives on the device side: the harness allocates buffers,
// fills and reads them back through this interface, so an out-of-process DUT works the same way.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mroce/endpoint/types.h"
#include "mroce/sim/result.h"
#include "mroce/sim/units.h"
#include "mroce/wire/eth.h"
#include "mroce/wire/ip.h"

namespace mroce::dut {

using mroce::kNever;
using mroce::TimeNs;
using mroce::Error;
using mroce::MakeError;
using mroce::Ok;
using mroce::OkStatus;
using mroce::Result;
using mroce::Status;

enum class Protocol : uint8_t { kMetaRoce, kRocev2 };
[[nodiscard]] std::string_view ProtocolName(Protocol p);

// What a device can do; cases that need something absent get a SKIP verdict.
struct Capabilities {
  Protocol protocol = Protocol::kMetaRoce;
  bool simulated_time = true;  // runs in the harness's simulated clock (in-process or plugin)
  // Its data plane carries whole frames as the harness sent them (in-process, plugin, DPDK ethdev).
  // false: kernel UDP sockets (process:), which rebuild the Ethernet, IP and UDP headers, so a case
  // that injects a malformed or unusual one cannot reach the DUT with it ("raw_frames").
  bool raw_frames = true;
  uint8_t max_paths = 1;
  uint8_t max_planes = 1;
  uint16_t max_streams = 1;
  bool in_band_connect = true;  // false: out-of-band setup via PrepareConnection (RoCEv2)
  std::vector<std::string> features;  // e.g. "write", "read", "send", "write_imm", "telemetry"

  [[nodiscard]] bool Has(std::string_view feature) const;
};

// Where the device sits in the fabric and what it may use, set by the harness at Start().
struct HostConfig {
  wire::MacAddress mac{};
  wire::Ipv4Address ip{};
  uint16_t udp_port = 4797;
  uint8_t num_paths = 8;
  uint8_t num_planes = 1;
  uint16_t mtu = 4096;
  uint16_t max_streams = 16;
  uint64_t link_capacity_mbps = 100000;  // Receive and send capacity: the sum of the line rates of all planes (spec 10.3 C)
  uint64_t seed = 1;
};

// Frames leave the device here. `plane` is the NIC port (0..num_planes-1). The span is valid only
// during the call.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void Send(std::span<const uint8_t> frame, uint8_t plane) = 0;
};

// Memory access rights of a buffer (as verbs access flags).
enum Access : uint32_t {
  kAccessLocalWrite = 1u << 0,
  kAccessRemoteWrite = 1u << 1,
  kAccessRemoteRead = 1u << 2,
};

// A device-side buffer registered for RDMA: the peer reaches it at [va, va + length) with rkey.
struct Buffer {
  uint32_t id = 0;
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint64_t length = 0;  // bytes
};

// Out-of-band connection parameters (protocols without an in-band handshake): opaque name/value
// pairs the harness carries from one side's PrepareConnection to the other side's Connect.
using OobInfo = std::vector<std::pair<std::string, uint64_t>>;

struct PeerInfo {
  wire::MacAddress mac{};
  wire::Ipv4Address ip{};
  uint16_t udp_port = 4797;
  OobInfo oob;  // empty for in-band protocols
};

using ConnHandle = uint32_t;

// --- work requests ---
// Local memory a work request reads from or lands in: bytes [offset, offset + length) of a
// device-side buffer (Buffer::id).
struct LocalSlice {
  uint32_t buffer_id = 0;
  uint64_t offset = 0;  // bytes into the buffer
  uint32_t length = 0;  // bytes
};
// The peer's memory a WRITE or READ reaches (the peer's Buffer::va + offset, and its rkey).
struct RemoteSlice {
  uint64_t va = 0;
  uint32_t rkey = 0;
};
// A receive for an incoming SEND (or WRITE with immediate) on a stream.
struct RecvRequest {
  ConnHandle conn = 0;
  uint16_t stream = 0;
  LocalSlice local{};  // where the message lands
  uint64_t wr_id = 0;
};
// SEND; with `imm` it is SEND with immediate (feature "send_imm").
struct SendRequest {
  ConnHandle conn = 0;
  uint16_t stream = 0;
  LocalSlice local{};  // the message
  uint64_t wr_id = 0;
  std::optional<uint32_t> imm{};
};
// RDMA WRITE of `local` to `remote`; with `imm` it is WRITE with immediate (feature "write_imm":
// it also consumes a receive at the peer).
struct WriteRequest {
  ConnHandle conn = 0;
  uint16_t stream = 0;
  LocalSlice local{};    // the source
  RemoteSlice remote{};  // the destination, local.length bytes
  uint64_t wr_id = 0;
  std::optional<uint32_t> imm{};
};
// RDMA READ of local.length bytes at `remote` into `local`.
struct ReadRequest {
  ConnHandle conn = 0;
  uint16_t stream = 0;
  LocalSlice local{};    // the destination
  RemoteSlice remote{};  // the source
  uint64_t wr_id = 0;
};

enum class OpKind : uint8_t { kSend, kWrite, kRead, kRecv, kRecvWriteImm };
// Completion statuses (spec table 13.1), plus kOther for a DUT-specific status.
enum class OpStatus : uint8_t {
  kSuccess, kRetryExceeded, kRnrRetryExceeded, kRemoteAccess, kLocalLength, kRemoteInvalid,
  kRemoteOpError, kFlushed, kRemoteAbort, kResource, kConnectTimeout, kOther,
};
[[nodiscard]] std::string_view OpKindName(OpKind k);
[[nodiscard]] std::string_view OpStatusName(OpStatus s);

struct Completion {
  uint64_t wr_id = 0;
  ConnHandle conn = 0;
  uint16_t stream = 0;
  OpKind op = OpKind::kSend;
  OpStatus status = OpStatus::kSuccess;
  uint32_t byte_len = 0;
  std::optional<uint32_t> imm{};
};

// kAccepted: the responder accepted an incoming connection; its handle takes receives from now on
// (kEstablished may follow only with the first packet on it).
enum class ConnEventKind : uint8_t { kEstablished, kIncoming, kRejected, kTimeout, kClosed, kError, kAccepted };
[[nodiscard]] std::string_view ConnEventKindName(ConnEventKind k);
struct ConnEvent {
  ConnEventKind kind = ConnEventKind::kEstablished;
  ConnHandle conn = 0;
  uint32_t reason = 0;
};

// One telemetry value: a stable dotted name as spec chapter 17 gives it ("conn.1.crc_errors_rx",
// "path.1.3.retransmits"): checks match on the last component.
using Counter = std::pair<std::string, uint64_t>;

class Dut {
 public:
  virtual ~Dut() = default;

  // "reference", "reference:quirk=go_back_n", "rocev2", ...: names the implementation in reports.
  [[nodiscard]] virtual std::string Identity() const = 0;
  [[nodiscard]] virtual Capabilities Caps() const = 0;
  // Called once before anything else; the sink outlives the device.
  virtual Status Start(const HostConfig& config, FrameSink* sink) = 0;

  // --- memory ---
  virtual Result<Buffer> AllocBuffer(uint64_t length, uint32_t access) = 0;
  virtual Status WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) = 0;
  virtual Result<std::vector<uint8_t>> ReadBuffer(uint32_t buffer_id, uint64_t offset,
                                                  uint64_t length) = 0;

  // --- connections ---
  // Out-of-band protocols: the local half of connection `index`, to hand to the peer's Connect.
  virtual Result<OobInfo> PrepareConnection(uint32_t index, TimeNs now) { return OobInfo{}; }
  virtual Result<ConnHandle> Connect(const PeerInfo& peer, TimeNs now) = 0;
  virtual Status Disconnect(ConnHandle conn, TimeNs now) = 0;
  // Connection events since the last call (established, incoming, closed, ...).
  virtual std::vector<ConnEvent> PollEvents() = 0;

  // --- work requests (local memory named by buffer id + offset) ---
  virtual Status PostRecv(const RecvRequest& wr) = 0;
  virtual Status PostSend(const SendRequest& wr, TimeNs now) = 0;
  virtual Status PostWrite(const WriteRequest& wr, TimeNs now) = 0;
  virtual Status PostRead(const ReadRequest& wr, TimeNs now) = 0;
  virtual std::vector<Completion> PollCompletions() = 0;

  // --- data plane and time ---
  virtual void OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) = 0;
  [[nodiscard]] virtual TimeNs NextDeadline() const = 0;
  virtual void OnTimer(TimeNs now) = 0;
  // The device's own attachment to `plane` (its NIC port) reports link down (`up` false) or up
  // again, as a port would when the plane fails (a case's blackhole with `link_down: true`).
  // MROCE-PATH-013 lets the device fail that plane's paths at once; a device may also ignore it.
  virtual void OnPlaneLink(uint8_t plane, bool up, TimeNs now) {
    (void)plane;
    (void)up;
    (void)now;
  }

  // --- telemetry (optional: empty when the device exposes none) ---
  // Not const: a live device is asked over its control channel, which may find it failed.
  [[nodiscard]] virtual std::vector<Counter> Telemetry() { return {}; }
  // Bytes of protocol state the device holds now, if it can tell.
  [[nodiscard]] virtual std::optional<uint64_t> StateBytes() { return std::nullopt; }

  // --- health ---
  // Non-empty once the device itself has failed: it crashed, hung or broke its control protocol
  // (live devices). The harness stops the case and gives it an ERROR verdict with this reason.
  [[nodiscard]] virtual std::string Failure() const { return {}; }
  // Failure() is non-empty, without building the text (asked once per simulated event).
  [[nodiscard]] virtual bool Failed() const { return !Failure().empty(); }
  // Live devices: the longest wall-clock time in this case during which the harness did not serve
  // the device (it was descheduled or busy): the device saw a network stall no case asked for. 0 for
  // devices on the simulated clock, which cannot see one.
  [[nodiscard]] virtual TimeNs LongestStall() const { return 0; }
};

}  // namespace mroce::dut
