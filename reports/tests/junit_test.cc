#include "mroce/reports/junit.h"

#include <gtest/gtest.h>

#include <regex>
#include <vector>

#include "sample_run.h"

namespace mroce::reports {
namespace {

int Count(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

// A tiny well-formedness check: tags nest, attributes are quoted, no raw '<' or '&' in text.
::testing::AssertionResult WellFormed(const std::string& xml) {
  std::vector<std::string> stack;
  size_t i = xml.find("?>");
  if (xml.rfind("<?xml", 0) != 0 || i == std::string::npos) return ::testing::AssertionFailure() << "no XML declaration";
  i += 2;
  static const std::regex kTag(R"(<(/?)([A-Za-z_][\w.-]*)((\s+[A-Za-z_][\w.-]*="[^"<&]*(&(amp|lt|gt|quot|apos);[^"<&]*)*")*)\s*(/?)>)");
  while (i < xml.size()) {
    size_t lt = xml.find('<', i);
    std::string text = xml.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    static const std::regex kBadAmp(R"(&(?!(amp|lt|gt|quot|apos);))");
    if (std::regex_search(text, kBadAmp)) return ::testing::AssertionFailure() << "bare & in text";
    if (lt == std::string::npos) break;
    std::smatch m;
    std::string rest = xml.substr(lt);
    if (!std::regex_search(rest, m, kTag, std::regex_constants::match_continuous)) {
      return ::testing::AssertionFailure() << "bad tag at " + std::to_string(lt) + ": " + rest.substr(0, 60);
    }
    if (m[1] == "/") {
      if (stack.empty() || stack.back() != m[2]) return ::testing::AssertionFailure() << "mismatched </" + m[2].str() + ">";
      stack.pop_back();
    } else if (m[7] != "/") {
      stack.push_back(m[2]);
    }
    i = lt + m[0].length();
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "unclosed <" + stack.back() + ">";
  return ::testing::AssertionSuccess();
}

TEST(Junit, WellFormedWithOneTestcasePerCase) {
  std::string xml = RenderJunit(testing::SampleRun());
  EXPECT_TRUE(WellFormed(xml)) << "\n" << xml;
  EXPECT_EQ(Count(xml, "<testcase "), 5);
  EXPECT_EQ(Count(xml, "<failure "), 2);   // fail + inconclusive
  EXPECT_EQ(Count(xml, "<error "), 0);     // The only error is waived ...
  EXPECT_EQ(Count(xml, "<skipped "), 2);   // ... so it is skipped, with the skip.
  EXPECT_NE(xml.find("tests=\"5\" failures=\"2\" errors=\"0\" skipped=\"2\""), std::string::npos);
  EXPECT_NE(xml.find("message=\"ack.epsn: expected: 1 (0x1) vs actual: 2 (0x2)\" type=\"fail\""), std::string::npos);
  EXPECT_NE(xml.find("classname=\"conn.crc\" name=\"conn.crc.bad-crc-dropped\""), std::string::npos);
  EXPECT_NE(xml.find("&lt;bad &amp; &quot;quoted&quot;&gt;"), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"expected error: known crash, bug 12\"/>"), std::string::npos);
}

TEST(Junit, UnwaivedErrorIsAnErrorElement) {
  auto run = testing::SampleRun();
  for (auto& t : run.tests) t.expectation = harness::ExpectationStatus::kNone;
  std::string xml = RenderJunit(run);
  EXPECT_EQ(Count(xml, "<error "), 1);
  EXPECT_TRUE(WellFormed(xml));
}

TEST(Junit, Escape) { EXPECT_EQ(XmlEscape("a<b>&\"'\x02\n"), "a&lt;b&gt;&amp;&quot;&apos;\n"); }

// Bytes that are not UTF-8 (from a DUT) become U+FFFD: junit.xml stays well-formed.
TEST(Junit, EscapeReplacesBytesThatAreNotUtf8) { EXPECT_EQ(XmlEscape("x\xFF<"), "x\xEF\xBF\xBD&lt;"); }

}  // namespace
}  // namespace mroce::reports
