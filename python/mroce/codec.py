"""The C++ wire codec (reference/wire) from Python: bytes <-> field dict.

A packet is the codec's FieldMap as an ordered dict: keys are field-table names in wire order
("eth.dst", "ip4.ecn", "udp.src_port", "ch.opcode", "ch.flags.ar", "ack.sack", "payload", "crc"),
values are int for scalar fields and bytes for addresses, the SACK bitvector and the payload.
Codec errors raise ``ParseError`` (a ValueError) with ``field``, ``offset`` and ``message``.

The compiled module ``_mroce`` is built by CMake into ``<build>/python``; put that directory and
``<src>/python`` on PYTHONPATH (ctest does). ``available()`` tells whether it could be imported.

    >>> from mroce import codec
    >>> frame = codec.serialize_frame({"ip4.src": bytes([10, 0, 0, 1]), "ch.opcode": 0x10,
    ...                                "ack.epsn": 5})
    >>> codec.parse_frame(frame)["ack.epsn"]
    5
"""

import os
import sys

__all__ = [
    "available", "import_error", "ParseError", "parse_frame", "serialize_frame", "parse_meta",
    "serialize_meta", "parse_meta_many", "serialize_meta_many", "parse_frame_many",
    "serialize_frame_many", "crc32", "meta_crc", "roce_icrc", "describe", "field_infos",
    "write_pcap", "OPCODES", "META_UDP_PORT", "ROCE_UDP_PORT",
]


def _import():
    try:
        import _mroce  # noqa: F401
        return _mroce, None
    except ImportError as first:
        # Fall back to $MROCE_BUILD_DIR/python when PYTHONPATH lacks the build dir.
        build = os.environ.get("MROCE_BUILD_DIR")
        if build:
            sys.path.append(os.path.join(build, "python"))
            try:
                import _mroce  # noqa: F401
                return _mroce, None
            except ImportError as second:
                return None, second
        return None, first


_m, import_error = _import()


def available():
    """True when the compiled codec module is importable."""
    return _m is not None


if _m is not None:
    ParseError = _m.ParseError
    parse_frame = _m.parse_frame
    serialize_frame = _m.serialize_frame
    parse_meta = _m.parse_meta
    serialize_meta = _m.serialize_meta
    parse_meta_many = _m.parse_meta_many
    serialize_meta_many = _m.serialize_meta_many
    parse_frame_many = _m.parse_frame_many
    serialize_frame_many = _m.serialize_frame_many
    crc32 = _m.crc32
    meta_crc = _m.meta_crc
    roce_icrc = _m.roce_icrc
    describe = _m.describe
    field_infos = _m.field_infos
    OPCODES = dict(_m.OPCODES)
    META_UDP_PORT = _m.META_UDP_PORT
    ROCE_UDP_PORT = _m.ROCE_UDP_PORT

    def write_pcap(path, frames):
        """Write frames (bytes or (time_ns, bytes)) to a pcap, with the project's writer when
        _mroce was built with mroce_pcap, else with Scapy."""
        if getattr(_m, "HAVE_PCAP", False):
            return _m.write_pcap(str(path), list(frames))
        return _write_pcap_scapy(path, frames)
else:
    class ParseError(ValueError):
        """Placeholder: the compiled module is missing, so nothing raises this."""

    def _missing(*_args, **_kwargs):
        raise ImportError("mroce.codec: _mroce is not built or not on PYTHONPATH (%s)"
                          % import_error)

    parse_frame = serialize_frame = parse_meta = serialize_meta = _missing
    parse_meta_many = serialize_meta_many = parse_frame_many = serialize_frame_many = _missing
    crc32 = meta_crc = roce_icrc = describe = field_infos = _missing
    OPCODES = {}
    META_UDP_PORT, ROCE_UDP_PORT = 4797, 4791

    def write_pcap(path, frames):
        return _write_pcap_scapy(path, frames)


def _write_pcap_scapy(path, frames):
    from scapy.utils import RawPcapWriter
    w = RawPcapWriter(str(path), linktype=1, nano=True)
    n = 0
    for i, f in enumerate(frames):
        t, data = f if isinstance(f, tuple) else (i * 1000, f)
        w.write_packet(bytes(data), sec=t // 10**9, usec=t % 10**9)
        n += 1
    w.close()
    return n
