// pcap files (nanosecond timestamps, LINKTYPE_ETHERNET) written and read through libpcap.
//
// Used by the fabric taps (every frame a tap sees) and by `mroce-cts decode`. Files open in
// Wireshark/tshark as "Ethernet" with nanosecond resolution (magic 0xa1b23c4d).
#ifndef MROCE_PCAP_PCAP_H_
#define MROCE_PCAP_PCAP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mroce/sim/result.h"

namespace mroce::pcap {

// Fallible operations return mroce::Result / Status (harness/sim's vocabulary); error codes are
// "pcap.create", "pcap.open" and "pcap.read", the message names the file and libpcap's reason.
using mroce::Result;
using mroce::Status;

// One captured frame.
struct Record {
  int64_t time_ns = 0;           // Capture time, nanoseconds since the epoch of the file (sim time 0).
  uint32_t original_length = 0;  // Length of the frame on the wire in bytes.
  std::vector<uint8_t> bytes;    // Captured bytes (at most the snap length).
};

// Largest frame kept whole (jumbo MTU 9000 + headers fit).
inline constexpr uint32_t kDefaultSnapLength = 65535;

class Writer {
 public:
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Creates (truncates) `path`.
  static Result<std::unique_ptr<Writer>> Open(const std::string& path, uint32_t snap_length = kDefaultSnapLength);
  // Appends one frame with a capture time in nanoseconds (time_ns >= 0).
  void Write(int64_t time_ns, std::span<const uint8_t> frame);
  // Flushes buffered records to the file.
  void Flush();
  [[nodiscard]] uint64_t records_written() const { return records_; }

 private:
  Writer() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint32_t snap_length_ = kDefaultSnapLength;
  uint64_t records_ = 0;
};

class Reader {
 public:
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Opens `path` with timestamps converted to nanoseconds (microsecond files are scaled).
  static Result<std::unique_ptr<Reader>> Open(const std::string& path);
  // Next record, or nullopt at end of file (or on error: see status()).
  std::optional<Record> Next();
  [[nodiscard]] int link_type() const;
  [[nodiscard]] const Status& status() const { return status_; }

 private:
  Reader() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Status status_;
};

// Reads a whole file.
Result<std::vector<Record>> ReadAll(const std::string& path);

}  // namespace mroce::pcap

#endif  // MROCE_PCAP_PCAP_H_
