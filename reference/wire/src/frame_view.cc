// FrameView: header offsets of a frame in place, with checksum-preserving ECN and port edits.
#include "mroce/wire/frame_view.h"

#include <cassert>

#include "field_table.h"
#include "mroce/wire/ip.h"

namespace mroce::wire {

using internal::Format;
using internal::Load16;
using internal::Store16;

namespace {
// RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m').
uint16_t IncrementalChecksum(uint16_t hc, uint16_t old_word, uint16_t new_word) {
  uint32_t sum = static_cast<uint16_t>(~hc);
  sum += static_cast<uint16_t>(~old_word);
  sum += new_word;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}
}  // namespace

Result<FrameView> FrameView::Locate(std::span<uint8_t> bytes) {
  return LocateImpl(bytes.data(), bytes.size(), true);
}

Result<FrameView> FrameView::Locate(std::span<const uint8_t> bytes) {
  return LocateImpl(const_cast<uint8_t*>(bytes.data()), bytes.size(), false);
}

Result<FrameView> FrameView::LocateImpl(uint8_t* d, size_t n, bool writable) {
  FrameView v;
  Failure f;
  if (Find(d, n, writable, &v, &f)) return v;
  const size_t at = f.offset;
  switch (f.code) {
    case Failure::kEthShort:
      return FieldError("eth.type", at, Format("Ethernet header overflows packet: need 14 bytes, have %zu", f.a));
    case Failure::kVlanShort:
      return FieldError("eth.type", at, Format("Ethernet header overflows packet: need 18 bytes, have %zu", f.a));
    case Failure::kIpv4Short:
      return FieldError("ip4.version", at,
                        Format("IPv4 header overflows packet: need 20 bytes at offset %zu, have %zu", f.a, f.b));
    case Failure::kIpv4Ihl:
      return FieldError("ip4.ihl", at, Format("version/IHL byte 0x%02zx, expected 0x45", f.a));
    case Failure::kIpv4Proto:
      return FieldError("ip4.protocol", at, Format("IP protocol %zu is not UDP", f.a));
    case Failure::kIpv4Len:
      return FieldError("ip4.total_len", at, Format("IPv4 total length %zu does not fit in %zu bytes", f.a, f.b));
    case Failure::kIpv6Short:
      return FieldError("ip6.version", at,
                        Format("IPv6 header overflows packet: need 40 bytes at offset %zu, have %zu", f.a, f.b));
    case Failure::kIpv6Version:
      return FieldError("ip6.version", at, Format("IP version %zu, expected 6", f.a));
    case Failure::kIpv6NextHeader:
      return FieldError("ip6.next_header", at, Format("next header %zu is not UDP", f.a));
    case Failure::kIpv6Len:
      return FieldError("ip6.payload_len", at, Format("IPv6 payload length %zu does not fit in %zu bytes", f.a, f.b));
    case Failure::kEtherType:
      break;
  }
  return FieldError("eth.type", at, Format("EtherType 0x%04zx is neither IPv4 nor IPv6", f.a));
}

uint8_t FrameView::dscp() const {
  const uint8_t* ip = data_ + l3_offset_;
  return ip_version_ == 4 ? (ip[1] >> 2) : static_cast<uint8_t>(((ip[0] & 0x0F) << 2) | (ip[1] >> 6));
}

uint8_t FrameView::ttl() const { return data_[l3_offset_ + (ip_version_ == 4 ? 8 : 7)]; }

void FrameView::set_ecn(uint8_t ecn) {
  assert(writable_);
  ecn &= 0x03;
  uint8_t* ip = data_ + l3_offset_;
  if (ip_version_ == 4) {
    const uint16_t old_word = Load16(ip);
    ip[1] = static_cast<uint8_t>((ip[1] & 0xFC) | ecn);
    Store16(ip + 10, IncrementalChecksum(Load16(ip + 10), old_word, Load16(ip)));
  } else {
    ip[1] = static_cast<uint8_t>((ip[1] & 0xCF) | (ecn << 4));
  }
}

bool FrameView::MarkCe() {
  if (ecn() == kEcnNotEct) return false;
  set_ecn(kEcnCe);
  return true;
}

std::span<const uint8_t> FrameView::src_addr() const {
  return ip_version_ == 4 ? std::span<const uint8_t>(data_ + l3_offset_ + 12, 4)
                          : std::span<const uint8_t>(data_ + l3_offset_ + 8, 16);
}

std::span<const uint8_t> FrameView::dst_addr() const {
  return ip_version_ == 4 ? std::span<const uint8_t>(data_ + l3_offset_ + 16, 4)
                          : std::span<const uint8_t>(data_ + l3_offset_ + 24, 16);
}

void FrameView::set_sport(uint16_t sport) {
  assert(writable_);
  uint8_t* udp = data_ + udp_offset_;
  const uint16_t old = Load16(udp);
  Store16(udp, sport);
  const uint16_t c = Load16(udp + 6);
  if (c != 0) {
    uint16_t n = IncrementalChecksum(c, old, sport);
    Store16(udp + 6, n == 0 ? 0xFFFF : n);
  }
}

void FrameView::set_ipv4_addrs(std::span<const uint8_t, 4> src, std::span<const uint8_t, 4> dst) {
  assert(writable_ && ip_version_ == 4);
  uint8_t* ip = data_ + l3_offset_;
  uint8_t* udp = data_ + udp_offset_;
  uint16_t ip_sum = Load16(ip + 10), udp_sum = Load16(udp + 6);
  const bool udp_checked = udp_sum != 0;
  const uint8_t* addrs[2] = {src.data(), dst.data()};
  for (int a = 0; a < 2; ++a) {
    for (int w = 0; w < 4; w += 2) {
      uint8_t* at = ip + 12 + 4 * a + w;
      const uint16_t old = Load16(at), now = Load16(addrs[a] + w);
      Store16(at, now);
      ip_sum = IncrementalChecksum(ip_sum, old, now);
      if (udp_checked) udp_sum = IncrementalChecksum(udp_sum, old, now);
    }
  }
  Store16(ip + 10, ip_sum);
  if (udp_checked) Store16(udp + 6, udp_sum == 0 ? 0xFFFF : udp_sum);  // 0 means none (RFC 768)
}

}  // namespace mroce::wire
