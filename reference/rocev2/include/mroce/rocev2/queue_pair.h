// QueuePair: one RoCEv2 RC queue pair: a requester and a responder sharing a line-rate pacer and a
// framer, on one fixed path (one UDP source port), with QP-level error state, CNP and counters.
#pragma once

#include <cstdint>
#include <vector>

#include "mroce/rocev2/frame_sink.h"
#include "mroce/rocev2/pacer.h"
#include "mroce/rocev2/qp_config.h"
#include "mroce/rocev2/requester.h"
#include "mroce/rocev2/responder.h"
#include "mroce/rocev2/roce_framer.h"
#include "mroce/wire/frame.h"

namespace mroce::rocev2 {

// IB QP states the baseline uses: created (INIT), connected (RTS), error (ERR).
enum class QpState : uint8_t { kInit, kReadyToSend, kError };

class QueuePair {
 public:
  // `mrs`, `cq` and `sink` belong to the endpoint and outlive the QP. Frames leave on `plane`.
  QueuePair(Qpn qpn, const QpConfig& cfg, const RoceAddress& local, const MemoryRegionTable* mrs,
            CompletionQueue* cq, FrameSink* sink, uint8_t plane);

  // INIT -> RTS with the peer's out-of-band data.
  Status Connect(const RemoteQp& remote);

  Status PostSend(const SendWr& wr, TimeNs now);
  Status PostRecv(const RecvWr& wr);

  // A parsed RoCEv2 frame of `frame_bytes` bytes whose BTH dest_qp is this QP.
  void OnPacket(const wire::Frame& frame, size_t frame_bytes, TimeNs now);
  void OnTimer(TimeNs now);
  [[nodiscard]] TimeNs NextDeadline() const;

  [[nodiscard]] Qpn qpn() const { return qpn_; }
  [[nodiscard]] QpState state() const { return state_; }
  [[nodiscard]] const QpConfig& config() const { return cfg_; }
  [[nodiscard]] const Counters& counters() const { return counters_; }
  [[nodiscard]] const Requester& requester() const { return requester_; }
  [[nodiscard]] const Responder& responder() const { return responder_; }
  // Bytes of QP state: the object, send/receive queues, queued responses (not registered memory).
  [[nodiscard]] size_t StateBytes() const;

 private:
  void Pump(TimeNs now);
  void Emit(const wire::RocePacket& pkt, TimeNs now, bool paced);
  void SyncErrorState();

  Qpn qpn_;
  QpConfig cfg_;
  RoceAddress local_;
  FrameSink* sink_;
  uint8_t plane_;
  Counters counters_;
  Requester requester_;
  Responder responder_;
  Pacer pacer_;
  RoceFramer framer_;
  QpState state_ = QpState::kInit;
  Qpn remote_qpn_ = 0;
  TimeNs last_cnp_ = -1;           // ns; -1 = never sent
  std::vector<uint8_t> tx_buf_;    // reused for every frame
};

}  // namespace mroce::rocev2
