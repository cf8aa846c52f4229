// Stall logs: how a process on the live path tells the harness that its host kept it from running.
// `mroce-cts impair --stall-log FILE` appends one line per service gap longer than its threshold;
// `mroce-cts run --stall-log FILE` reads it after each run of a live case, and a gap that overlaps
// the run counts as a stall of that run, like the harness's own gaps and the DUT's reported
// stall_ns: a case that did not pass after it is rerun and then inconclusive, never failed.
//
// Format: one line per gap, "START_NS END_NS\n", both CLOCK_MONOTONIC nanoseconds (the clock every
// process on the host shares, network namespaces included). Lines are appended whole (O_APPEND),
// so a reader sees complete lines; anything else on a line is ignored.
#pragma once

#include <cstdint>
#include <string>

namespace mroce::session {

// CLOCK_MONOTONIC now, in nanoseconds (std::chrono::steady_clock on Linux).
[[nodiscard]] int64_t MonotonicNs();

class StallLogWriter {
 public:
  // Opens `path` for appending (created if needed); an empty path writes nothing.
  explicit StallLogWriter(const std::string& path);
  ~StallLogWriter();
  StallLogWriter(const StallLogWriter&) = delete;
  StallLogWriter& operator=(const StallLogWriter&) = delete;

  [[nodiscard]] bool ok() const { return fd_ >= 0 || path_.empty(); }
  [[nodiscard]] const std::string& error() const { return error_; }
  // Records that the writer did not run from `start_ns` to `end_ns`.
  void Note(int64_t start_ns, int64_t end_ns);
  // Calls Note when more than `threshold_ns` passed since the previous call to Serviced.
  void Serviced(int64_t now_ns, int64_t threshold_ns);
  [[nodiscard]] uint64_t noted() const { return noted_; }

 private:
  std::string path_;
  std::string error_;
  int fd_ = -1;
  int64_t last_ = -1;
  uint64_t noted_ = 0;
};

// The longest part of one logged gap that lies within [from_ns, to_ns]; 0 when the file does not
// exist or no gap overlaps.
[[nodiscard]] int64_t LongestLoggedStall(const std::string& path, int64_t from_ns, int64_t to_ns);

}  // namespace mroce::session
