// Stall logs: what the writer appends is what the reader finds, clipped to the run it asks about.
#include "mroce/session/stall_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace mroce::session {
namespace {

std::string TempPath(const char* name) {
  return (std::filesystem::temp_directory_path() / ("mroce_stall_log_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(StallLog, GapsOverlappingARunCountClippedToIt) {
  const std::string path = TempPath("a");
  std::filesystem::remove(path);
  {
    StallLogWriter w(path);
    ASSERT_TRUE(w.ok()) << w.error();
    w.Serviced(1'000, 1'000'000);
    w.Serviced(500'000, 1'000'000);    // 0.5 ms: under the threshold
    w.Serviced(8'500'000, 1'000'000);  // 8 ms gap: logged
    w.Note(20'000'000, 23'000'000);
    EXPECT_EQ(w.noted(), 2u);
  }
  EXPECT_EQ(LongestLoggedStall(path, 0, 100'000'000), 8'000'000);
  EXPECT_EQ(LongestLoggedStall(path, 6'500'000, 100'000'000), 3'000'000);  // the first gap clipped to 2 ms, the second 3 ms
  EXPECT_EQ(LongestLoggedStall(path, 9'000'000, 19'000'000), 0);           // between the gaps
  EXPECT_EQ(LongestLoggedStall(path, 21'000'000, 22'000'000), 1'000'000);  // inside one
  // Lines appended by another writer (another process) are read too; junk lines are ignored.
  {
    std::ofstream junk(path, std::ios::app);
    junk << "not a gap\n5 3\n";
  }
  StallLogWriter again(path);
  again.Note(30'000'000, 40'000'000);
  EXPECT_EQ(LongestLoggedStall(path, 0, 100'000'000), 10'000'000);
  std::filesystem::remove(path);
}

TEST(StallLog, NoFileNoStallAndAnUnwritablePathIsAnError) {
  EXPECT_EQ(LongestLoggedStall(TempPath("missing"), 0, 1'000'000'000), 0);
  StallLogWriter none("");
  EXPECT_TRUE(none.ok());
  none.Note(0, 10);  // writes nothing
  StallLogWriter bad("/nonexistent-dir/stalls");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("/nonexistent-dir/stalls"), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace mroce::session
