// RoceEndpoint: the RoCEv2 baseline endpoint: RC queue pairs on the real RoCEv2 wire format behind a
// verbs-like API (register memory, create/connect QP, post receive, post send/write/read, poll
// completions), as a pure state machine: frames enter by OnFrame, leave through a FrameSink, and
// time only advances through the `now` of each call (NextDeadline / OnTimer).
//
// Connection setup is out of band: CreateQp returns the QpInfo the peer needs (QPN, initial PSN,
// addresses); each side calls ConnectQp with the other's. There is no RDMA CM / MAD exchange.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <span>
#include <vector>

#include "mroce/rocev2/completion_queue.h"
#include "mroce/rocev2/frame_sink.h"
#include "mroce/rocev2/qp_config.h"
#include "mroce/rocev2/queue_pair.h"
#include "mroce/rocev2/telemetry.h"
#include "mroce/rocev2/work_request.h"

namespace mroce::rocev2 {

struct EndpointConfig {
  RoceAddress address;         // This host's MAC and IPv4 address.
  uint8_t plane = 0;           // Port the frames leave on (single path).
  size_t cq_capacity = 65536;  // Completions held before overflow.
  Qpn first_qpn = 0x000011;    // QPNs are handed out from here (0 and 1 are special in IB).
  size_t max_qps = 65536;
};

// What a peer must be told to connect to a QP (exchanged out of band).
struct QpInfo {
  Qpn qpn = 0;
  Psn initial_psn = 0;
  RoceAddress address;
  // As the peer's ConnectQp argument.
  [[nodiscard]] RemoteQp AsRemote() const { return RemoteQp{qpn, initial_psn, address}; }
};

class RoceEndpoint {
 public:
  // `sink` must outlive the endpoint and must not call back into it.
  RoceEndpoint(const EndpointConfig& cfg, FrameSink* sink);

  // Memory.
  Result<MemoryRegion> RegisterMemory(uint8_t* buffer, uint64_t length, uint32_t access);
  Status DeregisterMemory(uint32_t key);

  // Queue pairs: create (INIT), then connect (RTS) with the peer's QpInfo.
  Result<QpInfo> CreateQp(const QpConfig& cfg);
  Status ConnectQp(Qpn qpn, const RemoteQp& remote);

  // Verbs. Posting a send may emit frames at once (through the sink, stamped `now`).
  Status PostRecv(Qpn qpn, const RecvWr& wr);
  Status PostSend(Qpn qpn, const SendWr& wr, TimeNs now);
  std::vector<Completion> PollCompletions(size_t max = SIZE_MAX) { return cq_.Poll(max); }

  // Data plane and time.
  void OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now);
  void OnTimer(TimeNs now);  // handles every deadline <= now
  [[nodiscard]] TimeNs NextDeadline() const;

  // Telemetry: endpoint-wide counters (every QP's plus frame-level drops) and per QP.
  [[nodiscard]] Counters counters() const;
  [[nodiscard]] const Counters* qp_counters(Qpn qpn) const;
  [[nodiscard]] const QueuePair* qp(Qpn qpn) const;
  // Bytes of endpoint state (QPs, memory region table, completion queue; not registered buffers).
  [[nodiscard]] size_t StateBytes() const;
  [[nodiscard]] size_t QpStateBytes(Qpn qpn) const;
  [[nodiscard]] const CompletionQueue& cq() const { return cq_; }

 private:
  QueuePair* Find(Qpn qpn);

  EndpointConfig cfg_;
  FrameSink* sink_;
  MemoryRegionTable mrs_;
  CompletionQueue cq_;
  std::map<Qpn, std::unique_ptr<QueuePair>> qps_;
  // Deadline index (QueuePair::NextDeadline depends only on that QP): refreshed after every entry
  // point for the QP it touched, so NextDeadline and OnTimer do not scan every QP.
  void Reindex(Qpn qpn);
  std::set<std::pair<TimeNs, Qpn>> timers_;
  std::map<Qpn, TimeNs> indexed_;
  Qpn next_qpn_;
  Counters frame_counters_;  // frames not attributable to a QP (ICRC, parse, unknown QP)
};

}  // namespace mroce::rocev2
