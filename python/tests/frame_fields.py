"""Test helpers: whole frames (Ether / [802.1Q] / IPv4|IPv6 / UDP / MetaRoCE) as codec-named flat
dicts, converted to and from Scapy, and random frame dicts."""

import socket

from mroce.scapy import IP, UDP, Dot1Q, Ether, IPv6, MetaRoCE

from meta_fields import fields_from_scapy, random_meta_fields, scapy_from_fields


def _mac(b):
    return ":".join("%02x" % x for x in b)


def _mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def frame_fields_from_scapy(pkt):
    """Codec-named dict of a dissected Scapy frame (eth, ip4|ip6, udp, then the MetaRoCE part)."""
    eth = pkt[Ether]
    out = {"eth.dst": _mac_bytes(eth.dst), "eth.src": _mac_bytes(eth.src)}
    if Dot1Q in pkt:
        q = pkt[Dot1Q]
        out["eth.vlan_tci"] = (q.prio << 13) | (q.id << 12) | q.vlan
        out["eth.type"] = q.type
    else:
        out["eth.type"] = eth.type
    if IP in pkt:
        ip = pkt[IP]
        out.update({"ip4.dscp": ip.tos >> 2, "ip4.ecn": ip.tos & 3, "ip4.total_len": ip.len,
                    "ip4.id": ip.id, "ip4.flags": int(ip.flags), "ip4.frag_offset": ip.frag,
                    "ip4.ttl": ip.ttl, "ip4.protocol": ip.proto, "ip4.checksum": ip.chksum,
                    "ip4.src": socket.inet_aton(ip.src), "ip4.dst": socket.inet_aton(ip.dst)})
    else:
        ip = pkt[IPv6]
        out.update({"ip6.dscp": ip.tc >> 2, "ip6.ecn": ip.tc & 3, "ip6.flow_label": ip.fl,
                    "ip6.payload_len": ip.plen, "ip6.next_header": ip.nh,
                    "ip6.hop_limit": ip.hlim,
                    "ip6.src": socket.inet_pton(socket.AF_INET6, ip.src),
                    "ip6.dst": socket.inet_pton(socket.AF_INET6, ip.dst)})
    udp = pkt[UDP]
    out.update({"udp.sport": udp.sport, "udp.dport": udp.dport, "udp.length": udp.len,
                "udp.checksum": udp.chksum})
    out.update(fields_from_scapy(pkt[MetaRoCE]))
    return out


def scapy_frame_from_fields(d):
    """Scapy frame for a codec-named dict; fields absent from d are left to Scapy (lengths,
    checksums), except the spec's fixed choices (IPv4 UDP checksum 0)."""
    l2 = Ether(dst=_mac(d["eth.dst"]), src=_mac(d["eth.src"]))
    if "eth.vlan_tci" in d:
        t = d["eth.vlan_tci"]
        l2.add_payload(Dot1Q(prio=t >> 13, id=(t >> 12) & 1, vlan=t & 0xFFF))
    if "ip6.src" in d:
        ip = IPv6(src=socket.inet_ntop(socket.AF_INET6, d["ip6.src"]),
                  dst=socket.inet_ntop(socket.AF_INET6, d["ip6.dst"]),
                  tc=(d["ip6.dscp"] << 2) | d["ip6.ecn"], fl=d["ip6.flow_label"],
                  hlim=d["ip6.hop_limit"])
        udp = UDP(sport=d["udp.sport"], dport=d["udp.dport"])
    else:
        ip = IP(src=socket.inet_ntoa(d["ip4.src"]), dst=socket.inet_ntoa(d["ip4.dst"]),
                tos=(d["ip4.dscp"] << 2) | d["ip4.ecn"], id=d["ip4.id"], flags=d["ip4.flags"],
                frag=0, ttl=d["ip4.ttl"])
        udp = UDP(sport=d["udp.sport"], dport=d["udp.dport"], chksum=0)
    top = l2 if "eth.vlan_tci" not in d else l2.payload
    top.add_payload(ip)   # add_payload, not '/': no copies (the random tests build thousands)
    ip.add_payload(udp)
    udp.add_payload(scapy_from_fields(d))
    return l2


def build_frame(d):
    """Wire bytes of scapy_frame_from_fields(d), without Scapy's per-build clone."""
    pkt = scapy_frame_from_fields(d)
    layer = pkt
    while layer:
        layer.explicit = 1
        layer = layer.payload
    return pkt.do_build()


def random_frame_fields(rng, opcode, max_payload=64):
    """Random frame dict without computed fields (lengths, checksums, payload_len, crc)."""
    d = {"eth.dst": rng.randbytes(6), "eth.src": rng.randbytes(6)}
    if rng.random() < 0.3:
        d["eth.vlan_tci"] = rng.getrandbits(16)
    v6 = rng.random() < 0.5
    d["eth.type"] = 0x86DD if v6 else 0x0800
    ecn = rng.choice((0b10, 0b10, 0b11, 0b00, 0b01))
    if v6:
        d.update({"ip6.dscp": rng.getrandbits(6), "ip6.ecn": ecn,
                  "ip6.flow_label": 0 if rng.random() < 0.8 else rng.getrandbits(20),
                  "ip6.next_header": 17, "ip6.hop_limit": rng.choice((64, 1, 255, 63)),
                  "ip6.src": rng.randbytes(16), "ip6.dst": rng.randbytes(16)})
    else:
        d.update({"ip4.dscp": rng.getrandbits(6), "ip4.ecn": ecn,
                  "ip4.id": 0 if rng.random() < 0.8 else rng.getrandbits(16),
                  "ip4.flags": rng.choice((2, 2, 0)), "ip4.frag_offset": 0,
                  "ip4.ttl": rng.choice((64, 1, 255, 63)), "ip4.protocol": 17,
                  "ip4.src": rng.randbytes(4), "ip4.dst": rng.randbytes(4)})
    d.update({"udp.sport": rng.randrange(49152, 65536), "udp.dport": 4797})
    d.update(random_meta_fields(rng, opcode, max_payload))
    return d
