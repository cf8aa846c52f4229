// CRC-32 (MetaRoCE trailer) and RoCEv2 invariant CRC (ICRC).
#pragma once

#include <cstdint>
#include <span>

namespace mroce::wire {

// IEEE 802.3 CRC-32, identical to zlib crc32(0, ...). Crc32Update continues a running CRC.
[[nodiscard]] uint32_t Crc32(std::span<const uint8_t> bytes);
[[nodiscard]] uint32_t Crc32Update(uint32_t crc, std::span<const uint8_t> bytes);

// RoCEv2 ICRC (IBA annex A17) matching scapy.contrib.roce's BTH.compute_icrc: CRC-32 over 8 bytes of
// 0xFF, then the IP header with IPv4 TOS, TTL and checksum (IPv6: traffic class, flow label, hop
// limit) set to all ones, the UDP header with checksum set to ones, the BTH with byte 4
// (FECN|BECN|resv6) set to 0xFF, then the rest up to the ICRC.
// `ip_packet` starts at the IP header and ends with the 4 ICRC bytes (their value is ignored);
// its IP version is read from the first nibble. Returns 0 if too short to hold IP+UDP+BTH+ICRC.
// The value is put on the wire little-endian.
[[nodiscard]] uint32_t RoceIcrc(std::span<const uint8_t> ip_packet);

}  // namespace mroce::wire
