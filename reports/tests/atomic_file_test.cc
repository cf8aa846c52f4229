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
  ASSERT_TRUE(WriteFileAtomic(path, "first version, longer").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "second").ok());
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(s, "second");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  const Status missing = WriteFileAtomic((dir / "missing" / "f.txt").string(), "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "file.write");
  EXPECT_NE(missing.error().message.find("cannot create temporary file: No such file or directory"), std::string::npos)
      << missing.error().message;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mroce::reports
