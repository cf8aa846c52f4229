"""Test helpers: random MetaRoCE packets as flat field dicts, and Scapy <-> flat-dict conversion.

The flat dict uses the C++ codec's FieldMap names ("ch.opcode", "ch.flags.ar", "ack.sack",
"payload", "crc"), so a dict can go straight into mroce.codec; the Scapy side is converted with
scapy_from_fields / fields_from_scapy, which know only the Scapy layer and field names (the
mapping is by prefix: ch -> MetaRoCE, meh -> MetaMEH, ack -> MetaAck, nack -> MetaNack,
cmh -> MetaConn, prh -> MetaProbe; the flag bits are the only renamed fields).
"""

from mroce.scapy import (FLAG_NAMES, MetaAck, MetaConn, MetaMEH, MetaNack, MetaProbe, MetaRoCE,
                         OPCODES, Raw)

PREFIX_LAYER = {"ch": MetaRoCE, "meh": MetaMEH, "ack": MetaAck, "nack": MetaNack,
                "cmh": MetaConn, "prh": MetaProbe}
EXT_PREFIX = {}
EXT_PREFIX.update({op: "meh" for op in range(0x01, 0x07)})
EXT_PREFIX.update({0x10: "ack", 0x11: "nack"})
EXT_PREFIX.update({op: "cmh" for op in range(0x20, 0x25)})
EXT_PREFIX.update({0x30: "prh", 0x31: "prh"})
FLAG_BITS = {"ch.flags." + n.lower(): 15 - i for i, n in enumerate(FLAG_NAMES)}

ALL_OPCODES = sorted(OPCODES)

# Per header: (name, bit width) in wire order, for random values. Reserved fields are included
# (the formats keep them as received) but drawn as 0 most of the time, as senders send them.
WIDTHS = {
    "meh": [("stream_id", 16), ("rsvd1", 8), ("rsvd2", 8), ("msn", 32), ("msg_len", 32),
            ("msg_offset", 32), ("recv_seq", 32), ("imm", 32), ("rkey", 32), ("rsvd3", 32),
            ("va", 64)],
    "ack": [("epsn", 32), ("trigger_psn", 32), ("rate_hint", 32), ("ce_count", 16),
            ("ack_delay", 16)],
    "nack": [("code", 8), ("rsvd", 8), ("stream_id", 16), ("psn", 32), ("msn", 32), ("info", 32)],
    "cmh": [("ver_min", 8), ("ver_max", 8), ("reason", 8), ("num_paths", 8), ("src_conn_id", 32),
            ("mtu", 16), ("max_streams", 16), ("num_planes", 8), ("rsvd4", 8), ("rsvd5", 16),
            ("max_rate", 32), ("rsvd6", 32), ("nonce", 64)],
    "prh": [("probe_seq", 32), ("rsvd7", 32), ("tx_time", 64)],
}


def _rand(rng, bits, reserved=False):
    if reserved and rng.random() < 0.9:
        return 0
    # Mix edge values in: they catch sign and width mistakes.
    r = rng.random()
    if r < 0.05:
        return 0
    if r < 0.10:
        return (1 << bits) - 1
    return rng.getrandbits(bits)


def random_meta_fields(rng, opcode, max_payload=64):
    """A random MetaRoCE packet of `opcode` as a flat dict (no computed fields: no
    ch.payload_len, no crc)."""
    d = {"ch.ver": 1 if rng.random() < 0.95 else rng.getrandbits(4),
         "ch.rsvd0": _rand(rng, 4, reserved=True),
         "ch.opcode": opcode}
    for name in FLAG_BITS:
        d[name] = rng.getrandbits(1)
    d["ch.flags.rsvd"] = _rand(rng, 8, reserved=True)
    d["ch.dst_conn_id"] = _rand(rng, 32)
    d["ch.path_id"] = _rand(rng, 8)
    d["ch.path_epoch"] = _rand(rng, 8)
    d["ch.psn"] = _rand(rng, 32)
    prefix = EXT_PREFIX.get(opcode)
    if prefix:
        for name, bits in WIDTHS[prefix]:
            d["%s.%s" % (prefix, name)] = _rand(rng, bits, reserved=name.startswith("rsvd"))
        if prefix == "ack":
            d["ack.sack"] = _random_sack(rng)
    # Payload only where the spec has one (data opcodes except READ_REQ); lengths include 0.
    if prefix == "meh" and opcode != 0x05:
        n = rng.randrange(max_payload + 1)
        if rng.random() < 0.01:   # now and then up to the largest MTU (9000)
            n = rng.randrange(max_payload, 9001)
        d["payload"] = rng.randbytes(n)
    else:
        d["payload"] = b""
    return d


def _random_sack(rng):
    r = rng.random()
    if r < 0.1:
        return bytes(32)
    if r < 0.15:
        return b"\xff" * 32
    if r < 0.5:   # sparse: a few bits
        b = bytearray(32)
        for _ in range(rng.randrange(1, 8)):
            i = rng.randrange(256)
            b[i // 8] |= 0x80 >> (i % 8)
        return bytes(b)
    return rng.randbytes(32)


def scapy_from_fields(d):
    """Scapy MetaRoCE packet (payload_len and crc left to the build unless given)."""
    ch_kw = {}
    flags16 = 0
    for name, value in d.items():
        if name in FLAG_BITS:
            flags16 |= (value & 1) << FLAG_BITS[name]
        elif name == "ch.flags.rsvd":
            flags16 |= value & 0xFF
        elif name.startswith("ch."):
            ch_kw[name[3:]] = value
    ch_kw["flags"] = flags16 >> 8
    ch_kw["rsvd_flags"] = flags16 & 0xFF
    if "crc" in d:
        ch_kw["crc"] = d["crc"]
    pkt = MetaRoCE(**ch_kw)
    prefix = EXT_PREFIX.get(d["ch.opcode"])
    top = pkt
    if prefix:
        n = len(prefix) + 1
        ext = PREFIX_LAYER[prefix](**{k[n:]: v for k, v in d.items() if k.startswith(prefix + ".")})
        pkt.add_payload(ext)
        top = ext
    if d.get("payload"):
        top.add_payload(Raw(d["payload"]))
    return pkt


def build_scapy(d):
    """Wire bytes of scapy_from_fields(d), built without Scapy's per-layer copies (fast)."""
    pkt = scapy_from_fields(d)
    layer = pkt
    while layer:
        layer.explicit = 1
        layer = layer.payload
    return pkt.do_build()


def fields_from_scapy(pkt):
    """Flat dict, in codec order, of the MetaRoCE part of a dissected Scapy packet."""
    ch = pkt[MetaRoCE]
    out = {}
    for f in ch.fields_desc:
        if f.name == "crc":
            continue
        v = ch.getfieldval(f.name)
        if f.name == "flags":
            for name, bit in FLAG_BITS.items():
                out[name] = (int(v) >> (bit - 8)) & 1
        elif f.name == "rsvd_flags":
            out["ch.flags.rsvd"] = v
        else:
            out["ch." + f.name] = int(v)
    ext = ch.payload
    prefix = EXT_PREFIX.get(ch.opcode)
    payload_layer = ext
    if prefix and isinstance(ext, PREFIX_LAYER[prefix]):
        for f in ext.fields_desc:
            v = ext.getfieldval(f.name)
            out["%s.%s" % (prefix, f.name)] = v if isinstance(v, bytes) else int(v)
        payload_layer = ext.payload
    # Padding (Ethernet padding beyond the IP length) is a Raw subclass: not payload.
    out["payload"] = bytes(payload_layer.load) if type(payload_layer) is Raw else b""
    out["crc"] = ch.crc
    return out
