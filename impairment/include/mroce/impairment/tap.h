// Tap: records every frame a host sends or receives, and every drop of its frames, with its fate,
// into an in-memory trace, an optional JSON-lines file and an optional pcap (harness/pcap).
//
// Attach one at the DUT's host and one at the peer's. The pcap holds the frames as they left the
// host (event "tx") and as they arrived (event "rx": CE marks, corruption and duplicates visible);
// drops are trace records only (the frame is already in the pcap as "tx").
#ifndef MROCE_IMPAIRMENT_TAP_H_
#define MROCE_IMPAIRMENT_TAP_H_

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "mroce/impairment/fabric.h"
#include "mroce/pcap/pcap.h"

namespace mroce::impairment {

struct TraceRecord {
  enum class Event : uint8_t { kTx, kRx, kDrop };
  Event event = Event::kTx;
  int64_t time_ns = 0;
  int host = 0;          // The tapped host.
  int plane = 0;
  uint64_t packet_id = 0;
  uint64_t origin_id = 0;
  uint32_t length = 0;   // Frame bytes.
  bool duplicate = false;
  bool ce = false;
  bool corrupted = false;
  std::string where;     // Drop: stage/queue name.
  std::string fate;      // Packet::FateString().
  bool meta = false;
  uint8_t opcode = 0;
  uint8_t path_id = 0;
  uint32_t psn = 0;
  uint16_t sport = 0;
  [[nodiscard]] std::string ToJson() const;
};
[[nodiscard]] const char* EventName(TraceRecord::Event e);

class Tap : public FabricObserver {
 public:
  struct Options {
    std::string pcap_path;   // Empty: no pcap.
    std::string jsonl_path;  // Empty: no JSON-lines file.
    bool keep_records = true;
  };
  // Attaches to `fabric` (observer) for `host`. Files that cannot be created leave status() not ok.
  Tap(Fabric* fabric, int host, Options options);
  ~Tap() override;

  [[nodiscard]] const std::vector<TraceRecord>& records() const { return records_; }
  [[nodiscard]] const mroce::Status& status() const { return status_; }
  void Flush();

  void OnSend(int host, const Packet& p, Time now) override;
  void OnDeliver(int host, const Packet& p, Time now) override;
  void OnDrop(const Packet& p, const char* where, Time now) override;

 private:
  void Record(TraceRecord::Event e, const Packet& p, const char* where, Time now);
  int host_;
  Options options_;
  std::unique_ptr<pcap::Writer> pcap_;
  std::FILE* jsonl_ = nullptr;
  std::vector<TraceRecord> records_;
  mroce::Status status_;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_TAP_H_
