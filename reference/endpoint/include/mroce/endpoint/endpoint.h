// Endpoint: the MetaRoCE reference endpoint. A pure state machine: it never reads a clock and
// never does I/O. Every call carries `now` (ns); frames leave through a FrameSink; timers are
// exposed by NextDeadline() and fired by OnTimer(now). Adapters drive it through the verbs-like
// API below.
#pragma once

#include <array>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <vector>

#include "mroce/endpoint/connection.h"
#include "mroce/endpoint/endpoint_config.h"

namespace mroce::ref {

class Endpoint {
 public:
  Endpoint(EndpointConfig config, FrameSink* sink);
  ~Endpoint();

  // --- verbs ---
  // The region's VA is deterministic: `va` if non-zero, else the next automatic VA of this
  // endpoint (0x10000000, then 4 KiB-aligned with 4 KiB gaps); never the host pointer.
  Result<MemoryRegion> RegisterMemory(uint8_t* buffer, uint64_t length, uint32_t access, uint64_t va = 0);
  Status DeregisterMemory(uint32_t rkey);
  Result<ConnId> Connect(const PeerAddress& peer, const ConnectOptions& options, TimeNs now);
  Status Accept(ConnId conn, TimeNs now);
  Status Reject(ConnId conn, TimeNs now);
  Status Disconnect(ConnId conn, TimeNs now);
  Status PostRecv(ConnId conn, uint16_t stream, uint8_t* buffer, uint32_t length, uint64_t wr_id);
  Status PostSend(ConnId conn, uint16_t stream, const uint8_t* buffer, uint32_t length, uint64_t wr_id,
                  std::optional<uint32_t> imm, TimeNs now);
  Status PostWrite(ConnId conn, uint16_t stream, const uint8_t* buffer, uint32_t length, uint64_t remote_va,
                   uint32_t rkey, uint64_t wr_id, std::optional<uint32_t> imm, TimeNs now);
  Status PostRead(ConnId conn, uint16_t stream, uint8_t* buffer, uint32_t length, uint64_t remote_va,
                  uint32_t rkey, uint64_t wr_id, TimeNs now);
  std::vector<Completion> PollCompletions(size_t max = SIZE_MAX);
  std::vector<ConnEvent> PollEvents();

  // --- data plane and time ---
  void OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now);
  [[nodiscard]] TimeNs NextDeadline() const;  // kNever when idle
  // The attachment to `plane` reports link down (`up` false) or up again. With the
  // fail_on_link_down variant (MROCE-PATH-013) every connection's paths on that plane fail at once
  // and stop probing until the link is up (table 7.6 rows 6, 7 and 12); otherwise ignored.
  void OnPlaneLink(uint8_t plane, bool up, TimeNs now);
  void OnTimer(TimeNs now);

  // --- introspection ---
  [[nodiscard]] const Connection* connection(ConnId conn) const;
  [[nodiscard]] std::vector<ConnId> connections() const;
  [[nodiscard]] const EndpointCounters& counters() const { return ctx_.counters; }  // endpoint scope
  // Every counter and gauge of chapter 17 under its full name (endpoint.<name>,
  // conn.<id>.<name>, path.<id>.<p>.<name>, path.<id>.<p>.rx.<name>); `now` for gauges that
  // depend on time (active_senders). Reading changes nothing (MROCE-TEL-003).
  void ForEachTelemetry(const TelemetryFn& fn, TimeNs now) const;
  // The same at the time of the latest call that carried `now`.
  void ForEachTelemetry(const TelemetryFn& fn) const { ForEachTelemetry(fn, last_now_); }
  [[nodiscard]] const EndpointConfig& config() const { return ctx_.config; }
  // Bytes of protocol state held now: endpoint total, and per connection.
  [[nodiscard]] size_t StateBytes() const;

 private:
  friend class Connection;
  void OnConnMgmt(const wire::Frame& frame, const wire::MetaPacket& pkt, TimeNs now);
  void OnConnectReq(const wire::Frame& frame, const wire::MetaPacket& pkt, TimeNs now);
  void SendAccept(Connection& c, TimeNs now);
  void SendReject(const wire::Frame& frame, const wire::MetaPacket& pkt, wire::ConnReason reason,
                  uint8_t ver_min, uint8_t ver_max);
  [[nodiscard]] PeerAddress PeerOf(const wire::Frame& frame) const;
  // nack_invalid_conn variant (MROCE-DUP-007): answer a data packet for an unknown connection.
  void NackUnknownConn(const wire::Frame& frame, const wire::MetaPacket& pkt, uint8_t plane, TimeNs now);
  ConnId NewConnId();
  void Reap(TimeNs now);
  // Deadline index: every entry point names the connections it touched (Touch) and refreshes their
  // entries before it returns (Reindex), so NextDeadline and OnTimer cost O(log N), not O(N): a
  // connection's deadline depends only on its own state.
  void Touch(ConnId id) { touched_.push_back(id); }
  void Reindex();
  void Unindex(Connection& c);
  void ForgetRequest(const Connection& c);
  void MarkClosed(Connection& c);  // state_ = CLOSED; Reap erases it

  // max_rate this endpoint advertises (MROCE-CONN-018): its capacity C, or a variant's choice.
  [[nodiscard]] uint32_t AdvertisedMaxRate() const;

  EndpointContext ctx_;
  std::map<ConnId, std::unique_ptr<Connection>> conns_;
  std::set<std::pair<TimeNs, ConnId>> timers_;  // (Connection::NextDeadline, id) of every connection
  std::vector<ConnId> touched_;
  // Connections created by a CONNECT_REQ, by (requester's src_conn_id, nonce): MROCE-CONN-007
  // answers a retransmitted request without a scan of every connection.
  std::map<std::pair<ConnId, uint64_t>, ConnId> requests_;
  std::vector<ConnId> closed_;  // connections that became CLOSED since the last Reap
  uint64_t rng_;
  uint64_t id_counter_ = 0;     // conn_id_sequential / conn_id_high variants
  uint64_t nonce_counter_ = 0;  // nonce_counter variant
  TimeNs last_now_ = 0;  // latest `now` seen (telemetry gauges read without a time)
  // When a NACK INVALID_CONN last went to a source address (by a hash of it): a fixed table, so
  // packets for unknown connections allocate no state (MROCE-DUP-009). Two addresses sharing a slot
  // share the 1 ms limit: fewer NACKs, never more.
  struct NackSlot {
    uint64_t addr = 0;
    TimeNs at = kNever;
  };
  std::array<NackSlot, 64> invalid_conn_nacked_{};
};

}  // namespace mroce::ref
