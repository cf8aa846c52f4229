// Frame: a whole decoded Ethernet / IP / UDP / (MetaRoCE | RoCEv2 | raw) frame, its parser and builder.
#pragma once

#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "mroce/wire/eth.h"
#include "mroce/wire/ip.h"
#include "mroce/wire/meta.h"
#include "mroce/wire/result.h"
#include "mroce/wire/roce.h"
#include "mroce/wire/udp.h"

namespace mroce::wire {

// UDP payload of a port that is neither MetaRoCE nor RoCEv2.
struct RawPayload {
  std::vector<uint8_t> bytes;
  bool operator==(const RawPayload&) const = default;
};

using IpHeader = std::variant<Ipv4Header, Ipv6Header>;
using L4Packet = std::variant<MetaPacket, RocePacket, RawPayload>;

struct Frame {
  EthHeader eth;
  IpHeader ip;
  UdpHeader udp;
  L4Packet l4;
  std::vector<uint8_t> padding;  // Bytes after the IP packet's end (Ethernet padding), kept verbatim.

  [[nodiscard]] bool is_ipv4() const { return std::holds_alternative<Ipv4Header>(ip); }
  [[nodiscard]] const Ipv4Header* ip4() const { return std::get_if<Ipv4Header>(&ip); }
  [[nodiscard]] Ipv4Header* ip4() { return std::get_if<Ipv4Header>(&ip); }
  [[nodiscard]] const Ipv6Header* ip6() const { return std::get_if<Ipv6Header>(&ip); }
  [[nodiscard]] Ipv6Header* ip6() { return std::get_if<Ipv6Header>(&ip); }
  [[nodiscard]] const MetaPacket* meta() const { return std::get_if<MetaPacket>(&l4); }
  [[nodiscard]] MetaPacket* meta() { return std::get_if<MetaPacket>(&l4); }
  [[nodiscard]] const RocePacket* roce() const { return std::get_if<RocePacket>(&l4); }
  [[nodiscard]] RocePacket* roce() { return std::get_if<RocePacket>(&l4); }
  // ECN of whichever IP header is present.
  [[nodiscard]] uint8_t ecn() const;
  bool operator==(const Frame&) const = default;
};

struct ParseOptions {
  uint16_t meta_port = kMetaUdpPort;  // UDP dport decoded as MetaRoCE.
  uint16_t roce_port = kRoceUdpPort;  // UDP dport decoded as RoCEv2.
  bool verify_crc = true;             // MetaRoCE CRC and RoCEv2 ICRC.
  bool verify_ip_checksum = true;     // IPv4 header checksum (error field ip4.checksum).
  bool verify_udp_checksum = false;   // Non-zero UDP checksums (error field udp.checksum).
};

// Parses a whole frame. Errors name the field and its offset in `bytes`: eth.type (not IPv4/IPv6),
// ip4.ihl (options), ip4.checksum, ip4.frag_offset (fragments), ip4.protocol / ip6.next_header (not
// UDP), ip4.total_len / ip6.payload_len (longer than the frame), udp.length (inconsistent with IP),
// then ParseMeta / ParseRoce errors, and crc / icrc mismatches.
[[nodiscard]] Result<Frame> ParseFrame(std::span<const uint8_t> bytes, const ParseOptions& opts = {});

struct SerializeOptions {
  bool fill_lengths = true;    // ip4.total_len, ip6.payload_len, udp.length, ch.payload_len
  bool fill_checksums = true;  // ip4.checksum; udp.checksum (IPv4: 0, IPv6: computed)
  bool fill_crc = true;        // MetaRoCE crc, RoCEv2 icrc
  bool fill_ethertype = true;  // eth.ethertype from the IP variant (0x0800 / 0x86dd)
  // Writes every field as given: parse -> serialize with Exact() is byte-exact.
  static constexpr SerializeOptions Exact() { return {false, false, false, false}; }
};

// Builds the wire bytes. With the default options computed fields are filled (the Frame is not
// modified); UDP checksum over IPv4 is 0 for every protocol (as MetaRoCE and RoCEv2 senders send).
[[nodiscard]] std::vector<uint8_t> SerializeFrame(const Frame& frame, const SerializeOptions& opts = {});
// Appends the frame to `out`; returns bytes written.
size_t SerializeFrameTo(const Frame& frame, std::vector<uint8_t>& out, const SerializeOptions& opts = {});
// Returns a copy of `frame` whose computed fields hold the values SerializeFrame(frame, opts) writes.
[[nodiscard]] Frame WithComputedFields(const Frame& frame, const SerializeOptions& opts = {});

}  // namespace mroce::wire
