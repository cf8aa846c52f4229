// IPv4 / IPv6 header codec and the IPv4 header checksum.
#include "mroce/wire/ip.h"

#include <cassert>
#include <cstring>

#include "field_table.h"
#include "tables.h"

namespace mroce::wire {

using internal::Format;

uint16_t Ipv4HeaderChecksum(std::span<const uint8_t> h) {
  assert(h.size() >= kIpv4HeaderSize);
  uint32_t sum = 0;
  for (size_t i = 0; i < kIpv4HeaderSize; i += 2) {
    if (i == 10) continue;  // the checksum field itself
    sum += static_cast<uint32_t>(h[i] << 8 | h[i + 1]);
  }
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

Result<Ipv4Header> ParseIpv4(std::span<const uint8_t> bytes, size_t base_offset, bool verify_checksum) {
  // Version and IHL are checked before the rest so options are reported as such, not as a later field.
  if (bytes.empty()) {
    return FieldError("ip4.version", base_offset,
                      Format("IPv4 header overflows packet: need %zu bytes at offset %zu, have 0",
                             kIpv4HeaderSize, base_offset));
  }
  if ((bytes[0] >> 4) != 4) {
    return FieldError("ip4.version", base_offset, Format("IP version %u, expected 4", bytes[0] >> 4));
  }
  if ((bytes[0] & 0x0F) != 5) {
    return FieldError("ip4.ihl", base_offset,
                      Format("IHL %u: IPv4 options are not supported (IHL must be 5)", bytes[0] & 0x0F));
  }
  Ipv4Header ip;
  if (Status s = internal::ReadFields(internal::kIpv4Table, "IPv4", kIpv4HeaderSize, bytes, 0,
                                      base_offset, ip);
      !s) {
    return s.error();
  }
  if (verify_checksum) {
    uint16_t want = Ipv4HeaderChecksum(bytes.first(kIpv4HeaderSize));
    if (want != ip.checksum) {
      return FieldError("ip4.checksum", base_offset + 10,
                        Format("IPv4 header checksum mismatch: expected 0x%04x, actual 0x%04x", want,
                               ip.checksum));
    }
  }
  return ip;
}

Result<Ipv6Header> ParseIpv6(std::span<const uint8_t> bytes, size_t base_offset) {
  if (!bytes.empty() && (bytes[0] >> 4) != 6) {
    return FieldError("ip6.version", base_offset, Format("IP version %u, expected 6", bytes[0] >> 4));
  }
  Ipv6Header ip;
  if (Status s = internal::ReadFields(internal::kIpv6Table, "IPv6", kIpv6HeaderSize, bytes, 0,
                                      base_offset, ip);
      !s) {
    return s.error();
  }
  return ip;
}

void WriteIpv4(const Ipv4Header& ip, std::span<uint8_t> out) {
  assert(out.size() >= kIpv4HeaderSize);
  std::memset(out.data(), 0, kIpv4HeaderSize);
  internal::WriteFields(internal::kIpv4Table, ip, out.data());
}

void WriteIpv6(const Ipv6Header& ip, std::span<uint8_t> out) {
  assert(out.size() >= kIpv6HeaderSize);
  std::memset(out.data(), 0, kIpv6HeaderSize);
  internal::WriteFields(internal::kIpv6Table, ip, out.data());
}

}  // namespace mroce::wire
