"""RoCEv2 frames built by the C++ codec (BTH / RETH / AETH / ImmDt, UDP 4791, ICRC) are what
Scapy's own scapy.contrib.roce and tshark expect.

- Scapy: every IPv4 frame dissects to BTH (and AETH for ACKs) with the codec's field values, the
  extension headers and payload byte-equal, and BTH.compute_icrc() equal to the frame's ICRC;
  Scapy rebuilding the frame with icrc=None reproduces the codec's bytes. Scapy's compute_icrc
  has no IPv6 support (it warns and returns 0), so IPv6 ICRCs are checked against icrc_reference()
  below, an independent implementation of IBA annex A17 (also checked against Scapy on IPv4).
- The other way: frames Scapy builds (icrc computed by Scapy) parse in C++ with ICRC verification.
- tshark (4.0) decodes every frame as InfiniBand with the codec's BTH/RETH/AETH values, no
  malformed packet and no error-level expert info. tshark 4.0 does NOT verify the ICRC: its
  infiniband dissector only displays it (fields infiniband.invariant.crc / variant.crc; no status
  field, no expert info; see `tshark -G fields | grep infiniband` and `tshark -G expert`). We check
  the displayed value is the frame's ICRC; the verification itself is Scapy's and ours.
"""

import random
import struct
import subprocess
import zlib

import pytest
from scapy.contrib.roce import AETH, BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from shared_vectors import load_vectors

RETH_OPS = {0x06, 0x0A, 0x0B, 0x0C}
AETH_OPS = {0x0D, 0x0F, 0x10, 0x11}
IMM_OPS = {0x03, 0x05, 0x09, 0x0B}
NO_PAYLOAD_OPS = {0x0C, 0x11}
RC_OPS = list(range(0x00, 0x12))
PER_OPCODE = 50


def icrc_reference(frame):
    """ICRC per IBA annex A17 for RoCEv2 over IPv4/IPv6, from the annex, not from either codec:
    CRC-32 over 8 bytes of 0xFF, the IP header with the variant fields set to ones (IPv4: TOS, TTL,
    header checksum; IPv6: traffic class, flow label, hop limit), the UDP header with its checksum
    set to ones, the BTH with its byte 4 (FECN, BECN, resv6) set to ones, and the rest up to the
    ICRC; the result goes on the wire least significant byte first."""
    eth_len = 18 if frame[12:14] == b"\x81\x00" else 14
    ip = bytearray(frame[eth_len:-4])
    if ip[0] >> 4 == 4:
        ihl = (ip[0] & 0x0F) * 4
        ip[1] = 0xFF
        ip[8] = 0xFF
        ip[10:12] = b"\xff\xff"
    else:
        ihl = 40
        ip[0:4] = bytes([ip[0] | 0x0F, 0xFF, 0xFF, 0xFF])
        ip[7] = 0xFF
    ip[ihl + 6:ihl + 8] = b"\xff\xff"
    ip[ihl + 8 + 4] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip)) & 0xFFFFFFFF)


def random_roce_fields(rng, opcode, v6):
    d = {"eth.dst": rng.randbytes(6), "eth.src": rng.randbytes(6)}
    if v6:
        d.update({"ip6.src": rng.randbytes(16), "ip6.dst": rng.randbytes(16),
                  "ip6.dscp": rng.getrandbits(6), "ip6.ecn": rng.getrandbits(2),
                  "ip6.flow_label": rng.getrandbits(20), "ip6.hop_limit": rng.randrange(1, 256)})
    else:
        d.update({"ip4.src": rng.randbytes(4), "ip4.dst": rng.randbytes(4),
                  "ip4.dscp": rng.getrandbits(6), "ip4.ecn": rng.getrandbits(2),
                  "ip4.ttl": rng.randrange(1, 256)})
    d.update({"udp.sport": rng.randrange(49152, 65536), "udp.dport": 4791,
              "bth.opcode": opcode, "bth.se": rng.getrandbits(1), "bth.migreq": rng.getrandbits(1),
              "bth.tver": 0, "bth.pkey": rng.getrandbits(16), "bth.fecn": rng.getrandbits(1),
              "bth.becn": rng.getrandbits(1), "bth.resv6": 0, "bth.dest_qp": rng.getrandbits(24),
              "bth.ack_req": rng.getrandbits(1), "bth.resv7": 0, "bth.psn": rng.getrandbits(24)})
    if opcode in RETH_OPS:
        d.update({"reth.va": rng.getrandbits(64), "reth.rkey": rng.getrandbits(32),
                  "reth.dma_len": rng.getrandbits(31)})
    if opcode in AETH_OPS:
        d.update({"aeth.syndrome": rng.getrandbits(8), "aeth.msn": rng.getrandbits(24)})
    if opcode in IMM_OPS:
        d["imm"] = rng.getrandbits(32)
    # IBA: payload plus pad bytes is a multiple of 4; pad_count counts the trailing pad bytes.
    if opcode in NO_PAYLOAD_OPS:
        d["bth.pad_count"], d["payload"] = 0, b""
    else:
        data = rng.randbytes(rng.randrange(1, 257))
        pad = -len(data) % 4
        d["bth.pad_count"], d["payload"] = pad, data + bytes(pad)
    return d


def codec_roce_frames(codec, seed=4791, per_opcode=PER_OPCODE):
    rng = random.Random(seed)
    dicts = [random_roce_fields(rng, op, v6=(i % 4 == 3))
             for op in RC_OPS for i in range(per_opcode)]
    frames = codec.serialize_frame_many(dicts)
    for d, f in zip(dicts, frames):
        assert not isinstance(f, Exception), "%r: %s" % (d, f)
    return dicts, frames


def roce_vectors():
    return [(desc, raw) for _, desc, raw in load_vectors("roce.hex")]


def ext_bytes(fields):
    """RETH | AETH | ImmDt | payload as the codec describes them, in IBA order."""
    out = b""
    if "reth.va" in fields:
        out += struct.pack("!QII", fields["reth.va"], fields["reth.rkey"], fields["reth.dma_len"])
    if "aeth.syndrome" in fields:
        out += struct.pack("!I", (fields["aeth.syndrome"] << 24) | fields["aeth.msn"])
    if "imm" in fields:
        out += struct.pack("!I", fields["imm"])
    return out + fields["payload"]


def check_with_scapy(codec, raw):
    parsed = codec.parse_frame(raw)
    assert icrc_reference(raw) == raw[-4:], "ICRC differs from the annex A17 computation"
    pkt = Ether(raw)
    if IP not in pkt:
        return parsed   # Scapy's compute_icrc is IPv4 only
    assert BTH in pkt, "Scapy did not decode BTH"
    bth = pkt[BTH]
    assert bth.compute_icrc(None) == raw[-4:], "Scapy's ICRC differs"
    want = {"opcode": parsed["bth.opcode"], "solicited": parsed["bth.se"],
            "migreq": parsed["bth.migreq"], "padcount": parsed["bth.pad_count"],
            "version": parsed["bth.tver"], "pkey": parsed["bth.pkey"],
            "fecn": parsed["bth.fecn"], "becn": parsed["bth.becn"], "resv6": parsed["bth.resv6"],
            "dqpn": parsed["bth.dest_qp"], "ackreq": parsed["bth.ack_req"],
            "resv7": parsed["bth.resv7"], "psn": parsed["bth.psn"]}
    got = {k: int(bth.getfieldval(k)) for k in want}
    assert got == want
    rest = bytes(bth.payload)
    if AETH in pkt:     # Scapy binds AETH for ACKNOWLEDGE only; others stay Raw
        aeth = pkt[AETH]
        assert (aeth.syndrome, aeth.msn) == (parsed["aeth.syndrome"], parsed["aeth.msn"])
    assert rest == ext_bytes(parsed)
    # Scapy rebuilds the frame, computing the ICRC itself: identical bytes.
    pkt[BTH].icrc = None
    assert bytes(pkt) == raw, "Scapy rebuild with computed ICRC differs"
    return parsed


@pytest.mark.parametrize("vector", roce_vectors(), ids=lambda v: v[0])
def test_roce_vectors_accepted_by_scapy(codec, vector):
    check_with_scapy(codec, vector[1])


def test_random_roce_frames_accepted_by_scapy(codec):
    dicts, frames = codec_roce_frames(codec)
    for d, raw in zip(dicts, frames):
        parsed = check_with_scapy(codec, raw)
        assert {k: parsed[k] for k in d} == d


def test_scapy_built_roce_parses_in_cpp(codec):
    rng = random.Random(17)
    for i in range(200):
        payload = rng.randbytes(4 * rng.randrange(0, 64))
        ack = i % 2 == 1
        bth = BTH(opcode=0x11 if ack else 0x04, dqpn=rng.getrandbits(24), psn=rng.getrandbits(24),
                  pkey=rng.getrandbits(16), ackreq=rng.getrandbits(1))
        top = bth / AETH(syndrome=rng.getrandbits(8), msn=rng.getrandbits(24)) if ack else \
            bth / Raw(payload)
        frame = bytes(Ether() / IP(src="10.0.0.1", dst="10.0.0.2", tos=2, ttl=64, flags="DF")
                      / UDP(sport=49200, dport=4791, chksum=0) / top)
        parsed = codec.parse_frame(frame)   # verifies the ICRC
        assert parsed["bth.dest_qp"] == bth.dqpn and parsed["bth.psn"] == bth.psn
        assert parsed["icrc"] == struct.unpack("<I", frame[-4:])[0]


def test_roce_payload_alignment_in_vectors(codec):
    """IBA 9.2: PadCnt pad bytes align the payload to 4 bytes, so (payload incl. pad) % 4 == 0."""
    bad = [desc for desc, raw in roce_vectors()
           if len(codec.parse_frame(raw)["payload"]) % 4]
    assert not bad, "payload not 4-byte aligned in %s" % bad


TSHARK_FIELDS = ["frame.protocols", "infiniband.bth.opcode", "infiniband.bth.destqp",
                 "infiniband.bth.psn", "infiniband.bth.p_key", "infiniband.reth.va",
                 "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
                 "infiniband.aeth.msn", "infiniband.invariant.crc", "_ws.malformed",
                 "_ws.expert.severity"]
PI_ERROR = str(0x00800000)


UPPER_LAYER_PROTOCOLS = ["smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser", "infiniband.eoib",
                         "infiniband_sdp", "fcoib"]


def test_tshark_decodes_codec_roce(codec, tshark, tmp_path):
    dicts, frames = codec_roce_frames(codec, seed=99, per_opcode=6)
    aligned_vectors = [raw for _, raw in roce_vectors()
                       if len(codec.parse_frame(raw)["payload"]) % 4 == 0]
    frames = list(frames) + aligned_vectors
    pcap = tmp_path / "roce.pcap"
    assert codec.write_pcap(pcap, frames) == len(frames)
    cmd = [tshark, "-n", "-r", str(pcap), "-T", "fields", "-E", "occurrence=a",
           "-E", "aggregator=,"]
    # The payload bytes are synthetic: keep tshark's upper-layer heuristics (RPC-over-RDMA, iSER,
    # SMB Direct, ...) from decoding them as an application protocol; the transport is what we judge.
    for proto in UPPER_LAYER_PROTOCOLS:
        cmd += ["--disable-protocol", proto]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [dict(zip(TSHARK_FIELDS, line.split("\t"))) for line in out.stdout.splitlines()]
    assert len(rows) == len(frames)
    for i, (row, raw) in enumerate(zip(rows, frames)):
        p = codec.parse_frame(raw)
        where = "frame %d (%s)" % (i + 1, raw.hex())
        assert ":infiniband" in row["frame.protocols"], where
        assert row["_ws.malformed"] == "", where
        assert PI_ERROR not in row["_ws.expert.severity"].split(","), where
        assert int(row["infiniband.bth.opcode"]) == p["bth.opcode"], where
        assert int(row["infiniband.bth.destqp"], 0) == p["bth.dest_qp"], where
        assert int(row["infiniband.bth.psn"]) == p["bth.psn"], where
        assert int(row["infiniband.bth.p_key"]) == p["bth.pkey"], where
        if "reth.va" in p:
            assert int(row["infiniband.reth.va"], 0) == p["reth.va"], where
            assert int(row["infiniband.reth.r_key"], 0) == p["reth.rkey"], where
            assert int(row["infiniband.reth.dmalen"], 0) == p["reth.dma_len"], where
        if "aeth.msn" in p:
            assert int(row["infiniband.aeth.msn"]) == p["aeth.msn"], where
        # Displayed, not verified, by tshark: the wire bytes read big-endian.
        assert row["infiniband.invariant.crc"] and int(row["infiniband.invariant.crc"], 0) == int.from_bytes(raw[-4:], "big"), (where, row)
