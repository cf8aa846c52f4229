"""tools/wireshark/mroce.lua under tshark: every field of every opcode is decoded with the value
that was put on the wire, the CRC is verified, nothing is flagged malformed.

Two sources of pcaps: frames built by the Scapy layers (no C++ needed), and frames built by the
C++ codec and written by the project's pcap writer (mroce_pcap through _mroce.write_pcap).
Field values are compared through `tshark -T fields`; `tshark -V` is checked for the labels.
"""

import random
import subprocess

from mroce.scapy import Ether, MetaAck, MetaRoCE, Raw, crc_ok, ipv4_frame, ipv6_frame
from scapy.utils import wrpcap

from conftest import LUA_DISSECTOR
from meta_fields import (ALL_OPCODES, WIDTHS, fields_from_scapy, random_meta_fields,
                         scapy_from_fields)

CH_FIELDS = ["ch.ver", "ch.rsvd0", "ch.opcode", "ch.flags.ar", "ch.flags.rtx", "ch.flags.first",
             "ch.flags.last", "ch.flags.imm", "ch.flags.se", "ch.flags.ece", "ch.flags.trtx",
             "ch.flags.rsvd", "ch.dst_conn_id", "ch.path_id", "ch.path_epoch", "ch.payload_len",
             "ch.psn"]
ALL_FIELDS = (CH_FIELDS + ["%s.%s" % (p, n) for p in ("meh", "ack", "nack", "cmh", "prh")
                           for n, _ in WIDTHS[p]]
              + ["ack.sack", "payload", "crc"])
EXTRA = ["mroce.crc.status", "mroce.crc.computed", "mroce.ack.sack.bit", "mroce.ack.sack.psn",
         "_ws.malformed", "_ws.expert.severity"]
PI_ERROR = str(0x00800000)   # _ws.expert.severity of error-level expert info (epan/proto.h)
LABELS = ["MetaRoCE", "Common Header", "Opcode", "AR (ack requested)", "Reserved (rsvd_flags)",
          "Destination connection id", "Payload length", "PSN", "Message Extension Header",
          "ACK Header", "SACK bitvector", "NACK Header", "Connection Management Header",
          "Probe Header", "CRC status: Good"]


def run_tshark(tshark, pcap, *args):
    cmd = [tshark, "-n", "-X", "lua_script:%s" % LUA_DISSECTOR, "-r", str(pcap)] + list(args)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Lua: Error" not in out.stderr and "lua_script" not in out.stderr, out.stderr
    return out.stdout


def tshark_fields(tshark, pcap):
    """One dict per frame: codec field name (and EXTRA names) -> raw tshark text."""
    names = ["mroce." + n for n in ALL_FIELDS] + EXTRA
    args = ["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for n in names:
        args += ["-e", n]
    rows = []
    for line in run_tshark(tshark, pcap, *args).splitlines():
        cols = line.split("\t")
        assert len(cols) == len(names), line
        rows.append({n[len("mroce."):] if n.startswith("mroce.") and n[6:] in ALL_FIELDS else n: c
                     for n, c in zip(names, cols)})
    return rows


def as_int(text):
    if text in ("True", "False"):
        return int(text == "True")
    return int(text, 0)


def as_bytes(text):
    return bytes.fromhex(text.replace(":", ""))


def check_row(row, expected):
    """expected: codec-named flat dict (with ch.payload_len and crc)."""
    for name in ALL_FIELDS:
        if name not in expected:
            assert row[name] == "" or name == "payload" and expected.get("payload") == b"", \
                "%s unexpectedly present: %r" % (name, row[name])
            continue
        value = expected[name]
        if isinstance(value, bytes):
            got = as_bytes(row[name]) if row[name] else b""
        else:
            got = as_int(row[name])
        assert got == value, "%s: expected %r, tshark shows %r" % (name, value, row[name])
    assert row["_ws.malformed"] == ""
    if "ack.sack" in expected:
        sack = expected["ack.sack"]
        bits = [i for i in range(256) if sack[i // 8] & (0x80 >> (i % 8))]
        shown = [int(x) for x in row["mroce.ack.sack.bit"].split(",") if x]
        assert shown == bits
        psns = [int(x) for x in row["mroce.ack.sack.psn"].split(",") if x]
        assert psns == [(expected["ack.epsn"] + 1 + i) & 0xFFFFFFFF for i in bits]


def scapy_frames(seed, per_opcode):
    rng = random.Random(seed)
    frames, expected = [], []
    for opcode in ALL_OPCODES:
        for k in range(per_opcode):
            d = random_meta_fields(rng, opcode)
            builder = ipv4_frame if k % 2 == 0 else ipv6_frame
            frame = builder(scapy_from_fields(d), sport=rng.randrange(49152, 65536),
                            vlan=100 if k % 3 == 0 else None)
            raw = bytes(frame)
            frames.append(raw)
            expected.append(fields_from_scapy(Ether(raw)))
    return frames, expected


def test_scapy_pcap_every_field_decoded(tshark, tmp_path):
    frames, expected = scapy_frames(seed=2024, per_opcode=4)
    pcap = tmp_path / "scapy.pcap"
    wrpcap(str(pcap), [Ether(f) for f in frames])
    rows = tshark_fields(tshark, pcap)
    assert len(rows) == len(frames)
    for row, exp in zip(rows, expected):
        check_row(row, exp)
        assert row["mroce.crc.status"] == "1"
        assert as_int(row["mroce.crc.computed"]) == exp["crc"]
        assert PI_ERROR not in row["_ws.expert.severity"].split(",")   # no error-level expert info

    text = run_tshark(tshark, pcap, "-V")
    for label in LABELS:
        assert label in text, label
    assert "Malformed" not in text
    for name in ("WRITE", "READ_RESP", "ACK", "NACK", "CONNECT_REJ", "PROBE_ACK"):
        assert "Opcode: %s (0x" % name in text


def test_bad_crc_and_truncation_are_flagged(tshark, tmp_path):
    good = bytes(ipv4_frame(scapy_from_fields(random_meta_fields(random.Random(5), 0x03))))
    bad_crc = bytearray(good)
    bad_crc[-1] ^= 0xFF
    bad_meta = bytes(ipv4_frame(MetaRoCE(opcode="ACK", crc=0x1234)))   # also: ACKH missing
    ack_with_payload = bytes(ipv4_frame(MetaRoCE(opcode="ACK") / MetaAck() / Raw(b"junk")))
    pcap = tmp_path / "bad.pcap"
    wrpcap(str(pcap), [Ether(good), Ether(bytes(bad_crc)), Ether(bad_meta),
                       Ether(ack_with_payload)])
    assert crc_ok(Ether(good)) and not crc_ok(Ether(bytes(bad_crc)))
    rows = tshark_fields(tshark, pcap)
    assert rows[0]["mroce.crc.status"] == "1"
    assert rows[1]["mroce.crc.status"] == "0"
    assert PI_ERROR in rows[1]["_ws.expert.severity"].split(",")
    assert PI_ERROR in rows[2]["_ws.expert.severity"].split(",")   # truncated: error expert info
    text = run_tshark(tshark, pcap, "-V")
    assert "Bad MetaRoCE CRC" in text or "Bad CRC 0x" in text
    assert "CRC status: Bad" in text
    filtered = run_tshark(tshark, pcap, "-Y", "mroce.crc.bad")
    assert len(filtered.splitlines()) == 1
    assert rows[3]["mroce.crc.status"] == "1" and rows[3]["payload"] == "6a756e6b"
    flagged = run_tshark(tshark, pcap, "-Y", "mroce.payload.unexpected")
    assert len(flagged.splitlines()) == 1


def test_codec_pcap_every_field_decoded(codec, tshark, tmp_path):
    """Frames built by the C++ codec, written by the project's pcap writer, decoded by the Lua
    dissector with the values the codec itself parses back."""
    rng = random.Random(77)
    frames, expected = [], []
    for opcode in ALL_OPCODES:
        for k in range(4):
            d = random_meta_fields(rng, opcode)
            if k % 2:
                d = {"ip6.src": rng.randbytes(16), "ip6.dst": rng.randbytes(16), **d}
            d = {"udp.sport": rng.randrange(49152, 65536), "udp.dport": 4797, **d}
            raw = codec.serialize_frame(d)
            frames.append(raw)
            parsed = codec.parse_frame(raw)
            expected.append({k2: v for k2, v in parsed.items()
                             if k2.split(".")[0] in ("ch", "meh", "ack", "nack", "cmh", "prh")
                             or k2 in ("payload", "crc")})
    pcap = tmp_path / "codec.pcap"
    n = codec.write_pcap(pcap, frames)
    assert n == len(frames)
    rows = tshark_fields(tshark, pcap)
    assert len(rows) == len(frames)
    for row, exp in zip(rows, expected):
        check_row(row, exp)
        assert row["mroce.crc.status"] == "1"
    text = run_tshark(tshark, pcap, "-V")
    assert "Malformed" not in text and "CRC status: Bad" not in text
