// FrameView: allocation-free locator and in-place editor of a frame's L3/L4 fields (fabric, DPDK path).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>

#include "mroce/wire/byte_order.h"
#include "mroce/wire/constants.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

// Offsets into a byte buffer holding Ethernet [802.1Q] / IPv4|IPv6 / UDP. Locate validates only what
// the accessors need (header bounds, version, IHL 5, UDP protocol, IP length within the buffer); it
// allocates only when it returns an error. The view does not own the bytes: keep them alive and do
// not resize them. The locate core and the read accessors are inline: the DPDK bridge runs them on
// every frame.
class FrameView {
 public:
  [[nodiscard]] static Result<FrameView> Locate(std::span<uint8_t> bytes);
  // Read-only view: setters assert.
  [[nodiscard]] static Result<FrameView> Locate(std::span<const uint8_t> bytes);
  // The same checks as Locate without the reason, into *out (hot paths that only need yes or no;
  // filling the caller's view in place lets the compiler keep it in registers).
  [[nodiscard]] static bool TryLocate(std::span<const uint8_t> bytes, FrameView* out) {
    Failure why;
    return Find(const_cast<uint8_t*>(bytes.data()), bytes.size(), false, out, &why);
  }
  // An empty view, only to be filled by TryLocate (its accessors must not be called before).
  FrameView() = default;

  [[nodiscard]] uint8_t ip_version() const { return ip_version_; }  // 4 or 6
  [[nodiscard]] size_t l3_offset() const { return l3_offset_; }
  [[nodiscard]] size_t udp_offset() const { return udp_offset_; }
  [[nodiscard]] size_t payload_offset() const { return udp_offset_ + kUdpHeaderSize; }
  [[nodiscard]] size_t ip_end() const { return ip_end_; }  // One past the IP packet's last byte.
  [[nodiscard]] std::span<const uint8_t> udp_payload() const {
    return {data_ + payload_offset(), ip_end_ - payload_offset()};
  }

  [[nodiscard]] uint8_t ecn() const {
    const uint8_t* ip = data_ + l3_offset_;
    return ip_version_ == 4 ? (ip[1] & 0x03) : ((ip[1] >> 4) & 0x03);
  }
  // Sets the 2-bit ECN; IPv4: updates the header checksum so it stays valid (RFC 1624).
  void set_ecn(uint8_t ecn);
  // Marks CE if the packet is ECN-capable (ECT(0)/ECT(1)); returns false for Not-ECT.
  bool MarkCe();
  [[nodiscard]] uint8_t dscp() const;
  [[nodiscard]] uint8_t ttl() const;  // IPv4 TTL / IPv6 hop limit.

  // 5-tuple. Addresses are 4 (IPv4) or 16 (IPv6) bytes.
  [[nodiscard]] std::span<const uint8_t> src_addr() const;
  [[nodiscard]] std::span<const uint8_t> dst_addr() const;
  [[nodiscard]] uint8_t protocol() const { return kIpProtoUdp; }
  [[nodiscard]] uint16_t sport() const { return internal::Load16(data_ + udp_offset_); }
  [[nodiscard]] uint16_t dport() const { return internal::Load16(data_ + udp_offset_ + 2); }
  // Rewrites the UDP source port (entropy re-roll); a non-zero UDP checksum is updated incrementally.
  // The MetaRoCE CRC does not cover UDP; a RoCEv2 ICRC does, so this invalidates RoCEv2 frames.
  void set_sport(uint16_t sport);
  // IPv4: rewrites the source and destination addresses. The header checksum and a non-zero UDP
  // checksum are adjusted for the change (RFC 1624), not recomputed: one that verified still does,
  // one that did not stays wrong by the same amount; a UDP checksum of 0 (none) stays 0.
  void set_ipv4_addrs(std::span<const uint8_t, 4> src, std::span<const uint8_t, 4> dst);

  // MetaRoCE: true if dport == meta_port and a full common header is present.
  [[nodiscard]] bool is_meta(uint16_t meta_port = kMetaUdpPort) const {
    return dport() == meta_port && ip_end_ >= payload_offset() + kCommonHeaderSize;
  }
  // Common header fields; valid only when is_meta() (asserted).
  [[nodiscard]] uint8_t meta_version() const { return meta_ch()[0] >> 4; }
  [[nodiscard]] uint8_t meta_opcode() const { return meta_ch()[1]; }
  [[nodiscard]] uint16_t meta_flags() const { return internal::Load16(meta_ch() + 2); }
  [[nodiscard]] uint32_t meta_dst_conn_id() const { return internal::Load32(meta_ch() + 4); }
  [[nodiscard]] uint8_t meta_path_id() const { return meta_ch()[8]; }
  [[nodiscard]] uint8_t meta_path_epoch() const { return meta_ch()[9]; }
  [[nodiscard]] uint32_t meta_psn() const { return internal::Load32(meta_ch() + 12); }
  [[nodiscard]] bool is_roce() const { return dport() == kRoceUdpPort; }

 private:
  // Which check Find failed and the figures its message names (Locate formats the message).
  struct Failure {
    enum Code : uint8_t { kEthShort, kVlanShort, kIpv4Short, kIpv4Ihl, kIpv4Proto, kIpv4Len,
                          kIpv6Short, kIpv6Version, kIpv6NextHeader, kIpv6Len, kEtherType };
    Code code = kEthShort;
    size_t offset = 0;  // Of the failing field.
    size_t a = 0, b = 0;
  };
  static Result<FrameView> LocateImpl(uint8_t* data, size_t size, bool writable);
  // Every check of Locate; no allocation. Fills *v on success, *why on failure.
  static bool Find(uint8_t* d, size_t n, bool writable, FrameView* v, Failure* why) {
    using internal::Load16;
    v->data_ = d;
    v->size_ = n;
    v->writable_ = writable;
    if (n < kEthHeaderSize) {
      *why = {Failure::kEthShort, 12, n, 0};
      return false;
    }
    size_t l3 = kEthHeaderSize;
    uint16_t type = Load16(d + 12);
    if (type == kEtherTypeVlan) {
      if (n < kEthHeaderSize + kVlanTagSize) {
        *why = {Failure::kVlanShort, 16, n, 0};
        return false;
      }
      type = Load16(d + 16);
      l3 += kVlanTagSize;
    }
    v->l3_offset_ = static_cast<uint16_t>(l3);
    const uint8_t* ip = d + l3;
    if (type == kEtherTypeIpv4) {
      if (n < l3 + kIpv4HeaderSize) {
        *why = {Failure::kIpv4Short, l3, l3, n - l3};
        return false;
      }
      if (ip[0] != 0x45) {
        *why = {Failure::kIpv4Ihl, l3, ip[0], 0};
        return false;
      }
      if (ip[9] != kIpProtoUdp) {
        *why = {Failure::kIpv4Proto, l3 + 9, ip[9], 0};
        return false;
      }
      const size_t total = Load16(ip + 2);
      if (total < kIpv4HeaderSize + kUdpHeaderSize || l3 + total > n) {
        *why = {Failure::kIpv4Len, l3 + 2, total, n - l3};
        return false;
      }
      v->ip_version_ = 4;
      v->udp_offset_ = static_cast<uint16_t>(l3 + kIpv4HeaderSize);
      v->ip_end_ = l3 + total;
      return true;
    }
    if (type == kEtherTypeIpv6) {
      if (n < l3 + kIpv6HeaderSize) {
        *why = {Failure::kIpv6Short, l3, l3, n - l3};
        return false;
      }
      if ((ip[0] >> 4) != 6) {
        *why = {Failure::kIpv6Version, l3, static_cast<size_t>(ip[0] >> 4), 0};
        return false;
      }
      if (ip[6] != kIpProtoUdp) {
        *why = {Failure::kIpv6NextHeader, l3 + 6, ip[6], 0};
        return false;
      }
      const size_t plen = Load16(ip + 4);
      if (plen < kUdpHeaderSize || l3 + kIpv6HeaderSize + plen > n) {
        *why = {Failure::kIpv6Len, l3 + 4, plen, n - l3 - kIpv6HeaderSize};
        return false;
      }
      v->ip_version_ = 6;
      v->udp_offset_ = static_cast<uint16_t>(l3 + kIpv6HeaderSize);
      v->ip_end_ = l3 + kIpv6HeaderSize + plen;
      return true;
    }
    *why = {Failure::kEtherType, l3 - 2, type, 0};
    return false;
  }
  [[nodiscard]] const uint8_t* meta_ch() const {
    assert(ip_end_ >= payload_offset() + kCommonHeaderSize);
    return data_ + payload_offset();
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool writable_ = false;
  uint8_t ip_version_ = 0;
  uint16_t l3_offset_ = 0;
  uint16_t udp_offset_ = 0;
  size_t ip_end_ = 0;
};

}  // namespace mroce::wire
