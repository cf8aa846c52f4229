// Ethernet II header with an optional single 802.1Q tag.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "mroce/wire/constants.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

using MacAddress = std::array<uint8_t, 6>;

struct EthHeader {
  MacAddress dst{};
  MacAddress src{};
  std::optional<uint16_t> vlan_tci;  // Present iff the frame carries an 802.1Q tag (TPID 0x8100).
  uint16_t ethertype = kEtherTypeIpv4;

  [[nodiscard]] size_t size() const { return kEthHeaderSize + (vlan_tci ? kVlanTagSize : 0); }
  bool operator==(const EthHeader&) const = default;
};

// Parses the Ethernet header at bytes[0]. Error fields: eth.dst, eth.src, eth.type, eth.vlan_tci.
[[nodiscard]] Result<EthHeader> ParseEth(std::span<const uint8_t> bytes, size_t base_offset = 0);
// Writes eth.size() bytes at out[0]; `out` must be large enough (asserted).
void WriteEth(const EthHeader& eth, std::span<uint8_t> out);

}  // namespace mroce::wire
