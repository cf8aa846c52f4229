#include "mroce/reports/html.h"

#include <gtest/gtest.h>

#include "sample_run.h"

namespace mroce::reports {
namespace {

TEST(Html, SelfContainedAndDeterministic) {
  auto run = testing::SampleRun();
  std::string html = RenderHtml(run);
  EXPECT_EQ(html, RenderHtml(run));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing fetched: no scripts, no external stylesheets or images.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(Html, VerdictCoverageAndEvidence) {
  std::string html = RenderHtml(testing::SampleRun());
  EXPECT_NE(html.find("NOT CONFORMANT"), std::string::npos);
  EXPECT_NE(html.find("<span id=\"must\">1/2</span>"), std::string::npos);
  EXPECT_NE(html.find("id=\"clauses\""), std::string::npos);
  EXPECT_NE(html.find("href=\"#t-loss.sack.exact-retransmit\""), std::string::npos);
  EXPECT_NE(html.find("<details id=\"t-conn.crc.bad-crc-dropped\" open>"), std::string::npos);
  EXPECT_NE(html.find("href=\"evidence/conn.crc.bad-crc-dropped.pcap\""), std::string::npos);
  EXPECT_NE(html.find("mroce-cts run --filter conn.crc.bad-crc-dropped --seed 42"), std::string::npos);
  EXPECT_NE(html.find("&lt;bad &amp; &quot;quoted&quot;&gt;"), std::string::npos);
  EXPECT_NE(html.find("MR-ZZZ-1"), std::string::npos);
  // Two plots for the passing case: bytes (two series) and Gbps.
  EXPECT_NE(html.find("aria-label=\"bytes\""), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"goodput\""), std::string::npos);
  EXPECT_EQ(html.find("Incomplete run"), std::string::npos);
  // A live case's runs and longest stall sit under its time.
  EXPECT_NE(html.find("<br>3 runs<br>stall 12.50 ms</td>"), std::string::npos);
}

TEST(Html, ConformantAndIncompleteBanners) {
  harness::RunResult run = testing::SampleRun();
  std::erase_if(run.tests, [](const harness::TestResult& t) { return t.verdict != harness::Verdict::kPass; });
  harness::Normalize(run);
  EXPECT_NE(RenderHtml(run).find(">CONFORMANT"), std::string::npos);
  run.incomplete = true;
  std::string html = RenderHtml(run);
  EXPECT_NE(html.find("Incomplete run"), std::string::npos);
  EXPECT_NE(html.find("PARTIAL RUN: not a conformance claim"), std::string::npos);
  EXPECT_EQ(html.find(">CONFORMANT"), std::string::npos);
}

TEST(Html, AFilteredRunIsAPartialRunNotAClaim) {
  harness::RunResult run = testing::SampleRun();
  std::erase_if(run.tests, [](const harness::TestResult& t) { return t.verdict != harness::Verdict::kPass; });
  run.selection.filter = "ack.*";
  run.selection.suite_cases = 226;
  harness::Normalize(run);
  const std::string html = RenderHtml(run);
  EXPECT_EQ(html.find(">CONFORMANT"), std::string::npos);
  EXPECT_NE(html.find("id=\"partial\""), std::string::npos);
  EXPECT_NE(html.find("filtered run (--filter &#39;ack.*&#39;)"), std::string::npos) << html.substr(0, 3000);
}

TEST(Html, SvgPlot) {
  harness::TimeSeries s{"rate", "Gbps", "rtt", {{0, 0}, {10, 100}}};
  std::string svg = RenderSvgPlot("rate", {&s});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("points=\"64,220 624,28\""), std::string::npos) << svg;
  harness::TimeSeries empty{"none", "x", "rtt", {}};
  EXPECT_NE(RenderSvgPlot("none", {&empty}).find("no data"), std::string::npos);
}

}  // namespace
}  // namespace mroce::reports
