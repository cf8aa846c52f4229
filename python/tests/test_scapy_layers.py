"""The Scapy layers (mroce.scapy) against the wire-format decisions, with no C++ involved.

Expected bytes here are assembled with struct.pack straight from the layout tables of
docs/spec/wire-format-decisions.md, so they check the Scapy field descriptions rather than
restate them.
"""

import random
import struct
import subprocess
import sys
import zlib

import pytest

from mroce.scapy import (CM_REASONS, EXT_HEADER_LEN, IP, NACK_CODES, OPCODES, UDP, Ether, IPv6,
                         MetaAck, MetaConn, MetaMEH, MetaNack, MetaProbe, MetaRoCE, Raw, crc_ok,
                         ipv4_frame, ipv6_frame, meta_crc, sack_bits, sack_set, sack_test)
from scapy.packet import Padding

from meta_fields import (ALL_OPCODES, EXT_PREFIX, PREFIX_LAYER, build_scapy, fields_from_scapy,
                         random_meta_fields)

EXT_CLASS = {op: PREFIX_LAYER[p] for op, p in EXT_PREFIX.items()}


def test_opcode_table_is_the_spec_table():
    assert OPCODES == {0x01: "WRITE", 0x02: "WRITE_IMM", 0x03: "SEND", 0x04: "SEND_IMM",
                       0x05: "READ_REQ", 0x06: "READ_RESP", 0x10: "ACK", 0x11: "NACK",
                       0x20: "CONNECT_REQ", 0x21: "CONNECT_ACK", 0x22: "CONNECT_REJ",
                       0x23: "DISCONNECT", 0x24: "DISCONNECT_ACK", 0x30: "PROBE",
                       0x31: "PROBE_ACK"}
    assert sorted(NACK_CODES) == list(range(1, 8))
    assert sorted(CM_REASONS) == [0x00, 0x01, 0x02, 0x03, 0x10, 0x11]


@pytest.mark.parametrize("cls,size", [(MetaMEH, 40), (MetaAck, 48), (MetaNack, 16),
                                      (MetaConn, 32), (MetaProbe, 16)])
def test_opcode_header_sizes(cls, size):
    assert len(cls().self_build()) == size
    assert cls.fixed_len == size


def test_common_header_layout_and_crc():
    # CH: ver 1 | rsvd0 5 | opcode WRITE_IMM | flags AR+LAST+IMM (0x8000|0x1000|0x0800) + rsvd 0x5a
    pkt = (MetaRoCE(rsvd0=5, opcode="WRITE_IMM", flags="AR+LAST+IMM", rsvd_flags=0x5A,
                    dst_conn_id=0x01020304, path_id=7, path_epoch=250, psn=0xFFFFFFFE)
           / MetaMEH(stream_id=0x1234, rsvd1=1, rsvd2=2, msn=3, msg_len=4, msg_offset=5,
                     recv_seq=6, imm=0xDEADBEEF, rkey=8, rsvd3=9, va=0x1122334455667788)
           / Raw(b"xyz"))
    ch = struct.pack("!BBHIBBHI", (1 << 4) | 5, 0x02, 0x9800 | 0x5A, 0x01020304, 7, 250, 3,
                     0xFFFFFFFE)
    meh = struct.pack("!HBBIIIIIIIQ", 0x1234, 1, 2, 3, 4, 5, 6, 0xDEADBEEF, 8, 9,
                      0x1122334455667788)
    body = ch + meh + b"xyz"
    expected = body + struct.pack("!I", zlib.crc32(body))
    assert bytes(pkt) == expected
    assert meta_crc(body) == zlib.crc32(body)


@pytest.mark.parametrize("name,mask", [("AR", 0x8000), ("RTX", 0x4000), ("FIRST", 0x2000),
                                       ("LAST", 0x1000), ("IMM", 0x0800), ("SE", 0x0400),
                                       ("ECE", 0x0200), ("TRTX", 0x0100)])
def test_each_flag_bit_position(name, mask):
    raw = bytes(MetaRoCE(opcode="ACK", flags=name) / MetaAck())
    assert struct.unpack("!H", raw[2:4])[0] == mask
    assert MetaRoCE(raw).flags == name


def test_ack_sack_bit_rule():
    s = bytes(32)
    s = sack_set(s, 0)
    s = sack_set(s, 9)
    s = sack_set(s, 255)
    assert s[0] == 0x80 and s[1] == 0x40 and s[31] == 0x01
    assert sack_bits(s) == [0, 9, 255]
    assert sack_test(s, 9) and not sack_test(s, 8)
    assert sack_bits(sack_set(s, 9, False)) == [0, 255]
    with pytest.raises(ValueError):
        sack_set(s, 256)
    ack = MetaAck(epsn=0xFFFFFFFE)
    for i in (0, 1, 255):
        ack.sack_set(i)
    # Base is epsn + 1 and wraps with the PSN.
    assert ack.sacked_psns() == [0xFFFFFFFF, 0, 254]
    raw = bytes(ack)
    assert raw[16] == 0xC0 and raw[47] == 0x01
    assert struct.unpack("!IIIHH", raw[:16]) == (0xFFFFFFFE, 0, 0xFFFFFFFF, 0, 0)


def test_nack_cmh_prh_layouts():
    nack = MetaNack(code="RNR", rsvd=0xAB, stream_id=513, psn=7, msn=8, info=1000)
    assert bytes(nack) == struct.pack("!BBHIII", 3, 0xAB, 513, 7, 8, 1000)
    cmh = MetaConn(ver_min=1, ver_max=2, reason="NORMAL", num_paths=8, src_conn_id=0xCAFE,
                   mtu=4096, max_streams=16, num_planes=4, rsvd4=1, rsvd5=2, max_rate=100000,
                   rsvd6=3, nonce=0x0102030405060708)
    assert bytes(cmh) == struct.pack("!BBBBIHHBBHIIQ", 1, 2, 0x10, 8, 0xCAFE, 4096, 16, 4, 1, 2,
                                     100000, 3, 0x0102030405060708)
    prh = MetaProbe(probe_seq=9, rsvd7=1, tx_time=2**64 - 1)
    assert bytes(prh) == struct.pack("!IIQ", 9, 1, 2**64 - 1)


def test_payload_len_and_crc_computed_unless_given():
    p = MetaRoCE(opcode="SEND") / MetaMEH() / Raw(b"A" * 100)
    raw = bytes(p)
    assert struct.unpack("!H", raw[10:12])[0] == 100
    assert len(raw) == 16 + 40 + 100 + 4
    assert crc_ok(MetaRoCE(raw))
    # Explicit values are written as given (negative tests craft them).
    bad = bytes(MetaRoCE(opcode="SEND", payload_len=3, crc=0x12345678) / MetaMEH() / Raw(b"AB"))
    assert struct.unpack("!H", bad[10:12])[0] == 3
    assert bad[-4:] == b"\x12\x34\x56\x78"
    assert not MetaRoCE(bad).crc_ok()


@pytest.mark.parametrize("opcode", ALL_OPCODES)
def test_full_frame_dissection_every_opcode(opcode):
    ext = EXT_CLASS[opcode]()
    payload = b"payload!" if ext.__class__ is MetaMEH and opcode != 0x05 else b""
    meta = MetaRoCE(opcode=opcode, psn=42) / ext
    if payload:
        meta = meta / Raw(payload)
    for builder in (ipv4_frame, ipv6_frame):
        for vlan in (None, 100):
            raw = bytes(builder(meta, vlan=vlan)) + b"\x00" * 30   # Ethernet padding
            f = Ether(raw)
            assert f[UDP].dport == 4797
            assert f[MetaRoCE].opcode == opcode
            assert isinstance(f[MetaRoCE].payload, ext.__class__)
            got = f[MetaRoCE].payload.payload
            if payload:
                assert isinstance(got, Raw) and got.load == payload
                assert isinstance(got.payload, Padding) or not got.payload
            assert f[MetaRoCE].payload_len == len(payload)
            assert crc_ok(f)
            body = bytes(f[UDP].payload)[:16 + EXT_HEADER_LEN[opcode] + len(payload)]
            assert f[MetaRoCE].crc == zlib.crc32(body)


def test_frame_defaults_follow_the_spec():
    f4 = Ether(bytes(ipv4_frame(MetaRoCE(opcode="PROBE") / MetaProbe(), sport=50000)))
    assert f4[IP].tos & 3 == 0b10 and f4[IP].flags == "DF" and f4[IP].id == 0
    assert f4[IP].ttl == 64 and f4[UDP].chksum == 0 and f4[UDP].sport == 50000
    assert f4[UDP].len == 8 + 16 + 16 + 4
    f6 = Ether(bytes(ipv6_frame(MetaRoCE(opcode="PROBE") / MetaProbe())))
    assert f6[IPv6].tc & 3 == 0b10 and f6[IPv6].fl == 0 and f6[IPv6].hlim == 64
    assert f6[UDP].chksum != 0


def test_unknown_opcode_has_no_opcode_header():
    raw = bytes(MetaRoCE(opcode=0x7F) / Raw(b"abcd"))
    p = MetaRoCE(raw)
    assert isinstance(p.payload, Raw) and p.payload.load == b"abcd"
    assert p.payload_len == 4 and p.crc_ok()


def test_star_import_standalone():
    code = ("from mroce.scapy import *\n"
            "import mroce.scapy as m\n"
            "assert all(hasattr(m, n) for n in m.__all__)\n"
            "p = Ether(bytes(ipv4_frame(MetaRoCE(opcode='ACK')/MetaAck(epsn=1))))\n"
            "assert p[MetaAck].epsn == 1 and crc_ok(p)\n")
    env_path = [p for p in sys.path if p]
    subprocess.run([sys.executable, "-c", code], check=True,
                   env={"PYTHONPATH": ":".join(env_path)})


def test_random_scapy_round_trip():
    rng = random.Random(1234)
    for opcode in ALL_OPCODES:
        for _ in range(50):
            d = random_meta_fields(rng, opcode)
            raw = build_scapy(d)
            got = fields_from_scapy(MetaRoCE(raw))
            assert got.pop("crc") == zlib.crc32(raw[:-4])
            assert got.pop("ch.payload_len") == len(d["payload"])
            assert got == d
