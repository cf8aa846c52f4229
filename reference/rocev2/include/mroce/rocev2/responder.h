// Responder: the receive side of a RoCEv2 RC queue pair: accepts only the expected PSN, places
// WRITEs by (rkey, va) and SENDs into posted receives, executes READs, and answers with coalesced
// ACKs, NAKs (sequence error once per episode, RNR, remote access, invalid request) and READ
// responses, all queued in PSN order.
//
//   request PSN vs expected (ePSN)   action
//   behind (duplicate)               re-ACK with ePSN-1 (a duplicate READ is executed again)
//   equal                            check opcode sequence, rkey/bounds, posted receive; place;
//                                    ePSN++ (READ: + response count); ACK on AckReq or every
//                                    ack_every packets
//   ahead (out of sequence)          drop; NAK 0x60 with ePSN once, until ePSN arrives
//   no receive for SEND FIRST/ONLY   RNR NAK (0x20 | min_rnr_timer) with the PSN; drop until it is
//                                    re-sent
//   bad rkey / bounds / permission   NAK 0x62, QP to error
//   bad opcode sequence / length     NAK 0x61, QP to error
#pragma once

#include <cstdint>
#include <deque>

#include "mroce/rocev2/psn.h"
#include "mroce/rocev2/qp_config.h"
#include "mroce/rocev2/requester.h"
#include "mroce/rocev2/work_request.h"
#include "mroce/wire/roce.h"

namespace mroce::rocev2 {

class Responder {
 public:
  Responder(const QpConfig& cfg, Qpn local_qpn, QpEnv env);

  // Sets the peer's QPN and the first PSN it sends (the initial expected PSN).
  void Connect(Qpn remote_qpn, Psn remote_initial_psn);

  // Queues a receive buffer for incoming SENDs. Fails when the QP is in error, the receive queue
  // is full, or the SGE does not resolve with local write access.
  Status PostRecv(const RecvWr& wr);

  // A request packet (SEND, WRITE, READ REQUEST opcodes) addressed to this QP.
  void OnRequest(const wire::RocePacket& pkt, TimeNs now);

  [[nodiscard]] bool HasOutput() const { return !out_.empty(); }
  // True when the next output is a READ response packet (paced like data); ACK/NAK are not paced.
  [[nodiscard]] bool NextOutputIsData() const;
  // Removes and returns the next packet to send. Requires HasOutput().
  wire::RocePacket NextOutput();

  // Moves to the error state: flushes posted receives, drops queued output and all later requests.
  void EnterError();
  [[nodiscard]] bool in_error() const { return error_; }

  [[nodiscard]] Psn expected_psn() const { return epsn_; }
  [[nodiscard]] uint32_t msn() const { return msn_; }
  [[nodiscard]] size_t posted_recvs() const { return rq_.size(); }
  // Bytes of responder state (the object, its receive queue and its output queue).
  [[nodiscard]] size_t StateBytes() const;

 private:
  struct RecvWqe {
    uint64_t wr_id = 0;
    uint8_t* local = nullptr;
    uint32_t length = 0;  // bytes
  };
  // One queued output: an ACK/NAK, or a READ (its responses are generated one packet at a time).
  struct OutItem {
    bool is_read = false;
    Psn psn = 0;               // ACK/NAK: the PSN in the BTH; READ: the first response's PSN
    uint8_t syndrome = 0;      // ACK/NAK
    uint32_t msn = 0;          // AETH MSN (24 bits)
    const uint8_t* src = nullptr;  // READ: source bytes
    uint32_t length = 0;       // READ: bytes
    uint32_t npkts = 0;        // READ: response packets
    uint32_t sent = 0;         // READ: response packets already generated
  };
  enum class InMessage : uint8_t { kNone, kWrite, kSend };

  void QueueAck(Psn psn);
  void QueueNak(uint8_t syndrome, Psn psn);
  void Fail(uint8_t nak_syndrome, Psn psn);
  void OnDuplicate(const wire::RocePacket& pkt);
  [[nodiscard]] uint32_t PacketsFor(uint32_t length) const;

  QpConfig cfg_;
  Qpn local_qpn_;
  Qpn remote_qpn_ = 0;
  QpEnv env_;
  std::deque<RecvWqe> rq_;
  std::deque<OutItem> out_;
  Psn epsn_ = 0;
  uint32_t msn_ = 0;           // messages completed (24 bits on the wire)
  uint32_t unacked_pkts_ = 0;  // in-order packets accepted since the last ACK queued
  bool nak_episode_ = false;   // a NAK (sequence or RNR) for epsn_ is out: stay quiet until epsn_ arrives
  InMessage in_msg_ = InMessage::kNone;
  uint8_t* dst_ = nullptr;     // current WRITE / SEND placement base
  uint32_t msg_len_ = 0;       // WRITE: RETH DMA length; SEND: receive buffer length (bytes)
  uint32_t msg_off_ = 0;       // bytes placed so far
  RecvWqe cur_recv_;
  bool error_ = false;
};

}  // namespace mroce::rocev2
