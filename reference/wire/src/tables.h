// The field tables of every header: name, byte offset, bit offset, bit width (the wire layout).
#pragma once

#include "field_table.h"
#include "mroce/wire/eth.h"
#include "mroce/wire/ip.h"
#include "mroce/wire/meta.h"
#include "mroce/wire/roce.h"
#include "mroce/wire/udp.h"

namespace mroce::wire::internal {

// Ethernet without a tag; the 802.1Q variant is handled in eth.cc (eth.vlan_tci at 14, type at 16).
inline constexpr FieldSpec<EthHeader> kEthAddrTable[] = {
    MROCE_BYTES(EthHeader, "eth.dst", 0, 6, dst),
    MROCE_BYTES(EthHeader, "eth.src", 6, 6, src),
};

inline constexpr FieldSpec<Ipv4Header> kIpv4Table[] = {
    MROCE_FIXED(Ipv4Header, "ip4.version", 0, 0, 4, 4),
    MROCE_FIXED(Ipv4Header, "ip4.ihl", 0, 4, 4, 5),
    MROCE_FIELD(Ipv4Header, "ip4.dscp", 1, 0, 6, dscp),
    MROCE_FIELD(Ipv4Header, "ip4.ecn", 1, 6, 2, ecn),
    MROCE_FIELD(Ipv4Header, "ip4.total_len", 2, 0, 16, total_len),
    MROCE_FIELD(Ipv4Header, "ip4.id", 4, 0, 16, id),
    MROCE_FIELD(Ipv4Header, "ip4.flags", 6, 0, 3, flags),
    MROCE_FIELD(Ipv4Header, "ip4.frag_offset", 6, 3, 13, frag_offset),
    MROCE_FIELD(Ipv4Header, "ip4.ttl", 8, 0, 8, ttl),
    MROCE_FIELD(Ipv4Header, "ip4.protocol", 9, 0, 8, protocol),
    MROCE_FIELD(Ipv4Header, "ip4.checksum", 10, 0, 16, checksum),
    MROCE_BYTES(Ipv4Header, "ip4.src", 12, 4, src),
    MROCE_BYTES(Ipv4Header, "ip4.dst", 16, 4, dst),
};

inline constexpr FieldSpec<Ipv6Header> kIpv6Table[] = {
    MROCE_FIXED(Ipv6Header, "ip6.version", 0, 0, 4, 6),
    MROCE_FIELD(Ipv6Header, "ip6.dscp", 0, 4, 6, dscp),
    MROCE_FIELD(Ipv6Header, "ip6.ecn", 1, 2, 2, ecn),
    MROCE_FIELD(Ipv6Header, "ip6.flow_label", 1, 4, 20, flow_label),
    MROCE_FIELD(Ipv6Header, "ip6.payload_len", 4, 0, 16, payload_len),
    MROCE_FIELD(Ipv6Header, "ip6.next_header", 6, 0, 8, next_header),
    MROCE_FIELD(Ipv6Header, "ip6.hop_limit", 7, 0, 8, hop_limit),
    MROCE_BYTES(Ipv6Header, "ip6.src", 8, 16, src),
    MROCE_BYTES(Ipv6Header, "ip6.dst", 24, 16, dst),
};

inline constexpr FieldSpec<UdpHeader> kUdpTable[] = {
    MROCE_FIELD(UdpHeader, "udp.sport", 0, 0, 16, sport),
    MROCE_FIELD(UdpHeader, "udp.dport", 2, 0, 16, dport),
    MROCE_FIELD(UdpHeader, "udp.length", 4, 0, 16, length),
    MROCE_FIELD(UdpHeader, "udp.checksum", 6, 0, 16, checksum),
};

inline constexpr FieldSpec<CommonHeader> kCommonTable[] = {
    MROCE_FIELD(CommonHeader, "ch.ver", 0, 0, 4, ver),
    MROCE_FIELD(CommonHeader, "ch.rsvd0", 0, 4, 4, rsvd0),
    MROCE_FIELD(CommonHeader, "ch.opcode", 1, 0, 8, opcode),
    MROCE_FLAG(CommonHeader, "ch.flags.ar", 2, 0, flags, kFlagAr),
    MROCE_FLAG(CommonHeader, "ch.flags.rtx", 2, 1, flags, kFlagRtx),
    MROCE_FLAG(CommonHeader, "ch.flags.first", 2, 2, flags, kFlagFirst),
    MROCE_FLAG(CommonHeader, "ch.flags.last", 2, 3, flags, kFlagLast),
    MROCE_FLAG(CommonHeader, "ch.flags.imm", 2, 4, flags, kFlagImm),
    MROCE_FLAG(CommonHeader, "ch.flags.se", 2, 5, flags, kFlagSe),
    MROCE_FLAG(CommonHeader, "ch.flags.ece", 2, 6, flags, kFlagEce),
    MROCE_FLAG(CommonHeader, "ch.flags.trtx", 2, 7, flags, kFlagTrtx),
    ::mroce::wire::internal::FieldSpec<CommonHeader>{
        "ch.flags.rsvd", 3, 0, 8,
        [](const CommonHeader& h) -> uint64_t { return h.flags & kFlagsReservedMask; },
        [](CommonHeader& h, uint64_t v) {
          h.flags = static_cast<uint16_t>((h.flags & ~kFlagsReservedMask) | (v & kFlagsReservedMask));
        },
        nullptr},
    MROCE_FIELD(CommonHeader, "ch.dst_conn_id", 4, 0, 32, dst_conn_id),
    MROCE_FIELD(CommonHeader, "ch.path_id", 8, 0, 8, path_id),
    MROCE_FIELD(CommonHeader, "ch.path_epoch", 9, 0, 8, path_epoch),
    MROCE_FIELD(CommonHeader, "ch.payload_len", 10, 0, 16, payload_len),
    MROCE_FIELD(CommonHeader, "ch.psn", 12, 0, 32, psn),
};

inline constexpr FieldSpec<MessageExt> kMessageExtTable[] = {
    MROCE_FIELD(MessageExt, "meh.stream_id", 0, 0, 16, stream_id),
    MROCE_FIELD(MessageExt, "meh.rsvd1", 2, 0, 8, rsvd1),
    MROCE_FIELD(MessageExt, "meh.rsvd2", 3, 0, 8, rsvd2),
    MROCE_FIELD(MessageExt, "meh.msn", 4, 0, 32, msn),
    MROCE_FIELD(MessageExt, "meh.msg_len", 8, 0, 32, msg_len),
    MROCE_FIELD(MessageExt, "meh.msg_offset", 12, 0, 32, msg_offset),
    MROCE_FIELD(MessageExt, "meh.recv_seq", 16, 0, 32, recv_seq),
    MROCE_FIELD(MessageExt, "meh.imm", 20, 0, 32, imm),
    MROCE_FIELD(MessageExt, "meh.rkey", 24, 0, 32, rkey),
    MROCE_FIELD(MessageExt, "meh.rsvd3", 28, 0, 32, rsvd3),
    MROCE_FIELD(MessageExt, "meh.va", 32, 0, 64, va),
};

inline constexpr FieldSpec<AckHeader> kAckTable[] = {
    MROCE_FIELD(AckHeader, "ack.epsn", 0, 0, 32, epsn),
    MROCE_FIELD(AckHeader, "ack.trigger_psn", 4, 0, 32, trigger_psn),
    MROCE_FIELD(AckHeader, "ack.rate_hint", 8, 0, 32, rate_hint),
    MROCE_FIELD(AckHeader, "ack.ce_count", 12, 0, 16, ce_count),
    MROCE_FIELD(AckHeader, "ack.ack_delay", 14, 0, 16, ack_delay),
    MROCE_BYTES(AckHeader, "ack.sack", 16, 32, sack),
};

inline constexpr FieldSpec<NackHeader> kNackTable[] = {
    MROCE_FIELD(NackHeader, "nack.code", 0, 0, 8, code),
    MROCE_FIELD(NackHeader, "nack.rsvd", 1, 0, 8, rsvd),
    MROCE_FIELD(NackHeader, "nack.stream_id", 2, 0, 16, stream_id),
    MROCE_FIELD(NackHeader, "nack.psn", 4, 0, 32, psn),
    MROCE_FIELD(NackHeader, "nack.msn", 8, 0, 32, msn),
    MROCE_FIELD(NackHeader, "nack.info", 12, 0, 32, info),
};

inline constexpr FieldSpec<ConnMgmtHeader> kConnMgmtTable[] = {
    MROCE_FIELD(ConnMgmtHeader, "cmh.ver_min", 0, 0, 8, ver_min),
    MROCE_FIELD(ConnMgmtHeader, "cmh.ver_max", 1, 0, 8, ver_max),
    MROCE_FIELD(ConnMgmtHeader, "cmh.reason", 2, 0, 8, reason),
    MROCE_FIELD(ConnMgmtHeader, "cmh.num_paths", 3, 0, 8, num_paths),
    MROCE_FIELD(ConnMgmtHeader, "cmh.src_conn_id", 4, 0, 32, src_conn_id),
    MROCE_FIELD(ConnMgmtHeader, "cmh.mtu", 8, 0, 16, mtu),
    MROCE_FIELD(ConnMgmtHeader, "cmh.max_streams", 10, 0, 16, max_streams),
    MROCE_FIELD(ConnMgmtHeader, "cmh.num_planes", 12, 0, 8, num_planes),
    MROCE_FIELD(ConnMgmtHeader, "cmh.rsvd4", 13, 0, 8, rsvd4),
    MROCE_FIELD(ConnMgmtHeader, "cmh.rsvd5", 14, 0, 16, rsvd5),
    MROCE_FIELD(ConnMgmtHeader, "cmh.max_rate", 16, 0, 32, max_rate),
    MROCE_FIELD(ConnMgmtHeader, "cmh.rsvd6", 20, 0, 32, rsvd6),
    MROCE_FIELD(ConnMgmtHeader, "cmh.nonce", 24, 0, 64, nonce),
};

inline constexpr FieldSpec<ProbeHeader> kProbeTable[] = {
    MROCE_FIELD(ProbeHeader, "prh.probe_seq", 0, 0, 32, probe_seq),
    MROCE_FIELD(ProbeHeader, "prh.rsvd7", 4, 0, 32, rsvd7),
    MROCE_FIELD(ProbeHeader, "prh.tx_time", 8, 0, 64, tx_time),
};

inline constexpr FieldSpec<Bth> kBthTable[] = {
    MROCE_FIELD(Bth, "bth.opcode", 0, 0, 8, opcode),
    MROCE_FIELD(Bth, "bth.se", 1, 0, 1, se),
    MROCE_FIELD(Bth, "bth.migreq", 1, 1, 1, migreq),
    MROCE_FIELD(Bth, "bth.pad_count", 1, 2, 2, pad_count),
    MROCE_FIELD(Bth, "bth.tver", 1, 4, 4, tver),
    MROCE_FIELD(Bth, "bth.pkey", 2, 0, 16, pkey),
    MROCE_FIELD(Bth, "bth.fecn", 4, 0, 1, fecn),
    MROCE_FIELD(Bth, "bth.becn", 4, 1, 1, becn),
    MROCE_FIELD(Bth, "bth.resv6", 4, 2, 6, resv6),
    MROCE_FIELD(Bth, "bth.dest_qp", 5, 0, 24, dest_qp),
    MROCE_FIELD(Bth, "bth.ack_req", 8, 0, 1, ack_req),
    MROCE_FIELD(Bth, "bth.resv7", 8, 1, 7, resv7),
    MROCE_FIELD(Bth, "bth.psn", 9, 0, 24, psn),
};

inline constexpr FieldSpec<Reth> kRethTable[] = {
    MROCE_FIELD(Reth, "reth.va", 0, 0, 64, va),
    MROCE_FIELD(Reth, "reth.rkey", 8, 0, 32, rkey),
    MROCE_FIELD(Reth, "reth.dma_len", 12, 0, 32, dma_len),
};

inline constexpr FieldSpec<Aeth> kAethTable[] = {
    MROCE_FIELD(Aeth, "aeth.syndrome", 0, 0, 8, syndrome),
    MROCE_FIELD(Aeth, "aeth.msn", 1, 0, 24, msn),
};

}  // namespace mroce::wire::internal
