#include "mroce/impairment/targeted_drop.h"

#include "mroce/wire/frame_view.h"
#include "mroce/wire/meta.h"

namespace mroce::impairment {

bool AckCoversPsn(const Packet& p, uint32_t psn) {
  const PacketInfo& info = p.Info();
  if (!info.meta || info.opcode != static_cast<uint8_t>(wire::Opcode::kAck)) return false;
  auto meta = wire::ParseMeta(std::span<const uint8_t>(p.bytes.data() + info.meta_offset,
                                                       info.meta_end - info.meta_offset),
                              info.meta_offset, /*verify_crc=*/false);
  if (!meta.ok() || meta->ack() == nullptr) return false;
  const wire::AckHeader& ack = *meta->ack();
  if (static_cast<int32_t>(ack.epsn - psn) > 0) return true;  // epsn after psn: cumulatively acked.
  const uint32_t bit = psn - (ack.epsn + 1);                    // SACK bit i covers epsn + 1 + i.
  return bit < wire::kSackBits && ack.SackBit(static_cast<int>(bit));
}

TargetedDrop::TargetedDrop(std::string name, Params params)
    : Stage(std::move(name), params.match), params_(std::move(params)) {}

bool TargetedDrop::IsCandidate(const Packet& p, Time now) {
  if (!params_.windows.empty()) {
    bool inside = false;
    for (const Window& w : params_.windows) inside |= (now >= w.start && now < w.end);
    if (!inside) return false;
  }
  if (params_.nth_retransmission) {
    const PacketInfo& i = p.Info();
    if (!i.meta || (i.flags & wire::kFlagRtx) == 0) return false;
    if (++rtx_seen_ != *params_.nth_retransmission) return false;
  }
  if (params_.ack_for_psn) {
    if (acked_psn_seen_ || !AckCoversPsn(p, *params_.ack_for_psn)) return false;
    acked_psn_seen_ = true;  // Only the first ACK that covers it.
  }
  return true;
}

void TargetedDrop::OnPacket(Packet&& p, Time now, Emitter& out) {
  if (IsCandidate(p, now)) {
    ++candidates_;
    if (candidates_ > params_.skip && (params_.count == 0 || dropped_ < params_.count)) {
      DropIt(std::move(p), now, out);
      return;
    }
  }
  Pass(std::move(p), Duration::Zero(), out);
}

void TargetedDrop::FillStats(StageStats& s) const {
  s.kind = "drop.targeted";
  StatLine l{"drops", "packets", double(params_.count), double(dropped_), params_.count != 0};
  s.lines.push_back(l);
  s.lines.push_back({"candidates", "packets", 0, double(candidates_), false});
}

}  // namespace mroce::impairment
