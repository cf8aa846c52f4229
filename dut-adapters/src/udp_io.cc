// UdpIo: kernel UDP sockets carrying MetaRoCE payloads (see udp_io.h).
#include "mroce/dut/udp_io.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "mroce/dut/process_protocol.h"
#include "mroce/wire/byte_order.h"
#include "mroce/wire/frame_view.h"
#include "mroce/wire/ip.h"

namespace mroce::dut {

namespace {

constexpr size_t kMaxDatagram = 9216;
constexpr int kBatch = 32;
constexpr int kSocketBuffer = 8 << 20;

sockaddr_in Addr(const wire::Ipv4Address& ip, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  std::memcpy(&a.sin_addr, ip.data(), 4);
  return a;
}

Result<int> BoundSocket(const wire::Ipv4Address& ip, uint16_t port, bool recv_tos) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const std::string where = jsonl::Ipv4ToString(ip) + ":" + std::to_string(port);
  if (fd < 0) return MakeError("dut.udp", "socket(): " + std::string(std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBuffer, sizeof kSocketBuffer);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBuffer, sizeof kSocketBuffer);
  if (recv_tos) {
    ::setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);  // arrival stamps: Datagram::waited_ns
  }
  // Send with UDP checksum 0, as MetaRoCE (like RoCEv2: the ICRC covers the packet) is sent. It
  // also keeps datagrams correct when a capture point (af_packet on a veth) sees them before a
  // checksum offload would have filled the checksum in.
  ::setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof one);
  const sockaddr_in a = Addr(ip, port);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    const int e = errno;
    ::close(fd);
    return MakeError("dut.udp", "cannot bind UDP " + where + ": " + std::strerror(e) +
                                    (e == EADDRNOTAVAIL ? " (the address is not configured on any interface here)" : ""));
  }
  return fd;
}

}  // namespace

std::vector<uint8_t> FrameFor(const wire::MacAddress& src_mac, const wire::MacAddress& dst_mac,
                              const wire::Ipv4Address& src, const wire::Ipv4Address& dst, uint16_t sport,
                              uint16_t dport, uint8_t tos, std::span<const uint8_t> payload) {
  const size_t ip_len = 20 + 8 + payload.size();
  std::vector<uint8_t> f(std::max<size_t>(14 + ip_len, 60), 0);
  uint8_t* p = f.data();
  std::memcpy(p, dst_mac.data(), 6);
  std::memcpy(p + 6, src_mac.data(), 6);
  p[12] = 0x08;
  p[13] = 0x00;
  uint8_t* ip = p + 14;
  ip[0] = 0x45;
  ip[1] = tos;
  ip[2] = static_cast<uint8_t>(ip_len >> 8);
  ip[3] = static_cast<uint8_t>(ip_len);
  ip[6] = 0x40;  // DF
  ip[8] = 64;
  ip[9] = 17;
  std::memcpy(ip + 12, src.data(), 4);
  std::memcpy(ip + 16, dst.data(), 4);
  const uint16_t csum = wire::Ipv4HeaderChecksum(std::span<const uint8_t>(ip, 20));
  ip[10] = static_cast<uint8_t>(csum >> 8);
  ip[11] = static_cast<uint8_t>(csum);
  uint8_t* udp = ip + 20;
  const size_t udp_len = 8 + payload.size();
  udp[0] = static_cast<uint8_t>(sport >> 8);
  udp[1] = static_cast<uint8_t>(sport);
  udp[2] = static_cast<uint8_t>(dport >> 8);
  udp[3] = static_cast<uint8_t>(dport);
  udp[4] = static_cast<uint8_t>(udp_len >> 8);
  udp[5] = static_cast<uint8_t>(udp_len);
  if (!payload.empty()) std::memcpy(udp + 8, payload.data(), payload.size());
  return f;
}

WireFrame ClassifyWireFrame(std::span<const uint8_t> frame) {
  using wire::internal::Load16;
  WireFrame w;
  const uint8_t* f = frame.data();
  const size_t len = frame.size();
  if (len < 14) return w;
  std::memcpy(w.src_mac.data(), f + 6, 6);
  if (Load16(f + 12) == 0x0806) {  // ARP: untagged only
    if (len < 14 + 28) return w;
    const uint8_t* a = f + 14;
    if (Load16(a) != 1 || Load16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4) return w;
    w.kind = WireFrame::Kind::kArp;
    w.arp_op = Load16(a + 6);
    std::memcpy(w.arp_sha.data(), a + 8, 6);
    std::memcpy(w.arp_spa.data(), a + 14, 4);
    std::memcpy(w.arp_tpa.data(), a + 24, 4);
    return w;
  }
  // Ethernet [one 802.1Q tag] / IPv4 without options / UDP, within the frame (a second tag fails).
  wire::FrameView v;
  if (!wire::FrameView::TryLocate(frame, &v) || v.ip_version() != 4) return w;
  const uint8_t* ip = f + v.l3_offset();
  if ((Load16(ip + 6) & 0x3FFF) != 0) return w;  // a fragment: not MetaRoCE
  const size_t ulen = Load16(f + v.udp_offset() + 4);
  if (ulen < 8 || v.udp_offset() + ulen > v.ip_end()) return w;
  w.kind = WireFrame::Kind::kUdp;
  std::memcpy(w.src.data(), v.src_addr().data(), 4);
  std::memcpy(w.dst.data(), v.dst_addr().data(), 4);
  w.sport = v.sport();
  w.dport = v.dport();
  w.tos = ip[1];
  w.payload = frame.subspan(v.payload_offset(), ulen - 8);
  return w;
}

Result<std::unique_ptr<UdpIo>> UdpIo::Open(const wire::Ipv4Address& ip, uint16_t port) {
  auto fd = BoundSocket(ip, port, /*recv_tos=*/true);
  if (!fd.ok()) return fd.error();
  std::unique_ptr<UdpIo> io(new UdpIo(fd.value(), ip, port));
  io->rx_buf_.resize(kMaxDatagram * kBatch);
  return io;
}

UdpIo::~UdpIo() {
  for (const auto& [port, fd] : tx_) ::close(fd);
  if (rx_fd_ >= 0) ::close(rx_fd_);
}

Result<int> UdpIo::TxSocket(uint16_t sport) {
  if (sport == port_) return rx_fd_;
  if (auto it = tx_.find(sport); it != tx_.end()) return it->second;
  auto fd = BoundSocket(ip_, sport, /*recv_tos=*/false);
  if (!fd.ok()) return fd.error();
  tx_.emplace(sport, fd.value());
  return fd.value();
}

Status UdpIo::SendFrame(std::span<const uint8_t> frame, const wire::Ipv4Address& dst) {
  auto view = wire::FrameView::Locate(frame);
  if (!view.ok() || view->ip_version() != 4) {
    ++send_errors_;
    return MakeError("dut.udp", "frame of " + std::to_string(frame.size()) + " bytes is not Ethernet/IPv4/UDP");
  }
  auto fd = TxSocket(view->sport());
  if (!fd.ok()) {
    ++send_errors_;
    return fd.error();
  }
  const std::span<const uint8_t> payload = view->udp_payload();
  const sockaddr_in to = Addr(dst, view->dport());
  iovec iov{const_cast<uint8_t*>(payload.data()), payload.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_name = const_cast<sockaddr_in*>(&to);
  msg.msg_namelen = sizeof to;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = IPPROTO_IP;
  c->cmsg_type = IP_TOS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  const int tos = static_cast<int>(view->dscp() << 2 | view->ecn());
  std::memcpy(CMSG_DATA(c), &tos, sizeof tos);
  if (::sendmsg(fd.value(), &msg, MSG_DONTWAIT) < 0) {
    ++send_errors_;
    return MakeError("dut.udp", "sendmsg to " + jsonl::Ipv4ToString(dst) + ":" + std::to_string(view->dport()) + ": " +
                                    std::strerror(errno));
  }
  ++sent_;
  return OkStatus();
}

size_t UdpIo::Receive(const std::function<void(const Datagram&)>& fn) {
  size_t total = 0;
  while (true) {
    mmsghdr msgs[kBatch];
    iovec iovs[kBatch];
    sockaddr_in from[kBatch];
    alignas(cmsghdr) char control[kBatch][CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(timespec))];
    for (int i = 0; i < kBatch; ++i) {
      iovs[i] = {rx_buf_.data() + static_cast<size_t>(i) * kMaxDatagram, kMaxDatagram};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_name = &from[i];
      msgs[i].msg_hdr.msg_namelen = sizeof from[i];
      msgs[i].msg_hdr.msg_iov = &iovs[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_control = control[i];
      msgs[i].msg_hdr.msg_controllen = sizeof control[i];
    }
    const int n = ::recvmmsg(rx_fd_, msgs, kBatch, MSG_DONTWAIT, nullptr);
    if (n <= 0) break;
    timespec read_at{};
    ::clock_gettime(CLOCK_REALTIME, &read_at);  // the clock of SO_TIMESTAMPNS
    for (int i = 0; i < n; ++i) {
      Datagram d;
      std::memcpy(d.src.data(), &from[i].sin_addr, 4);
      d.sport = ntohs(from[i].sin_port);
      for (cmsghdr* c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c != nullptr; c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) d.tos = *CMSG_DATA(c);
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
          timespec at{};
          std::memcpy(&at, CMSG_DATA(c), sizeof at);
          const int64_t waited = (static_cast<int64_t>(read_at.tv_sec) - at.tv_sec) * 1'000'000'000 +
                                 (read_at.tv_nsec - at.tv_nsec);
          d.waited_ns = std::max<int64_t>(0, waited);
          longest_wait_ns_ = std::max(longest_wait_ns_, d.waited_ns);
        }
      }
      d.payload = std::span<const uint8_t>(static_cast<const uint8_t*>(iovs[i].iov_base), msgs[i].msg_len);
      ++received_;
      fn(d);
    }
    total += static_cast<size_t>(n);
    if (n < kBatch) break;
  }
  return total;
}

}  // namespace mroce::dut
