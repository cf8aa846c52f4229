// `mroce-cts decode FILE.pcap [--json]`: every frame decoded by the codec (one field per line, or a
// JSON object per frame), or its parse error naming the field and byte offset plus a hex dump.
// Exit 0 when every frame parses, 1 when some do not, 2 when the file cannot be read.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "command.h"
#include "mroce/harness/expectations.h"

#ifdef MROCE_HAVE_DECODE
#include "mroce/pcap/pcap.h"
#include "mroce/wire/wire.h"
#endif

namespace mroce::cli {
namespace {

class DecodeCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
#ifdef MROCE_HAVE_DECODE
    meta_port_ = wire::kMetaUdpPort;
#endif
    sub.add_option("pcap", path_, "pcap file (Ethernet link type)")->required();
    sub.add_flag("--json", json_, "One JSON document: {file, frames: [...]}");
    sub.add_flag("--no-verify-crc", no_crc_, "Do not check the MetaRoCE CRC / RoCEv2 ICRC");
    sub.add_option("--meta-port", meta_port_, "UDP destination port decoded as MetaRoCE")->capture_default_str();
  }

#ifdef MROCE_HAVE_DECODE
  int Run(std::ostream& out, std::ostream& err) override {
    auto read = pcap::ReadAll(path_);
    if (!read.ok()) {
      err << "mroce-cts: error: " << path_ << ": " << read.error().message << "\n";
      return harness::kExitUsage;
    }
    const std::vector<pcap::Record>& records = *read;
    wire::ParseOptions opts;
    opts.verify_crc = !no_crc_;
    opts.meta_port = meta_port_;
    nlohmann::ordered_json frames = nlohmann::ordered_json::array();
    int bad = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      const pcap::Record& r = records[i];
      auto frame = wire::ParseFrame(r.bytes, opts);
      if (!frame.ok()) ++bad;
      if (json_) {
        nlohmann::ordered_json f = {{"index", i + 1}, {"time_ns", r.time_ns}, {"length", r.original_length}};
        if (frame.ok()) {
          nlohmann::ordered_json fields = nlohmann::ordered_json::object();
          for (const wire::FieldEntry& e : wire::ToFieldMap(*frame)) {
            if (const uint64_t* v = std::get_if<uint64_t>(&e.value)) {
              fields[e.name] = *v;
            } else {
              fields[e.name] = wire::ToHex(std::get<wire::Bytes>(e.value));
            }
          }
          f["fields"] = std::move(fields);
        } else {
          const wire::Error& pe = frame.error();
          f["error"] = {{"field", pe.code}, {"offset", pe.offset.value_or(0)}, {"message", pe.message}};
          f["hex"] = wire::ToHex(r.bytes);
        }
        frames.push_back(std::move(f));
        continue;
      }
      char head[128];
      std::snprintf(head, sizeof(head), "frame %zu  time %lld.%09lld s  %u bytes\n", i + 1,
                    static_cast<long long>(r.time_ns / 1'000'000'000), static_cast<long long>(r.time_ns % 1'000'000'000),
                    r.original_length);
      out << head;
      std::string body = frame.ok() ? wire::DumpFrame(*frame)
                                    : "parse error: " + frame.error().ToString() + "\n" + wire::HexDump(r.bytes);
      size_t start = 0;
      while (start < body.size()) {
        size_t nl = body.find('\n', start);
        if (nl == std::string::npos) nl = body.size();
        out << "  " << body.substr(start, nl - start) << "\n";
        start = nl + 1;
      }
    }
    if (json_) {
      out << nlohmann::ordered_json{{"file", path_}, {"frames", frames}}.dump(2) << "\n";
    } else {
      out << records.size() << " frame(s), " << bad << " with parse errors\n";
    }
    return bad == 0 ? harness::kExitOk : harness::kExitUnexpected;
  }
#else
  int Run(std::ostream&, std::ostream& err) override {
    err << "mroce-cts: error: decode is unavailable: this build has no codec (mroce_wire) or pcap reader (mroce_pcap)\n";
    return harness::kExitHarnessError;
  }
#endif

 private:
  std::string path_;
  bool json_ = false;
  bool no_crc_ = false;
  uint16_t meta_port_ = 0;  // The codec's default MetaRoCE port.
};

}  // namespace

std::unique_ptr<Command> MakeDecodeCommand() { return std::make_unique<DecodeCommand>(); }

}  // namespace mroce::cli
