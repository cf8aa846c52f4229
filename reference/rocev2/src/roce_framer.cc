#include "mroce/rocev2/roce_framer.h"

namespace mroce::rocev2 {

RoceFramer::RoceFramer(const FramerConfig& cfg) {
  templ_.eth.dst = cfg.remote.mac;
  templ_.eth.src = cfg.local.mac;
  templ_.eth.ethertype = wire::kEtherTypeIpv4;
  wire::Ipv4Header ip;
  ip.dscp = cfg.dscp;
  ip.ecn = cfg.ecn;
  ip.src = cfg.local.ip;
  ip.dst = cfg.remote.ip;
  templ_.ip = ip;
  templ_.udp.sport = cfg.udp_sport;
  templ_.udp.dport = wire::kRoceUdpPort;
}

void RoceFramer::Build(const wire::RocePacket& pkt, std::vector<uint8_t>& out) const {
  // The template is copied so the packet can be moved in; a frame per packet is the codec's shape.
  wire::Frame f = templ_;
  f.l4 = pkt;
  out.clear();
  wire::SerializeFrameTo(f, out);
}

void RoceFramer::SetPaddedPayload(wire::RocePacket& pkt, std::span<const uint8_t> data) {
  const size_t pad = (4 - data.size() % 4) % 4;
  pkt.payload.assign(data.begin(), data.end());
  pkt.payload.resize(data.size() + pad, 0);
  pkt.bth.pad_count = static_cast<uint8_t>(pad);
}

std::span<const uint8_t> RoceFramer::UnpaddedPayload(const wire::RocePacket& pkt) {
  if (pkt.bth.pad_count > pkt.payload.size()) return {};
  return std::span<const uint8_t>(pkt.payload).first(pkt.payload.size() - pkt.bth.pad_count);
}

}  // namespace mroce::rocev2
