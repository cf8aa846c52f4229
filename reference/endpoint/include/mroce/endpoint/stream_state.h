// StreamState: one stream of a connection in both directions: the sender's outbound messages in
// msn order (segmentation progress, acked ranges, in-order completion) and the receiver's inbound
// messages (posted receives by recv_seq, reassembly ranges, in-order delivery from `base`).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "mroce/endpoint/completion_queue.h"
#include "mroce/endpoint/message_reassembly.h"
#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/types.h"
#include "mroce/wire/meta.h"

namespace mroce::ref {

// Per-stream window of incomplete messages (MROCE-STRM-011, MROCE-STRM-012).
inline constexpr uint32_t kStreamWindow = spec::kStreamWindow;
// Posted receives kept per stream; PostRecv beyond it is refused.
inline constexpr size_t kMaxPostedRecvs = 4096;

// One outbound message (or a READ_RESP the responder owes). Payload bytes stay in the
// application's buffer: the endpoint never copies them.
struct OutMessage {
  uint32_t gen = 0;
  bool live = false;
  wire::Opcode op = wire::Opcode::kWrite;
  uint16_t stream = 0;
  Msn msn = 0;
  uint32_t len = 0;            // bytes
  uint32_t recv_seq = 0;
  uint32_t imm = 0;
  bool has_imm = false;
  uint64_t remote_va = 0;
  uint32_t rkey = 0;
  const uint8_t* src = nullptr;  // WRITE/SEND/READ_RESP source bytes
  uint8_t* read_dst = nullptr;   // READ requester's local buffer
  uint64_t wr_id = 0;
  bool is_read_resp = false;     // responder side: no local completion
  uint32_t next_offset = 0;      // segmentation progress, bytes
  uint32_t segments_sent = 0;    // segments sent so far (their order: Sender::SegmentOffset)
  bool all_segments_sent = false;
  MessageReassembly acked{0};    // bytes acked (WRITE/SEND) or received (READ)
  bool done = false;
  CompletionStatus status = CompletionStatus::kSuccess;
  bool read_counted = false;     // READ_REQ sent: counts against the 64 outstanding READs

  [[nodiscard]] uint32_t packets(uint32_t mtu) const { return len == 0 ? 1 : (len + mtu - 1) / mtu; }
};

// One inbound message being reassembled.
struct InMessage {
  wire::Opcode op = wire::Opcode::kWrite;
  MessageReassembly ranges{0};
  uint32_t recv_seq = 0;
  uint32_t imm = 0;
  bool has_imm = false;
  bool complete = false;
  bool delivered = false;  // complete_out_of_order quirk: completion already emitted
  bool error = false;
  uint64_t arrival_order = 0;  // connection-wide order of first arrival (hol_block_streams quirk)
};

struct PostedRecv {
  uint8_t* buffer = nullptr;
  uint32_t length = 0;  // bytes
  uint64_t wr_id = 0;
};

struct StreamState {
  // --- send direction ---
  Msn next_msn = 0;
  uint32_t next_recv_seq = 0;
  std::deque<uint32_t> out_order;   // message slots in msn order, not yet completed locally
  // MROCE-RNR-008: PSNs of this stream held by RNR, and the lowest recv_seq among them.
  uint32_t rnr_held = 0;
  uint32_t rnr_recv_seq = 0;
  // --- receive direction ---
  Msn base = 0;                      // lowest msn not yet received completely (MROCE-STRM-012)
  std::map<Msn, InMessage> in;       // incomplete or undelivered messages, keyed by msn
  uint32_t recv_seq_base = 0;        // recv_seq of posted.front()
  std::deque<std::optional<PostedRecv>> posted;  // index = recv_seq - recv_seq_base; nullopt = consumed

  [[nodiscard]] const PostedRecv* FindRecv(uint32_t recv_seq) const;
  // Mark consumed and drop consumed receives from the front.
  void ConsumeRecv(uint32_t recv_seq);
  [[nodiscard]] size_t StateBytes() const;
};

}  // namespace mroce::ref
