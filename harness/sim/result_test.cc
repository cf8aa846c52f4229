#include "mroce/sim/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace mroce {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return MakeError("math.odd", std::to_string(x) + " is odd");
  return x / 2;
}

TEST(Result, ValueOrError) {
  auto ok = Half(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(*ok, 4);
  auto bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "math.odd");
  EXPECT_EQ(bad.error().message, "3 is odd");
  EXPECT_FALSE(bad.error().offset.has_value());
  EXPECT_EQ(bad.error().ToString(), "math.odd: 3 is odd");
}

TEST(Result, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> taken = std::move(r).value();
  EXPECT_EQ(*taken, 7);
}

TEST(Result, StatusIsOkOrAnError) {
  Status done = OkStatus();
  EXPECT_TRUE(done.ok());
  Status also = Ok{};
  EXPECT_TRUE(also.ok());
  Status failed = MakeError("file.write", "x: disk full");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().ToString(), "file.write: x: disk full");
}

// A codec error names the field and its byte offset (the form every parse error prints in).
TEST(Result, FieldErrorCarriesTheOffset) {
  Error e = FieldError("ack.sack", 62, "ACK header overflows packet");
  EXPECT_EQ(e.code, "ack.sack");
  EXPECT_EQ(e.offset, 62u);
  EXPECT_EQ(e.ToString(), "ack.sack @62: ACK header overflows packet");
}

TEST(ResultDeathTest, ReadingTheValueOfAnErrorAbortsWithItsText) {
  EXPECT_DEATH((void)Half(5).value(), "value\\(\\) on error: math.odd: 5 is odd");
  EXPECT_DEATH((void)Half(4).error(), "error\\(\\) on a value");
}

}  // namespace
}  // namespace mroce
