// Requester: the send side of a RoCEv2 RC queue pair: segments SEND/WRITE/READ work requests into
// PSN-numbered packets, keeps a window, and recovers by go-back-N (sequence-error NAK, implied NAK,
// local ACK timeout, RNR NAK) with IB retry counts; completes work requests in order.
//
// State of the send queue (PSNs are 24-bit serial numbers):
//
//   sq_.front().first_psn <= una_ <= next_psn_ <= high_psn_ <= alloc_psn_
//   |-- acked --|-- sent, unacknowledged --|-- re-sending --|-- posted, never sent --|
//
//   una_       oldest PSN not yet acknowledged (a READ's PSNs are acknowledged by its responses)
//   next_psn_  next PSN to transmit; go-back-N sets it back to una_
//   high_psn_  one past the highest PSN ever transmitted (a PSN below it is a retransmission)
//   alloc_psn_ next PSN to give a posted work request
//
// Events and their effect:
//   ACK(psn)             acknowledge PSNs <= psn (not past a READ whose responses are missing:
//                        that is an implied NAK -> go-back-N from una_)
//   NAK 0x60 (psn)       acknowledge PSNs < psn, go-back-N from psn, retry_cnt--
//   RNR NAK (psn, timer) acknowledge PSNs < psn, wait the RNR timer, go-back-N from psn, rnr_retry--
//   NAK 0x61/0x62/0x63   complete the work request at psn with an error; the QP goes to error
//   READ response (psn)  psn == una_: place the bytes; psn > una_ past a gap: implied NAK
//   timer expiry         go-back-N from una_, retry_cnt--; at 0: retry-exceeded error
#pragma once

#include <cstdint>
#include <deque>

#include "mroce/rocev2/completion_queue.h"
#include "mroce/rocev2/psn.h"
#include "mroce/rocev2/qp_config.h"
#include "mroce/rocev2/telemetry.h"
#include "mroce/rocev2/work_request.h"
#include "mroce/wire/roce.h"

namespace mroce::rocev2 {

// What the requester and responder of one QP share with their endpoint.
struct QpEnv {
  const MemoryRegionTable* mrs = nullptr;
  CompletionQueue* cq = nullptr;
  Counters* counters = nullptr;
};

class Requester {
 public:
  Requester(const QpConfig& cfg, Qpn local_qpn, QpEnv env);

  // Sets the peer's QPN. The first PSN sent is cfg.initial_psn.
  void Connect(Qpn remote_qpn);

  // Validates the local buffer and queues the work request. Fails when the QP is in error, the send
  // queue is full, or the SGE does not resolve.
  Status Post(const SendWr& wr);

  // True when a packet may be sent now (ignoring pacing): work pending, window open, no RNR wait.
  [[nodiscard]] bool HasPacketToSend() const;
  // Builds the packet at next_psn_ and advances; arms the ACK timer. Requires HasPacketToSend().
  wire::RocePacket NextPacket(TimeNs now);

  void OnAck(const wire::RocePacket& pkt, TimeNs now);           // opcode ACKNOWLEDGE
  void OnReadResponse(const wire::RocePacket& pkt, TimeNs now);  // READ RESPONSE opcodes

  // Earliest of the ACK timer and the end of an RNR wait; kNever when neither runs.
  [[nodiscard]] TimeNs NextDeadline() const;
  void OnTimer(TimeNs now);

  // Moves the QP to the error state from outside (the responder failed): flushes all work.
  void EnterError();
  [[nodiscard]] bool in_error() const { return error_; }

  [[nodiscard]] Psn una() const { return una_; }
  [[nodiscard]] Psn next_psn() const { return next_psn_; }
  [[nodiscard]] size_t outstanding_wrs() const { return sq_.size(); }
  // Bytes of requester state (the object and its send queue storage).
  [[nodiscard]] size_t StateBytes() const;

 private:
  struct SendWqe {
    uint64_t wr_id = 0;
    WrOpcode opcode = WrOpcode::kSend;
    uint8_t* local = nullptr;  // host pointer of the local buffer
    uint32_t length = 0;       // bytes
    uint64_t remote_addr = 0;
    uint32_t rkey = 0;
    Psn first_psn = 0;
    uint32_t npkts = 1;        // PSNs the request occupies (READ: number of response packets)
  };

  [[nodiscard]] uint32_t PacketsFor(uint32_t length) const;
  [[nodiscard]] const SendWqe* Find(Psn psn) const;
  // Acknowledges every PSN before `target`, completing work requests, but stops at a READ whose
  // responses have not arrived. Returns true when una_ reached target.
  bool AckBefore(Psn target, TimeNs now);
  void GoBackN(Psn psn, TimeNs now);
  // Sequence-error or implied NAK: consumes a retry, or fails the QP when none is left.
  void RetryFrom(Psn psn, TimeNs now);
  void Complete(const SendWqe& w, CompletionStatus status);
  void FailFront(CompletionStatus status);
  void OnProgress(TimeNs now);

  QpConfig cfg_;
  Qpn local_qpn_;
  Qpn remote_qpn_ = 0;
  QpEnv env_;
  std::deque<SendWqe> sq_;
  Psn una_;
  Psn next_psn_;
  Psn high_psn_;
  Psn alloc_psn_;
  TimeNs ack_deadline_ = kNever;  // Local ACK timer; armed while PSNs are outstanding.
  TimeNs rnr_until_ = kNever;     // End of an RNR wait; nothing is sent before it.
  uint8_t retry_left_;
  uint8_t rnr_left_;
  bool episode_open_ = false;  // go-back-N from episode_psn_ already started (suppress repeats)
  Psn episode_psn_ = 0;
  bool error_ = false;
};

}  // namespace mroce::rocev2
