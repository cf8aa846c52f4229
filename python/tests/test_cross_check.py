"""C++ codec (reference/wire via _mroce) and Scapy layers (mroce.scapy) agree byte for byte.

- Shared vectors (reference/wire/tests/vectors/*.hex): both decode every MetaRoCE vector to the
  same fields, and both rebuild the exact bytes.
- Random packets, RANDOM_COUNT (default 10,000) of EVERY opcode, seeded; each goes both ways:
    Scapy -> C++: Scapy builds from the field dict; C++ parses its bytes to exactly the generated
                  fields plus payload_len and a CRC equal to zlib's (in wire order);
    C++ -> Scapy: C++ builds from the same dict (payload_len and crc computed) and Scapy
                  dissects those bytes to exactly the same fields;
    and the two builders' bytes are equal.
  MetaRoCE packets (UDP payload) go through the batch API (parse_meta_many / serialize_meta_many);
  whole frames (Ether / 802.1Q / IPv4 | IPv6 / UDP) are checked the same way on FRAME_COUNT each.
The work is split over processes (one task per opcode and direction) to stay fast.
Set MROCE_PY_RANDOM_COUNT / MROCE_PY_FRAME_COUNT to change the counts; the seed is printed on failure.
"""

import multiprocessing
import os
import random
import zlib

import pytest

from mroce import codec as _codec
from mroce.scapy import OPCODES, Ether, MetaRoCE

from conftest import VECTORS_DIR
from shared_vectors import load_vectors
from frame_fields import build_frame, frame_fields_from_scapy, random_frame_fields, scapy_frame_from_fields
from meta_fields import ALL_OPCODES, build_scapy, fields_from_scapy, random_meta_fields

RANDOM_COUNT = int(os.environ.get("MROCE_PY_RANDOM_COUNT", "10000"))
FRAME_COUNT = int(os.environ.get("MROCE_PY_FRAME_COUNT", "200"))
SEED = int(os.environ.get("MROCE_PY_SEED", "20240601"))
MAX_REPORTED = 5


def describe_diff(expected, actual):
    """packetdrill-style: each differing field, expected vs actual in decimal and hex."""
    lines = []
    for name in list(expected) + [n for n in actual if n not in expected]:
        e, a = expected.get(name, "<absent>"), actual.get(name, "<absent>")
        if e != a:
            fmt = lambda v: v.hex() if isinstance(v, bytes) else (  # noqa: E731
                "%d (0x%x)" % (v, v) if isinstance(v, int) else str(v))
            lines.append("  %s: expected %s, actual %s" % (name, fmt(e), fmt(a)))
    return "\n".join(lines)


def with_computed(d, raw_meta):
    """d plus the fields a builder computes: ch.payload_len and crc (zlib, independent of both)."""
    out = {}
    for k, v in d.items():   # wire order: payload_len sits between path_epoch and psn
        if k == "ch.psn":
            out["ch.payload_len"] = len(d["payload"])
        out[k] = v
    out["crc"] = zlib.crc32(raw_meta[:-4])
    return out


# ---- workers (run in forked processes; return (checked, [failure text])) ----
# Each generated packet goes both ways: Scapy's bytes are parsed by C++, C++'s bytes (from the same
# field dict) are dissected by Scapy, and the two byte strings must be equal. One Scapy build and
# one Scapy dissection per packet: Scapy is the slow side.

def _meta_both_ways(opcode, seed, count):
    rng = random.Random(seed)
    dicts = [random_meta_fields(rng, opcode) for _ in range(count)]
    scapy_raws = [build_scapy(d) for d in dicts]
    cpp_parsed = _codec.parse_meta_many(scapy_raws)      # Scapy -> C++
    cpp_raws = _codec.serialize_meta_many(dicts)         # C++ -> Scapy
    failures = []
    for i, (d, sc_raw, got, cpp_raw) in enumerate(zip(dicts, scapy_raws, cpp_parsed, cpp_raws)):
        if len(failures) >= MAX_REPORTED:
            break
        exp = with_computed(d, sc_raw)
        where = "opcode 0x%02x seed %d #%d\n  scapy bytes %s" % (opcode, seed, i, sc_raw.hex())
        if isinstance(got, Exception):
            failures.append("%s\n  C++ parse error: %s" % (where, got))
            continue
        if got != exp or list(got) != list(exp):
            failures.append("%s\n  C++ parse of Scapy bytes:\n%s" % (
                where, describe_diff(exp, got) or "  field order differs"))
            continue
        if isinstance(cpp_raw, Exception):
            failures.append("%s\n  C++ serialize error: %s" % (where, cpp_raw))
            continue
        if cpp_raw != sc_raw:
            failures.append("%s\n  C++ bytes   %s" % (where, cpp_raw.hex()))
            continue
        sc = fields_from_scapy(MetaRoCE(cpp_raw))
        if sc != exp:
            failures.append("%s\n  Scapy dissection of C++ bytes:\n%s" % (
                where, describe_diff(exp, sc)))
    return count, failures


def _frame_both_ways(opcode, seed, count):
    rng = random.Random(seed)
    dicts = [random_frame_fields(rng, opcode) for _ in range(count)]
    scapy_raws = [build_frame(d) for d in dicts]
    cpp_parsed = _codec.parse_frame_many(scapy_raws)
    cpp_raws = _codec.serialize_frame_many(dicts)
    failures = []
    for i, (d, sc_raw, got, cpp_raw) in enumerate(zip(dicts, scapy_raws, cpp_parsed, cpp_raws)):
        if len(failures) >= MAX_REPORTED:
            break
        where = "frame opcode 0x%02x seed %d #%d\n  scapy bytes %s" % (opcode, seed, i,
                                                                        sc_raw.hex())
        if isinstance(got, Exception):
            failures.append("%s\n  C++ parse error: %s" % (where, got))
            continue
        given = {k: got.get(k, "<absent>") for k in d}
        if given != d:
            failures.append("%s\n  C++ parse vs generated fields:\n%s" % (
                where, describe_diff(d, given)))
            continue
        if isinstance(cpp_raw, Exception):
            failures.append("%s\n  C++ serialize error: %s" % (where, cpp_raw))
            continue
        if cpp_raw != sc_raw:
            failures.append("%s\n  C++ bytes   %s" % (where, cpp_raw.hex()))
            continue
        sc = frame_fields_from_scapy(Ether(cpp_raw))
        if sc != got:
            failures.append("%s\n  Scapy dissection vs C++ parse:\n%s" % (
                where, describe_diff(got, sc)))
    return count, failures


WORKERS = {"meta": _meta_both_ways, "frame": _frame_both_ways}


def _run(task):
    kind, opcode, seed, count = task
    return (kind, opcode) + WORKERS[kind](opcode, seed, count)


def run_tasks(tasks):
    procs = min(len(tasks), os.cpu_count() or 1, 4)
    if procs <= 1:
        return [_run(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(procs) as pool:
        return pool.map(_run, tasks, chunksize=1)


def assert_all_agree(results, expected_count):
    failures, counts = [], {}
    for kind, opcode, checked, fails in results:
        counts[(kind, opcode)] = checked
        failures += ["[%s] %s" % (kind, f) for f in fails]
    assert not failures, "%d disagreement(s) (first ones):\n%s" % (
        len(failures), "\n".join(failures[:20]))
    assert all(c == expected_count for c in counts.values()), counts


# ---- tests ----

def test_random_meta_both_directions(codec):
    tasks = [("meta", op, SEED + op, RANDOM_COUNT) for op in ALL_OPCODES]
    results = run_tasks(tasks)
    assert_all_agree(results, RANDOM_COUNT)
    assert sorted(op for _, op, _, _ in results) == ALL_OPCODES


def test_random_frames_both_directions(codec):
    tasks = [("frame", op, SEED + 1000 + op, FRAME_COUNT) for op in ALL_OPCODES]
    assert_all_agree(run_tasks(tasks), FRAME_COUNT)


def test_meta_crc_functions_agree(codec):
    rng = random.Random(SEED)
    for n in (0, 1, 3, 4, 16, 100, 1500, 9000):
        data = rng.randbytes(n)
        assert codec.crc32(data) == zlib.crc32(data) == codec.meta_crc(data)


def test_parse_error_names_field_and_offset(codec):
    raw = build_scapy(random_meta_fields(random.Random(1), 0x10))
    with pytest.raises(codec.ParseError) as e:
        codec.parse_meta(raw[:30])
    assert e.value.field.startswith("ack.") and isinstance(e.value.offset, int)
    assert isinstance(e.value, ValueError)
    bad = bytearray(raw)
    bad[-1] ^= 1
    with pytest.raises(ValueError) as e:
        codec.parse_meta(bytes(bad))
    assert e.value.field == "crc"
    assert codec.parse_meta(bytes(bad), verify_crc=False)["crc"] == int.from_bytes(bad[-4:], "big")
    with pytest.raises(ValueError) as e:
        codec.parse_meta(bytes(MetaRoCE(opcode=0x7F)))
    assert e.value.field == "ch.opcode" and e.value.offset == 1


# ---- shared vectors ----

def _meta_vectors():
    return [v for v in load_vectors("meta.hex")]


def _invalid_vectors():
    return [v for v in load_vectors("meta_invalid.hex")]


@pytest.mark.parametrize("vector", _meta_vectors(), ids=lambda v: v[1])
def test_shared_vector(codec, vector):
    """Both decode the vector to the same fields and both rebuild exactly its bytes."""
    _, desc, raw = vector
    got = codec.parse_frame(raw)
    exact = codec.serialize_frame(got, fill_lengths=False, fill_checksums=False, fill_crc=False)
    assert exact == raw, "C++ exact rebuild differs"
    assert codec.serialize_frame(got) == raw, "C++ rebuild with computed fields differs"
    pkt = Ether(raw)
    sc = frame_fields_from_scapy(pkt)
    cpp = {k: v for k, v in got.items() if k != "eth.padding"}
    assert sc == cpp, describe_diff(cpp, sc)
    assert pkt[MetaRoCE].crc_ok()
    assert bytes(pkt) == raw, "Scapy rebuild differs"
    # And Scapy building from the C++ field dict (lengths, checksums, CRC computed) matches.
    rebuilt = bytes(scapy_frame_from_fields(cpp))
    padding = got.get("eth.padding", b"")
    assert rebuilt + padding == raw, "Scapy build from fields differs:\n  %s\n  %s" % (
        raw.hex(), rebuilt.hex())


@pytest.mark.parametrize("vector", _invalid_vectors(), ids=lambda v: v[1])
def test_shared_invalid_vector(codec, vector):
    """The codec rejects the vector naming the field its comment names; where the defect is in
    MetaRoCE, Scapy sees it too."""
    _, desc, raw = vector
    field = desc.split()[1].rstrip(":")
    with pytest.raises(codec.ParseError) as e:
        codec.parse_frame(raw)
    assert e.value.field == field, str(e.value)
    pkt = Ether(raw)
    if field == "crc":
        assert not pkt[MetaRoCE].crc_ok()
    elif field == "ch.payload_len":
        ch = pkt[MetaRoCE]
        present = len(ch.do_build()) - 16 - 4 - ch.ext_header_len()
        assert ch.payload_len != present
    elif field == "ch.opcode":
        assert pkt[MetaRoCE].opcode not in OPCODES


def test_vectors_present():
    assert _meta_vectors() and _invalid_vectors(), "no shared vectors in %s" % VECTORS_DIR
