// Trace: everything a simulated case recorded (frames at the taps with their fates, control events
// at the DUT and peer interfaces, telemetry samples); checks are pure functions of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/wire/frame.h"

namespace mroce::session {

// Host index of the device under test in the fabric; peers are 1..N.
inline constexpr int kDutHost = 0;

// One frame event seen by the fabric.
struct FrameRecord {
  enum class Event : uint8_t { kTx, kRx, kDrop };
  Event event = Event::kTx;
  int64_t time_ns = 0;
  int src_host = 0;
  int dst_host = 0;
  int plane = 0;
  uint64_t packet_id = 0;   // Unique per fabric packet (duplicates get their own).
  uint64_t origin_id = 0;   // The packet this one was duplicated from (== packet_id otherwise).
  bool duplicate = false;
  bool ce = false;          // Arrived CE-marked (kRx).
  bool corrupted = false;
  std::string where;        // kDrop: the stage or queue that dropped it.
  std::vector<uint8_t> bytes;  // The frame as sent (kTx, kDrop) or as delivered (kRx).
  uint64_t frame_no = 0;    // 1-based frame number in the DUT pcap (0 when not in it).

  [[nodiscard]] bool from_dut() const { return src_host == kDutHost; }
  [[nodiscard]] bool to_dut() const { return dst_host == kDutHost; }
};
[[nodiscard]] const char* EventName(FrameRecord::Event e);

// Transport facts of a frame, extracted once by Trace::Analyze (MetaRoCE or RoCEv2 alike).
struct FrameFacts {
  bool parsed = false;      // The codec accepted the frame.
  bool meta = false;        // MetaRoCE
  bool roce = false;        // RoCEv2
  bool data = false;        // Carries message data or a request (WRITE/SEND/READ_REQ/READ_RESP, RoCE likewise).
  bool ack = false;         // MetaRoCE ACK or RoCEv2 ACK (AETH ACK syndrome)
  bool nack = false;        // MetaRoCE NACK or RoCEv2 NAK (AETH NAK syndromes)
  uint8_t opcode = 0;       // MetaRoCE CH.opcode or RoCEv2 BTH opcode
  uint16_t sport = 0;       // UDP source port (path entropy)
  uint32_t path = 0;        // MetaRoCE path_id; RoCEv2: 0
  uint8_t epoch = 0;
  uint32_t psn = 0;
  uint32_t conn = 0;        // dst_conn_id / dest QP
  bool rtx = false;         // MetaRoCE RTX flag; RoCEv2: a PSN this sender already sent on the QP
  uint32_t payload_bytes = 0;
  bool segment = false;      // MetaRoCE data with a message header: (conn, stream, msn, msg_offset) names it.
  uint16_t stream = 0;
  uint32_t msn = 0;
  uint32_t msg_offset = 0;
  uint32_t rate_hint = 0;   // ACK: Mb/s (0xFFFFFFFF unlimited)
  uint16_t ce_count = 0;    // ACK
  bool ce = false;          // IP ECN == CE

  // The segment a data frame carries (meaningful when `segment`): its transmissions share it.
  [[nodiscard]] std::tuple<uint32_t, uint16_t, uint32_t, uint32_t> SegmentKey() const {
    return {conn, stream, msn, msg_offset};
  }
};

// Something that happened at a device's control interface.
struct ControlRecord {
  // kClose: the harness closed a connection (the device accepted Disconnect).
  enum class Kind : uint8_t { kPost, kCompletion, kConnEvent, kError, kClose };
  Kind kind = Kind::kPost;
  int64_t time_ns = 0;
  int host = 0;             // kDutHost or a peer host
  dut::ConnHandle conn = 0;
  uint16_t stream = 0;
  uint64_t wr_id = 0;
  dut::OpKind op = dut::OpKind::kWrite;
  dut::OpStatus status = dut::OpStatus::kSuccess;
  uint32_t bytes = 0;
  std::string detail;       // kConnEvent: event name; kError: message
  std::optional<uint32_t> imm;  // kCompletion: the immediate data it carries (a receive of WRITE_IMM/SEND_IMM)
};

// A telemetry value of one device at one time.
struct TelemetrySample {
  int64_t time_ns = 0;
  int host = 0;
  std::vector<dut::Counter> counters;
  std::optional<uint64_t> state_bytes;
  // Simulated testbed: how many frames the trace held when the sample was taken (its place in the
  // frame order; the tap records a frame as the device emits it). Unset for a live DUT, whose
  // frames reach the trace on another channel.
  std::optional<size_t> frames_before;
};

// Where a chapter-17 counter lives (MROCE-TEL-008): endpoint.NAME, conn.C.NAME, path.C.P.NAME
// (sender side of the endpoint's own path) or path.C.P.rx.NAME (receiver side).
enum class CounterScope : uint8_t { kAny, kEndpoint, kConnection, kPath, kPathRx };
// "any", "endpoint", "connection", "path", "path-rx" (nullopt for another text).
[[nodiscard]] std::optional<CounterScope> ParseCounterScope(std::string_view text);

// An event the DUT's tap records, counted from the frames (MetaRoCE only). Chapter 17's counters
// must agree with them exactly (MROCE-TEL-003); a count of 0 means the event never happened.
struct TraceCountInfo {
  std::string_view name;  // "dut.data_rx_ce"
  std::string_view doc;
};
[[nodiscard]] const std::vector<TraceCountInfo>& TraceCounts();

// A plane's link went down or came up at every attachment (a blackhole with `link_down: true`); the
// devices were told (dut::Dut::OnPlaneLink).
struct LinkEvent {
  int64_t time_ns = 0;
  uint8_t plane = 0;
  bool up = false;
};

class Trace {
 public:
  std::vector<FrameRecord> frames;
  std::vector<ControlRecord> control;
  std::vector<TelemetrySample> telemetry;
  std::vector<std::string> stage_stats;  // One line per impairment stage ("configured vs achieved").
  std::vector<LinkEvent> links;          // Plane link changes the devices were told of, in time order.
  std::vector<FrameFacts> facts;         // Parallel to `frames`, filled by Analyze().
  uint16_t meta_port = 4797;

  // Fills `facts` (idempotent).
  void Analyze();

  // Parses a frame with the codec (MetaRoCE on `meta_port`, RoCEv2 on 4791); errors returned as is.
  [[nodiscard]] static wire::Result<wire::Frame> Decode(const FrameRecord& r, uint16_t meta_port = 4797);
  // Multi-line field dump of a frame (or its parse error), for failure messages.
  [[nodiscard]] static std::string Dump(const FrameRecord& r, uint16_t meta_port = 4797);
  // The last telemetry sample of `host`, if any.
  [[nodiscard]] const TelemetrySample* LastTelemetry(int host) const;
  // Sum of every counter named `name` (the last component) in `scope` of `host`'s last sample
  // (e.g. "crc_errors" in any scope sums endpoint.crc_errors and conn.N.crc_errors); nullopt when
  // the sample has none.
  [[nodiscard]] std::optional<uint64_t> CounterSum(int host, const std::string& name,
                                                   CounterScope scope = CounterScope::kAny) const;
  // The number of events `name` (one of TraceCounts()) in the frames; nullopt for an unknown name.
  // Needs Analyze().
  [[nodiscard]] std::optional<uint64_t> Count(std::string_view name) const;
};

}  // namespace mroce::session
