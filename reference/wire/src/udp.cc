// UDP header codec and checksums over the IPv4 / IPv6 pseudo-headers.
#include "mroce/wire/udp.h"

#include <cassert>
#include <cstring>

#include "field_table.h"
#include "tables.h"

namespace mroce::wire {

namespace {

uint32_t SumWords(uint32_t sum, std::span<const uint8_t> b) {
  size_t i = 0;
  for (; i + 1 < b.size(); i += 2) sum += static_cast<uint32_t>(b[i] << 8 | b[i + 1]);
  if (i < b.size()) sum += static_cast<uint32_t>(b[i] << 8);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum;
}

uint16_t Finish(uint32_t sum, std::span<const uint8_t> udp) {
  // The segment's own checksum field counts as zero: subtract it back out.
  if (udp.size() >= kUdpHeaderSize) {
    uint32_t field = static_cast<uint32_t>(udp[6] << 8 | udp[7]);
    sum += 0xFFFF - field;  // one's complement subtraction
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  }
  uint16_t c = static_cast<uint16_t>(~sum);
  return c == 0 ? 0xFFFF : c;
}

}  // namespace

uint16_t UdpChecksumIpv4(const Ipv4Address& src, const Ipv4Address& dst,
                         std::span<const uint8_t> udp) {
  uint32_t sum = SumWords(0, src);
  sum = SumWords(sum, dst);
  sum += kIpProtoUdp;
  sum += static_cast<uint32_t>(udp.size() & 0xFFFF);
  sum = SumWords(sum, udp);
  return Finish(sum, udp);
}

uint16_t UdpChecksumIpv6(const Ipv6Address& src, const Ipv6Address& dst,
                         std::span<const uint8_t> udp) {
  uint32_t sum = SumWords(0, src);
  sum = SumWords(sum, dst);
  uint32_t len = static_cast<uint32_t>(udp.size());
  sum += len >> 16;
  sum += len & 0xFFFF;
  sum += kIpProtoUdp;
  sum = SumWords(sum, udp);
  return Finish(sum, udp);
}

Result<UdpHeader> ParseUdp(std::span<const uint8_t> bytes, size_t base_offset) {
  UdpHeader udp;
  if (Status s = internal::ReadFields(internal::kUdpTable, "UDP", kUdpHeaderSize, bytes, 0, base_offset,
                                      udp);
      !s) {
    return s.error();
  }
  return udp;
}

void WriteUdp(const UdpHeader& udp, std::span<uint8_t> out) {
  assert(out.size() >= kUdpHeaderSize);
  std::memset(out.data(), 0, kUdpHeaderSize);
  internal::WriteFields(internal::kUdpTable, udp, out.data());
}

}  // namespace mroce::wire
