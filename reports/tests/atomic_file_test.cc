#include "mroce/reports/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace mroce::reports {
namespace {

namespace fs = std::filesystem;

TEST(AtomicFile, ReplacesWholeFile) {
  fs::path dir = fs::temp_directory_path() / ("mroce_atomic_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "f.txt").string();
  std::string error;
  ASSERT_TRUE(WriteFileAtomic(path, "first version, longer", &error)) << error;
  ASSERT_TRUE(WriteFileAtomic(path, "second", &error)) << error;
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(s, "second");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  EXPECT_FALSE(WriteFileAtomic((dir / "missing" / "f.txt").string(), "x", &error));
  EXPECT_NE(error.find("cannot create temporary file"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mroce::reports
