#include "mroce/harness/expectations_loader.h"

#include <gtest/gtest.h>

namespace mroce::harness {
namespace {

TEST(ExpectationsLoader, LoadsFile) {
  auto r = LoadExpectationsFile(std::string(MROCE_LOADER_TESTDATA) + "/expectations.yaml");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  ASSERT_EQ(r.value.size(), 2u);
  EXPECT_EQ(r.value[0].test, "loss.sack.*");
  EXPECT_EQ(r.value[0].dut, "rocev2*");
  EXPECT_EQ(r.value[0].verdict, Verdict::kFail);
  EXPECT_EQ(r.value[0].expires, "2099-12-31");
  EXPECT_EQ(r.value[1].verdict, Verdict::kError);
  EXPECT_EQ(r.value[1].where.line, 7);
}

TEST(ExpectationsLoader, Errors) {
  auto r = LoadExpectationsString(
      "expectations:\n"
      "  - {test: a.b, dut: x, verdict: pass, reason: r, expires: 2025-01-01}\n"
      "  - {test: a.b, dut: x, verdict: fail, reason: r, expires: 2025-02-30}\n"
      "  - {test: a.b, verdict: fail, reason: r, expires: 2025-01-01, owner: me}\n",
      "w.yaml");
  ASSERT_EQ(r.errors.size(), 4u) << r.ErrorText();
  EXPECT_EQ(r.errors[0].ToString(), "w.yaml:2:34: expectations[0].verdict: expected fail, inconclusive, error or skip, got 'pass'");
  EXPECT_EQ(r.errors[1].key, "expectations[1].expires");
  EXPECT_EQ(r.errors[2].key, "expectations[2].owner");
  EXPECT_EQ(r.errors[3].key, "expectations[2].dut");
  EXPECT_NE(r.errors[3].message.find("missing required key 'dut'"), std::string::npos);
}

}  // namespace
}  // namespace mroce::harness
