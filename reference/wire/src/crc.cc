// CRC-32 via zlib and the RoCEv2 ICRC over a masked copy of the invariant headers.
#include "mroce/wire/crc.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "mroce/wire/constants.h"

namespace mroce::wire {

uint32_t Crc32Update(uint32_t crc, std::span<const uint8_t> bytes) {
  // zlib takes uInt lengths; feed in chunks so spans over 4 GiB would still work.
  uLong c = crc;
  const uint8_t* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    uInt chunk = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    c = crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(c);
}

uint32_t Crc32(std::span<const uint8_t> bytes) { return Crc32Update(0, bytes); }

uint32_t RoceIcrc(std::span<const uint8_t> ip_packet) {
  if (ip_packet.empty()) return 0;
  const bool v6 = (ip_packet[0] >> 4) == 6;
  const size_t ip_len = v6 ? kIpv6HeaderSize : kIpv4HeaderSize;
  const size_t masked_len = ip_len + kUdpHeaderSize + kBthSize;
  if (ip_packet.size() < masked_len + kIcrcSize) return 0;

  uint8_t hdr[kIpv6HeaderSize + kUdpHeaderSize + kBthSize];
  std::memcpy(hdr, ip_packet.data(), masked_len);
  if (v6) {
    hdr[0] |= 0x0F;  // traffic class (low nibble of byte 0, high nibble of byte 1)
    hdr[1] = 0xFF;   // ... and flow label (low nibble of byte 1, bytes 2..3)
    hdr[2] = 0xFF;
    hdr[3] = 0xFF;
    hdr[7] = 0xFF;   // hop limit
  } else {
    hdr[1] = 0xFF;   // TOS (DSCP + ECN)
    hdr[8] = 0xFF;   // TTL
    hdr[10] = 0xFF;  // header checksum
    hdr[11] = 0xFF;
  }
  uint8_t* udp = hdr + ip_len;
  udp[6] = 0xFF;  // UDP checksum
  udp[7] = 0xFF;
  uint8_t* bth = udp + kUdpHeaderSize;
  bth[4] = 0xFF;  // FECN, BECN, resv6

  static constexpr uint8_t kPseudoLrh[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  uint32_t crc = Crc32Update(0, kPseudoLrh);
  crc = Crc32Update(crc, std::span<const uint8_t>(hdr, masked_len));
  crc = Crc32Update(crc, ip_packet.subspan(masked_len, ip_packet.size() - masked_len - kIcrcSize));
  return crc;
}

}  // namespace mroce::wire
