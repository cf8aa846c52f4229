// Ethernet II / 802.1Q header codec.
#include "mroce/wire/eth.h"

#include <cassert>

#include "field_table.h"
#include "tables.h"

namespace mroce::wire {

using internal::Format;
using internal::Load16;
using internal::Store16;

namespace {
Error Overflow(const char* field, size_t field_off, size_t need, size_t base, size_t have) {
  return FieldError(field, base + field_off,
                    Format("Ethernet header overflows packet: need %zu bytes at offset %zu, have %zu",
                           need, base, have));
}
}  // namespace

Result<EthHeader> ParseEth(std::span<const uint8_t> bytes, size_t base_offset) {
  EthHeader eth;
  if (Status s = internal::ReadFields(internal::kEthAddrTable, "Ethernet", kEthHeaderSize, bytes, 0,
                                      base_offset, eth);
      !s) {
    return s.error();
  }
  if (bytes.size() < 14) return Overflow("eth.type", 12, kEthHeaderSize, base_offset, bytes.size());
  uint16_t type = Load16(&bytes[12]);
  if (type == kEtherTypeVlan) {
    const size_t need = kEthHeaderSize + kVlanTagSize;
    if (bytes.size() < 16) return Overflow("eth.vlan_tci", 14, need, base_offset, bytes.size());
    eth.vlan_tci = Load16(&bytes[14]);
    if (bytes.size() < 18) return Overflow("eth.type", 16, need, base_offset, bytes.size());
    type = Load16(&bytes[16]);
  }
  eth.ethertype = type;
  return eth;
}

void WriteEth(const EthHeader& eth, std::span<uint8_t> out) {
  assert(out.size() >= eth.size());
  internal::WriteFields(internal::kEthAddrTable, eth, out.data());
  size_t off = 12;
  if (eth.vlan_tci) {
    Store16(&out[12], kEtherTypeVlan);
    Store16(&out[14], *eth.vlan_tci);
    off = 16;
  }
  Store16(&out[off], eth.ethertype);
}

}  // namespace mroce::wire
