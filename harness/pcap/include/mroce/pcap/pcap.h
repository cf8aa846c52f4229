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

namespace mroce::pcap {

// Result of a fallible pcap operation: ok, or a message naming what failed.
struct Status {
  bool ok = true;
  std::string message;
  static Status Ok() { return {}; }
  static Status Error(std::string m) { return {false, std::move(m)}; }
  explicit operator bool() const { return ok; }
};

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

  // Creates (truncates) `path`. Returns nullptr and sets `*status` on failure.
  static std::unique_ptr<Writer> Open(const std::string& path, Status* status,
                                      uint32_t snap_length = kDefaultSnapLength);
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
  static std::unique_ptr<Reader> Open(const std::string& path, Status* status);
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

// Reads a whole file. Returns false with *status set on failure.
bool ReadAll(const std::string& path, std::vector<Record>* out, Status* status);

}  // namespace mroce::pcap

#endif  // MROCE_PCAP_PCAP_H_
