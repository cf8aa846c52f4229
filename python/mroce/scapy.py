"""Scapy layers for MetaRoCE v1, written from docs/spec/wire-format-decisions.md alone.

This description is deliberately independent of the C++ codec (reference/wire): the pytest suite
cross-checks the two byte for byte, so a mistake in either shows up as a disagreement.

Layout of a MetaRoCE packet (everything after the UDP header):

    MetaRoCE (common header, 16 B) / opcode header / payload (payload_len B) / CRC (4 B)

The CRC trailer is the field ``crc`` of the ``MetaRoCE`` layer (an FCS-style trailer field: it is
placed after the payload when building and taken from the end of the MetaRoCE bytes when
dissecting), so dissecting a full frame yields the payload as ``Raw`` and the CRC as a field.
``payload_len`` and ``crc`` default to None and are computed at build time; set them explicitly to
craft a wrong length or a bad CRC. ``crc_ok(pkt)`` / ``MetaRoCE.crc_ok()`` verify a received CRC.

    >>> from mroce.scapy import *
    >>> p = MetaRoCE(opcode="ACK", dst_conn_id=7) / MetaAck(epsn=100)
    >>> p[MetaAck].sack_set(0)            # acknowledges PSN epsn + 1
    >>> frame = ipv4_frame(p, sport=49152)
    >>> crc_ok(Ether(bytes(frame)))
    True
"""

import struct
import zlib

from scapy.fields import (BitField, ByteEnumField, ByteField, FCSField,
                          FlagsField, IntField, LongField, ShortField, StrFixedLenField,
                          XByteField, XIntField, XLongField, XShortField)
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Packet, Raw, bind_bottom_up, bind_layers, bind_top_down

__all__ = [
    "METAROCE_UDP_PORT", "METAROCE_VERSION", "OPCODES", "NACK_CODES", "CM_REASONS",
    "FLAG_NAMES", "EXT_HEADER_LEN", "SACK_BITS",
    "MetaRoCE", "MetaMEH", "MetaAck", "MetaNack", "MetaConn", "MetaProbe",
    "meta_crc", "crc_ok", "ipv4_frame", "ipv6_frame", "sack_set", "sack_test", "sack_bits",
    # Re-exported so `from mroce.scapy import *` is enough to build and parse frames.
    "Ether", "Dot1Q", "IP", "IPv6", "UDP", "Raw",
]

METAROCE_UDP_PORT = 4797
METAROCE_VERSION = 1
CH_LEN = 16
CRC_LEN = 4
SACK_BITS = 256

OPCODES = {
    0x01: "WRITE",
    0x02: "WRITE_IMM",
    0x03: "SEND",
    0x04: "SEND_IMM",
    0x05: "READ_REQ",
    0x06: "READ_RESP",
    0x10: "ACK",
    0x11: "NACK",
    0x20: "CONNECT_REQ",
    0x21: "CONNECT_ACK",
    0x22: "CONNECT_REJ",
    0x23: "DISCONNECT",
    0x24: "DISCONNECT_ACK",
    0x30: "PROBE",
    0x31: "PROBE_ACK",
}

NACK_CODES = {
    0x01: "PSN_OUT_OF_WINDOW",
    0x02: "INVALID_CONN",
    0x03: "RNR",
    0x04: "REMOTE_ACCESS",
    0x05: "INVALID_REQUEST",
    0x06: "RESOURCE",
    0x07: "REMOTE_OP_ERROR",
}

CM_REASONS = {
    0x00: "none",
    0x01: "VERSION_UNSUPPORTED",
    0x02: "NO_RESOURCES",
    0x03: "INVALID_PARAMS",
    0x10: "NORMAL",
    0x11: "ERROR",
}

# Flag bits of the 16-bit CH flags word, MSB (bit 15) first. Bits 7..0 are the field rsvd_flags.
FLAG_NAMES = ["AR", "RTX", "FIRST", "LAST", "IMM", "SE", "ECE", "TRTX"]

DATA_OPCODES = (0x01, 0x02, 0x03, 0x04, 0x05, 0x06)
CM_OPCODES = (0x20, 0x21, 0x22, 0x23, 0x24)
PROBE_OPCODES = (0x30, 0x31)

# Bytes of the opcode header that follows the CH, by opcode; unknown opcodes have none.
EXT_HEADER_LEN = {}
EXT_HEADER_LEN.update({op: 40 for op in DATA_OPCODES})
EXT_HEADER_LEN.update({0x10: 48, 0x11: 16})
EXT_HEADER_LEN.update({op: 32 for op in CM_OPCODES})
EXT_HEADER_LEN.update({op: 16 for op in PROBE_OPCODES})


def meta_crc(data):
    """CRC-32 (IEEE 802.3, zlib) over CH byte 0 .. last payload byte; returns an int."""
    return zlib.crc32(bytes(data)) & 0xFFFFFFFF


class MetaRoCE(Packet):
    """Common header (16 bytes); also owns the 4-byte CRC trailer as the field ``crc``."""
    name = "MetaRoCE"
    fields_desc = [
        BitField("ver", METAROCE_VERSION, 4),
        BitField("rsvd0", 0, 4),
        ByteEnumField("opcode", 0x01, OPCODES),
        # FlagsField lists names LSB first: bit 8 of the 16-bit word is TRTX, bit 15 is AR.
        FlagsField("flags", 0, 8, list(reversed(FLAG_NAMES))),
        XByteField("rsvd_flags", 0),
        XIntField("dst_conn_id", 0),
        ByteField("path_id", 0),
        ByteField("path_epoch", 0),
        ShortField("payload_len", None),
        IntField("psn", 0),
        FCSField("crc", None, fmt="!I"),
    ]

    def ext_header_len(self):
        """Length of the opcode header that follows, by opcode (0 when unknown)."""
        return EXT_HEADER_LEN.get(self.opcode, 0)

    def post_build(self, p, pay):
        # The trailer field has already appended its (placeholder) 4 bytes to pay.
        body, trailer = pay[:-CRC_LEN], pay[-CRC_LEN:]
        if self.payload_len is None:
            # The opcode defines the opcode header's length, whatever layer carries its bytes
            # (MetaAck or a crafted Raw); truncated headers give 0.
            plen = max(len(body) - self.ext_header_len(), 0)
            p = p[:10] + struct.pack("!H", plen & 0xFFFF) + p[12:]
        if self.crc is None:
            trailer = struct.pack("!I", meta_crc(p + body))
        return p + body + trailer

    def compute_crc(self):
        """The CRC this packet should carry, from its bytes as they stand."""
        raw = self.do_build()  # without trailing padding (e.g. Ethernet)
        return meta_crc(raw[:-CRC_LEN])

    def crc_ok(self):
        """True when the carried CRC matches CH..payload."""
        raw = self.do_build()  # without trailing padding (e.g. Ethernet)
        return len(raw) >= CH_LEN + CRC_LEN and \
            struct.unpack("!I", raw[-CRC_LEN:])[0] == meta_crc(raw[:-CRC_LEN])

    def mysummary(self):
        return self.sprintf("MetaRoCE %opcode% conn=%dst_conn_id% path=%path_id%/"
                            "%path_epoch% psn=%psn% flags=%flags%")


def crc_ok(pkt):
    """True when the MetaRoCE CRC of pkt (any packet containing a MetaRoCE layer) verifies."""
    return pkt[MetaRoCE].crc_ok()


class _MetaExt(Packet):
    """An opcode header: its payload is the data (payload_len bytes); the rest is padding."""
    fixed_len = 0

    def extract_padding(self, s):
        ch = self.underlayer
        if isinstance(ch, MetaRoCE) and ch.payload_len is not None:
            n = ch.payload_len
            return s[:n], s[n:]
        return s, b""

    def guess_payload_class(self, payload):
        return Raw


class MetaMEH(_MetaExt):
    """Message extension header (40 bytes), opcodes WRITE..READ_RESP."""
    name = "MetaRoCE MEH"
    fixed_len = 40
    fields_desc = [
        ShortField("stream_id", 0),
        XByteField("rsvd1", 0),
        XByteField("rsvd2", 0),
        IntField("msn", 0),
        IntField("msg_len", 0),
        IntField("msg_offset", 0),
        IntField("recv_seq", 0),
        XIntField("imm", 0),
        XIntField("rkey", 0),
        XIntField("rsvd3", 0),
        XLongField("va", 0),
    ]


class SackField(StrFixedLenField):
    """256-bit SACK bitvector, 32 bytes; bit i (PSN epsn+1+i) is byte i/8, mask 0x80 >> i%8."""

    def __init__(self, name):
        super().__init__(name, b"\x00" * 32, 32)

    def i2repr(self, pkt, x):
        bits = sack_bits(x or b"")
        return "bits %s" % (_ranges(bits) if bits else "none")


def _ranges(bits):
    out, start, prev = [], None, None
    for b in bits:
        if start is None:
            start = prev = b
        elif b == prev + 1:
            prev = b
        else:
            out.append((start, prev))
            start = prev = b
    if start is not None:
        out.append((start, prev))
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in out)


def sack_set(sack, i, value=True):
    """Return the 32-byte sack with bit i (0..255) set (or cleared)."""
    if not 0 <= i < SACK_BITS:
        raise ValueError("SACK bit %d out of range 0..255" % i)
    b = bytearray(sack)
    if value:
        b[i // 8] |= 0x80 >> (i % 8)
    else:
        b[i // 8] &= ~(0x80 >> (i % 8)) & 0xFF
    return bytes(b)


def sack_test(sack, i):
    """True when SACK bit i (PSN epsn + 1 + i) is set."""
    if not 0 <= i < SACK_BITS:
        raise ValueError("SACK bit %d out of range 0..255" % i)
    return bool(sack[i // 8] & (0x80 >> (i % 8)))


def sack_bits(sack):
    """Indices of the set SACK bits, ascending."""
    return [i for i in range(min(len(sack) * 8, SACK_BITS)) if sack[i // 8] & (0x80 >> (i % 8))]


class MetaAck(_MetaExt):
    """ACK header (48 bytes)."""
    name = "MetaRoCE ACKH"
    fixed_len = 48
    fields_desc = [
        IntField("epsn", 0),
        IntField("trigger_psn", 0),
        IntField("rate_hint", 0xFFFFFFFF),   # Mb/s; 0xFFFFFFFF = unlimited
        ShortField("ce_count", 0),
        ShortField("ack_delay", 0),          # units of 64 ns
        SackField("sack"),
    ]

    def sack_set(self, i, value=True):
        self.sack = sack_set(self.sack, i, value)

    def sack_test(self, i):
        return sack_test(self.sack, i)

    def sack_bits(self):
        return sack_bits(self.sack)

    def sacked_psns(self):
        """PSNs the SACK acknowledges: epsn + 1 + i (mod 2^32) for each set bit i."""
        return [(self.epsn + 1 + i) & 0xFFFFFFFF for i in self.sack_bits()]


class MetaNack(_MetaExt):
    """NACK header (16 bytes)."""
    name = "MetaRoCE NAKH"
    fixed_len = 16
    fields_desc = [
        ByteEnumField("code", 0x01, NACK_CODES),
        XByteField("rsvd", 0),
        ShortField("stream_id", 0),
        IntField("psn", 0),
        IntField("msn", 0),
        IntField("info", 0),
    ]


class MetaConn(_MetaExt):
    """Connection management header (32 bytes), opcodes CONNECT_REQ..DISCONNECT_ACK."""
    name = "MetaRoCE CMH"
    fixed_len = 32
    fields_desc = [
        ByteField("ver_min", 1),
        ByteField("ver_max", 1),
        ByteEnumField("reason", 0, CM_REASONS),
        ByteField("num_paths", 0),
        XIntField("src_conn_id", 0),
        ShortField("mtu", 0),
        ShortField("max_streams", 0),
        ByteField("num_planes", 0),
        XByteField("rsvd4", 0),
        XShortField("rsvd5", 0),
        IntField("max_rate", 0),
        XIntField("rsvd6", 0),
        XLongField("nonce", 0),
    ]



class MetaProbe(_MetaExt):
    """Probe header (16 bytes), opcodes PROBE and PROBE_ACK."""
    name = "MetaRoCE PRH"
    fixed_len = 16
    fields_desc = [
        IntField("probe_seq", 0),
        XIntField("rsvd7", 0),
        LongField("tx_time", 0),   # ns, opaque to the receiver
    ]


# Bindings, declared apart from the formats.
bind_layers(UDP, MetaRoCE, dport=METAROCE_UDP_PORT)
for _op in DATA_OPCODES:
    bind_bottom_up(MetaRoCE, MetaMEH, opcode=_op)
bind_top_down(MetaRoCE, MetaMEH, opcode=0x01)
bind_layers(MetaRoCE, MetaAck, opcode=0x10)
bind_layers(MetaRoCE, MetaNack, opcode=0x11)
for _op in CM_OPCODES:
    bind_bottom_up(MetaRoCE, MetaConn, opcode=_op)
bind_top_down(MetaRoCE, MetaConn, opcode=0x20)
for _op in PROBE_OPCODES:
    bind_bottom_up(MetaRoCE, MetaProbe, opcode=_op)
bind_top_down(MetaRoCE, MetaProbe, opcode=0x30)


def ipv4_frame(meta, src="10.0.0.1", dst="10.0.0.2", sport=49152, dport=METAROCE_UDP_PORT,
               ecn=0b10, dscp=0, vlan=None, smac="02:00:00:00:00:01", dmac="02:00:00:00:00:02"):
    """Ether / [Dot1Q] / IPv4 / UDP / meta with the spec's defaults (ECT(0), DF, id 0, TTL 64,
    UDP checksum 0)."""
    l2 = Ether(src=smac, dst=dmac)
    if vlan is not None:
        l2 = l2 / Dot1Q(vlan=vlan)
    return (l2 / IP(src=src, dst=dst, tos=(dscp << 2) | ecn, flags="DF", id=0, ttl=64)
            / UDP(sport=sport, dport=dport, chksum=0) / meta)


def ipv6_frame(meta, src="fd00::1", dst="fd00::2", sport=49152, dport=METAROCE_UDP_PORT,
               ecn=0b10, dscp=0, vlan=None, smac="02:00:00:00:00:01", dmac="02:00:00:00:00:02"):
    """Ether / [Dot1Q] / IPv6 / UDP / meta with the spec's defaults (ECT(0), flow label 0, hop
    limit 64, UDP checksum computed)."""
    l2 = Ether(src=smac, dst=dmac)
    if vlan is not None:
        l2 = l2 / Dot1Q(vlan=vlan)
    return (l2 / IPv6(src=src, dst=dst, tc=(dscp << 2) | ecn, fl=0, hlim=64)
            / UDP(sport=sport, dport=dport) / meta)
