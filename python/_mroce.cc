// _mroce: pybind11 module exposing the C++ wire codec (reference/wire) to Python as bytes <-> dict.
//
// A packet crosses the boundary as the codec's FieldMap: a Python dict in wire order whose keys are
// field-table names ("ch.opcode", "ack.sack", "payload", "crc") and whose values are int (scalar
// fields) or bytes (addresses, ack.sack, payload). Codec errors raise _mroce.ParseError, a ValueError
// subclass with attributes `field`, `offset` and `message`. The *_many functions convert whole
// batches in one call so random cross-checks do not pay the Python call overhead per packet.
// Python users import mroce.codec, which wraps this module. Built with the campaign library, it also
// runs campaigns (run_campaign, campaign_binding.cc; Python users call mroce.run).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mroce/wire/wire.h"

#ifdef MROCE_HAVE_PCAP
#include "mroce/pcap/pcap.h"
#endif
#ifdef MROCE_HAVE_CAMPAIGN
#include "campaign_binding.h"
#endif

namespace py = pybind11;
namespace w = mroce::wire;

namespace {

// _mroce.ParseError; created at import, never freed (lives as long as the interpreter).
PyObject* g_parse_error = nullptr;

// Builds a ParseError instance carrying the codec's field, offset and message.
py::object MakeParseError(const w::Error& e) {
  py::object type = py::reinterpret_borrow<py::object>(g_parse_error);
  py::object exc = type(e.ToString());
  exc.attr("field") = e.code;
  exc.attr("offset") = e.offset.value_or(0);
  exc.attr("message") = e.message;
  return exc;
}

[[noreturn]] void Raise(const w::Error& e) {
  py::object exc = MakeParseError(e);
  PyErr_SetObject(g_parse_error, exc.ptr());
  throw py::error_already_set();
}

std::span<const uint8_t> AsSpan(const py::buffer_info& info) {
  return {static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size * info.itemsize)};
}

py::bytes ToPyBytes(std::span<const uint8_t> b) {
  return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

py::dict ToDict(const w::FieldMap& fm) {
  py::dict d;
  for (const auto& entry : fm) {
    if (const auto* v = std::get_if<uint64_t>(&entry.value)) {
      d[py::str(entry.name)] = py::int_(*v);
    } else {
      d[py::str(entry.name)] = ToPyBytes(std::get<w::Bytes>(entry.value));
    }
  }
  return d;
}

// Accepts int (0 .. 2^64-1), bool, bytes, bytearray and memoryview values.
w::FieldMap FromDict(const py::dict& d) {
  w::FieldMap fm;
  for (auto item : d) {
    std::string name = py::cast<std::string>(py::str(item.first));
    py::handle v = item.second;
    if (py::isinstance<py::bytes>(v) || py::isinstance<py::bytearray>(v) ||
        py::isinstance<py::memoryview>(v)) {
      py::buffer_info info = py::reinterpret_borrow<py::buffer>(v).request();
      auto s = AsSpan(info);
      fm.Set(name, w::FieldValue(w::Bytes(s.begin(), s.end())));
    } else if (PyLong_Check(v.ptr())) {
      unsigned long long x = PyLong_AsUnsignedLongLong(v.ptr());
      if (x == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();  // OverflowError (negative or >= 2^64): reported as a ParseError instead
        Raise(w::FieldError(name, 0, "value out of range 0..2^64-1"));
      }
      fm.Set(name, static_cast<uint64_t>(x));
    } else {
      Raise(w::FieldError(name, 0, "value must be int or bytes, got " +
                          py::cast<std::string>(py::str(py::type::of(v).attr("__name__")))));
    }
  }
  return fm;
}

struct BytesArg {
  py::buffer_info info;
  std::span<const uint8_t> span;
  explicit BytesArg(const py::buffer& b) : info(b.request()), span(AsSpan(info)) {}
};

py::dict ParseFrameDict(const py::buffer& data, uint16_t meta_port, uint16_t roce_port,
                        bool verify_crc, bool verify_ip_checksum, bool verify_udp_checksum) {
  BytesArg in(data);
  w::ParseOptions opts;
  opts.meta_port = meta_port;
  opts.roce_port = roce_port;
  opts.verify_crc = verify_crc;
  opts.verify_ip_checksum = verify_ip_checksum;
  opts.verify_udp_checksum = verify_udp_checksum;
  auto r = w::ParseFrame(in.span, opts);
  if (!r.ok()) Raise(r.error());
  return ToDict(w::ToFieldMap(*r));
}

w::SerializeOptions FrameOpts(bool fill_lengths, bool fill_checksums, bool fill_crc) {
  w::SerializeOptions o;
  o.fill_lengths = fill_lengths;
  o.fill_checksums = fill_checksums;
  o.fill_crc = fill_crc;
  return o;
}

w::MetaSerializeOptions MetaOpts(bool fill_payload_len, bool fill_crc) {
  w::MetaSerializeOptions o;
  o.fill_payload_len = fill_payload_len;
  o.fill_crc = fill_crc;
  return o;
}

py::bytes SerializeFrameDict(const py::dict& fields, bool fill_lengths, bool fill_checksums,
                             bool fill_crc) {
  auto frame = w::FromFieldMap(FromDict(fields));
  if (!frame.ok()) Raise(frame.error());
  auto out = w::SerializeFrame(*frame, FrameOpts(fill_lengths, fill_checksums, fill_crc));
  return ToPyBytes(out);
}

py::dict ParseMetaDict(const py::buffer& data, bool verify_crc) {
  BytesArg in(data);
  auto r = w::ParseMeta(in.span, 0, verify_crc);
  if (!r.ok()) Raise(r.error());
  return ToDict(w::ToFieldMap(*r));
}

py::bytes SerializeMetaDict(const py::dict& fields, bool fill_payload_len, bool fill_crc) {
  auto pkt = w::MetaFromFieldMap(FromDict(fields));
  if (!pkt.ok()) Raise(pkt.error());
  return ToPyBytes(w::SerializeMeta(*pkt, MetaOpts(fill_payload_len, fill_crc)));
}

// Batch forms: a list in, a list out; a failing element yields a ParseError *instance* in its slot
// (not raised) so one bad packet does not hide the results of the others.
py::list ParseMetaMany(const py::list& items, bool verify_crc) {
  py::list out;
  for (auto item : items) {
    BytesArg in(py::reinterpret_borrow<py::buffer>(item));
    auto r = w::ParseMeta(in.span, 0, verify_crc);
    out.append(r.ok() ? py::object(ToDict(w::ToFieldMap(*r))) : MakeParseError(r.error()));
  }
  return out;
}

py::list SerializeMetaMany(const py::list& items, bool fill_payload_len, bool fill_crc) {
  py::list out;
  for (auto item : items) {
    auto pkt = w::MetaFromFieldMap(FromDict(py::reinterpret_borrow<py::dict>(item)));
    if (!pkt.ok()) {
      out.append(MakeParseError(pkt.error()));
      continue;
    }
    out.append(ToPyBytes(w::SerializeMeta(*pkt, MetaOpts(fill_payload_len, fill_crc))));
  }
  return out;
}

py::list ParseFrameMany(const py::list& items, bool verify_crc) {
  w::ParseOptions opts;
  opts.verify_crc = verify_crc;
  py::list out;
  for (auto item : items) {
    BytesArg in(py::reinterpret_borrow<py::buffer>(item));
    auto r = w::ParseFrame(in.span, opts);
    out.append(r.ok() ? py::object(ToDict(w::ToFieldMap(*r))) : MakeParseError(r.error()));
  }
  return out;
}

py::list SerializeFrameMany(const py::list& items, bool fill_lengths, bool fill_checksums,
                            bool fill_crc) {
  py::list out;
  for (auto item : items) {
    auto frame = w::FromFieldMap(FromDict(py::reinterpret_borrow<py::dict>(item)));
    if (!frame.ok()) {
      out.append(MakeParseError(frame.error()));
      continue;
    }
    out.append(ToPyBytes(
        w::SerializeFrame(*frame, FrameOpts(fill_lengths, fill_checksums, fill_crc))));
  }
  return out;
}

py::list FieldInfos() {
  py::list out;
  for (const auto& fi : w::AllFieldInfos()) {
    py::dict d;
    d["header"] = std::string(fi.header);
    d["name"] = std::string(fi.name);
    d["byte_offset"] = fi.byte_offset;
    d["bit_offset"] = fi.bit_offset;
    d["bit_width"] = fi.bit_width;
    d["is_bytes"] = fi.is_bytes;
    d["is_fixed"] = fi.is_fixed;
    out.append(d);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_mroce, m) {
  m.doc() = "MetaRoCE / RoCEv2 wire codec (C++ reference/wire) as bytes <-> dict";

  g_parse_error = PyErr_NewExceptionWithDoc(
      "_mroce.ParseError",
      "Codec error: attributes field (field-table name), offset (bytes) and message.",
      PyExc_ValueError, nullptr);
  m.attr("ParseError") = py::handle(g_parse_error);

  m.def("parse_frame", &ParseFrameDict, py::arg("data"), py::arg("meta_port") = w::kMetaUdpPort,
        py::arg("roce_port") = w::kRoceUdpPort, py::arg("verify_crc") = true,
        py::arg("verify_ip_checksum") = true, py::arg("verify_udp_checksum") = false,
        "Parse an Ethernet frame; returns the FieldMap as an ordered dict.");
  m.def("serialize_frame", &SerializeFrameDict, py::arg("fields"), py::arg("fill_lengths") = true,
        py::arg("fill_checksums") = true, py::arg("fill_crc") = true,
        "Build an Ethernet frame from a (possibly sparse) field dict.");
  m.def("parse_meta", &ParseMetaDict, py::arg("data"), py::arg("verify_crc") = true,
        "Parse a MetaRoCE packet (the UDP payload: CH .. CRC).");
  m.def("serialize_meta", &SerializeMetaDict, py::arg("fields"),
        py::arg("fill_payload_len") = true, py::arg("fill_crc") = true,
        "Build a MetaRoCE packet (CH .. CRC) from a field dict.");
  m.def("parse_meta_many", &ParseMetaMany, py::arg("items"), py::arg("verify_crc") = true);
  m.def("serialize_meta_many", &SerializeMetaMany, py::arg("items"),
        py::arg("fill_payload_len") = true, py::arg("fill_crc") = true);
  m.def("parse_frame_many", &ParseFrameMany, py::arg("items"), py::arg("verify_crc") = true);
  m.def("serialize_frame_many", &SerializeFrameMany, py::arg("items"),
        py::arg("fill_lengths") = true, py::arg("fill_checksums") = true,
        py::arg("fill_crc") = true);

  m.def("crc32", [](const py::buffer& b) { BytesArg in(b); return w::Crc32(in.span); },
        py::arg("data"), "IEEE 802.3 CRC-32 (= zlib.crc32).");
  m.def("meta_crc", [](const py::buffer& b) { BytesArg in(b); return w::MetaCrc(in.span); },
        py::arg("ch_through_payload"), "CRC the MetaRoCE trailer should hold.");
  m.def("roce_icrc", [](const py::buffer& b) { BytesArg in(b); return w::RoceIcrc(in.span); },
        py::arg("ip_packet"),
        "RoCEv2 ICRC of an IP packet (IP header .. ICRC placeholder); wire order little-endian.");
  m.def("describe", [](const py::buffer& b) { BytesArg in(b); return w::DescribeBytes(in.span); },
        py::arg("frame"), "Human-readable dump of a frame, or its parse error plus a hex dump.");
  m.def("dump_fields", [](const py::dict& d) { return w::DumpFieldMap(FromDict(d)); },
        py::arg("fields"));
  m.def("field_infos", &FieldInfos, "Every field-table row of every header, in wire order.");
  m.def("opcode_name", [](uint8_t op) { return std::string(w::OpcodeName(w::Opcode{op})); });
  m.def("roce_opcode_name",
        [](uint8_t op) { return std::string(w::RoceOpcodeName(w::RoceOpcode{op})); });

  py::dict opcodes;
  for (int op = 0; op < 256; ++op) {
    if (w::IsKnownOpcode(w::Opcode{static_cast<uint8_t>(op)})) {
      opcodes[py::str(std::string(w::OpcodeName(w::Opcode{static_cast<uint8_t>(op)})))] = op;
    }
  }
  m.attr("OPCODES") = opcodes;
  m.attr("META_UDP_PORT") = w::kMetaUdpPort;
  m.attr("ROCE_UDP_PORT") = w::kRoceUdpPort;
  m.attr("UET_UDP_PORT") = w::kUetUdpPort;
  m.attr("ENTROPY_PORT_MIN") = w::kEntropyPortMin;
  m.attr("ENTROPY_PORT_MAX") = w::kEntropyPortMax;
  m.attr("META_VERSION") = w::kMetaVersion;
  m.attr("COMMON_HEADER_SIZE") = w::kCommonHeaderSize;
  m.attr("MESSAGE_EXT_SIZE") = w::kMessageExtSize;
  m.attr("ACK_HEADER_SIZE") = w::kAckHeaderSize;
  m.attr("NACK_HEADER_SIZE") = w::kNackHeaderSize;
  m.attr("CONN_MGMT_HEADER_SIZE") = w::kConnMgmtHeaderSize;
  m.attr("PROBE_HEADER_SIZE") = w::kProbeHeaderSize;
  m.attr("CRC_SIZE") = w::kCrcSize;
  m.attr("SACK_BITS") = w::kSackBits;
  m.attr("FLAG_AR") = w::kFlagAr;
  m.attr("FLAG_RTX") = w::kFlagRtx;
  m.attr("FLAG_FIRST") = w::kFlagFirst;
  m.attr("FLAG_LAST") = w::kFlagLast;
  m.attr("FLAG_IMM") = w::kFlagImm;
  m.attr("FLAG_SE") = w::kFlagSe;
  m.attr("FLAG_ECE") = w::kFlagEce;
  m.attr("FLAG_TRTX") = w::kFlagTrtx;

#ifdef MROCE_HAVE_PCAP
  m.def(
      "write_pcap",
      [](const std::string& path, const py::list& frames) {
        auto opened = mroce::pcap::Writer::Open(path);
        if (!opened.ok()) throw std::runtime_error("write_pcap: " + opened.error().message);
        auto& writer = *opened;
        int64_t i = 0;
        for (auto item : frames) {
          int64_t t = i * 1000;  // 1 us apart unless (time_ns, bytes) tuples are given
          py::object frame = py::reinterpret_borrow<py::object>(item);
          if (py::isinstance<py::tuple>(item)) {
            auto tup = py::reinterpret_borrow<py::tuple>(item);
            t = py::cast<int64_t>(tup[0]);
            frame = tup[1];
          }
          BytesArg in(py::reinterpret_borrow<py::buffer>(frame));
          writer->Write(t, in.span);
          ++i;
        }
        writer->Flush();
        return writer->records_written();
      },
      py::arg("path"), py::arg("frames"),
      "Write frames (bytes, or (time_ns, bytes)) with the project's pcap writer (mroce_pcap).");
  m.attr("HAVE_PCAP") = true;
#else
  m.attr("HAVE_PCAP") = false;
#endif

#ifdef MROCE_HAVE_CAMPAIGN
  BindCampaign(m);  // run_campaign: mroce.run
  m.attr("HAVE_CAMPAIGN") = true;
#else
  m.attr("HAVE_CAMPAIGN") = false;
#endif
}
