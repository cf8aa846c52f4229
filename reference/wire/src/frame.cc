// Whole-frame parser and builder: Ethernet / IPv4|IPv6 / UDP / MetaRoCE|RoCEv2|raw.
#include "mroce/wire/frame.h"

#include <cstring>

#include "field_table.h"
#include "mroce/wire/crc.h"

namespace mroce::wire {

using internal::Format;

uint8_t Frame::ecn() const {
  return std::visit([](const auto& h) { return h.ecn; }, ip);
}

Result<Frame> ParseFrame(std::span<const uint8_t> bytes, const ParseOptions& opts) {
  Frame f;
  auto eth = ParseEth(bytes, 0);
  if (!eth) return eth.error();
  f.eth = *eth;
  const size_t l3 = f.eth.size();
  size_t ip_end = 0;
  size_t l4 = 0;
  if (f.eth.ethertype == kEtherTypeIpv4) {
    auto ip = ParseIpv4(bytes.subspan(l3), l3, opts.verify_ip_checksum);
    if (!ip) return ip.error();
    if ((ip->flags & kIpv4FlagMf) != 0 || ip->frag_offset != 0) {
      return FieldError("ip4.frag_offset", l3 + 6,
                        Format("IPv4 fragments are not supported (MF %u, fragment offset %u)",
                               ip->flags & kIpv4FlagMf, ip->frag_offset));
    }
    if (ip->protocol != kIpProtoUdp) {
      return FieldError("ip4.protocol", l3 + 9, Format("IP protocol %u is not UDP (17)", ip->protocol));
    }
    if (ip->total_len < kIpv4HeaderSize || l3 + ip->total_len > bytes.size()) {
      return FieldError("ip4.total_len", l3 + 2,
                        Format("IPv4 total length %u does not fit: %zu bytes from the IP header to "
                               "the end of the frame (header is 20)",
                               ip->total_len, bytes.size() - l3));
    }
    ip_end = l3 + ip->total_len;
    l4 = l3 + kIpv4HeaderSize;
    f.ip = *ip;
  } else if (f.eth.ethertype == kEtherTypeIpv6) {
    auto ip = ParseIpv6(bytes.subspan(l3), l3);
    if (!ip) return ip.error();
    if (ip->next_header != kIpProtoUdp) {
      return FieldError("ip6.next_header", l3 + 6,
                        Format("IPv6 next header %u is not UDP (17); extension headers are not "
                               "supported", ip->next_header));
    }
    if (l3 + kIpv6HeaderSize + ip->payload_len > bytes.size()) {
      return FieldError("ip6.payload_len", l3 + 4,
                        Format("IPv6 payload length %u exceeds the %zu bytes after the IPv6 header",
                               ip->payload_len, bytes.size() - l3 - kIpv6HeaderSize));
    }
    ip_end = l3 + kIpv6HeaderSize + ip->payload_len;
    l4 = l3 + kIpv6HeaderSize;
    f.ip = *ip;
  } else {
    const size_t off = f.eth.vlan_tci ? 16 : 12;
    return FieldError("eth.type", off,
                      Format("EtherType 0x%04x is neither IPv4 (0x0800) nor IPv6 (0x86dd)",
                             f.eth.ethertype));
  }

  auto udp = ParseUdp(bytes.subspan(l4, ip_end - l4), l4);
  if (!udp) return udp.error();
  f.udp = *udp;
  if (f.udp.length != ip_end - l4) {
    return FieldError("udp.length", l4 + 4,
                      Format("UDP length %u, but the IP packet leaves %zu bytes for UDP", f.udp.length,
                             ip_end - l4));
  }
  const auto segment = bytes.subspan(l4, ip_end - l4);
  if (opts.verify_udp_checksum && (f.udp.checksum != 0 || !f.is_ipv4())) {
    const uint16_t want = f.is_ipv4() ? UdpChecksumIpv4(f.ip4()->src, f.ip4()->dst, segment)
                                      : UdpChecksumIpv6(f.ip6()->src, f.ip6()->dst, segment);
    if (want != f.udp.checksum) {
      return FieldError("udp.checksum", l4 + 6,
                        Format("UDP checksum mismatch: expected 0x%04x, actual 0x%04x", want,
                               f.udp.checksum));
    }
  }

  const size_t pl = l4 + kUdpHeaderSize;
  const auto payload = bytes.subspan(pl, ip_end - pl);
  if (f.udp.dport == opts.meta_port) {
    auto m = ParseMeta(payload, pl, opts.verify_crc);
    if (!m) return m.error();
    f.l4 = std::move(m).value();
  } else if (f.udp.dport == opts.roce_port) {
    auto r = ParseRoce(payload, pl);
    if (!r) return r.error();
    if (opts.verify_crc) {
      const uint32_t want = RoceIcrc(bytes.subspan(l3, ip_end - l3));
      if (want != r->icrc) {
        return FieldError("icrc", ip_end - kIcrcSize,
                          Format("ICRC mismatch: expected 0x%08x, actual 0x%08x", want, r->icrc));
      }
    }
    f.l4 = std::move(r).value();
  } else {
    f.l4 = RawPayload{std::vector<uint8_t>(payload.begin(), payload.end())};
  }
  f.padding.assign(bytes.begin() + static_cast<ptrdiff_t>(ip_end), bytes.end());
  return f;
}

size_t SerializeFrameTo(const Frame& frame, std::vector<uint8_t>& out, const SerializeOptions& opts) {
  const size_t start = out.size();
  const size_t l3 = start + frame.eth.size();
  const size_t ip_hdr = frame.is_ipv4() ? kIpv4HeaderSize : kIpv6HeaderSize;
  const size_t l4 = l3 + ip_hdr;
  out.resize(l4 + kUdpHeaderSize, 0);
  if (opts.fill_ethertype) {
    EthHeader eth = frame.eth;
    eth.ethertype = frame.is_ipv4() ? kEtherTypeIpv4 : kEtherTypeIpv6;
    WriteEth(eth, {out.data() + start, eth.size()});
  } else {
    WriteEth(frame.eth, {out.data() + start, frame.eth.size()});
  }

  // L4 first: lengths depend on it.
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, MetaPacket>) {
          SerializeMetaTo(p, out, MetaSerializeOptions{opts.fill_lengths, opts.fill_crc});
        } else if constexpr (std::is_same_v<P, RocePacket>) {
          SerializeRoceTo(p, out);
        } else {
          out.insert(out.end(), p.bytes.begin(), p.bytes.end());
        }
      },
      frame.l4);
  const size_t ip_end = out.size();

  UdpHeader udp = frame.udp;
  if (opts.fill_lengths) udp.length = static_cast<uint16_t>(ip_end - l4);
  if (opts.fill_checksums) udp.checksum = 0;
  WriteUdp(udp, {out.data() + l4, kUdpHeaderSize});

  if (const Ipv4Header* ip4 = frame.ip4()) {
    Ipv4Header ip = *ip4;
    if (opts.fill_lengths) ip.total_len = static_cast<uint16_t>(ip_end - l3);
    WriteIpv4(ip, {out.data() + l3, kIpv4HeaderSize});
    if (opts.fill_checksums) {
      ip.checksum = Ipv4HeaderChecksum({out.data() + l3, kIpv4HeaderSize});
      internal::Store16(out.data() + l3 + 10, ip.checksum);
    }
  } else {
    Ipv6Header ip = *frame.ip6();
    if (opts.fill_lengths) ip.payload_len = static_cast<uint16_t>(ip_end - l4);
    WriteIpv6(ip, {out.data() + l3, kIpv6HeaderSize});
  }

  // ICRC covers IP/UDP with checksums masked, so it can precede the UDP checksum, which covers it.
  if (frame.roce() != nullptr && opts.fill_crc) {
    const uint32_t icrc = RoceIcrc({out.data() + l3, ip_end - l3});
    for (int i = 0; i < 4; ++i) out[ip_end - 4 + static_cast<size_t>(i)] = static_cast<uint8_t>(icrc >> (8 * i));
  }
  if (opts.fill_checksums && !frame.is_ipv4()) {
    const uint16_t c = UdpChecksumIpv6(frame.ip6()->src, frame.ip6()->dst, {out.data() + l4, ip_end - l4});
    internal::Store16(out.data() + l4 + 6, c);
  }
  out.insert(out.end(), frame.padding.begin(), frame.padding.end());
  return out.size() - start;
}

std::vector<uint8_t> SerializeFrame(const Frame& frame, const SerializeOptions& opts) {
  std::vector<uint8_t> out;
  out.reserve(frame.eth.size() + kIpv6HeaderSize + kUdpHeaderSize + 128 + frame.padding.size());
  SerializeFrameTo(frame, out, opts);
  return out;
}

Frame WithComputedFields(const Frame& frame, const SerializeOptions& opts) {
  const std::vector<uint8_t> bytes = SerializeFrame(frame, opts);
  Frame f = frame;
  if (opts.fill_ethertype) f.eth.ethertype = f.is_ipv4() ? kEtherTypeIpv4 : kEtherTypeIpv6;
  const size_t l3 = f.eth.size();
  const size_t l4 = l3 + (f.is_ipv4() ? kIpv4HeaderSize : kIpv6HeaderSize);
  if (f.is_ipv4()) {
    f.ip = ParseIpv4({bytes.data() + l3, kIpv4HeaderSize}, 0, false).value();
  } else {
    f.ip = ParseIpv6({bytes.data() + l3, kIpv6HeaderSize}, 0).value();
  }
  f.udp = ParseUdp({bytes.data() + l4, kUdpHeaderSize}).value();
  const size_t pl = l4 + kUdpHeaderSize;
  const size_t ip_end = bytes.size() - f.padding.size();
  if (MetaPacket* m = f.meta()) {
    m->ch.payload_len = internal::Load16(&bytes[pl + 10]);
    m->crc = internal::Load32(&bytes[ip_end - kCrcSize]);
  } else if (RocePacket* r = f.roce()) {
    const uint8_t* p = &bytes[ip_end - kIcrcSize];
    r->icrc = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  }
  return f;
}

}  // namespace mroce::wire
