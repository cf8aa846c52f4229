// Test helpers for mroce_wire: random packets and the shared vector files.
#include "test_util.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace mroce::wire::testing {

uint64_t TestSeed() {
  if (const char* s = std::getenv("MROCE_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return 0x5eed2024;
}

uint64_t RandomPackets::Bits(unsigned n) {
  uint64_t v = rng_();
  return n >= 64 ? v : (v & ((uint64_t{1} << n) - 1));
}

std::vector<uint8_t> RandomPackets::Payload(size_t max_len) {
  // Bias toward small sizes and edge cases.
  size_t len;
  switch (Bits(2)) {
    case 0: len = 0; break;
    case 1: len = Bits(4); break;
    default: len = static_cast<size_t>(Bits(20) % (max_len + 1)); break;
  }
  std::vector<uint8_t> p(len);
  for (auto& b : p) b = static_cast<uint8_t>(rng_());
  return p;
}

Opcode RandomPackets::KnownOpcode() {
  static constexpr Opcode kAll[] = {
      Opcode::kWrite, Opcode::kWriteImm, Opcode::kSend, Opcode::kSendImm, Opcode::kReadReq,
      Opcode::kReadResp, Opcode::kAck, Opcode::kNack, Opcode::kConnectReq, Opcode::kConnectAck,
      Opcode::kConnectRej, Opcode::kDisconnect, Opcode::kDisconnectAck, Opcode::kProbe,
      Opcode::kProbeAck};
  return kAll[Bits(32) % std::size(kAll)];
}

MetaPacket RandomPackets::Meta(bool reserved_nonzero) {
  MetaPacket p;
  p.ch.ver = static_cast<uint8_t>(Bits(3) == 0 ? Bits(4) : 1);
  p.ch.rsvd0 = reserved_nonzero ? static_cast<uint8_t>(Bits(4)) : 0;
  p.ch.opcode = KnownOpcode();
  p.ch.flags = static_cast<uint16_t>(Bits(16) & (reserved_nonzero ? 0xFFFF : 0xFF00));
  p.ch.dst_conn_id = static_cast<uint32_t>(Bits(32));
  p.ch.path_id = static_cast<uint8_t>(Bits(8));
  p.ch.path_epoch = static_cast<uint8_t>(Bits(8));
  p.ch.psn = static_cast<uint32_t>(Bits(32));
  auto r = [&](unsigned n) { return reserved_nonzero ? Bits(n) : 0; };
  switch (ExtKindOf(p.ch.opcode)) {
    case ExtKind::kMessage: {
      MessageExt m;
      m.stream_id = static_cast<uint16_t>(Bits(16));
      m.rsvd1 = static_cast<uint8_t>(r(8));
      m.rsvd2 = static_cast<uint8_t>(r(8));
      m.msn = static_cast<uint32_t>(Bits(32));
      m.msg_len = static_cast<uint32_t>(Bits(32));
      m.msg_offset = static_cast<uint32_t>(Bits(32));
      m.recv_seq = static_cast<uint32_t>(Bits(32));
      m.imm = static_cast<uint32_t>(Bits(32));
      m.rkey = static_cast<uint32_t>(Bits(32));
      m.rsvd3 = static_cast<uint32_t>(r(32));
      m.va = Bits(64);
      p.ext = m;
      p.payload = Payload(4096);
      break;
    }
    case ExtKind::kAck: {
      AckHeader a;
      a.epsn = static_cast<uint32_t>(Bits(32));
      a.trigger_psn = static_cast<uint32_t>(Bits(32));
      a.rate_hint = static_cast<uint32_t>(Bits(32));
      a.ce_count = static_cast<uint16_t>(Bits(16));
      a.ack_delay = static_cast<uint16_t>(Bits(16));
      for (auto& b : a.sack) b = static_cast<uint8_t>(Bits(8));
      p.ext = a;
      break;
    }
    case ExtKind::kNack: {
      NackHeader n;
      n.code = static_cast<NackCode>(Bits(8));
      n.rsvd = static_cast<uint8_t>(r(8));
      n.stream_id = static_cast<uint16_t>(Bits(16));
      n.psn = static_cast<uint32_t>(Bits(32));
      n.msn = static_cast<uint32_t>(Bits(32));
      n.info = static_cast<uint32_t>(Bits(32));
      p.ext = n;
      break;
    }
    case ExtKind::kConnMgmt: {
      ConnMgmtHeader c;
      c.ver_min = static_cast<uint8_t>(Bits(8));
      c.ver_max = static_cast<uint8_t>(Bits(8));
      c.reason = static_cast<ConnReason>(Bits(8));
      c.num_paths = static_cast<uint8_t>(Bits(8));
      c.src_conn_id = static_cast<uint32_t>(Bits(32));
      c.mtu = static_cast<uint16_t>(Bits(16));
      c.max_streams = static_cast<uint16_t>(Bits(16));
      c.num_planes = static_cast<uint8_t>(Bits(8));
      c.rsvd4 = static_cast<uint8_t>(r(8));
      c.rsvd5 = static_cast<uint16_t>(r(16));
      c.max_rate = static_cast<uint32_t>(Bits(32));
      c.rsvd6 = static_cast<uint32_t>(r(32));
      c.nonce = Bits(64);
      p.ext = c;
      break;
    }
    case ExtKind::kProbe: {
      ProbeHeader h;
      h.probe_seq = static_cast<uint32_t>(Bits(32));
      h.rsvd7 = static_cast<uint32_t>(r(32));
      h.tx_time = Bits(64);
      p.ext = h;
      break;
    }
    case ExtKind::kUnknown:
      break;
  }
  // Control packets carry no payload (MROCE-HDR-017: the parser refuses one; see
  // MetaErrors.PayloadOnControlOpcodeIsRefused).
  p.ch.payload_len = static_cast<uint16_t>(p.payload.size());
  const std::vector<uint8_t> bytes = SerializeMeta(p);
  p.crc = MetaCrc(std::span(bytes).first(p.size() - kCrcSize));
  return p;
}

RocePacket RandomPackets::Roce() {
  RocePacket p;
  p.bth.opcode = static_cast<RoceOpcode>(Bits(32) % 0x12);  // RC 0x00..0x11
  p.bth.se = Bits(1);
  p.bth.migreq = Bits(1);
  p.bth.pad_count = static_cast<uint8_t>(Bits(2));
  p.bth.tver = static_cast<uint8_t>(Bits(4));
  p.bth.pkey = static_cast<uint16_t>(Bits(16));
  p.bth.fecn = Bits(1);
  p.bth.becn = Bits(1);
  p.bth.resv6 = static_cast<uint8_t>(Bits(6));
  p.bth.dest_qp = static_cast<uint32_t>(Bits(24));
  p.bth.ack_req = Bits(1);
  p.bth.resv7 = static_cast<uint8_t>(Bits(7));
  p.bth.psn = static_cast<uint32_t>(Bits(24));
  if (RoceHasReth(p.bth.opcode)) p.reth = Reth{Bits(64), static_cast<uint32_t>(Bits(32)), static_cast<uint32_t>(Bits(32))};
  if (RoceHasAeth(p.bth.opcode)) p.aeth = Aeth{static_cast<uint8_t>(Bits(8)), static_cast<uint32_t>(Bits(24))};
  if (RoceHasImm(p.bth.opcode)) p.imm = static_cast<uint32_t>(Bits(32));
  p.payload = Payload(4096);
  p.icrc = static_cast<uint32_t>(Bits(32));
  return p;
}

Frame RandomPackets::AnyFrame() {
  Frame f;
  for (auto& b : f.eth.dst) b = static_cast<uint8_t>(Bits(8));
  for (auto& b : f.eth.src) b = static_cast<uint8_t>(Bits(8));
  if (Bits(2) == 0) f.eth.vlan_tci = static_cast<uint16_t>(Bits(16));
  if (Bits(1)) {
    Ipv4Header ip;
    ip.dscp = static_cast<uint8_t>(Bits(6));
    ip.ecn = static_cast<uint8_t>(Bits(2));
    ip.id = static_cast<uint16_t>(Bits(16));
    ip.flags = static_cast<uint8_t>(Bits(3) & 0b110);  // no MF
    ip.ttl = static_cast<uint8_t>(Bits(8));
    for (auto& b : ip.src) b = static_cast<uint8_t>(Bits(8));
    for (auto& b : ip.dst) b = static_cast<uint8_t>(Bits(8));
    f.ip = ip;
    f.eth.ethertype = kEtherTypeIpv4;
  } else {
    Ipv6Header ip;
    ip.dscp = static_cast<uint8_t>(Bits(6));
    ip.ecn = static_cast<uint8_t>(Bits(2));
    ip.flow_label = static_cast<uint32_t>(Bits(20));
    ip.hop_limit = static_cast<uint8_t>(Bits(8));
    for (auto& b : ip.src) b = static_cast<uint8_t>(Bits(8));
    for (auto& b : ip.dst) b = static_cast<uint8_t>(Bits(8));
    f.ip = ip;
    f.eth.ethertype = kEtherTypeIpv6;
  }
  f.udp.sport = static_cast<uint16_t>(Bits(16));
  switch (Bits(32) % 4) {
    case 0:
    case 1:
      f.udp.dport = kMetaUdpPort;
      f.l4 = Meta(Bits(1));
      break;
    case 2:
      f.udp.dport = kRoceUdpPort;
      f.l4 = Roce();
      break;
    default:
      do f.udp.dport = static_cast<uint16_t>(Bits(16));
      while (f.udp.dport == kMetaUdpPort || f.udp.dport == kRoceUdpPort);
      f.l4 = RawPayload{Payload(1500)};
      break;
  }
  if (Bits(3) == 0) f.padding = Payload(40);
  return WithComputedFields(f);
}

std::vector<Vector> LoadVectors() {
  std::vector<Vector> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(MROCE_WIRE_VECTORS_DIR)) {
    if (e.path().extension() == ".hex") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string line, comment;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      if (line[0] == '#') {
        comment = line;
        continue;
      }
      auto bytes = ParseHex(line);
      Vector v{path.filename().string(), n, comment, bytes ? *bytes : std::vector<uint8_t>{}};
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace mroce::wire::testing
