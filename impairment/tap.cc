#include "mroce/impairment/tap.h"

#include <cinttypes>
#include <string_view>

namespace mroce::impairment {

const char* EventName(TraceRecord::Event e) {
  switch (e) {
    case TraceRecord::Event::kTx: return "tx";
    case TraceRecord::Event::kRx: return "rx";
    case TraceRecord::Event::kDrop: return "drop";
  }
  return "?";
}

std::string TraceRecord::ToJson() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"t_ns\":%" PRId64 ",\"event\":\"%s\",\"host\":%d,\"plane\":%d,\"id\":%" PRIu64
                ",\"origin\":%" PRIu64 ",\"len\":%u,\"dup\":%s,\"ce\":%s,\"corrupt\":%s",
                time_ns, EventName(event), host, plane, packet_id, origin_id, length, duplicate ? "true" : "false",
                ce ? "true" : "false", corrupted ? "true" : "false");
  std::string s = buf;
  if (meta) {
    std::snprintf(buf, sizeof buf, ",\"opcode\":%u,\"path\":%u,\"psn\":%u,\"sport\":%u", opcode, path_id, psn, sport);
    s += buf;
  }
  if (!where.empty()) s += ",\"where\":\"" + where + "\"";  // Stage names are plain identifiers.
  s += ",\"fate\":\"" + fate + "\"}";
  return s;
}

Tap::Tap(Fabric* fabric, int host, Options options) : host_(host), options_(std::move(options)) {
  if (!options_.pcap_path.empty()) {
    auto opened = pcap::Writer::Open(options_.pcap_path);
    if (opened.ok()) pcap_ = std::move(*opened);
    else status_ = opened.error();
  }
  if (!options_.jsonl_path.empty()) {
    jsonl_ = std::fopen(options_.jsonl_path.c_str(), "w");
    if (jsonl_ == nullptr) status_ = mroce::MakeError("trace.create", "cannot create trace '" + options_.jsonl_path + "'");
  }
  fabric->AddObserver(this);
}

Tap::~Tap() {
  Flush();
  if (jsonl_ != nullptr) std::fclose(jsonl_);
}

void Tap::Flush() {
  if (pcap_) pcap_->Flush();
  if (jsonl_ != nullptr) std::fflush(jsonl_);
}

void Tap::Record(TraceRecord::Event e, const Packet& p, const char* where, Time now) {
  TraceRecord r;
  r.event = e;
  r.time_ns = now.nanos();
  r.host = host_;
  r.plane = p.plane;
  r.packet_id = p.id;
  r.origin_id = p.origin_id;
  r.length = static_cast<uint32_t>(p.bytes.size());
  r.duplicate = p.is_duplicate;
  r.ce = p.ce_marked;
  r.corrupted = p.corrupted;
  if (where != nullptr) r.where = where;
  r.fate = p.FateString();
  const PacketInfo& i = p.Info();
  r.meta = i.meta;
  r.opcode = i.opcode;
  r.path_id = i.path_id;
  r.psn = i.psn;
  r.sport = i.sport;
  if (pcap_ && e != TraceRecord::Event::kDrop) pcap_->Write(r.time_ns, p.bytes);
  if (jsonl_ != nullptr) {
    const std::string line = r.ToJson();
    std::fputs(line.c_str(), jsonl_);
    std::fputc('\n', jsonl_);
  }
  if (options_.keep_records) records_.push_back(std::move(r));
}

void Tap::OnSend(int host, const Packet& p, Time now) {
  if (host == host_) Record(TraceRecord::Event::kTx, p, nullptr, now);
}

void Tap::OnDeliver(int host, const Packet& p, Time now) {
  if (host == host_) Record(TraceRecord::Event::kRx, p, nullptr, now);
}

void Tap::OnDrop(const Packet& p, const char* where, Time now) {
  const bool routed = std::string_view(where) != "fabric.route";
  if (p.src_host == host_ || (routed && p.dst_host == host_)) Record(TraceRecord::Event::kDrop, p, where, now);
}

}  // namespace mroce::impairment
