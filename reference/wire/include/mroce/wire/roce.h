// RoCEv2 packet (UDP 4791): BTH, RETH, AETH, ImmDt, payload and ICRC, for the RC baseline.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "mroce/wire/constants.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

// BTH opcodes of the RC transport (transport bits 000). Any uint8_t may be held.
enum class RoceOpcode : uint8_t {
  kSendFirst = 0x00,
  kSendMiddle = 0x01,
  kSendLast = 0x02,
  kSendLastImm = 0x03,
  kSendOnly = 0x04,
  kSendOnlyImm = 0x05,
  kWriteFirst = 0x06,
  kWriteMiddle = 0x07,
  kWriteLast = 0x08,
  kWriteLastImm = 0x09,
  kWriteOnly = 0x0A,
  kWriteOnlyImm = 0x0B,
  kReadRequest = 0x0C,
  kReadResponseFirst = 0x0D,
  kReadResponseMiddle = 0x0E,
  kReadResponseLast = 0x0F,
  kReadResponseOnly = 0x10,
  kAck = 0x11,
  kCnp = 0x81,
};

[[nodiscard]] std::string_view RoceOpcodeName(RoceOpcode op);  // "RC_SEND_FIRST" ... (Scapy names)
// Which extension headers follow the BTH for `op` (RC opcodes; others carry none).
[[nodiscard]] bool RoceHasReth(RoceOpcode op);
[[nodiscard]] bool RoceHasAeth(RoceOpcode op);
[[nodiscard]] bool RoceHasImm(RoceOpcode op);

// Base transport header, 12 bytes. Field names follow Scapy's BTH.
struct Bth {
  RoceOpcode opcode = RoceOpcode::kSendOnly;
  bool se = false;         // solicited event
  bool migreq = false;
  uint8_t pad_count = 0;   // 2 bits
  uint8_t tver = 0;        // 4 bits
  uint16_t pkey = 0xFFFF;
  bool fecn = false;
  bool becn = false;
  uint8_t resv6 = 0;       // 6 bits
  uint32_t dest_qp = 0;    // 24 bits
  bool ack_req = false;
  uint8_t resv7 = 0;       // 7 bits
  uint32_t psn = 0;        // 24 bits
  bool operator==(const Bth&) const = default;
};

// RDMA extended transport header, 16 bytes.
struct Reth {
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint32_t dma_len = 0;  // Bytes.
  bool operator==(const Reth&) const = default;
};

// ACK extended transport header, 4 bytes.
struct Aeth {
  uint8_t syndrome = 0;
  uint32_t msn = 0;  // 24 bits
  bool operator==(const Aeth&) const = default;
};

struct RocePacket {
  Bth bth;
  std::optional<Reth> reth;      // Present iff RoceHasReth(bth.opcode) (parse); written if set.
  std::optional<Aeth> aeth;      // Present iff RoceHasAeth(bth.opcode).
  std::optional<uint32_t> imm;   // ImmDt, present iff RoceHasImm(bth.opcode).
  std::vector<uint8_t> payload;  // Includes bth.pad_count pad bytes, as on the wire.
  uint32_t icrc = 0;             // CRC value; on the wire little-endian (as Scapy packs it).
                                 // Filled by SerializeFrame (needs the IP/UDP headers).
  [[nodiscard]] size_t size() const;
  bool operator==(const RocePacket&) const = default;
};

// Parses a RoCEv2 packet; `bytes` is exactly the UDP payload (BTH .. ICRC). The ICRC is read but not
// verified (it covers IP/UDP: ParseFrame verifies it). Unknown opcodes parse with no extension
// headers. Error fields: bth.*, reth.*, aeth.*, imm, icrc.
[[nodiscard]] Result<RocePacket> ParseRoce(std::span<const uint8_t> bytes, size_t base_offset = 0);
// Writes the packet as given, ICRC included.
[[nodiscard]] std::vector<uint8_t> SerializeRoce(const RocePacket& pkt);
size_t SerializeRoceTo(const RocePacket& pkt, std::vector<uint8_t>& out);

}  // namespace mroce::wire
