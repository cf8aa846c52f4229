// The suite digest: SHA-256 of the documented framing, independent of where the suite lies, and
// changed by any change to a case file, the set of case files or the catalog.
#include "mroce/campaign/suite_digest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace mroce::campaign {
namespace {

namespace fs = std::filesystem;

class SuiteDigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("mroce_suite_digest_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    for (const char* copy : {"a/testcases", "elsewhere/b/suite"}) {
      fs::create_directories(root_ / copy / "basic");
      fs::copy(MROCE_CAMPAIGN_SUITE, root_ / copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    }
    std::ofstream(root_ / "clauses.json") << "{\"clauses\": []}\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Digest(const std::string& suite, const std::string& catalog = "") {
    auto d = DigestSuite((root_ / suite).string(), catalog.empty() ? "" : (root_ / catalog).string());
    EXPECT_TRUE(d.ok()) << d.error().message;
    return d.ok() ? d.value().sha256 : "";
  }
  fs::path root_;
};

TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// docs/report-schema.md, `suite_digest`: "case NAME\nSIZE\nBYTES\n" per file by suite-relative
// name, then "catalog\nSIZE\nBYTES\n".
TEST_F(SuiteDigestTest, IsTheSha256OfTheDocumentedFraming) {
  fs::create_directories(root_ / "tiny" / "x");
  std::ofstream(root_ / "tiny" / "x" / "b.yaml") << "bb";
  std::ofstream(root_ / "tiny" / "a.yml") << "a";
  std::ofstream(root_ / "tiny" / "notes.txt") << "not a case file";
  fs::create_directories(root_ / "tiny" / ".hidden");
  std::ofstream(root_ / "tiny" / ".hidden" / "c.yaml") << "hidden";
  auto d = DigestSuite((root_ / "tiny").string(), (root_ / "clauses.json").string());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d.value().case_files, 2);
  EXPECT_TRUE(d.value().catalog);
  const std::string framing = std::string("case a.yml\n1\na\n") + "case x/b.yaml\n2\nbb\n" +
                              "catalog\n16\n{\"clauses\": []}\n\n";
  EXPECT_EQ(d.value().sha256, "sha256:" + Sha256Hex(framing));
}

TEST_F(SuiteDigestTest, TwoCopiesInOtherDirectoriesHaveOneDigest) {
  const std::string a = Digest("a/testcases", "clauses.json");
  EXPECT_EQ(a.size(), 7u + 64u) << a;
  EXPECT_EQ(a, Digest("elsewhere/b/suite", "clauses.json"));
  EXPECT_NE(a, Digest("a/testcases")) << "the catalog must count";
}

TEST_F(SuiteDigestTest, AnyChangeToTheCaseFilesChangesIt) {
  const std::string before = Digest("a/testcases");
  {
    std::ofstream f(root_ / "a/testcases/basic/loss.yaml", std::ios::app);
    f << "# one more byte\n";
  }
  const std::string edited = Digest("a/testcases");
  EXPECT_NE(before, edited);
  std::ofstream(root_ / "a/testcases/basic/extra.yaml") << "id: x\n";
  EXPECT_NE(edited, Digest("a/testcases"));
  fs::rename(root_ / "a/testcases/basic/extra.yaml", root_ / "a/testcases/extra.yaml");
  EXPECT_NE(edited, Digest("a/testcases")) << "a moved file changes its name";
}

TEST_F(SuiteDigestTest, ErrorsNameThePath) {
  auto missing = DigestSuite((root_ / "nope").string(), "");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find((root_ / "nope").string()), std::string::npos) << missing.error().message;
  auto catalog = DigestSuite((root_ / "a/testcases").string(), (root_ / "no-catalog.json").string());
  ASSERT_FALSE(catalog.ok());
  EXPECT_NE(catalog.error().message.find("no-catalog.json: cannot read"), std::string::npos) << catalog.error().message;
}

}  // namespace
}  // namespace mroce::campaign
