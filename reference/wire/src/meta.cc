// MetaRoCE v1 packet codec: common header, opcode headers, payload and CRC trailer.
#include "mroce/wire/meta.h"

#include <cassert>
#include <cstring>

#include "field_table.h"
#include "mroce/wire/crc.h"
#include "tables.h"

namespace mroce::wire {

using internal::Format;

size_t ExtSize(ExtKind kind) {
  switch (kind) {
    case ExtKind::kMessage: return kMessageExtSize;
    case ExtKind::kAck: return kAckHeaderSize;
    case ExtKind::kNack: return kNackHeaderSize;
    case ExtKind::kConnMgmt: return kConnMgmtHeaderSize;
    case ExtKind::kProbe: return kProbeHeaderSize;
    case ExtKind::kUnknown: return 0;
  }
  return 0;
}

std::string_view OpcodeName(Opcode op) {
  switch (op) {
    case Opcode::kWrite: return "WRITE";
    case Opcode::kWriteImm: return "WRITE_IMM";
    case Opcode::kSend: return "SEND";
    case Opcode::kSendImm: return "SEND_IMM";
    case Opcode::kReadReq: return "READ_REQ";
    case Opcode::kReadResp: return "READ_RESP";
    case Opcode::kAck: return "ACK";
    case Opcode::kNack: return "NACK";
    case Opcode::kConnectReq: return "CONNECT_REQ";
    case Opcode::kConnectAck: return "CONNECT_ACK";
    case Opcode::kConnectRej: return "CONNECT_REJ";
    case Opcode::kDisconnect: return "DISCONNECT";
    case Opcode::kDisconnectAck: return "DISCONNECT_ACK";
    case Opcode::kProbe: return "PROBE";
    case Opcode::kProbeAck: return "PROBE_ACK";
  }
  return "UNKNOWN";
}

std::string_view NackCodeName(NackCode c) {
  switch (c) {
    case NackCode::kPsnOutOfWindow: return "PSN_OUT_OF_WINDOW";
    case NackCode::kInvalidConn: return "INVALID_CONN";
    case NackCode::kRnr: return "RNR";
    case NackCode::kRemoteAccess: return "REMOTE_ACCESS";
    case NackCode::kInvalidRequest: return "INVALID_REQUEST";
    case NackCode::kResource: return "RESOURCE";
    case NackCode::kRemoteOpError: return "REMOTE_OP_ERROR";
  }
  return "UNKNOWN";
}

std::string_view ConnReasonName(ConnReason r) {
  switch (r) {
    case ConnReason::kNone: return "NONE";
    case ConnReason::kVersionUnsupported: return "VERSION_UNSUPPORTED";
    case ConnReason::kNoResources: return "NO_RESOURCES";
    case ConnReason::kInvalidParams: return "INVALID_PARAMS";
    case ConnReason::kNormal: return "NORMAL";
    case ConnReason::kError: return "ERROR";
  }
  return "UNKNOWN";
}

bool AckHeader::SackBit(int i) const {
  assert(i >= 0 && i < static_cast<int>(kSackBits));
  return (sack[static_cast<size_t>(i) / 8] & (0x80u >> (i % 8))) != 0;
}

void AckHeader::SetSackBit(int i, bool on) {
  assert(i >= 0 && i < static_cast<int>(kSackBits));
  uint8_t& b = sack[static_cast<size_t>(i) / 8];
  const uint8_t m = static_cast<uint8_t>(0x80u >> (i % 8));
  b = static_cast<uint8_t>(on ? (b | m) : (b & ~m));
}

MetaExt DefaultExtFor(Opcode op) {
  switch (ExtKindOf(op)) {
    case ExtKind::kMessage: return MessageExt{};
    case ExtKind::kAck: return AckHeader{};
    case ExtKind::kNack: return NackHeader{};
    case ExtKind::kConnMgmt: return ConnMgmtHeader{};
    case ExtKind::kProbe: return ProbeHeader{};
    case ExtKind::kUnknown: break;
  }
  return UnknownExt{};
}

namespace {

size_t ExtSizeOf(const MetaExt& ext) {
  return std::visit(
      [](const auto& h) -> size_t {
        using H = std::decay_t<decltype(h)>;
        if constexpr (std::is_same_v<H, MessageExt>) return kMessageExtSize;
        if constexpr (std::is_same_v<H, AckHeader>) return kAckHeaderSize;
        if constexpr (std::is_same_v<H, NackHeader>) return kNackHeaderSize;
        if constexpr (std::is_same_v<H, ConnMgmtHeader>) return kConnMgmtHeaderSize;
        if constexpr (std::is_same_v<H, ProbeHeader>) return kProbeHeaderSize;
        return 0;
      },
      ext);
}

void WriteExt(const MetaExt& ext, uint8_t* out) {
  using namespace internal;
  std::visit(
      [out](const auto& h) {
        using H = std::decay_t<decltype(h)>;
        if constexpr (std::is_same_v<H, MessageExt>) WriteFields(kMessageExtTable, h, out);
        if constexpr (std::is_same_v<H, AckHeader>) WriteFields(kAckTable, h, out);
        if constexpr (std::is_same_v<H, NackHeader>) WriteFields(kNackTable, h, out);
        if constexpr (std::is_same_v<H, ConnMgmtHeader>) WriteFields(kConnMgmtTable, h, out);
        if constexpr (std::is_same_v<H, ProbeHeader>) WriteFields(kProbeTable, h, out);
      },
      ext);
}

template <class H, size_t N>
Status ReadExt(const internal::FieldSpec<H> (&table)[N], const char* label, size_t size,
               std::span<const uint8_t> bytes, size_t base_offset, MetaExt& ext) {
  H h;
  if (Status s = internal::ReadFields(table, label, size, bytes, kCommonHeaderSize, base_offset, h); !s) {
    return s;
  }
  ext = h;
  return {};
}

}  // namespace

size_t MetaPacket::size() const {
  return kCommonHeaderSize + ExtSizeOf(ext) + payload.size() + kCrcSize;
}

Result<CommonHeader> ParseCommonHeader(std::span<const uint8_t> bytes, size_t base_offset) {
  CommonHeader ch;
  if (Status s = internal::ReadFields(internal::kCommonTable, "MetaRoCE common", kCommonHeaderSize,
                                      bytes, 0, base_offset, ch);
      !s) {
    return s.error();
  }
  return ch;
}

Result<MetaPacket> ParseMeta(std::span<const uint8_t> bytes, size_t base_offset, bool verify_crc) {
  MetaPacket pkt;
  {
    auto ch = ParseCommonHeader(bytes, base_offset);
    if (!ch) return ch.error();
    pkt.ch = *ch;
  }
  const ExtKind kind = ExtKindOf(pkt.ch.opcode);
  Status s;
  switch (kind) {
    case ExtKind::kMessage:
      s = ReadExt(internal::kMessageExtTable, "MEH", kMessageExtSize, bytes, base_offset, pkt.ext);
      break;
    case ExtKind::kAck:
      s = ReadExt(internal::kAckTable, "ACK", kAckHeaderSize, bytes, base_offset, pkt.ext);
      break;
    case ExtKind::kNack:
      s = ReadExt(internal::kNackTable, "NACK", kNackHeaderSize, bytes, base_offset, pkt.ext);
      break;
    case ExtKind::kConnMgmt:
      s = ReadExt(internal::kConnMgmtTable, "CMH", kConnMgmtHeaderSize, bytes, base_offset, pkt.ext);
      break;
    case ExtKind::kProbe:
      s = ReadExt(internal::kProbeTable, "PRH", kProbeHeaderSize, bytes, base_offset, pkt.ext);
      break;
    case ExtKind::kUnknown:
      return FieldError("ch.opcode", base_offset + 1,
                        Format("unknown opcode 0x%02x", static_cast<unsigned>(pkt.ch.opcode)));
  }
  if (!s) return s.error();

  const size_t hdrs = kCommonHeaderSize + ExtSize(kind);
  const size_t have = bytes.size() - hdrs;
  const size_t need = size_t{pkt.ch.payload_len} + kCrcSize;
  if (have != need) {
    return FieldError("ch.payload_len", base_offset + 10,
                      Format("payload_len %u + 4-byte CRC needs %zu bytes at offset %zu, have %zu",
                             pkt.ch.payload_len, need, base_offset + hdrs, have));
  }
  // MROCE-HDR-017: only data opcodes carry a payload (a layout rule, checked with the lengths).
  if (pkt.ch.payload_len != 0 && !IsDataOpcode(pkt.ch.opcode)) {
    return FieldError("ch.payload_len", base_offset + 10,
                      Format("%s carries payload_len %u: only data opcodes carry a payload (MROCE-HDR-017)",
                             std::string(OpcodeName(pkt.ch.opcode)).c_str(), pkt.ch.payload_len));
  }
  pkt.payload.assign(bytes.begin() + static_cast<ptrdiff_t>(hdrs),
                     bytes.begin() + static_cast<ptrdiff_t>(hdrs + pkt.ch.payload_len));
  const size_t crc_off = hdrs + pkt.ch.payload_len;
  pkt.crc = internal::Load32(&bytes[crc_off]);
  if (verify_crc) {
    const uint32_t want = Crc32(bytes.first(crc_off));
    if (want != pkt.crc) {
      return FieldError("crc", base_offset + crc_off,
                        Format("CRC mismatch: expected 0x%08x, actual 0x%08x", want, pkt.crc));
    }
  }
  return pkt;
}

uint32_t MetaCrc(std::span<const uint8_t> ch_through_payload) { return Crc32(ch_through_payload); }

size_t SerializeMetaTo(const MetaPacket& pkt, std::vector<uint8_t>& out,
                       const MetaSerializeOptions& opts) {
  const size_t start = out.size();
  const size_t ext_size = ExtSizeOf(pkt.ext);
  const size_t total = kCommonHeaderSize + ext_size + pkt.payload.size() + kCrcSize;
  out.resize(start + total, 0);
  uint8_t* p = out.data() + start;
  CommonHeader ch = pkt.ch;
  if (opts.fill_payload_len) ch.payload_len = static_cast<uint16_t>(pkt.payload.size());
  internal::WriteFields(internal::kCommonTable, ch, p);
  WriteExt(pkt.ext, p + kCommonHeaderSize);
  if (!pkt.payload.empty()) {
    std::memcpy(p + kCommonHeaderSize + ext_size, pkt.payload.data(), pkt.payload.size());
  }
  const size_t crc_off = total - kCrcSize;
  const uint32_t crc = opts.fill_crc ? Crc32({p, crc_off}) : pkt.crc;
  internal::Store32(p + crc_off, crc);
  return total;
}

std::vector<uint8_t> SerializeMeta(const MetaPacket& pkt, const MetaSerializeOptions& opts) {
  std::vector<uint8_t> out;
  out.reserve(pkt.size());
  SerializeMetaTo(pkt, out, opts);
  return out;
}

}  // namespace mroce::wire
