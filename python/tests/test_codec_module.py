"""The pybind11 module itself: its API contract, and the C++ field tables against the Scapy
field descriptions (same names, offsets and widths, header by header)."""

import pytest

from mroce.scapy import (EXT_HEADER_LEN, OPCODES, MetaAck, MetaConn, MetaMEH, MetaNack, MetaProbe,
                         MetaRoCE)

SCAPY_HEADERS = {"ch": MetaRoCE, "meh": MetaMEH, "ack": MetaAck, "nack": MetaNack,
                 "cmh": MetaConn, "prh": MetaProbe}
# Scapy names that the codec spells differently (the flags byte is one FlagsField in Scapy).
RENAMED = {"ch.rsvd_flags": "ch.flags.rsvd"}


def scapy_layout(cls):
    """[(codec name, byte offset, bit offset from MSB, bit width)] from a Scapy fields_desc."""
    prefix = next(p for p, c in SCAPY_HEADERS.items() if c is cls)
    out, bit = [], 0
    for f in cls.fields_desc:
        if f.name == "crc":      # trailer, not part of the header
            continue
        kind = f.__class__.__name__
        if kind == "SackField":
            width = 8 * 32
        elif kind in ("BitField", "FlagsField"):
            width = f.size
        else:
            width = f.sz * 8
        if f.name == "flags":    # eight one-bit flags, MSB first
            for i, name in enumerate(["ar", "rtx", "first", "last", "imm", "se", "ece", "trtx"]):
                out.append(("ch.flags." + name, (bit + i) // 8, (bit + i) % 8, 1))
        else:
            name = RENAMED.get("%s.%s" % (prefix, f.name), "%s.%s" % (prefix, f.name))
            out.append((name, bit // 8, bit % 8, width))
        bit += width
    return out, bit // 8


@pytest.mark.parametrize("prefix", sorted(SCAPY_HEADERS))
def test_field_tables_match_scapy(codec, prefix):
    cpp = [(i["name"], i["byte_offset"], i["bit_offset"], i["bit_width"])
           for i in codec.field_infos() if i["header"] == prefix and not i["is_fixed"]]
    scapy, size = scapy_layout(SCAPY_HEADERS[prefix])
    assert cpp == scapy
    expected_size = 16 if prefix == "ch" else {"meh": 40, "ack": 48, "nack": 16, "cmh": 32,
                                               "prh": 16}[prefix]
    assert size == expected_size


def test_constants(codec):
    assert {v: k for k, v in codec.OPCODES.items()} == OPCODES
    m = codec._m
    assert (m.META_UDP_PORT, m.ROCE_UDP_PORT, m.UET_UDP_PORT) == (4797, 4791, 4793)
    assert (m.ENTROPY_PORT_MIN, m.ENTROPY_PORT_MAX) == (49152, 65535)
    assert m.META_VERSION == 1 and m.CRC_SIZE == 4 and m.SACK_BITS == 256
    assert m.COMMON_HEADER_SIZE == 16
    assert (m.MESSAGE_EXT_SIZE, m.ACK_HEADER_SIZE, m.NACK_HEADER_SIZE, m.CONN_MGMT_HEADER_SIZE,
            m.PROBE_HEADER_SIZE) == (EXT_HEADER_LEN[1], EXT_HEADER_LEN[0x10], EXT_HEADER_LEN[0x11],
                                     EXT_HEADER_LEN[0x20], EXT_HEADER_LEN[0x30])
    assert (m.FLAG_AR, m.FLAG_TRTX) == (0x8000, 0x0100)


def test_sparse_serialize_and_ordered_parse(codec):
    frame = codec.serialize_frame({"ch.opcode": 0x10, "ack.epsn": 5})
    d = codec.parse_frame(frame)
    names = list(d)
    assert names.index("udp.dport") < names.index("ch.ver") < names.index("ack.epsn") \
        < names.index("payload") < names.index("crc")
    assert d["ack.epsn"] == 5 and d["udp.dport"] == 4797 and d["ack.sack"] == bytes(32)
    assert d["ip4.ecn"] == 0b10 and d["ip4.ttl"] == 64 and d["ip4.flags"] == 0b010
    assert d["udp.checksum"] == 0
    assert codec.parse_meta(frame[42:])["ack.epsn"] == 5


def test_bad_dicts_raise_value_error(codec):
    for bad in ({"ch.opcode": 0x10, "no.such": 1},     # unknown name
                {"ch.opcode": 0x10, "ch.ver": 16},     # wider than 4 bits
                {"ch.opcode": 0x10, "ack.sack": b"\x00"},   # wrong byte length
                {"ch.opcode": 0x10, "ack.epsn": b"\x00"}):  # bytes for a scalar
        with pytest.raises(ValueError) as e:
            codec.serialize_meta(bad)
        assert e.value.field in bad, (bad, str(e.value))
    with pytest.raises(ValueError):
        codec.serialize_meta({"ch.psn": -1})
    with pytest.raises(ValueError):
        codec.serialize_meta({"ch.psn": "7"})


def test_batch_api_reports_errors_in_place(codec):
    good = codec.serialize_meta({"ch.opcode": 0x30})
    out = codec.parse_meta_many([good, good[:10], good])
    assert isinstance(out[0], dict) and isinstance(out[2], dict)
    assert isinstance(out[1], codec.ParseError) and out[1].field.startswith("ch.")
    built = codec.serialize_meta_many([{"ch.opcode": 0x30}, {"bogus": 1}])
    assert built[0] == good and isinstance(built[1], codec.ParseError)


def test_describe_and_pcap(codec, tmp_path):
    frame = codec.serialize_frame({"ch.opcode": 0x11, "nack.code": 3})
    text = codec.describe(frame)
    assert "nack.code" in text and "NACK" in text
    assert "crc" in codec.describe(frame[:-1] + bytes([frame[-1] ^ 1]))
    n = codec.write_pcap(tmp_path / "x.pcap", [frame, (5000, frame)])
    assert n == 2
    from scapy.utils import rdpcap
    pkts = rdpcap(str(tmp_path / "x.pcap"))
    assert [bytes(p) for p in pkts] == [frame, frame]
