#include "test_frames.h"

namespace mroce::impairment::testing {

namespace {
wire::Ipv4Address Ip(uint32_t a) {
  return {static_cast<uint8_t>(a >> 24), static_cast<uint8_t>(a >> 16), static_cast<uint8_t>(a >> 8),
          static_cast<uint8_t>(a)};
}
}  // namespace

std::vector<uint8_t> MakeFrame(const FrameSpec& spec) {
  wire::Frame f;
  f.eth.src = {0x02, 0, 0, 0, 0, 1};
  f.eth.dst = {0x02, 0, 0, 0, 0, 2};
  f.eth.ethertype = wire::kEtherTypeIpv4;
  wire::Ipv4Header ip;
  ip.src = Ip(spec.src_ip);
  ip.dst = Ip(spec.dst_ip);
  ip.ecn = spec.ecn;
  f.ip = ip;
  f.udp.sport = spec.sport;
  f.udp.dport = wire::kMetaUdpPort;
  wire::MetaPacket m;
  m.ch.opcode = spec.opcode;
  m.ch.path_id = spec.path_id;
  m.ch.psn = spec.psn;
  m.ch.flags = spec.flags;
  m.ch.dst_conn_id = 7;
  m.ext = wire::DefaultExtFor(spec.opcode);
  if (auto* meh = m.meh()) {
    meh->stream_id = spec.stream_id;
    meh->msg_len = static_cast<uint32_t>(spec.payload);
    m.payload.assign(spec.payload, static_cast<uint8_t>(spec.psn));
  }
  f.l4 = m;
  return wire::SerializeFrame(f);
}

std::vector<uint8_t> MakeAck(uint8_t path_id, uint32_t epsn, const std::vector<int>& sack_bits) {
  wire::Frame f;
  wire::Ipv4Header ip;
  ip.src = Ip(0x0a000002);
  ip.dst = Ip(0x0a000001);
  f.ip = ip;
  f.udp.sport = 49152;
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kAck;
  m.ch.path_id = path_id;
  wire::AckHeader ack;
  ack.epsn = epsn;
  for (int b : sack_bits) ack.SetSackBit(b);
  m.ext = ack;
  f.l4 = m;
  return wire::SerializeFrame(f);
}

Packet MakePacket(uint64_t id, const FrameSpec& spec) {
  Packet p;
  p.id = p.origin_id = id;
  p.bytes = MakeFrame(spec);
  return p;
}

}  // namespace mroce::impairment::testing
