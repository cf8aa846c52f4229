#include "mroce/session/stall_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mroce::session {

int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

StallLogWriter::StallLogWriter(const std::string& path) : path_(path) {
  if (path_.empty()) return;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) error_ = path_ + ": " + std::strerror(errno);
}

StallLogWriter::~StallLogWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void StallLogWriter::Note(int64_t start_ns, int64_t end_ns) {
  if (fd_ < 0) return;
  const std::string line = std::to_string(start_ns) + " " + std::to_string(end_ns) + "\n";
  // One write of a short line to an O_APPEND file: readers never see half of it.
  if (::write(fd_, line.data(), line.size()) == static_cast<ssize_t>(line.size())) ++noted_;
}

void StallLogWriter::Serviced(int64_t now_ns, int64_t threshold_ns) {
  if (last_ >= 0 && now_ns - last_ > threshold_ns) Note(last_, now_ns);
  last_ = now_ns;
}

int64_t LongestLoggedStall(const std::string& path, int64_t from_ns, int64_t to_ns) {
  std::ifstream in(path);
  int64_t longest = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    int64_t start = 0;
    int64_t end = 0;
    if (!(fields >> start >> end) || end < start) continue;
    const int64_t overlap = std::min(end, to_ns) - std::max(start, from_ns);
    longest = std::max(longest, overlap);
  }
  return longest;
}

}  // namespace mroce::session
