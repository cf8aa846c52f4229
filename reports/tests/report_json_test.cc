#include "mroce/reports/report_json.h"

#include <gtest/gtest.h>

#include <fstream>

#include "mroce/reports/json_schema.h"
#include "mroce/reports/utf8.h"
#include "sample_run.h"

namespace mroce::reports {
namespace {

nlohmann::json Schema() {
  std::ifstream in(MROCE_REPORT_SCHEMA);
  EXPECT_TRUE(in.good()) << MROCE_REPORT_SCHEMA;
  return nlohmann::json::parse(in);
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(ReportJson, Contents) {
  nlohmann::json j = ToJson(testing::SampleRun());
  EXPECT_EQ(j["schema"], "mroce-cts/report/v1");
  EXPECT_EQ(j["seed"], 42);
  const auto& s = j["summary"];
  EXPECT_EQ(s["total"], 5);
  EXPECT_EQ(s["pass"], 1);
  EXPECT_EQ(s["fail"], 1);
  EXPECT_EQ(s["skip"], 1);
  EXPECT_EQ(s["error"], 1);
  EXPECT_EQ(s["inconclusive"], 1);
  EXPECT_EQ(s["must_total"], 2);
  EXPECT_EQ(s["must_pass"], 1);
  EXPECT_EQ(s["conformant"], false);
  EXPECT_EQ(s["expected"], 1);
  EXPECT_EQ(s["unexpected"], 2);
  ASSERT_EQ(j["tests"].size(), 5u);
  EXPECT_EQ(j["tests"][0]["id"], "cc.ecn.aimd");  // Sorted by id.
  const auto& fail = j["tests"][2];
  EXPECT_EQ(fail["id"], "conn.crc.bad-crc-dropped");
  EXPECT_EQ(fail["checks"][0]["mismatch"]["expected"], "1 (0x1)");
  EXPECT_EQ(fail["checks"][0]["mismatch"]["actual"], "2 (0x2)");
  std::vector<std::string> clause_ids;
  for (const auto& c : j["clauses"]) clause_ids.push_back(c["id"]);
  EXPECT_EQ(clause_ids, (std::vector<std::string>{"MR-CC-2", "MR-CC-5", "MR-CONN-4", "MR-PATH-7", "MR-SACK-3", "MR-ZZZ-1"}));
  EXPECT_EQ(j["clauses"][5]["status"], "untested");
}

TEST(ReportJson, ValidatesAgainstSchema) {
  auto errs = ValidateJsonSchema(Schema(), ToJson(testing::SampleRun()));
  EXPECT_TRUE(errs.empty()) << Join(errs);
  harness::RunResult empty;
  empty.incomplete = true;
  errs = ValidateJsonSchema(Schema(), ToJson(empty));
  EXPECT_TRUE(errs.empty()) << Join(errs);
}

TEST(ReportJson, SchemaRejectsBrokenReports) {
  nlohmann::json schema = Schema();
  nlohmann::json j = ToJson(testing::SampleRun());
  auto broken = j;
  broken["tests"][0]["verdict"] = "passed";
  EXPECT_FALSE(ValidateJsonSchema(schema, broken).empty());
  broken = j;
  broken["summary"].erase("conformant");
  EXPECT_FALSE(ValidateJsonSchema(schema, broken).empty());
  broken = j;
  broken["schema"] = "mroce-cts/report/v2";
  EXPECT_FALSE(ValidateJsonSchema(schema, broken).empty());
  broken = j;
  broken["tests"][0]["surprise"] = 1;
  EXPECT_FALSE(ValidateJsonSchema(schema, broken).empty());
}

TEST(ReportJson, RoundTrip) {
  harness::RunResult run = testing::SampleRun();
  auto back = FromJson(ToJson(run));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, run);
  EXPECT_EQ(RenderReportJson(*back), RenderReportJson(run));
}

TEST(ReportJson, ReadErrorsNameTheKey) {
  nlohmann::json j = ToJson(testing::SampleRun());
  j["tests"][1]["verdict"] = 3;
  auto bad = FromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "report.schema");
  EXPECT_EQ(bad.error().message, "tests[1].verdict: expected string, got number");
  j = ToJson(testing::SampleRun());
  j["schema"] = "other/v9";
  bad = FromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unsupported report schema"), std::string::npos);
}

}  // namespace
}  // namespace mroce::reports

namespace mroce::reports {
namespace {

TEST(Utf8, InvalidSequencesBecomeTheReplacementCharacter) {
  const std::string ok = "plain \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";  // é € 😀
  EXPECT_EQ(ValidUtf8(ok), ok);
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(ValidUtf8("a\xFF" "b"), "a" + r + "b");
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), r + r);          // overlong '/'
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), r + r + r);  // a surrogate
  EXPECT_EQ(ValidUtf8("cut \xE2\x82"), "cut " + r + r);  // a character cut off by a 600-byte tail
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
}

// A DUT's bytes that are not UTF-8 (its identity, a reason quoting its stderr) lose no result:
// report.json is valid JSON that reads back, junit.xml is UTF-8, the reason keeps its readable part.
TEST(ReportJson, BytesThatAreNotUtf8FromTheDutAreKeptReadable) {
  harness::RunResult run = testing::SampleRun();
  run.dut.identity = "vendor\xFF\xFE";
  run.tests[0].reason = "DUT stderr: segfault at \xE2\x82";
  for (auto& t : run.tests) {
    if (!t.checks.empty()) t.checks.front().actual_packet = "\x80\x81 raw";
  }
  const std::string text = RenderReportJson(run);
  EXPECT_EQ(ValidUtf8(text), text);
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(text));
  EXPECT_EQ(j["dut"]["identity"], "vendor\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(j["tests"].size(), run.tests.size());
  auto back = FromJson(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_NE(back->tests[0].reason.find("segfault at"), std::string::npos);
}

}  // namespace
}  // namespace mroce::reports
