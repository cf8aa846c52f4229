// RoCEv2 (RC) packet codec: BTH, RETH, AETH, ImmDt, payload, ICRC.
#include "mroce/wire/roce.h"

#include <cstring>

#include "field_table.h"
#include "tables.h"

namespace mroce::wire {

using internal::Format;

std::string_view RoceOpcodeName(RoceOpcode op) {
  switch (op) {
    case RoceOpcode::kSendFirst: return "RC_SEND_FIRST";
    case RoceOpcode::kSendMiddle: return "RC_SEND_MIDDLE";
    case RoceOpcode::kSendLast: return "RC_SEND_LAST";
    case RoceOpcode::kSendLastImm: return "RC_SEND_LAST_WITH_IMMEDIATE";
    case RoceOpcode::kSendOnly: return "RC_SEND_ONLY";
    case RoceOpcode::kSendOnlyImm: return "RC_SEND_ONLY_WITH_IMMEDIATE";
    case RoceOpcode::kWriteFirst: return "RC_RDMA_WRITE_FIRST";
    case RoceOpcode::kWriteMiddle: return "RC_RDMA_WRITE_MIDDLE";
    case RoceOpcode::kWriteLast: return "RC_RDMA_WRITE_LAST";
    case RoceOpcode::kWriteLastImm: return "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE";
    case RoceOpcode::kWriteOnly: return "RC_RDMA_WRITE_ONLY";
    case RoceOpcode::kWriteOnlyImm: return "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE";
    case RoceOpcode::kReadRequest: return "RC_RDMA_READ_REQUEST";
    case RoceOpcode::kReadResponseFirst: return "RC_RDMA_READ_RESPONSE_FIRST";
    case RoceOpcode::kReadResponseMiddle: return "RC_RDMA_READ_RESPONSE_MIDDLE";
    case RoceOpcode::kReadResponseLast: return "RC_RDMA_READ_RESPONSE_LAST";
    case RoceOpcode::kReadResponseOnly: return "RC_RDMA_READ_RESPONSE_ONLY";
    case RoceOpcode::kAck: return "RC_ACKNOWLEDGE";
    case RoceOpcode::kCnp: return "CNP";
  }
  return "UNKNOWN";
}

bool RoceHasReth(RoceOpcode op) {
  return op == RoceOpcode::kWriteFirst || op == RoceOpcode::kWriteOnly ||
         op == RoceOpcode::kWriteOnlyImm || op == RoceOpcode::kReadRequest;
}

bool RoceHasAeth(RoceOpcode op) {
  return op == RoceOpcode::kReadResponseFirst || op == RoceOpcode::kReadResponseLast ||
         op == RoceOpcode::kReadResponseOnly || op == RoceOpcode::kAck;
}

bool RoceHasImm(RoceOpcode op) {
  return op == RoceOpcode::kSendLastImm || op == RoceOpcode::kSendOnlyImm ||
         op == RoceOpcode::kWriteLastImm || op == RoceOpcode::kWriteOnlyImm;
}

size_t RocePacket::size() const {
  return kBthSize + (reth ? kRethSize : 0) + (aeth ? kAethSize : 0) + (imm ? kImmDtSize : 0) +
         payload.size() + kIcrcSize;
}

Result<RocePacket> ParseRoce(std::span<const uint8_t> bytes, size_t base_offset) {
  RocePacket pkt;
  if (Status s = internal::ReadFields(internal::kBthTable, "BTH", kBthSize, bytes, 0, base_offset, pkt.bth);
      !s) {
    return s.error();
  }
  size_t off = kBthSize;
  // Extension headers in IBA order: RETH, (AtomicETH), AETH, ImmDt.
  if (RoceHasReth(pkt.bth.opcode)) {
    Reth r;
    if (Status s = internal::ReadFields(internal::kRethTable, "RETH", kRethSize, bytes, off, base_offset, r);
        !s) {
      return s.error();
    }
    pkt.reth = r;
    off += kRethSize;
  }
  if (RoceHasAeth(pkt.bth.opcode)) {
    Aeth a;
    if (Status s = internal::ReadFields(internal::kAethTable, "AETH", kAethSize, bytes, off, base_offset, a);
        !s) {
      return s.error();
    }
    pkt.aeth = a;
    off += kAethSize;
  }
  if (RoceHasImm(pkt.bth.opcode)) {
    if (bytes.size() < off + kImmDtSize) {
      return FieldError("imm", base_offset + off,
                        Format("ImmDt overflows packet: need 4 bytes at offset %zu, have %zu",
                               base_offset + off, bytes.size() - off));
    }
    pkt.imm = internal::Load32(&bytes[off]);
    off += kImmDtSize;
  }
  if (bytes.size() < off + kIcrcSize) {
    return FieldError("icrc", base_offset + off,
                      Format("ICRC overflows packet: need 4 bytes at offset %zu, have %zu",
                             base_offset + off, bytes.size() - off));
  }
  const size_t icrc_off = bytes.size() - kIcrcSize;
  pkt.payload.assign(bytes.begin() + static_cast<ptrdiff_t>(off),
                     bytes.begin() + static_cast<ptrdiff_t>(icrc_off));
  const uint8_t* p = &bytes[icrc_off];
  pkt.icrc = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  return pkt;
}

size_t SerializeRoceTo(const RocePacket& pkt, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  const size_t total = pkt.size();
  out.resize(start + total, 0);
  uint8_t* p = out.data() + start;
  internal::WriteFields(internal::kBthTable, pkt.bth, p);
  size_t off = kBthSize;
  if (pkt.reth) {
    internal::WriteFields(internal::kRethTable, *pkt.reth, p + off);
    off += kRethSize;
  }
  if (pkt.aeth) {
    internal::WriteFields(internal::kAethTable, *pkt.aeth, p + off);
    off += kAethSize;
  }
  if (pkt.imm) {
    internal::Store32(p + off, *pkt.imm);
    off += kImmDtSize;
  }
  if (!pkt.payload.empty()) std::memcpy(p + off, pkt.payload.data(), pkt.payload.size());
  off += pkt.payload.size();
  for (int i = 0; i < 4; ++i) p[off + static_cast<size_t>(i)] = static_cast<uint8_t>(pkt.icrc >> (8 * i));
  return total;
}

std::vector<uint8_t> SerializeRoce(const RocePacket& pkt) {
  std::vector<uint8_t> out;
  out.reserve(pkt.size());
  SerializeRoceTo(pkt, out);
  return out;
}

}  // namespace mroce::wire
