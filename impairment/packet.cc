#include "mroce/impairment/packet.h"

#include "mroce/wire/frame_view.h"
#include "mroce/wire/meta.h"

namespace mroce::impairment {

const char* DirectionName(Direction d) { return d == Direction::kDutToPeer ? "dut->peer" : "peer->dut"; }

const char* FateKindName(FateKind k) {
  switch (k) {
    case FateKind::kDropped: return "dropped";
    case FateKind::kMarked: return "marked";
    case FateKind::kDuplicated: return "duplicated";
    case FateKind::kCorrupted: return "corrupted";
    case FateKind::kDelayed: return "delayed";
    case FateKind::kReordered: return "reordered";
    case FateKind::kRateLimited: return "rate-limited";
  }
  return "?";
}

// Reads the fields stages match on through the codec's FrameView. The MEH stream_id is read here
// directly (FrameView has no accessor for it): MEH starts right after the 16-byte CH, stream_id is
// its first 16 bits, big-endian.
void ParsePacketInfo(std::span<const uint8_t> bytes, PacketInfo* out) {
  PacketInfo& info = *out;
  info = PacketInfo{};
  info.parsed = true;
  wire::FrameView v;
  if (!wire::FrameView::TryLocate(bytes, &v)) return;
  info.ip = true;
  info.ip_version = v.ip_version();
  info.ecn = v.ecn();
  info.sport = v.sport();
  info.dport = v.dport();
  if (!v.is_meta()) return;
  info.meta = true;
  info.opcode = v.meta_opcode();
  info.flags = v.meta_flags();
  info.path_id = v.meta_path_id();
  info.psn = v.meta_psn();
  info.conn_id = v.meta_dst_conn_id();
  info.meta_offset = static_cast<uint32_t>(v.payload_offset());
  info.meta_end = static_cast<uint32_t>(v.ip_end());
  const size_t meh = v.payload_offset() + wire::kCommonHeaderSize;
  if (wire::IsDataOpcode(static_cast<wire::Opcode>(info.opcode)) && meh + 2 <= v.ip_end()) {
    info.has_stream = true;
    info.stream_id = static_cast<uint16_t>(bytes[meh] << 8 | bytes[meh + 1]);
  }
}

// In place: assigning a returned PacketInfo made the CPU read back the fields it had just stored
// one by one as wider loads (a store-forwarding stall that showed in the DPDK bridge's profile).
void Packet::ParseInfo() const {
  ParsePacketInfo(std::span<const uint8_t>(bytes.data(), bytes.size()), &info_);
  info_valid_ = true;
}

bool Packet::MarkCe() {
  auto view = wire::FrameView::Locate(std::span<uint8_t>(bytes.data(), bytes.size()));
  if (!view.ok()) return false;
  if (!view->MarkCe()) return false;
  ce_marked = true;
  if (info_valid_) info_.ecn = wire::kEcnCe;
  return true;
}

void PacketPool::Grow() {
  chunks_.push_back(std::make_unique<Packet[]>(kChunk));
  Packet* chunk = chunks_.back().get();
  for (size_t i = kChunk; i-- > 0;) free_.push_back(chunk + i);  // The chunk's first is taken first.
}

std::string Packet::FateString() const {
  std::string s;
  for (int i = 0; i < notes.size(); ++i) {
    if (!s.empty()) s += ", ";
    s += FateKindName(notes[i].kind);
    s += " by ";
    s += notes[i].stage;
  }
  if (notes.dropped() > 0) s += ", +" + std::to_string(notes.dropped()) + " more";
  return s.empty() ? "clean" : s;
}

}  // namespace mroce::impairment
