// IPv4 (no options) and IPv6 (no extension headers) headers as MetaRoCE and RoCEv2 use them.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mroce/wire/constants.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

using Ipv4Address = std::array<uint8_t, 4>;
using Ipv6Address = std::array<uint8_t, 16>;

// Defaults are the MetaRoCE sender's values (ECT(0), DF, id 0, TTL 64, UDP).
struct Ipv4Header {
  uint8_t dscp = 0;          // 6 bits
  uint8_t ecn = kEcnEct0;    // 2 bits
  uint16_t total_len = 0;    // Bytes, IP header included. Filled by SerializeFrame.
  uint16_t id = 0;
  uint8_t flags = kIpv4FlagDf;  // 3 bits: reserved, DF, MF.
  uint16_t frag_offset = 0;     // 13 bits, units of 8 bytes.
  uint8_t ttl = kDefaultTtl;
  uint8_t protocol = kIpProtoUdp;
  uint16_t checksum = 0;     // Filled by SerializeFrame.
  Ipv4Address src{};
  Ipv4Address dst{};

  [[nodiscard]] bool df() const { return (flags & kIpv4FlagDf) != 0; }
  bool operator==(const Ipv4Header&) const = default;
};

struct Ipv6Header {
  uint8_t dscp = 0;          // 6 bits (upper traffic class)
  uint8_t ecn = kEcnEct0;    // 2 bits (lower traffic class)
  uint32_t flow_label = 0;   // 20 bits
  uint16_t payload_len = 0;  // Bytes after the IPv6 header. Filled by SerializeFrame.
  uint8_t next_header = kIpProtoUdp;
  uint8_t hop_limit = kDefaultTtl;
  Ipv6Address src{};
  Ipv6Address dst{};

  [[nodiscard]] uint8_t traffic_class() const { return static_cast<uint8_t>(dscp << 2 | ecn); }
  bool operator==(const Ipv6Header&) const = default;
};

// Parse the header at bytes[0]. IPv4: rejects version != 4 (ip4.version), IHL != 5 (ip4.ihl) and, when
// verify_checksum, a bad header checksum (ip4.checksum). IPv6: rejects version != 6 (ip6.version).
// Length/protocol consistency with the rest of the frame is ParseFrame's job.
[[nodiscard]] Result<Ipv4Header> ParseIpv4(std::span<const uint8_t> bytes, size_t base_offset = 0,
                                           bool verify_checksum = true);
[[nodiscard]] Result<Ipv6Header> ParseIpv6(std::span<const uint8_t> bytes, size_t base_offset = 0);
// Write the header as given (no computed fields); `out` must hold the header (asserted).
void WriteIpv4(const Ipv4Header& ip, std::span<uint8_t> out);
void WriteIpv6(const Ipv6Header& ip, std::span<uint8_t> out);

// RFC 1071 Internet checksum of a 20-byte IPv4 header, computed with its checksum field as zero.
[[nodiscard]] uint16_t Ipv4HeaderChecksum(std::span<const uint8_t> header20);

}  // namespace mroce::wire
