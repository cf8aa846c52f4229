// UdpIo: a MetaRoCE data plane on kernel UDP sockets, shared by mroce-refd and the process adapter.
//
// The endpoints speak Ethernet frames; the kernel speaks UDP payloads. Sending takes a frame,
// keeps its UDP source port (the path's entropy, one socket bound per source port, created on first
// use), its DSCP and ECN (IP_TOS per datagram) and its UDP payload (MetaRoCE bytes + CRC), and sends
// it to the frame's destination port at a given address. Receiving returns each datagram's source
// address and port, TOS (IP_RECVTOS: so CE marks and ECT reach the endpoint) and payload; FrameFor()
// wraps it back into an Ethernet/IPv4/UDP frame (UDP checksum 0, as MetaRoCE senders send it).
// IPv4 only. Planes do not exist here: a UDP socket is one port.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "mroce/dut/dut.h"

namespace mroce::dut {

struct Datagram {
  wire::Ipv4Address src{};
  uint16_t sport = 0;
  uint8_t tos = 0;
  std::span<const uint8_t> payload;  // valid during the callback only
  // How long the datagram waited in the socket before this process read it (the kernel's arrival
  // stamp, SO_TIMESTAMPNS, to the read); 0 where the kernel gave no stamp. A process its host
  // kept off the CPU while input waited sees it here, where no timer of its own ran late.
  int64_t waited_ns = 0;
};

// An Ethernet/IPv4/UDP frame around `payload` (IPv4 header checksum filled, UDP checksum 0, DF,
// TTL 64, padded to 60 bytes).
[[nodiscard]] std::vector<uint8_t> FrameFor(const wire::MacAddress& src_mac, const wire::MacAddress& dst_mac,
                                            const wire::Ipv4Address& src, const wire::Ipv4Address& dst,
                                            uint16_t sport, uint16_t dport, uint8_t tos,
                                            std::span<const uint8_t> payload);

// What a raw Ethernet frame received from a DUT's port is (the dpdk adapter's receive path, which
// reads untrusted bytes): an ARP packet (Ethernet/IPv4, untagged), an unfragmented IPv4/UDP
// datagram without options (untagged or with one 802.1Q tag, which MROCE-ENC-001 allows a sender)
// whose UDP length fits its IP packet, or something else. Never reads outside `frame`.
struct WireFrame {
  enum class Kind : uint8_t { kOther, kArp, kUdp };
  Kind kind = Kind::kOther;
  wire::MacAddress src_mac{};
  // kArp
  uint16_t arp_op = 0;
  wire::MacAddress arp_sha{};
  wire::Ipv4Address arp_spa{}, arp_tpa{};
  // kUdp
  wire::Ipv4Address src{}, dst{};
  uint16_t sport = 0, dport = 0;
  uint8_t tos = 0;
  std::span<const uint8_t> payload;  // within `frame`
};
[[nodiscard]] WireFrame ClassifyWireFrame(std::span<const uint8_t> frame);

class UdpIo {
 public:
  // Binds the receive socket to ip:port. Errors name the address and the system's reason.
  [[nodiscard]] static Result<std::unique_ptr<UdpIo>> Open(const wire::Ipv4Address& ip, uint16_t port);
  ~UdpIo();
  UdpIo(const UdpIo&) = delete;
  UdpIo& operator=(const UdpIo&) = delete;

  [[nodiscard]] int fd() const { return rx_fd_; }
  [[nodiscard]] const wire::Ipv4Address& ip() const { return ip_; }
  [[nodiscard]] uint16_t port() const { return port_; }

  // Sends the UDP payload of `frame` (an Ethernet/IPv4/UDP frame) to dst:frame.dport from this
  // address and frame.sport, with the frame's TOS. Frames that are not IPv4/UDP are refused.
  Status SendFrame(std::span<const uint8_t> frame, const wire::Ipv4Address& dst);
  // Reads every datagram waiting (non-blocking, batched); returns how many.
  size_t Receive(const std::function<void(const Datagram&)>& fn);

  [[nodiscard]] uint64_t sent() const { return sent_; }
  [[nodiscard]] uint64_t received() const { return received_; }
  [[nodiscard]] uint64_t send_errors() const { return send_errors_; }
  // The longest Datagram::waited_ns of any datagram read so far.
  [[nodiscard]] int64_t longest_wait_ns() const { return longest_wait_ns_; }

 private:
  UdpIo(int fd, const wire::Ipv4Address& ip, uint16_t port) : rx_fd_(fd), ip_(ip), port_(port) {}
  Result<int> TxSocket(uint16_t sport);

  int rx_fd_ = -1;
  wire::Ipv4Address ip_{};
  uint16_t port_ = 0;
  std::map<uint16_t, int> tx_;  // source port -> socket bound to ip_:sport
  std::vector<uint8_t> rx_buf_;
  uint64_t sent_ = 0, received_ = 0, send_errors_ = 0;
  int64_t longest_wait_ns_ = 0;
};

}  // namespace mroce::dut
