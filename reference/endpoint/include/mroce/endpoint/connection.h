// Connection: one MetaRoCE connection: setup/teardown state, streams, paths, one congestion
// controller, and the Sender and Receiver that run the data path over them.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "mroce/endpoint/completion_queue.h"
#include "mroce/endpoint/congestion_controller.h"
#include "mroce/endpoint/endpoint_config.h"
#include "mroce/endpoint/path_set.h"
#include "mroce/endpoint/rate_hint_allocator.h"
#include "mroce/endpoint/stream_state.h"
#include "mroce/endpoint/telemetry.h"
#include "mroce/wire/frame.h"

namespace mroce::ref {

enum class ConnState : uint8_t {
  kReqSent,      // requester: CONNECT_REQ sent
  kPendingAccept,// responder: waiting for Accept()
  kAckSent,      // responder: CONNECT_ACK sent, nothing received on the new id yet
  kEstablished,
  kDiscSent,
  kQuarantine,
  kError,        // flushed, DISCONNECT ERROR sent (retransmitted as in DISC_SENT), then QUARANTINE
  kClosed,
};
[[nodiscard]] std::string_view ConnStateName(ConnState s);
// Value of the conn_state gauge (table 17.2): index in CLOSED, REQ_SENT, ACK_SENT, ESTABLISHED,
// DISC_SENT, ERROR, QUARANTINE.
[[nodiscard]] uint64_t ConnStateGauge(ConnState s);

enum class ConnEventKind : uint8_t {
  kEstablished,     // connection usable
  kIncoming,        // a CONNECT_REQ awaits Accept() (auto_accept off)
  kRejected,        // our CONNECT_REQ was refused (reason = CMH reason)
  kConnectTimeout,  // CONNECT_REQ unanswered after 7 retransmissions (MROCE-CONN-006)
  kClosed,          // disconnected
  kError,           // entered ERROR (retry limit, remote error, no usable path)
  kAccepted,        // responder: a CONNECT_REQ was accepted (auto_accept); the id takes receives
                    // now, kEstablished follows with the first packet on it (table 5.5 row 11)
};

struct ConnEvent {
  ConnEventKind kind;
  ConnId conn;
  uint8_t reason = 0;
};

// Shared, endpoint-wide services a connection uses.
struct EndpointContext {
  EndpointConfig config;
  FrameSink* sink = nullptr;
  MemoryRegionTable mrs;
  CompletionQueue cq;
  RateHintAllocator rate_hints{100000, 100 * kMicrosecond};
  EndpointCounters counters;  // endpoint scope (table 17.2)
  std::vector<ConnEvent> events;
};

class Connection;

// Sender: turns posted work into packets, sprays them over paths, and reacts to ACK/NACK/RTO.
class Sender {
 public:
  explicit Sender(Connection& c) : c_(c) {}
  // Send whatever is allowed now (retransmissions first, then re-sends, then new data).
  void Pump(TimeNs now);
  void OnAck(const wire::MetaPacket& pkt, TimeNs now);
  void OnNack(const wire::MetaPacket& pkt, TimeNs now);
  void OnProbeAck(const wire::MetaPacket& pkt, TimeNs now);
  // The attachment to `plane` reports link down or up (fail_on_link_down variant, MROCE-PATH-013).
  void OnPlaneLink(uint8_t plane, bool up, TimeNs now);
  void OnTimer(TimeNs now);
  [[nodiscard]] TimeNs NextDeadline() const;
  // Message bookkeeping.
  uint32_t AllocMessage();
  void FreeMessage(uint32_t slot);
  void CreditBytes(const PacketRef& ref, TimeNs now);
  void MessageDone(uint32_t slot, CompletionStatus status, TimeNs now);
  void DeliverSendCompletions(uint16_t stream);
  [[nodiscard]] OutMessage* FindRead(uint16_t stream, Msn msn);
  [[nodiscard]] bool HasWork() const;
  // Work requests (not READ_RESPs owed to the peer) not yet completed.
  [[nodiscard]] bool HasOutstandingRequests() const;
  [[nodiscard]] uint32_t owed_read_responses() const { return owed_reads_; }

 private:
  friend class Connection;
  friend class Receiver;
  friend class Endpoint;
  // Offset of the next segment of `m` to send: in order, or (variants) last first / odd first.
  [[nodiscard]] uint32_t SegmentOffset(const OutMessage& m) const;
  // Added to PROBE tx_time and removed from the echo (probe_clock_offset variant), else 0.
  [[nodiscard]] uint64_t ProbeClockOffset() const;
  // Per-content retry state carried along re-sends on other paths (MROCE-LOSS-010).
  struct Counts {
    uint8_t rtx = 0;
    uint8_t rnr = 0;
    uint8_t resource = 0;
  };
  struct Resend {
    PacketRef ref;
    Counts counts;
    uint8_t from_path;  // the failed path (failover_resends)
  };
  bool SendNewOrResend(TimeNs now);
  bool SendOneRetransmission(TimeNs now);
  void SendDataPacket(int path, const PacketRef& ref, bool rtx, std::optional<Psn> psn, Counts counts,
                      TimeNs now);
  void OnLost(int path, const std::vector<Psn>& lost, TimeNs now);
  void OnRto(int path, TimeNs now);
  void FailOver(int path, TimeNs now);
  void SendProbe(int path, TimeNs now);
  void Reintroduce(int path, TimeNs now);
  void ApplyPathEvent(int path, PathEvent ev, TimeNs now);
  void ArmRto(Path& path, TimeNs now);
  void ApplyHint(const wire::AckHeader& a, TimeNs now);
  void OnInvalidConnNack(const wire::MetaPacket& pkt, TimeNs now);
  void ReleaseStreamHold(const PacketRef& ref);
  [[nodiscard]] bool StreamHeld(const OutMessage& m) const;

  Connection& c_;
  std::vector<OutMessage> msgs_;
  std::vector<uint32_t> free_slots_;
  std::deque<uint32_t> ready_;       // message slots with unsent segments, FIFO across streams
  std::deque<Resend> resend_;        // content of failed-over packets awaiting an ACTIVE path
  // hold_through_failover: held content of a failed path, with the time its hold ends (it joins
  // resend_ then).
  std::vector<std::pair<TimeNs, Resend>> held_resend_;
  uint32_t reads_in_flight_ = 0;     // our READ_REQs sent and not completed (MROCE-PLACE-013)
  uint32_t owed_reads_ = 0;          // READ_RESP messages we owe the peer (MROCE-PLACE-013)
  bool pacer_blocked_ = false;       // the last Pump stopped at the rate limiter
  TimeNs pacer_wake_at_ = kNever;    // ns, when it may send again
};

// Receiver: validates, places and acknowledges inbound data; answers PROBEs.
class Receiver {
 public:
  explicit Receiver(Connection& c) : c_(c) {}
  void OnData(const wire::MetaPacket& pkt, bool ce, TimeNs now);
  void OnProbe(const wire::MetaPacket& pkt, TimeNs now);
  void OnTimer(TimeNs now);
  [[nodiscard]] TimeNs NextDeadline() const;
  void SendAck(int path, TimeNs now);
  void SendNack(const wire::MetaPacket& pkt, wire::NackCode code, uint32_t info);

 private:
  enum class Outcome : uint8_t {
    kRecord,   // placed, stale or duplicate segment: recorded and acknowledged (MROCE-ACK-001)
    kRefused,  // NACKed: not recorded, its PSN stays missing from ACKs
    kDropped,  // not recorded, no reply
  };
  Outcome Place(const wire::MetaPacket& pkt, TimeNs now);
  Outcome Fatal(const wire::MetaPacket& pkt, wire::NackCode code, TimeNs now);
  void CompleteInbound(uint16_t stream, Msn msn, TimeNs now);
  void DeliverInOrder(uint16_t stream);
  void EmitRecvCompletion(uint16_t stream, Msn msn, InMessage& m);
  // MROCE-ACK-011: the path whose entropy and plane carry ACKs / NACKs of path `acked`.
  [[nodiscard]] int AckRoute(int acked) const;

  Connection& c_;
  uint64_t arrival_order_ = 0;
  std::deque<std::pair<uint16_t, Msn>> hol_fifo_;  // hol_block_streams quirk
  std::deque<Completion> recent_;                  // last receive completions (double_completion_on_dup quirk)
};

struct ConnectOptions {
  uint8_t num_paths = 0;   // 0 = endpoint default
  uint16_t mtu = 0;
  uint16_t max_streams = 0;
  uint8_t num_planes = 0;
};

class Connection {
 public:
  Connection(EndpointContext& ctx, ConnId local_id, const PeerAddress& peer, uint64_t seed);

  // Negotiated parameters are fixed by Establish*; the path set is created then.
  void SetupPaths(uint8_t num_paths, uint8_t num_planes, uint16_t mtu, uint16_t max_streams,
                  uint8_t version);

  [[nodiscard]] ConnId id() const { return local_id_; }
  [[nodiscard]] ConnId peer_id() const { return peer_id_; }
  [[nodiscard]] ConnState state() const { return state_; }
  [[nodiscard]] bool established() const { return state_ == ConnState::kEstablished; }
  [[nodiscard]] uint16_t mtu() const { return mtu_; }
  [[nodiscard]] uint16_t max_streams() const { return max_streams_; }
  [[nodiscard]] const ConnCounters& counters() const { return counters_; }
  // Every counter and gauge of tables 17.2 (connection), 17.3 and 17.4 under its full name
  // (conn.<id>.<name>, path.<id>.<p>.<name>, path.<id>.<p>.rx.<name>), gauges computed now.
  void ForEachTelemetry(const TelemetryFn& fn, TimeNs now) const;
  [[nodiscard]] uint8_t version() const { return version_; }
  [[nodiscard]] bool ipv6() const { return peer_.ip6.has_value() && ctx_.config.ip6.has_value(); }
  [[nodiscard]] const PathSet& paths() const { return *paths_; }
  [[nodiscard]] const CongestionController& cc() const { return *cc_; }
  [[nodiscard]] size_t StateBytes() const;
  [[nodiscard]] bool Quirk(mroce::ref::Quirk q) const { return ctx_.config.quirks.Has(q); }
  [[nodiscard]] bool HasVariant(mroce::ref::Variant v) const { return ctx_.config.variants.Has(v); }
  // PROBE_ACKs that reintroduce a path after no recent failure (MROCE-PATH-017: at least 3).
  [[nodiscard]] int ReintroduceAfterBase() const {
    return HasVariant(mroce::ref::Variant::kReintroduceAfter4) ? 4 : spec::kReintroduceAfterProbeAcks;
  }

  // Verbs.
  Status PostRecv(uint16_t stream, uint8_t* buffer, uint32_t length, uint64_t wr_id);
  Status PostMessage(wire::Opcode op, uint16_t stream, const uint8_t* src, uint8_t* read_dst, uint32_t len,
                     uint64_t remote_va, uint32_t rkey, std::optional<uint32_t> imm, uint64_t wr_id,
                     TimeNs now);

  // Packets for this connection.
  void OnPacket(const wire::Frame& frame, const wire::MetaPacket& pkt, TimeNs now);
  void OnTimer(TimeNs now);
  [[nodiscard]] TimeNs NextDeadline() const;

  // Enter ERROR (MROCE-ERR-011, MROCE-CONN-016): count conn_errors, flush every outstanding work
  // request and receive with WR_FLUSH_ERR, send DISCONNECT reason ERROR.
  void EnterError(TimeNs now);
  // Valid NACK INVALID_CONN (MROCE-ERR-008): REM_ABORT_ERR, flush, QUARANTINE without DISCONNECT.
  void AbortByPeer(TimeNs now);
  // Complete outstanding work requests with `wr_status` and posted receives with WR_FLUSH_ERR,
  // each stream in msn order (MROCE-CMPL-011).
  void Flush(CompletionStatus wr_status);
  void FlushStream(uint16_t st, CompletionStatus wr_status);
  void ResizeStreams(uint16_t max_streams);
  // Graceful close (MROCE-CONN-012): DISCONNECT once nothing is outstanding.
  void BeginClose(TimeNs now);
  void MaybeFinishClose(TimeNs now);
  void EnterQuarantine(TimeNs now);
  void PushCompletion(const Completion& c);

  // Frame output.
  // Data packets count in tx_pkts/tx_bytes (IP total length) of connection and path.
  void Emit(wire::MetaPacket pkt, uint8_t path_for_entropy, uint8_t plane);
  [[nodiscard]] uint32_t DataIpLength(uint32_t payload) const { return spec::DataIpLength(payload, ipv6()); }
  void EmitCm(wire::Opcode op, const wire::ConnMgmtHeader& cmh, ConnId dst);

 private:
  friend class Sender;
  friend class Receiver;
  friend class Endpoint;

  EndpointContext& ctx_;
  ConnId local_id_;
  ConnId peer_id_ = 0;
  PeerAddress peer_;
  uint64_t seed_;
  uint64_t nonce_ = 0;
  ConnState state_ = ConnState::kReqSent;
  uint8_t version_ = 1;
  uint8_t num_paths_ = 0;
  uint8_t num_planes_ = 1;
  uint16_t mtu_ = 4096;
  uint16_t max_streams_ = 16;
  // Requested values (requester side, for validating CONNECT_ACK).
  wire::ConnMgmtHeader request_{};
  std::unique_ptr<PathSet> paths_;
  std::unique_ptr<CongestionController> cc_;
  std::vector<StreamState> streams_;
  Sender sender_{*this};
  Receiver receiver_{*this};
  ConnCounters counters_;
  // Connection-management timers.
  TimeNs indexed_deadline_ = kNever;  // this connection's entry in Endpoint::timers_
  TimeNs cm_deadline_ = kNever;     // CONNECT_REQ / DISCONNECT retransmission, ACK_SENT release
  TimeNs cm_interval_ = 0;          // current retransmission interval, ns
  int cm_retries_ = 0;
  TimeNs quarantine_until_ = kNever;
  TimeNs no_usable_path_since_ = kNever;  // MROCE-CONN-017
  bool closing_ = false;            // Disconnect() called: DISCONNECT once nothing is outstanding
  uint32_t peer_max_rate_mbps_ = 0; // peer's CMH max_rate (10.4)
  // MROCE-ERR-010: the fatal NACK this receiver sent, repeated while in ERROR.
  std::optional<wire::NackHeader> fatal_nack_;
  wire::ConnMgmtHeader last_cm_{};  // what we last sent (retransmitted byte-identical)
  wire::Opcode last_cm_op_ = wire::Opcode::kConnectReq;
  wire::ConnMgmtHeader accept_cmh_{};  // CONNECT_ACK as first sent (MROCE-CONN-007: resent identical)
  wire::ConnMgmtHeader disc_cmh_{};    // DISCONNECT as first sent (retransmitted identical)
  uint8_t disc_reason_ = 0x10;
};

}  // namespace mroce::ref
