#include "mroce/endpoint/stream_state.h"

namespace mroce::ref {

const PostedRecv* StreamState::FindRecv(uint32_t recv_seq) const {
  const uint32_t idx = recv_seq - recv_seq_base;
  if (idx >= posted.size() || !posted[idx].has_value()) return nullptr;
  return &*posted[idx];
}

void StreamState::ConsumeRecv(uint32_t recv_seq) {
  const uint32_t idx = recv_seq - recv_seq_base;
  if (idx >= posted.size()) return;
  posted[idx].reset();
  while (!posted.empty() && !posted.front().has_value()) {
    posted.pop_front();
    ++recv_seq_base;
  }
}

size_t StreamState::StateBytes() const {
  size_t bytes = sizeof(*this) + out_order.size() * sizeof(uint32_t) +
                 posted.size() * sizeof(std::optional<PostedRecv>);
  for (const auto& [msn, m] : in) bytes += sizeof(Msn) + 32 /* map node */ + m.ranges.StateBytes() + sizeof(m);
  return bytes;
}

}  // namespace mroce::ref
