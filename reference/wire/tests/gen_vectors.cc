// Writes tests/vectors/*.hex: hand-chosen frames of every packet type for cross-checks with Scapy.
// Usage: mroce_wire_gen_vectors <vectors dir>. One frame per line, preceded by "# <kind> <OPCODE> ...".
#include <cstdio>
#include <fstream>
#include <string>

#include "mroce/wire/wire.h"

using namespace mroce::wire;

namespace {

Frame Base(bool v6, uint16_t sport) {
  Frame f;
  f.eth.dst = {0x02, 0, 0, 0, 0, 0x02};
  f.eth.src = {0x02, 0, 0, 0, 0, 0x01};
  if (v6) {
    Ipv6Header ip;
    ip.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    ip.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    f.ip = ip;
    f.eth.ethertype = kEtherTypeIpv6;
  } else {
    f.ip = Ipv4Header{.src = {10, 0, 0, 1}, .dst = {10, 0, 0, 2}};
  }
  f.udp.sport = sport;
  return f;
}

// IBA 9.2: PadCnt zero bytes after the payload align it to 4 bytes (the codec keeps them in payload).
void Pad(RocePacket& p) {
  p.bth.pad_count = static_cast<uint8_t>((4 - p.payload.size() % 4) % 4);
  p.payload.insert(p.payload.end(), p.bth.pad_count, 0);
}

MetaPacket Data(Opcode op, uint16_t flags, uint32_t psn, MessageExt meh, size_t payload) {
  MetaPacket p;
  p.ch.opcode = op;
  p.ch.flags = flags;
  p.ch.dst_conn_id = 0x00001001;
  p.ch.path_id = 2;
  p.ch.psn = psn;
  p.ext = meh;
  for (size_t i = 0; i < payload; ++i) p.payload.push_back(static_cast<uint8_t>(i));
  return p;
}

MetaPacket Ctl(Opcode op, MetaExt ext, uint32_t conn = 0x2002) {
  MetaPacket p;
  p.ch.opcode = op;
  p.ch.dst_conn_id = conn;
  p.ext = ext;
  return p;
}

struct Out {
  std::ofstream file;
  void Add(const std::string& comment, const std::vector<uint8_t>& bytes) {
    file << "# " << comment << "\n" << ToHex(bytes) << "\n";
  }
  void Add(const std::string& comment, const Frame& f) { Add(comment, SerializeFrame(f)); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <vectors dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  {
    Out o{std::ofstream(dir + "/meta.hex")};
    o.file << "# MetaRoCE v1 frames (docs/spec/wire-format-decisions.md), written by "
              "reference/wire/tests/gen_vectors.cc.\n# Each frame follows a comment: meta <OPCODE> <ip> <notes>.\n";
    for (bool v6 : {false, true}) {
      const std::string ip = v6 ? "ipv6" : "ipv4";
      Frame f = Base(v6, 49152);
      f.l4 = Data(Opcode::kWrite, kFlagFirst | kFlagLast | kFlagAr, 0,
                  MessageExt{.stream_id = 1, .msn = 0, .msg_len = 16, .rkey = 0x1234, .va = 0x7f0000001000}, 16);
      o.Add("meta WRITE " + ip + " single-packet message, AR", f);
      f.l4 = Data(Opcode::kWriteImm, kFlagLast | kFlagImm | kFlagRtx, 77,
                  MessageExt{.stream_id = 3, .msn = 5, .msg_len = 8200, .msg_offset = 8192, .recv_seq = 4,
                             .imm = 0xcafef00d, .rkey = 0x99, .va = 0x10000}, 8);
      o.Add("meta WRITE_IMM " + ip + " last packet, retransmission", f);
      f.l4 = Data(Opcode::kSend, kFlagFirst, 0xfffffffe,
                  MessageExt{.stream_id = 0, .msn = 1, .msg_len = 5000, .recv_seq = 1}, 64);
      o.Add("meta SEND " + ip + " first packet, PSN near wrap", f);
      f.l4 = Data(Opcode::kSendImm, kFlagFirst | kFlagLast | kFlagImm | kFlagSe, 9,
                  MessageExt{.stream_id = 1023, .msn = 2, .msg_len = 1, .recv_seq = 2, .imm = 7}, 1);
      o.Add("meta SEND_IMM " + ip + " solicited", f);
      f.l4 = Data(Opcode::kReadReq, kFlagFirst | kFlagLast, 10,
                  MessageExt{.stream_id = 2, .msn = 3, .msg_len = 65536, .rkey = 0xabcdef01, .va = 0x200000}, 0);
      o.Add("meta READ_REQ " + ip, f);
      f.l4 = Data(Opcode::kReadResp, kFlagFirst, 11, MessageExt{.stream_id = 2, .msn = 3, .msg_len = 65536}, 32);
      o.Add("meta READ_RESP " + ip + " first", f);
      AckHeader a{.epsn = 100, .trigger_psn = 102, .rate_hint = 25000, .ce_count = 1, .ack_delay = 16};
      a.SetSackBit(1);
      a.SetSackBit(200);
      a.SetSackBit(255);
      MetaPacket ack = Ctl(Opcode::kAck, a);
      ack.ch.flags = kFlagEce;
      ack.ch.path_id = 2;
      ack.ch.path_epoch = 1;
      f.l4 = ack;
      o.Add("meta ACK " + ip + " SACK bits 1 200 255, ECE", f);
      f.l4 = Ctl(Opcode::kNack, NackHeader{.code = NackCode::kRnr, .stream_id = 4, .psn = 12, .msn = 6, .info = 500});
      o.Add("meta NACK " + ip + " RNR 500 us", f);
      f.l4 = Ctl(Opcode::kNack, NackHeader{.code = NackCode::kPsnOutOfWindow, .psn = 900, .info = 600});
      o.Add("meta NACK " + ip + " PSN_OUT_OF_WINDOW", f);
      f.l4 = Ctl(Opcode::kConnectReq,
                 ConnMgmtHeader{.ver_min = 1, .ver_max = 1, .num_paths = 8, .src_conn_id = 0x1001, .mtu = 4096,
                                .max_streams = 16, .num_planes = 2, .max_rate = 100000, .nonce = 0x1122334455667788},
                 0);
      o.Add("meta CONNECT_REQ " + ip, f);
      f.l4 = Ctl(Opcode::kConnectAck,
                 ConnMgmtHeader{.num_paths = 8, .src_conn_id = 0x2002, .mtu = 4096, .max_streams = 16,
                                .num_planes = 2, .nonce = 0x1122334455667788},
                 0x1001);
      o.Add("meta CONNECT_ACK " + ip, f);
      f.l4 = Ctl(Opcode::kConnectRej,
                 ConnMgmtHeader{.ver_min = 2, .ver_max = 3, .reason = ConnReason::kVersionUnsupported,
                                .nonce = 0x1122334455667788});
      o.Add("meta CONNECT_REJ " + ip + " VERSION_UNSUPPORTED", f);
      f.l4 = Ctl(Opcode::kDisconnect, ConnMgmtHeader{.reason = ConnReason::kNormal, .nonce = 5});
      o.Add("meta DISCONNECT " + ip, f);
      f.l4 = Ctl(Opcode::kDisconnectAck, ConnMgmtHeader{.reason = ConnReason::kNormal, .nonce = 5});
      o.Add("meta DISCONNECT_ACK " + ip, f);
      MetaPacket probe = Ctl(Opcode::kProbe, ProbeHeader{.probe_seq = 1, .tx_time = 123456789});
      probe.ch.path_id = 5;
      probe.ch.path_epoch = 2;
      probe.ch.psn = 4000;
      f.l4 = probe;
      o.Add("meta PROBE " + ip + " epoch 2", f);
      probe.ch.opcode = Opcode::kProbeAck;
      f.l4 = probe;
      o.Add("meta PROBE_ACK " + ip, f);
    }
    // Variants: VLAN tag, CE mark, DSCP, Ethernet padding, unknown version, reserved bits set.
    Frame f = Base(false, 65535);
    f.eth.vlan_tci = 0x2064;
    std::get<Ipv4Header>(f.ip).ecn = kEcnCe;
    std::get<Ipv4Header>(f.ip).dscp = 26;
    f.l4 = Data(Opcode::kWrite, kFlagFirst | kFlagLast, 1, MessageExt{.msg_len = 4, .va = 8}, 4);
    o.Add("meta WRITE ipv4 802.1Q tag, DSCP 26, CE-marked", f);
    f = Base(false, 50000);
    f.l4 = Ctl(Opcode::kProbe, ProbeHeader{.probe_seq = 2});
    f.padding.assign(4, 0);
    o.Add("meta PROBE ipv4 with 4 bytes Ethernet padding", f);
    f = Base(true, 50001);
    MetaPacket v2 = Ctl(Opcode::kConnectReq, ConnMgmtHeader{.ver_min = 2, .ver_max = 2, .nonce = 9}, 0);
    v2.ch.ver = 2;
    f.l4 = v2;
    o.Add("meta CONNECT_REQ ipv6 CH.ver 2 (parses; endpoint decides)", f);
    f = Base(false, 50002);
    MetaPacket rs = Data(Opcode::kSend, kFlagFirst | kFlagLast | 0x00a5, 3,
                         MessageExt{.rsvd1 = 1, .rsvd2 = 2, .msg_len = 2, .rsvd3 = 3}, 2);
    rs.ch.rsvd0 = 0xf;
    f.l4 = rs;
    o.Add("meta SEND ipv4 non-zero reserved fields (ignored, preserved)", f);
  }
  {
    Out o{std::ofstream(dir + "/meta_invalid.hex")};
    o.file << "# Frames every MetaRoCE receiver must drop. Comment: INVALID <field the parser reports>: why.\n";
    Frame f = Base(false, 49152);
    f.l4 = Data(Opcode::kWrite, kFlagFirst | kFlagLast, 1, MessageExt{.msg_len = 4}, 4);
    auto good = SerializeFrame(f);
    auto b = good;
    b[b.size() - 1] ^= 0xff;
    o.Add("INVALID crc: CRC trailer corrupted", b);
    b = good;
    b[14 + 20 + 8 + 1] = 0x7f;
    o.Add("INVALID ch.opcode: unknown opcode 0x7f", b);
    b = good;
    b[14 + 20 + 8 + 11] = 5;
    o.Add("INVALID ch.payload_len: payload_len 5 but 4 bytes present", b);
    b = good;
    b[14 + 10] ^= 0x01;
    o.Add("INVALID ip4.checksum: IPv4 header checksum wrong", b);
    b = good;
    b[14 + 20 + 5] += 1;
    o.Add("INVALID udp.length: UDP length exceeds IP payload", b);
    b = good;
    b.resize(b.size() - 10);
    o.Add("INVALID ip4.total_len: frame truncated", b);
    MetaPacket un = Ctl(static_cast<Opcode>(0x12), UnknownExt{});
    f.l4 = un;
    o.Add("INVALID ch.opcode: opcode 0x12 (unknown) with no header", f);
  }
  {
    Out o{std::ofstream(dir + "/roce.hex")};
    o.file << "# RoCEv2 RC frames (UDP 4791, ICRC little-endian as scapy.contrib.roce), written by gen_vectors.cc.\n";
    struct R {
      RoceOpcode op;
      size_t payload;
    };
    const R ops[] = {{RoceOpcode::kSendFirst, 32}, {RoceOpcode::kSendMiddle, 32}, {RoceOpcode::kSendLast, 8},
                     {RoceOpcode::kSendOnly, 5}, {RoceOpcode::kSendOnlyImm, 4}, {RoceOpcode::kWriteFirst, 32},
                     {RoceOpcode::kWriteMiddle, 32}, {RoceOpcode::kWriteLast, 4}, {RoceOpcode::kWriteOnly, 16},
                     {RoceOpcode::kReadRequest, 0}, {RoceOpcode::kReadResponseFirst, 32},
                     {RoceOpcode::kReadResponseMiddle, 32}, {RoceOpcode::kReadResponseLast, 12},
                     {RoceOpcode::kReadResponseOnly, 8}, {RoceOpcode::kAck, 0}};
    uint32_t psn = 0x100;
    for (bool v6 : {false, true}) {
      for (const auto& r : ops) {
        Frame f = Base(v6, 49200);
        f.udp.dport = kRoceUdpPort;
        RocePacket p;
        p.bth.opcode = r.op;
        p.bth.dest_qp = 0x000011;
        p.bth.psn = psn++;
        p.bth.ack_req = r.op == RoceOpcode::kSendLast || r.op == RoceOpcode::kWriteLast;
        if (RoceHasReth(r.op)) p.reth = Reth{0x7f0000002000, 0x4321, 96};
        if (RoceHasAeth(r.op)) p.aeth = Aeth{0x1f, 7};
        if (RoceHasImm(r.op)) p.imm = 0x01020304;
        for (size_t i = 0; i < r.payload; ++i) p.payload.push_back(static_cast<uint8_t>(0xa0 + i));
        Pad(p);
        f.l4 = p;
        o.Add("roce " + std::string(RoceOpcodeName(r.op)) + " " + (v6 ? "ipv6" : "ipv4"), f);
      }
    }
    Frame f = Base(false, 49201);
    f.udp.dport = kRoceUdpPort;
    std::get<Ipv4Header>(f.ip).ecn = kEcnCe;
    RocePacket p;
    p.bth.opcode = RoceOpcode::kSendOnly;
    p.bth.dest_qp = 0x000011;  // not QP0/QP1: those carry management datagrams
    p.bth.fecn = true;
    p.payload = {'h', 'i'};
    Pad(p);
    f.l4 = p;
    o.Add("roce RC_SEND_ONLY ipv4 CE-marked, FECN", f);
  }
  return 0;
}
