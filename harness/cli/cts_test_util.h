// Test helper shared by the CLI tests: runs the mroce-cts binary (MROCE_CTS_BIN, defined by each
// test target) through the shell and returns its exit status and output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

namespace mroce::cli::testing {

struct Output {
  int status = -1;  // exit status, or -1 when killed by a signal
  std::string out;  // stdout and stderr together
};

// Runs the shell command `cmd` (stderr joined to stdout).
inline Output Sh(const std::string& command) {
  Output o;
  const std::string cmd = "{ " + command + "; } 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return o;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  const int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

// Runs `mroce-cts ARGS 2>&1` (ARGS is shell text: quote as on a command line).
inline Output Cts(const std::string& args) { return Sh(std::string(MROCE_CTS_BIN) + " " + args); }

// The same, from the directory `dir` (relative paths in ARGS are relative to it).
inline Output CtsIn(const std::string& dir, const std::string& args) {
  return Sh("cd '" + dir + "' && " + std::string(MROCE_CTS_BIN) + " " + args);
}

// A fixture with a fresh directory per test, $TMPDIR/mroce_<prefix>_<pid>_<test name>, removed after.
class TempDirTest : public ::testing::Test {
 protected:
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("mroce_" + prefix_ + "_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  // A path below the test's directory.
  std::string Dir(const std::string& name) const { return (root_ / name).string(); }
  std::filesystem::path root_;

 private:
  std::string prefix_;
};

}  // namespace mroce::cli::testing
