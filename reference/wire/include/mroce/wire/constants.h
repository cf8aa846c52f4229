// Numeric constants of the MetaRoCE v1 and RoCEv2 encapsulations (ports, header sizes, defaults).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mroce::wire {

inline constexpr uint16_t kMetaUdpPort = 4797;  // MetaRoCE default UDP destination port.
inline constexpr uint16_t kRoceUdpPort = 4791;  // RoCEv2 (IANA).
inline constexpr uint16_t kUetUdpPort = 4793;   // Ultra Ethernet; never used by MetaRoCE.
inline constexpr uint16_t kEntropyPortMin = 49152;  // MetaRoCE UDP source port (path entropy) range.
inline constexpr uint16_t kEntropyPortMax = 65535;

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeIpv6 = 0x86DD;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;  // 802.1Q TPID.
inline constexpr uint8_t kIpProtoUdp = 17;

inline constexpr uint8_t kEcnNotEct = 0b00;
inline constexpr uint8_t kEcnEct1 = 0b01;
inline constexpr uint8_t kEcnEct0 = 0b10;  // Sent on every MetaRoCE packet.
inline constexpr uint8_t kEcnCe = 0b11;    // Set by switches.

inline constexpr uint8_t kMetaVersion = 1;
inline constexpr uint8_t kDefaultTtl = 64;
inline constexpr uint8_t kIpv4FlagDf = 0b010;  // In Ipv4Header::flags (3 bits: rsvd, DF, MF).
inline constexpr uint8_t kIpv4FlagMf = 0b001;

// Header sizes in bytes.
inline constexpr size_t kEthHeaderSize = 14;
inline constexpr size_t kVlanTagSize = 4;
inline constexpr size_t kIpv4HeaderSize = 20;
inline constexpr size_t kIpv6HeaderSize = 40;
inline constexpr size_t kUdpHeaderSize = 8;
inline constexpr size_t kCommonHeaderSize = 16;
inline constexpr size_t kMessageExtSize = 40;
inline constexpr size_t kAckHeaderSize = 48;
inline constexpr size_t kNackHeaderSize = 16;
inline constexpr size_t kConnMgmtHeaderSize = 32;
inline constexpr size_t kProbeHeaderSize = 16;
inline constexpr size_t kCrcSize = 4;
inline constexpr size_t kBthSize = 12;
inline constexpr size_t kRethSize = 16;
inline constexpr size_t kAethSize = 4;
inline constexpr size_t kImmDtSize = 4;
inline constexpr size_t kIcrcSize = 4;

inline constexpr size_t kSackBits = 256;  // ACK SACK bitvector width.

}  // namespace mroce::wire
