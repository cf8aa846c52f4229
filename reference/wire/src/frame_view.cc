// FrameView: header offsets of a frame in place, with checksum-preserving ECN and port edits.
#include "mroce/wire/frame_view.h"

#include <cassert>

#include "field_table.h"
#include "mroce/wire/ip.h"

namespace mroce::wire {

using internal::Format;
using internal::Load16;
using internal::Load32;
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
  v.data_ = d;
  v.size_ = n;
  v.writable_ = writable;
  if (n < kEthHeaderSize) {
    return ParseError{"eth.type", 12, Format("Ethernet header overflows packet: need 14 bytes, have %zu", n)};
  }
  size_t l3 = kEthHeaderSize;
  uint16_t type = Load16(d + 12);
  if (type == kEtherTypeVlan) {
    if (n < kEthHeaderSize + kVlanTagSize) {
      return ParseError{"eth.type", 16, Format("Ethernet header overflows packet: need 18 bytes, have %zu", n)};
    }
    type = Load16(d + 16);
    l3 += kVlanTagSize;
  }
  v.l3_offset_ = static_cast<uint16_t>(l3);
  if (type == kEtherTypeIpv4) {
    if (n < l3 + kIpv4HeaderSize) {
      return ParseError{"ip4.version", l3, Format("IPv4 header overflows packet: need 20 bytes at offset %zu, have %zu", l3, n - l3)};
    }
    const uint8_t* ip = d + l3;
    if (ip[0] != 0x45) return ParseError{"ip4.ihl", l3, Format("version/IHL byte 0x%02x, expected 0x45", ip[0])};
    if (ip[9] != kIpProtoUdp) return ParseError{"ip4.protocol", l3 + 9, Format("IP protocol %u is not UDP", ip[9])};
    const size_t total = Load16(ip + 2);
    if (total < kIpv4HeaderSize + kUdpHeaderSize || l3 + total > n) {
      return ParseError{"ip4.total_len", l3 + 2, Format("IPv4 total length %zu does not fit in %zu bytes", total, n - l3)};
    }
    v.ip_version_ = 4;
    v.udp_offset_ = static_cast<uint16_t>(l3 + kIpv4HeaderSize);
    v.ip_end_ = l3 + total;
  } else if (type == kEtherTypeIpv6) {
    if (n < l3 + kIpv6HeaderSize) {
      return ParseError{"ip6.version", l3, Format("IPv6 header overflows packet: need 40 bytes at offset %zu, have %zu", l3, n - l3)};
    }
    const uint8_t* ip = d + l3;
    if ((ip[0] >> 4) != 6) return ParseError{"ip6.version", l3, Format("IP version %u, expected 6", ip[0] >> 4)};
    if (ip[6] != kIpProtoUdp) return ParseError{"ip6.next_header", l3 + 6, Format("next header %u is not UDP", ip[6])};
    const size_t plen = Load16(ip + 4);
    if (plen < kUdpHeaderSize || l3 + kIpv6HeaderSize + plen > n) {
      return ParseError{"ip6.payload_len", l3 + 4, Format("IPv6 payload length %zu does not fit in %zu bytes", plen, n - l3 - kIpv6HeaderSize)};
    }
    v.ip_version_ = 6;
    v.udp_offset_ = static_cast<uint16_t>(l3 + kIpv6HeaderSize);
    v.ip_end_ = l3 + kIpv6HeaderSize + plen;
  } else {
    return ParseError{"eth.type", l3 - 2, Format("EtherType 0x%04x is neither IPv4 nor IPv6", type)};
  }
  return v;
}

std::span<const uint8_t> FrameView::udp_payload() const {
  return {data_ + payload_offset(), ip_end_ - payload_offset()};
}

uint8_t FrameView::ecn() const {
  const uint8_t* ip = data_ + l3_offset_;
  return ip_version_ == 4 ? (ip[1] & 0x03) : ((ip[1] >> 4) & 0x03);
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

uint16_t FrameView::sport() const { return Load16(data_ + udp_offset_); }
uint16_t FrameView::dport() const { return Load16(data_ + udp_offset_ + 2); }

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

bool FrameView::is_meta(uint16_t meta_port) const {
  return dport() == meta_port && ip_end_ >= payload_offset() + kCommonHeaderSize;
}

const uint8_t* FrameView::meta_ch() const {
  assert(ip_end_ >= payload_offset() + kCommonHeaderSize);
  return data_ + payload_offset();
}

uint8_t FrameView::meta_version() const { return meta_ch()[0] >> 4; }
uint8_t FrameView::meta_opcode() const { return meta_ch()[1]; }
uint16_t FrameView::meta_flags() const { return Load16(meta_ch() + 2); }
uint32_t FrameView::meta_dst_conn_id() const { return Load32(meta_ch() + 4); }
uint8_t FrameView::meta_path_id() const { return meta_ch()[8]; }
uint8_t FrameView::meta_path_epoch() const { return meta_ch()[9]; }
uint32_t FrameView::meta_psn() const { return Load32(meta_ch() + 12); }

}  // namespace mroce::wire
