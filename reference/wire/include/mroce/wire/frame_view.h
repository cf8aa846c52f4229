// FrameView: allocation-free locator and in-place editor of a frame's L3/L4 fields (fabric, DPDK path).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "mroce/wire/constants.h"
#include "mroce/wire/result.h"

namespace mroce::wire {

// Offsets into a byte buffer holding Ethernet [802.1Q] / IPv4|IPv6 / UDP. Locate validates only what
// the accessors need (header bounds, version, IHL 5, UDP protocol, IP length within the buffer); it
// allocates only when it returns an error. The view does not own the bytes: keep them alive and do
// not resize them.
class FrameView {
 public:
  [[nodiscard]] static Result<FrameView> Locate(std::span<uint8_t> bytes);
  // Read-only view: setters assert.
  [[nodiscard]] static Result<FrameView> Locate(std::span<const uint8_t> bytes);

  [[nodiscard]] uint8_t ip_version() const { return ip_version_; }  // 4 or 6
  [[nodiscard]] size_t l3_offset() const { return l3_offset_; }
  [[nodiscard]] size_t udp_offset() const { return udp_offset_; }
  [[nodiscard]] size_t payload_offset() const { return udp_offset_ + kUdpHeaderSize; }
  [[nodiscard]] size_t ip_end() const { return ip_end_; }  // One past the IP packet's last byte.
  [[nodiscard]] std::span<const uint8_t> udp_payload() const;

  [[nodiscard]] uint8_t ecn() const;
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
  [[nodiscard]] uint16_t sport() const;
  [[nodiscard]] uint16_t dport() const;
  // Rewrites the UDP source port (entropy re-roll); a non-zero UDP checksum is updated incrementally.
  // The MetaRoCE CRC does not cover UDP; a RoCEv2 ICRC does, so this invalidates RoCEv2 frames.
  void set_sport(uint16_t sport);

  // MetaRoCE: true if dport == meta_port and a full common header is present.
  [[nodiscard]] bool is_meta(uint16_t meta_port = kMetaUdpPort) const;
  // Common header fields; valid only when is_meta() (asserted).
  [[nodiscard]] uint8_t meta_version() const;
  [[nodiscard]] uint8_t meta_opcode() const;
  [[nodiscard]] uint16_t meta_flags() const;
  [[nodiscard]] uint32_t meta_dst_conn_id() const;
  [[nodiscard]] uint8_t meta_path_id() const;
  [[nodiscard]] uint8_t meta_path_epoch() const;
  [[nodiscard]] uint32_t meta_psn() const;
  [[nodiscard]] bool is_roce() const { return dport() == kRoceUdpPort; }

 private:
  FrameView() = default;
  static Result<FrameView> LocateImpl(uint8_t* data, size_t size, bool writable);
  [[nodiscard]] const uint8_t* meta_ch() const;

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool writable_ = false;
  uint8_t ip_version_ = 0;
  uint16_t l3_offset_ = 0;
  uint16_t udp_offset_ = 0;
  size_t ip_end_ = 0;
};

}  // namespace mroce::wire
