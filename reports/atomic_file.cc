#include "mroce/reports/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace mroce::reports {

bool WriteFileAtomic(const std::string& path, std::string_view contents, std::string* error) {
  std::filesystem::path target(path);
  std::string tmpl = (target.parent_path().empty() ? std::string(".") : target.parent_path().string()) + "/." +
                     target.filename().string() + ".tmp.XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    *error = path + ": cannot create temporary file: " + std::strerror(errno);
    return false;
  }
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = path + ": write failed: " + std::strerror(errno);
      ::close(fd);
      ::unlink(tmpl.c_str());
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates 0600; reports are for everyone who can read the directory.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    *error = path + ": flush failed: " + std::strerror(errno);
    ::unlink(tmpl.c_str());
    return false;
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    *error = path + ": rename failed: " + std::strerror(errno);
    ::unlink(tmpl.c_str());
    return false;
  }
  return true;
}

}  // namespace mroce::reports
