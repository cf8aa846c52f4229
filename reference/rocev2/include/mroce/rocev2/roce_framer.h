// RoceFramer: wraps a QP's RoCEv2 packets in Ethernet/IPv4/UDP 4791 and serializes them through the
// codec (which fills lengths, checksums and the ICRC); also pads and unpads BTH payloads.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mroce/rocev2/qp_config.h"
#include "mroce/wire/frame.h"
#include "mroce/wire/roce.h"

namespace mroce::rocev2 {

struct FramerConfig {
  RoceAddress local;
  RoceAddress remote;
  uint16_t udp_sport = 0xC000;
  uint8_t dscp = 0;
  uint8_t ecn = wire::kEcnEct0;
};

class RoceFramer {
 public:
  explicit RoceFramer(const FramerConfig& cfg);

  // Serializes `pkt` (its ICRC is computed) as a whole Ethernet frame; replaces `out`'s contents.
  void Build(const wire::RocePacket& pkt, std::vector<uint8_t>& out) const;

  // Sets pkt.payload to `data` plus 0..3 zero pad bytes to a multiple of 4, and bth.pad_count.
  static void SetPaddedPayload(wire::RocePacket& pkt, std::span<const uint8_t> data);
  // The payload without its pad bytes (empty if pad_count exceeds the payload).
  [[nodiscard]] static std::span<const uint8_t> UnpaddedPayload(const wire::RocePacket& pkt);

 private:
  wire::Frame templ_;  // Everything but l4.
};

}  // namespace mroce::rocev2
