// Human-readable dumps of frames and bytes, and Frame <-> FieldMap conversion.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "mroce/wire/field_map.h"
#include "mroce/wire/frame.h"
#include "mroce/wire/meta.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

// Fields of a frame in wire order (see field_map.h for names and value kinds): eth.*, ip4.*|ip6.*,
// udp.*, then ch.*, <ext>.*, payload, crc (MetaRoCE) | bth.*, reth.*, aeth.*, imm, payload, icrc
// (RoCEv2) | payload (raw); eth.vlan_tci only when tagged, eth.padding only when non-empty.
[[nodiscard]] FieldMap ToFieldMap(const Frame& frame);
[[nodiscard]] FieldMap ToFieldMap(const MetaPacket& pkt);

// Inverse of ToFieldMap. Missing fields take the struct defaults (computed ones are then filled by
// SerializeFrame), so sparse maps work: {"ip6.src": ..., "ch.opcode": 0x10, "ack.epsn": 5}.
// The kind of each layer is chosen by which names are present: ip6.* -> IPv6 (else IPv4);
// ch.* -> MetaRoCE with the opcode header of ch.opcode; bth.* -> RoCEv2 (reth/aeth/imm as present,
// else as the opcode implies); else raw payload. Errors: a name no chosen layer has ("unknown field"),
// a value wider than its field or of the wrong kind (scalar vs bytes), a wrong byte-array length.
[[nodiscard]] Result<Frame> FromFieldMap(const FieldMap& fields);
[[nodiscard]] Result<MetaPacket> MetaFromFieldMap(const FieldMap& fields);

// Multi-line dump, one field per line, decimal and hex, e.g.
//   ch.opcode           = 16 (0x10) ACK
//   ack.sack            = 80000000...  (bits set: 0 5 9)
[[nodiscard]] std::string DumpFrame(const Frame& frame);
[[nodiscard]] std::string DumpMeta(const MetaPacket& pkt);
[[nodiscard]] std::string DumpFieldMap(const FieldMap& fields);
// Classic hex dump: "0000  45 00 00 54 ...  E..T" lines of 16 bytes.
[[nodiscard]] std::string HexDump(std::span<const uint8_t> bytes);
// Plain lowercase hex, no separators; ParseHex accepts whitespace and an optional "0x".
[[nodiscard]] std::string ToHex(std::span<const uint8_t> bytes);
[[nodiscard]] Result<std::vector<uint8_t>> ParseHex(std::string_view hex);
// Parses then dumps; falls back to the parse error plus HexDump.
[[nodiscard]] std::string DescribeBytes(std::span<const uint8_t> frame, const ParseOptions& opts = {});

}  // namespace mroce::wire
