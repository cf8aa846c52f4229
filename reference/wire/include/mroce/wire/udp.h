// UDP header and its checksum over the IPv4/IPv6 pseudo-header.
#pragma once

#include <cstdint>
#include <span>

#include "mroce/wire/constants.h"
#include "mroce/wire/ip.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

struct UdpHeader {
  uint16_t sport = kEntropyPortMin;  // MetaRoCE: the path entropy.
  uint16_t dport = kMetaUdpPort;
  uint16_t length = 0;    // Header + payload bytes. Filled by SerializeFrame.
  uint16_t checksum = 0;  // 0 = none (IPv4 only). Filled by SerializeFrame.
  bool operator==(const UdpHeader&) const = default;
};

[[nodiscard]] Result<UdpHeader> ParseUdp(std::span<const uint8_t> bytes, size_t base_offset = 0);
void WriteUdp(const UdpHeader& udp, std::span<uint8_t> out);

// UDP checksum of `udp_segment` (header + payload, its checksum field treated as zero) with the
// pseudo-header of the given addresses. Returns 0xFFFF where the sum is 0 (RFC 768).
[[nodiscard]] uint16_t UdpChecksumIpv4(const Ipv4Address& src, const Ipv4Address& dst,
                                       std::span<const uint8_t> udp_segment);
[[nodiscard]] uint16_t UdpChecksumIpv6(const Ipv6Address& src, const Ipv6Address& dst,
                                       std::span<const uint8_t> udp_segment);

}  // namespace mroce::wire
