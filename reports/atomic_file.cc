#include "mroce/reports/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace mroce::reports {

Status WriteFileAtomic(const std::string& path, std::string_view contents) {
  std::filesystem::path target(path);
  std::string tmpl = (target.parent_path().empty() ? std::string(".") : target.parent_path().string()) + "/." +
                     target.filename().string() + ".tmp.XXXXXX";
  // The message is built before close/unlink can change errno.
  auto failed = [&](const char* what) { return MakeError("file.write", path + ": " + what + ": " + std::strerror(errno)); };
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return failed("cannot create temporary file");
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      Error e = failed("write failed");
      ::close(fd);
      ::unlink(tmpl.c_str());
      return e;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates 0600; reports are for everyone who can read the directory.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Error e = failed("flush failed");
    ::unlink(tmpl.c_str());
    return e;
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    Error e = failed("rename failed");
    ::unlink(tmpl.c_str());
    return e;
  }
  return OkStatus();
}

}  // namespace mroce::reports
