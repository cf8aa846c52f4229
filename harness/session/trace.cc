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
        f.stream = meh->stream_id;
        f.msn = meh->msn;
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

std::optional<uint64_t> Trace::CounterSum(int host, const std::string& suffix) const {
  const TelemetrySample* s = LastTelemetry(host);
  if (s == nullptr) return std::nullopt;
  bool any = false;
  uint64_t sum = 0;
  const std::string dotted = "." + suffix;
  for (const auto& [name, v] : s->counters) {
    if (name == suffix || (name.size() > dotted.size() && name.compare(name.size() - dotted.size(), dotted.size(), dotted) == 0)) {
      sum += v;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return sum;
}

}  // namespace mroce::session
