// `mroce-cts package` and `mroce-cts verify`: a certification package round-trips, is the same bytes
// from the same run, opens with tar and sha256sum, and a changed, partial or foreign one is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cts_test_util.h"
#include "report_test_util.h"

namespace {

namespace fs = std::filesystem;

using mroce::cli::testing::Cts;
using mroce::cli::testing::Output;
using mroce::cli::testing::Sh;
using mroce::cli::testing::Slurp;

const std::string kSuite = std::string(MROCE_RUN_SUITE);

class Package : public mroce::cli::testing::TempDirTest {
 protected:
  Package() : TempDirTest("package_test") {}
  // A run of the small suite (the whole of it unless `filter`), packaged as NAME.tar.zst.
  std::string RunAndPack(const std::string& name, const std::string& filter = "") {
    const Output r = Cts("run -q --isolation none --suite " + kSuite + " --out " + Dir("run") +
                         (filter.empty() ? "" : " --filter '" + filter + "'"));
    EXPECT_EQ(r.status, 0) << r.out;
    const std::string pkg = Dir(name + ".tar.zst");
    const Output p = Cts("package " + Dir("run") + " -o " + pkg);
    EXPECT_EQ(p.status, 0) << p.out;
    return pkg;
  }
  Output Verify(const std::string& pkg) { return Cts("verify " + pkg + " --suite " + kSuite); }
};

TEST_F(Package, AFullConformantRunIsAcceptedAndOpensWithTarAndSha256sum) {
  const std::string pkg = RunAndPack("vendor-rev1");
  const Output v = Verify(pkg);
  EXPECT_EQ(v.status, 0) << v.out;
  EXPECT_NE(v.out.find("manifest: intact"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("run: CONFORMANT, MUST "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("verify: ACCEPTED"), std::string::npos) << v.out;
  // What a lab without this tool does: extract and check the digests.
  const Output x = Sh("cd " + Dir("") + " && tar --zstd -xf " + pkg + " && cd vendor-rev1 && sha256sum -c --quiet SHA256SUMS");
  EXPECT_EQ(x.status, 0) << x.out;
  for (const char* f : {"manifest.json", "report.json", "report.html", "junit.xml", "evidence"}) {
    EXPECT_TRUE(fs::exists(root_ / "vendor-rev1" / f)) << f;
  }
  EXPECT_EQ(Slurp(root_ / "vendor-rev1" / "report.json"), Slurp(root_ / "run" / "report.json"));
}

TEST_F(Package, TheSameRunGivesTheSameBytes) {
  const std::string a = RunAndPack("same");
  fs::create_directories(root_ / "second");
  const Output p = Cts("package " + Dir("run") + " -o " + Dir("second/same.tar.zst"));
  ASSERT_EQ(p.status, 0) << p.out;
  EXPECT_EQ(Slurp(a), Slurp(root_ / "second" / "same.tar.zst"));
  // Packaging again over an existing package needs --force.
  const Output again = Cts("package " + Dir("run") + " -o " + a);
  EXPECT_EQ(again.status, 2) << again.out;
  EXPECT_NE(again.out.find("exists (give --force"), std::string::npos) << again.out;
  EXPECT_EQ(Cts("package " + Dir("run") + " -o " + a + " --force").status, 0);
}

TEST_F(Package, AChangedPackageIsRejectedNamingEachFile) {
  const std::string pkg = RunAndPack("lab");
  ASSERT_EQ(Sh("cd " + Dir("") + " && tar --zstd -xf " + pkg).status, 0);
  const fs::path top = root_ / "lab";
  std::string pcap;
  for (const auto& e : fs::directory_iterator(top / "evidence")) pcap = "evidence/" + e.path().filename().string();
  ASSERT_FALSE(pcap.empty());
  {
    std::fstream f(top / pcap, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x5a');  // one byte of a frame
  }
  std::ofstream(top / "evidence" / "extra.txt") << "added later\n";
  fs::remove(top / "junit.xml");
  ASSERT_EQ(Sh("cd " + Dir("") + " && tar --zstd -cf changed.tar.zst lab").status, 0);
  const Output v = Verify(Dir("changed.tar.zst"));
  EXPECT_EQ(v.status, 2) << v.out;
  EXPECT_NE(v.out.find("manifest: DAMAGED, 3 problem(s)"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find(pcap + ": SHA-256 "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("junit.xml: listed in the manifest, missing from the package"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("evidence/extra.txt: in the package, not in the manifest"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("verify: REJECTED"), std::string::npos) << v.out;
  // A report.json edited to claim more, with the manifest's digest updated to match: the manifest's
  // copy of the run no longer agrees.
  ASSERT_EQ(Sh("cd " + Dir("") + " && rm -rf lab && tar --zstd -xf " + pkg).status, 0);
  std::string report = Slurp(top / "report.json");
  const size_t at = report.find("\"seed\": 1");
  ASSERT_NE(at, std::string::npos) << report.substr(0, 400);
  report.replace(at, 9, "\"seed\": 2");
  std::ofstream(top / "report.json", std::ios::binary | std::ios::trunc) << report;
  const std::string sum = Sh("cd " + top.string() + " && sha256sum report.json | cut -c1-64").out.substr(0, 64);
  ASSERT_EQ(Sh("cd " + top.string() + " && old=$(grep '  report.json$' SHA256SUMS | cut -c1-64) && sed -i \"s/$old/" + sum +
               "/\" SHA256SUMS manifest.json && cd .. && tar --zstd -cf forged.tar.zst lab")
                .status,
            0);
  const Output f = Verify(Dir("forged.tar.zst"));
  EXPECT_EQ(f.status, 2) << f.out;
  EXPECT_NE(f.out.find("manifest.json: its \"run\" is not what report.json says"), std::string::npos) << f.out;
}

TEST_F(Package, APartialRunOrAnotherSuiteIsNotAConformanceClaim) {
  const std::string pkg = RunAndPack("partial", "loss.*");
  const Output v = Verify(pkg);
  EXPECT_EQ(v.status, 1) << v.out;
  EXPECT_NE(v.out.find("manifest: intact"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("run: PARTIAL RUN: not a conformance claim"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("verify: NOT A CONFORMANCE CLAIM: the run did not cover the whole suite"), std::string::npos) << v.out;
  // A full run, checked against another suite (the bundled one).
  fs::remove_all(root_ / "run");
  const std::string full = RunAndPack("full");
  const Output other = Cts("verify " + full + " --suite " + std::string(MROCE_TESTCASES_DIR));
  EXPECT_EQ(other.status, 1) << other.out;
  EXPECT_NE(other.out.find(" != sha256:"), std::string::npos) << other.out;
  EXPECT_NE(other.out.find("the run judged another suite than"), std::string::npos) << other.out;
}

TEST_F(Package, BadInputGetsAClearError) {
  Output o = Cts("package " + Dir("nowhere") + " -o " + Dir("x.tar.zst"));
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("nowhere: not a run directory"), std::string::npos) << o.out;
  fs::create_directories(root_ / "empty");
  o = Cts("package " + Dir("empty") + " -o " + Dir("x.tar.zst"));
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("report.json: cannot read"), std::string::npos) << o.out;
  o = Cts("package " + Dir("empty") + " -o " + Dir("x.zip"));
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("must end in .tar.zst"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(root_ / "x.tar.zst"));
  std::ofstream(root_ / "junk.tar.zst") << "not an archive\n";
  o = Cts("verify " + Dir("junk.tar.zst"));
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("mroce-cts verify: error: " + Dir("junk.tar.zst") + ": "), std::string::npos) << o.out;
  // A tar without a manifest.
  fs::create_directories(root_ / "bare");
  std::ofstream(root_ / "bare" / "report.json") << "{}\n";
  ASSERT_EQ(Sh("cd " + Dir("") + " && tar --zstd -cf bare.tar.zst bare").status, 0);
  o = Cts("verify " + Dir("bare.tar.zst"));
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("no manifest.json"), std::string::npos) << o.out;
  // An intact package whose report.json has values of the wrong type: no exception, no claim.
  const std::string report = R"({"summary": {"conformant": "yes", "partial": 0}, "incomplete": "no", "dut": [1]})";
  std::ofstream(root_ / "bare" / "report.json", std::ios::trunc) << report;
  const std::string sum = Sh("sha256sum " + Dir("bare/report.json") + " | cut -c1-64").out.substr(0, 64);
  std::ofstream(root_ / "bare" / "SHA256SUMS") << sum << "  report.json\n";
  std::ofstream(root_ / "bare" / "manifest.json")
      << R"({"schema": "mroce-cts/package/v1", "run": {"dut": [1], "incomplete": "no", "summary": {"conformant": "yes", "partial": 0}},)"
      << R"( "files": [{"path": "report.json", "size": )" << report.size() << R"(, "sha256": ")" << sum << R"("}]})";
  ASSERT_EQ(Sh("cd " + Dir("") + " && rm bare.tar.zst && tar --zstd -cf bare.tar.zst bare").status, 0);
  o = Cts("verify " + Dir("bare.tar.zst"));
  EXPECT_EQ(o.status, 1) << o.out;
  EXPECT_NE(o.out.find("manifest: intact"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("run: INCOMPLETE RUN: not a conformance claim"), std::string::npos) << o.out;
}

}  // namespace
