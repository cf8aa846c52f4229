// libFuzzer target: the header parse every impairment stage (and the DPDK bridge, on every frame it
// forwards) runs on bytes a DUT sent. ParsePacketInfo never reads outside the frame, agrees with
// FrameView (TryLocate accepts exactly what Locate accepts, at the same offsets) and, for frames
// the full codec accepts, with the codec's fields; ECN marking keeps the frame locatable.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mroce/impairment/packet.h"
#include "mroce/wire/frame_view.h"
#include "mroce/wire/wire.h"

using namespace mroce;

namespace {
void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_packet_info: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy so ASan sees any read past the frame.
  const std::vector<uint8_t> frame(data, data + size);
  const std::span<const uint8_t> in(frame);

  auto full = wire::FrameView::Locate(in);
  wire::FrameView fast;
  const bool ok = wire::FrameView::TryLocate(in, &fast);
  Require(ok == full.ok(), "TryLocate and Locate disagree");
  if (!ok) Require(!full.error().code.empty() && !full.error().message.empty(), "Locate error without field/message");

  impairment::PacketInfo info;
  impairment::ParsePacketInfo(in, &info);
  Require(info.parsed, "not marked parsed");
  Require(info.ip == ok, "ip flag disagrees with Locate");
  if (ok) {
    Require(fast.l3_offset() == full->l3_offset() && fast.udp_offset() == full->udp_offset() &&
                fast.ip_end() == full->ip_end() && fast.ip_version() == full->ip_version(),
            "TryLocate offsets differ from Locate");
    Require(full->ip_end() <= size, "IP end past the frame");
    Require(info.sport == full->sport() && info.dport == full->dport() && info.ecn == full->ecn(),
            "ports/ECN differ from FrameView");
    Require(info.meta == full->is_meta(), "meta flag differs from FrameView");
  }
  if (info.meta) {
    Require(info.meta_offset + wire::kCommonHeaderSize <= info.meta_end && info.meta_end <= size,
            "MetaRoCE header bounds outside the frame");
    Require(info.psn == full->meta_psn() && info.opcode == full->meta_opcode() &&
                info.path_id == full->meta_path_id() && info.conn_id == full->meta_dst_conn_id() &&
                info.flags == full->meta_flags(),
            "CH fields differ from FrameView");
  }
  // Frames the full codec accepts: the same fields as the parsed Frame.
  wire::ParseOptions lenient;
  lenient.verify_crc = false;
  lenient.verify_ip_checksum = false;
  if (auto f = wire::ParseFrame(in, lenient)) {
    Require(info.ip, "codec accepted a frame ParsePacketInfo could not locate");
    Require(info.sport == f->udp.sport && info.dport == f->udp.dport && info.ecn == f->ecn(), "UDP/ECN differ from codec");
    if (const wire::MetaPacket* m = f->meta()) {
      Require(info.meta, "codec found MetaRoCE, ParsePacketInfo did not");
      Require(info.psn == m->ch.psn && info.opcode == static_cast<uint8_t>(m->ch.opcode) &&
                  info.path_id == m->ch.path_id && info.conn_id == m->ch.dst_conn_id && info.flags == m->ch.flags,
              "CH fields differ from codec");
      if (const wire::MessageExt* meh = m->meh()) {
        Require(info.has_stream && info.stream_id == meh->stream_id, "MEH stream differs from codec");
      }
    }
  }
  // A stage marking CE edits the bytes in place: the frame stays locatable and reads back CE.
  impairment::Packet p;
  p.bytes = frame;
  const uint8_t ecn_before = p.Info().ecn;
  if (p.MarkCe()) {
    Require(info.ip && ecn_before != wire::kEcnNotEct, "marked a frame that is not ECN-capable");
    p.InvalidateInfo();
    Require(p.Info().ip && p.Info().ecn == wire::kEcnCe, "CE mark did not read back");
    Require(p.bytes.size() == size, "marking changed the frame size");
  }
  return 0;
}
