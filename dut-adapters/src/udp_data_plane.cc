// UdpDataPlane: the process adapter's frames on kernel UDP sockets (see data_plane.h).
#include "mroce/dut/data_plane.h"

#include <algorithm>
#include <cstring>

#include "mroce/dut/process_protocol.h"
#include "mroce/wire/frame_view.h"

namespace mroce::dut {

Status UdpDataPlane::AddPeer(uint8_t plane, const wire::Ipv4Address& ip) {
  if (peers_.count(ip) != 0) return OkStatus();
  auto io = UdpIo::Open(ip, config_.udp_port);
  if (!io.ok()) return io.error();
  peers_.emplace(ip, Peer{plane, std::move(io).value()});
  return OkStatus();
}

Status UdpDataPlane::Send(uint8_t plane, std::span<const uint8_t> frame) {
  auto view = wire::FrameView::Locate(frame);
  if (!view.ok() || view->ip_version() != 4) {
    return MakeError("dut.udp", "frame of " + std::to_string(frame.size()) + " bytes is not Ethernet/IPv4/UDP");
  }
  wire::Ipv4Address src{}, dst{};
  std::memcpy(src.data(), view->src_addr().data(), 4);
  std::memcpy(dst.data(), view->dst_addr().data(), 4);
  auto it = peers_.find(src);
  if (it == peers_.end() || it->second.plane != plane) {
    return MakeError("dut.udp", "no socket for peer " + jsonl::Ipv4ToString(src) + " on plane " + std::to_string(plane));
  }
  return it->second.io->SendFrame(frame, dst);  // errors also counted in the UdpIo
}

size_t UdpDataPlane::Poll(const std::function<void(const WireDatagram&)>& fn) {
  size_t n = 0;
  for (auto& [addr, peer] : peers_) {
    const uint8_t plane = peer.plane;
    const wire::Ipv4Address dst = peer.io->ip();
    const uint16_t dport = peer.io->port();
    n += peer.io->Receive([&](const Datagram& d) {
      fn(WireDatagram{plane, d.src, dst, d.sport, dport, d.tos, d.payload});
    });
  }
  return n;
}

int64_t UdpDataPlane::LongestReceiveWait() const {
  int64_t longest = 0;
  for (const auto& [addr, peer] : peers_) longest = std::max(longest, peer.io->longest_wait_ns());
  return longest;
}

std::vector<int> UdpDataPlane::ReadFds() const {
  std::vector<int> fds;
  fds.reserve(peers_.size());
  for (const auto& [addr, peer] : peers_) fds.push_back(peer.io->fd());
  return fds;
}

}  // namespace mroce::dut
