// Trace: frame decoding, transport facts and telemetry lookups for checks.
#include "mroce/session/trace.h"

#include <map>
#include <set>
#include <tuple>

#include "mroce/wire/dump.h"

namespace mroce::session {

const char* EventName(FrameRecord::Event e) {
  switch (e) {
    case FrameRecord::Event::kTx: return "tx";
    case FrameRecord::Event::kRx: return "rx";
    case FrameRecord::Event::kDrop: return "drop";
  }
  return "?";
}

wire::Result<wire::Frame> Trace::Decode(const FrameRecord& r, uint16_t meta_port) {
  wire::ParseOptions o;
  o.meta_port = meta_port;
  return wire::ParseFrame(r.bytes, o);
}

std::string Trace::Dump(const FrameRecord& r, uint16_t meta_port) {
  wire::ParseOptions o;
  o.meta_port = meta_port;
  std::string head = std::string(EventName(r.event)) + " t=" + std::to_string(r.time_ns) + "ns host " +
                     std::to_string(r.src_host) + "->" + std::to_string(r.dst_host) + " plane " +
                     std::to_string(r.plane);
  if (r.frame_no != 0) head += " (pcap frame " + std::to_string(r.frame_no) + ")";
  if (!r.where.empty()) head += " dropped by " + r.where;
  return head + "\n" + wire::DescribeBytes(r.bytes, o);
}

namespace {

bool RoceIsData(wire::RoceOpcode op) {
  const auto v = static_cast<uint8_t>(op);
  // RC SEND/WRITE/READ request and READ response opcodes (0x00..0x10), not ACK (0x11).
  return v <= 0x10;
}

}  // namespace

void Trace::Analyze() {
  if (facts.size() == frames.size()) return;
  facts.assign(frames.size(), FrameFacts{});
  // RoCEv2 has no RTX flag: a data PSN a sender already sent on that QP is a retransmission.
  std::set<std::tuple<int, uint32_t, uint32_t>> roce_sent;  // (host, qp, psn)
  for (size_t i = 0; i < frames.size(); ++i) {
    const FrameRecord& r = frames[i];
    FrameFacts& f = facts[i];
    wire::ParseOptions o;
    o.meta_port = meta_port;
    auto parsed = wire::ParseFrame(r.bytes, o);
    if (!parsed.ok()) continue;
    const wire::Frame& fr = parsed.value();
    f.parsed = true;
    f.sport = fr.udp.sport;
    f.ce = fr.ecn() == 3;
    if (const wire::MetaPacket* m = fr.meta()) {
      f.meta = true;
      f.opcode = static_cast<uint8_t>(m->ch.opcode);
      f.path = m->ch.path_id;
      f.epoch = m->ch.path_epoch;
      f.psn = m->ch.psn;
      f.conn = m->ch.dst_conn_id;
      f.rtx = m->ch.Has(wire::kFlagRtx);
      f.data = wire::IsDataOpcode(m->ch.opcode);
      f.payload_bytes = static_cast<uint32_t>(m->payload.size());
      if (const wire::MessageExt* meh = m->meh()) {
        f.segment = f.data;
        f.stream = meh->stream_id;
        f.msn = meh->msn;
        f.msg_offset = meh->msg_offset;
      }
      if (const wire::AckHeader* a = m->ack()) {
        f.ack = true;
        f.rate_hint = a->rate_hint;
        f.ce_count = a->ce_count;
      }
      f.nack = m->nack() != nullptr;
    } else if (const wire::RocePacket* rp = fr.roce()) {
      f.roce = true;
      f.opcode = static_cast<uint8_t>(rp->bth.opcode);
      f.psn = rp->bth.psn;
      f.conn = rp->bth.dest_qp;
      f.data = RoceIsData(rp->bth.opcode);
      f.payload_bytes = static_cast<uint32_t>(rp->payload.size());
      if (rp->aeth && !f.data) {
        // AETH syndrome: 0b000xxxxx ACK, 0b001xxxxx RNR NAK, 0b011xxxxx NAK.
        const uint8_t kind = rp->aeth->syndrome >> 5;
        f.ack = kind == 0;
        f.nack = kind == 1 || kind == 3;
      }
      if (f.data && r.event == FrameRecord::Event::kTx) {
        f.rtx = !roce_sent.insert({r.src_host, f.conn, f.psn}).second;
      }
    }
  }
  // Drops and deliveries of a RoCEv2 frame inherit the RTX fact of its transmission.
  std::map<uint64_t, bool> rtx_by_origin;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].event == FrameRecord::Event::kTx && facts[i].roce) rtx_by_origin[frames[i].origin_id] = facts[i].rtx;
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].event != FrameRecord::Event::kTx && facts[i].roce) {
      auto it = rtx_by_origin.find(frames[i].origin_id);
      if (it != rtx_by_origin.end()) facts[i].rtx = it->second;
    }
  }
}

const TelemetrySample* Trace::LastTelemetry(int host) const {
  for (auto it = telemetry.rbegin(); it != telemetry.rend(); ++it) {
    if (it->host == host) return &*it;
  }
  return nullptr;
}

std::optional<CounterScope> ParseCounterScope(std::string_view text) {
  if (text == "any") return CounterScope::kAny;
  if (text == "endpoint") return CounterScope::kEndpoint;
  if (text == "connection") return CounterScope::kConnection;
  if (text == "path") return CounterScope::kPath;
  if (text == "path-rx") return CounterScope::kPathRx;
  return std::nullopt;
}

namespace {

// The scope of a dotted counter name, and whether its last component is `name`.
bool InScope(std::string_view full, const std::string& name, CounterScope scope) {
  if (scope == CounterScope::kAny && full == name) return true;
  if (full.size() <= name.size() + 1 || full.compare(full.size() - name.size(), name.size(), name) != 0 ||
      full[full.size() - name.size() - 1] != '.') {
    return false;
  }
  std::vector<std::string_view> parts;
  for (size_t at = 0;;) {
    const size_t dot = full.find('.', at);
    parts.push_back(full.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at));
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  switch (scope) {
    case CounterScope::kAny: return true;
    case CounterScope::kEndpoint: return parts.size() == 2 && parts[0] == "endpoint";
    case CounterScope::kConnection: return parts.size() == 3 && parts[0] == "conn";
    case CounterScope::kPath: return parts.size() == 4 && parts[0] == "path";
    case CounterScope::kPathRx: return parts.size() == 5 && parts[0] == "path" && parts[3] == "rx";
  }
  return false;
}

struct CountDef {
  TraceCountInfo info;
  bool (*match)(const FrameRecord&, const FrameFacts&);
};

bool DeliveredToDut(const FrameRecord& r, const FrameFacts& f) {
  return r.event == FrameRecord::Event::kRx && r.to_dut() && !r.corrupted && f.meta;
}
bool SentByDut(const FrameRecord& r, const FrameFacts& f) { return r.event == FrameRecord::Event::kTx && r.from_dut() && f.meta; }

const std::vector<CountDef>& CountDefs() {
  static const std::vector<CountDef> k = {
      {{"dut.data_tx", "data packets the DUT sent"}, [](const FrameRecord& r, const FrameFacts& f) { return SentByDut(r, f) && f.data; }},
      {{"dut.data_rtx", "data packets the DUT sent with RTX set"},
       [](const FrameRecord& r, const FrameFacts& f) { return SentByDut(r, f) && f.data && f.rtx; }},
      {{"dut.data_lost", "data packets of the DUT the fabric dropped or delivered corrupted"},
       [](const FrameRecord& r, const FrameFacts& f) {
         return r.from_dut() && f.meta && f.data && !r.duplicate &&
                (r.event == FrameRecord::Event::kDrop || (r.event == FrameRecord::Event::kRx && r.corrupted));
       }},
      {{"dut.data_rx", "data packets delivered to the DUT intact"},
       [](const FrameRecord& r, const FrameFacts& f) { return DeliveredToDut(r, f) && f.data; }},
      {{"dut.data_rx_ce", "CE-marked data packets delivered to the DUT intact"},
       [](const FrameRecord& r, const FrameFacts& f) { return DeliveredToDut(r, f) && f.data && f.ce; }},
      {{"dut.data_rx_dup", "data packets delivered to the DUT intact whose (connection, path, epoch, PSN) it had received"},
       nullptr},
      {{"dut.acks_tx", "ACKs the DUT sent"}, [](const FrameRecord& r, const FrameFacts& f) { return SentByDut(r, f) && f.ack; }},
      {{"dut.acks_rx", "ACKs delivered to the DUT intact"},
       [](const FrameRecord& r, const FrameFacts& f) { return DeliveredToDut(r, f) && f.ack; }},
      {{"dut.nacks_tx", "NACKs the DUT sent"}, [](const FrameRecord& r, const FrameFacts& f) { return SentByDut(r, f) && f.nack; }},
      {{"dut.nacks_rx", "NACKs delivered to the DUT intact"},
       [](const FrameRecord& r, const FrameFacts& f) { return DeliveredToDut(r, f) && f.nack; }},
  };
  return k;
}

}  // namespace

const std::vector<TraceCountInfo>& TraceCounts() {
  static const std::vector<TraceCountInfo> k = [] {
    std::vector<TraceCountInfo> v;
    for (const CountDef& d : CountDefs()) v.push_back(d.info);
    return v;
  }();
  return k;
}

std::optional<uint64_t> Trace::Count(std::string_view name) const {
  for (const CountDef& d : CountDefs()) {
    if (d.info.name != name) continue;
    uint64_t n = 0;
    if (d.match == nullptr) {  // dut.data_rx_dup
      std::set<std::tuple<uint32_t, uint32_t, uint8_t, uint32_t>> seen;
      for (size_t i = 0; i < frames.size() && i < facts.size(); ++i) {
        const FrameFacts& f = facts[i];
        if (!DeliveredToDut(frames[i], f) || !f.data) continue;
        n += seen.insert({f.conn, f.path, f.epoch, f.psn}).second ? 0 : 1;
      }
      return n;
    }
    for (size_t i = 0; i < frames.size() && i < facts.size(); ++i) n += d.match(frames[i], facts[i]) ? 1 : 0;
    return n;
  }
  return std::nullopt;
}

std::optional<uint64_t> Trace::CounterSum(int host, const std::string& name, CounterScope scope) const {
  const TelemetrySample* s = LastTelemetry(host);
  if (s == nullptr) return std::nullopt;
  bool any = false;
  uint64_t sum = 0;
  for (const auto& [full, v] : s->counters) {
    if (InScope(full, name, scope)) {
      sum += v;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return sum;
}

}  // namespace mroce::session
