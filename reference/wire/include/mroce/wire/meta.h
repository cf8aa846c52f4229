// MetaRoCE v1 packet: common header, opcode headers (MEH, ACKH, NAKH, CMH, PRH), payload, CRC trailer.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "mroce/wire/constants.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

// CH.opcode. An Opcode may hold any uint8_t; IsKnownOpcode tells the defined ones.
enum class Opcode : uint8_t {
  kWrite = 0x01,
  kWriteImm = 0x02,
  kSend = 0x03,
  kSendImm = 0x04,
  kReadReq = 0x05,
  kReadResp = 0x06,
  kAck = 0x10,
  kNack = 0x11,
  kConnectReq = 0x20,
  kConnectAck = 0x21,
  kConnectRej = 0x22,
  kDisconnect = 0x23,
  kDisconnectAck = 0x24,
  kProbe = 0x30,
  kProbeAck = 0x31,
};

enum class NackCode : uint8_t {
  kPsnOutOfWindow = 0x01,
  kInvalidConn = 0x02,
  kRnr = 0x03,
  kRemoteAccess = 0x04,
  kInvalidRequest = 0x05,
  kResource = 0x06,
  kRemoteOpError = 0x07,
};

enum class ConnReason : uint8_t {
  kNone = 0x00,
  kVersionUnsupported = 0x01,
  kNoResources = 0x02,
  kInvalidParams = 0x03,
  kNormal = 0x10,
  kError = 0x11,
};

// Which opcode header follows the CH.
enum class ExtKind : uint8_t { kMessage, kAck, kNack, kConnMgmt, kProbe, kUnknown };

// kUnknown for unknown opcodes. Inline: the impairment stages classify every frame.
[[nodiscard]] inline ExtKind ExtKindOf(Opcode op) {
  switch (op) {
    case Opcode::kWrite:
    case Opcode::kWriteImm:
    case Opcode::kSend:
    case Opcode::kSendImm:
    case Opcode::kReadReq:
    case Opcode::kReadResp:
      return ExtKind::kMessage;
    case Opcode::kAck:
      return ExtKind::kAck;
    case Opcode::kNack:
      return ExtKind::kNack;
    case Opcode::kConnectReq:
    case Opcode::kConnectAck:
    case Opcode::kConnectRej:
    case Opcode::kDisconnect:
    case Opcode::kDisconnectAck:
      return ExtKind::kConnMgmt;
    case Opcode::kProbe:
    case Opcode::kProbeAck:
      return ExtKind::kProbe;
  }
  return ExtKind::kUnknown;
}
[[nodiscard]] inline bool IsKnownOpcode(Opcode op) { return ExtKindOf(op) != ExtKind::kUnknown; }
[[nodiscard]] inline bool IsDataOpcode(Opcode op) { return ExtKindOf(op) == ExtKind::kMessage; }  // 0x01..0x06 (carry a MEH).
[[nodiscard]] size_t ExtSize(ExtKind kind);  // 0 for kUnknown.
[[nodiscard]] std::string_view OpcodeName(Opcode op);  // "WRITE", "ACK", ...; "UNKNOWN" otherwise.
[[nodiscard]] std::string_view NackCodeName(NackCode c);
[[nodiscard]] std::string_view ConnReasonName(ConnReason r);

// CH.flags bits (bit 15 = MSB of CH byte 2).
inline constexpr uint16_t kFlagAr = 1u << 15;    // Ack requested.
inline constexpr uint16_t kFlagRtx = 1u << 14;   // Retransmission.
inline constexpr uint16_t kFlagFirst = 1u << 13; // First packet of a message.
inline constexpr uint16_t kFlagLast = 1u << 12;  // Last packet of a message.
inline constexpr uint16_t kFlagImm = 1u << 11;   // MEH.imm valid.
inline constexpr uint16_t kFlagSe = 1u << 10;    // Solicited event.
inline constexpr uint16_t kFlagEce = 1u << 9;    // ACK only: trigger arrived CE-marked.
inline constexpr uint16_t kFlagTrtx = 1u << 8;   // ACK only: trigger had RTX set.
inline constexpr uint16_t kFlagsReservedMask = 0x00FF;

// Common header, 16 bytes.
struct CommonHeader {
  uint8_t ver = kMetaVersion;  // 4 bits
  uint8_t rsvd0 = 0;           // 4 bits
  Opcode opcode = Opcode::kWrite;
  uint16_t flags = 0;          // kFlag* bits; low 8 bits reserved (kept for byte-exact round trip).
  uint32_t dst_conn_id = 0;
  uint8_t path_id = 0;
  uint8_t path_epoch = 0;
  uint16_t payload_len = 0;    // Bytes. Filled by SerializeMeta.
  uint32_t psn = 0;

  [[nodiscard]] bool Has(uint16_t flag) const { return (flags & flag) == flag; }
  void Set(uint16_t flag, bool on = true) {
    flags = static_cast<uint16_t>(on ? (flags | flag) : (flags & ~flag));
  }
  bool operator==(const CommonHeader&) const = default;
};

// Message extension header, 40 bytes (data opcodes).
struct MessageExt {
  uint16_t stream_id = 0;
  uint8_t rsvd1 = 0;
  uint8_t rsvd2 = 0;
  uint32_t msn = 0;
  uint32_t msg_len = 0;     // Bytes (READ_REQ: bytes to read).
  uint32_t msg_offset = 0;  // Bytes.
  uint32_t recv_seq = 0;
  uint32_t imm = 0;
  uint32_t rkey = 0;
  uint32_t rsvd3 = 0;
  uint64_t va = 0;
  bool operator==(const MessageExt&) const = default;
};

// ACK header, 48 bytes. SACK bit i covers PSN epsn + 1 + i (mod 2^32).
struct AckHeader {
  uint32_t epsn = 0;
  uint32_t trigger_psn = 0;
  uint32_t rate_hint = 0xFFFFFFFF;  // Mb/s; 0xFFFFFFFF = unlimited.
  uint16_t ce_count = 0;
  uint16_t ack_delay = 0;           // Units of 64 ns.
  std::array<uint8_t, 32> sack{};   // Wire layout: bit i in sack[i / 8], mask 0x80 >> (i % 8).

  [[nodiscard]] bool SackBit(int i) const;   // i in 0..255 (asserted).
  void SetSackBit(int i, bool on = true);
  bool operator==(const AckHeader&) const = default;
};

// NACK header, 16 bytes.
struct NackHeader {
  NackCode code = NackCode::kPsnOutOfWindow;  // May hold any uint8_t.
  uint8_t rsvd = 0;
  uint16_t stream_id = 0;
  uint32_t psn = 0;
  uint32_t msn = 0;
  uint32_t info = 0;  // RNR: delay in microseconds; PSN_OUT_OF_WINDOW: receiver epsn.
  bool operator==(const NackHeader&) const = default;
};

// Connection management header, 32 bytes.
struct ConnMgmtHeader {
  uint8_t ver_min = kMetaVersion;
  uint8_t ver_max = kMetaVersion;
  ConnReason reason = ConnReason::kNone;  // May hold any uint8_t.
  uint8_t num_paths = 0;
  uint32_t src_conn_id = 0;
  uint16_t mtu = 0;        // Max payload bytes per packet.
  uint16_t max_streams = 0;
  uint8_t num_planes = 0;
  uint8_t rsvd4 = 0;
  uint16_t rsvd5 = 0;
  uint32_t max_rate = 0;   // Mb/s; 0 = unspecified.
  uint32_t rsvd6 = 0;
  uint64_t nonce = 0;
  bool operator==(const ConnMgmtHeader&) const = default;
};

// Probe header, 16 bytes.
struct ProbeHeader {
  uint32_t probe_seq = 0;
  uint32_t rsvd7 = 0;
  uint64_t tx_time = 0;  // Sender's opaque timestamp, ns.
  bool operator==(const ProbeHeader&) const = default;
};

// No opcode header: used to build packets with an unknown opcode (negative tests). ParseMeta never
// returns it (unknown opcodes are a parse error).
struct UnknownExt {
  bool operator==(const UnknownExt&) const = default;
};

using MetaExt = std::variant<MessageExt, AckHeader, NackHeader, ConnMgmtHeader, ProbeHeader, UnknownExt>;

// A whole MetaRoCE packet (the UDP payload).
struct MetaPacket {
  CommonHeader ch;
  MetaExt ext;
  std::vector<uint8_t> payload;
  uint32_t crc = 0;  // CRC-32 trailer. Filled by SerializeMeta.

  [[nodiscard]] size_t size() const;  // CH + ext + payload + CRC bytes.
  bool operator==(const MetaPacket&) const = default;

  // Typed access; nullptr when ext holds another header.
  [[nodiscard]] const MessageExt* meh() const { return std::get_if<MessageExt>(&ext); }
  [[nodiscard]] MessageExt* meh() { return std::get_if<MessageExt>(&ext); }
  [[nodiscard]] const AckHeader* ack() const { return std::get_if<AckHeader>(&ext); }
  [[nodiscard]] AckHeader* ack() { return std::get_if<AckHeader>(&ext); }
  [[nodiscard]] const NackHeader* nack() const { return std::get_if<NackHeader>(&ext); }
  [[nodiscard]] NackHeader* nack() { return std::get_if<NackHeader>(&ext); }
  [[nodiscard]] const ConnMgmtHeader* cmh() const { return std::get_if<ConnMgmtHeader>(&ext); }
  [[nodiscard]] ConnMgmtHeader* cmh() { return std::get_if<ConnMgmtHeader>(&ext); }
  [[nodiscard]] const ProbeHeader* prh() const { return std::get_if<ProbeHeader>(&ext); }
  [[nodiscard]] ProbeHeader* prh() { return std::get_if<ProbeHeader>(&ext); }
};

// The opcode header alternative that goes with `op` (default-valued; UnknownExt for unknown opcodes).
[[nodiscard]] MetaExt DefaultExtFor(Opcode op);

// Parses only the 16-byte common header (any opcode, any version): lets a receiver count unknown
// opcodes and versions. Error fields: ch.*.
[[nodiscard]] Result<CommonHeader> ParseCommonHeader(std::span<const uint8_t> bytes,
                                                     size_t base_offset = 0);

// Parses a whole MetaRoCE packet; `bytes` is exactly the UDP payload. `base_offset` is added to error
// offsets (pass the UDP payload's offset in the frame). Errors:
//   ch.* / meh.* / ack.* / ...   header overflows packet
//   ch.opcode                    unknown opcode ("unknown opcode 0x7f")
//   ch.payload_len               payload_len + CRC disagree with the bytes present
//   crc                          CRC mismatch (when verify_crc): expected (computed) vs actual (trailer)
// Unknown CH.ver is NOT an error (the endpoint decides); reserved fields are kept as received.
[[nodiscard]] Result<MetaPacket> ParseMeta(std::span<const uint8_t> bytes, size_t base_offset = 0,
                                           bool verify_crc = true);

struct MetaSerializeOptions {
  bool fill_payload_len = true;  // ch.payload_len = payload.size()
  bool fill_crc = true;          // crc = CRC-32 of CH..payload; false writes pkt.crc as given.
};
[[nodiscard]] std::vector<uint8_t> SerializeMeta(const MetaPacket& pkt,
                                                 const MetaSerializeOptions& opts = {});
// Appends to `out` (no intermediate allocation); returns bytes written.
size_t SerializeMetaTo(const MetaPacket& pkt, std::vector<uint8_t>& out,
                       const MetaSerializeOptions& opts = {});

// CRC-32 the trailer should hold for `bytes` = CH .. last payload byte.
[[nodiscard]] uint32_t MetaCrc(std::span<const uint8_t> ch_through_payload);

}  // namespace mroce::wire
