#include "mroce/pcap/pcap.h"

#include <pcap/pcap.h>

#include <algorithm>

namespace mroce::pcap {

struct Writer::Impl {
  pcap_t* dead = nullptr;
  pcap_dumper_t* dumper = nullptr;
  ~Impl() {
    if (dumper != nullptr) pcap_dump_close(dumper);
    if (dead != nullptr) pcap_close(dead);
  }
};

Writer::~Writer() = default;

Result<std::unique_ptr<Writer>> Writer::Open(const std::string& path, uint32_t snap_length) {
  auto impl = std::make_unique<Writer::Impl>();
  impl->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, static_cast<int>(snap_length),
                                                    PCAP_TSTAMP_PRECISION_NANO);
  if (impl->dead == nullptr) return MakeError("pcap.create", "pcap_open_dead failed");
  impl->dumper = pcap_dump_open(impl->dead, path.c_str());
  if (impl->dumper == nullptr) {
    return MakeError("pcap.create", "cannot create pcap '" + path + "': " + pcap_geterr(impl->dead));
  }
  std::unique_ptr<Writer> w(new Writer());
  w->impl_ = std::move(impl);
  w->snap_length_ = snap_length;
  return w;
}

void Writer::Write(int64_t time_ns, std::span<const uint8_t> frame) {
  pcap_pkthdr hdr{};
  if (time_ns < 0) time_ns = 0;
  hdr.ts.tv_sec = static_cast<time_t>(time_ns / 1000'000'000);
  // With nanosecond precision libpcap stores the nanoseconds in tv_usec.
  hdr.ts.tv_usec = static_cast<suseconds_t>(time_ns % 1000'000'000);
  hdr.len = static_cast<bpf_u_int32>(frame.size());
  hdr.caplen = static_cast<bpf_u_int32>(std::min<size_t>(frame.size(), snap_length_));
  pcap_dump(reinterpret_cast<u_char*>(impl_->dumper), &hdr, frame.data());
  ++records_;
}

void Writer::Flush() { pcap_dump_flush(impl_->dumper); }

struct Reader::Impl {
  pcap_t* handle = nullptr;
  ~Impl() {
    if (handle != nullptr) pcap_close(handle);
  }
};

Reader::~Reader() = default;

Result<std::unique_ptr<Reader>> Reader::Open(const std::string& path) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  auto impl = std::make_unique<Reader::Impl>();
  impl->handle = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (impl->handle == nullptr) return MakeError("pcap.open", "cannot open pcap '" + path + "': " + errbuf);
  std::unique_ptr<Reader> r(new Reader());
  r->impl_ = std::move(impl);
  return r;
}

std::optional<Record> Reader::Next() {
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  const int rc = pcap_next_ex(impl_->handle, &hdr, &data);
  if (rc == 1) {
    Record rec;
    rec.time_ns = static_cast<int64_t>(hdr->ts.tv_sec) * 1000'000'000 + static_cast<int64_t>(hdr->ts.tv_usec);
    rec.original_length = hdr->len;
    rec.bytes.assign(data, data + hdr->caplen);
    return rec;
  }
  if (rc == PCAP_ERROR) {
    status_ = MakeError("pcap.read", std::string("pcap read error: ") + pcap_geterr(impl_->handle));
  }
  return std::nullopt;
}

int Reader::link_type() const { return pcap_datalink(impl_->handle); }

Result<std::vector<Record>> ReadAll(const std::string& path) {
  auto r = Reader::Open(path);
  if (!r.ok()) return r.error();
  std::vector<Record> out;
  while (auto rec = (*r)->Next()) out.push_back(std::move(*rec));
  if (!(*r)->status().ok()) return (*r)->status().error();
  return out;
}

}  // namespace mroce::pcap
