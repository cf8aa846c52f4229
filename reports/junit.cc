#include "mroce/reports/junit.h"
#include "mroce/reports/utf8.h"

#include <cstdio>
#include <sstream>

#include "mroce/harness/failure_text.h"
#include "mroce/reports/visitor.h"

namespace mroce::reports {

using harness::ExpectationStatus;
using harness::TestResult;
using harness::Verdict;

std::string XmlEscape(std::string_view raw) {
  const std::string s = ValidUtf8(raw);  // a DUT's bytes need not be UTF-8; XML must be
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') break;  // Not allowed in XML 1.0.
        out += ch;
    }
  }
  return out;
}

namespace {

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", s);
  return buf;
}

// The one-line message: the reason, else the verdict.
std::string Message(const TestResult& t) {
  return t.reason.empty() ? std::string(harness::ToString(t.verdict)) : t.reason;
}

class JunitWriter : public RunVisitor {
 public:
  void BeginRun(const harness::RunResult& run, const harness::Summary& s) override {
    int failures = 0, errors = 0, skipped = 0;
    double time = 0;
    for (const TestResult& t : run.tests) {
      time += t.duration_s;
      if (t.verdict == Verdict::kSkip || t.expectation == ExpectationStatus::kExpected) ++skipped;
      else if (t.verdict == Verdict::kError) ++errors;
      else if (t.verdict != Verdict::kPass) ++failures;
    }
    // The schema of Jenkins' xunit (junit-10.xsd) allows `skipped` on <testsuite> only.
    const std::string counts = " tests=\"" + std::to_string(run.tests.size()) + "\" failures=\"" +
                               std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\"";
    const std::string timing = " time=\"" + Seconds(time) + "\"";
    out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out_ << "<testsuites name=\"mroce-cts\"" << counts << timing << ">\n";
    out_ << "  <testsuite name=\"mroce-cts\"" << counts << " skipped=\"" << skipped << "\"" << timing;
    if (!run.started_at.empty()) out_ << " timestamp=\"" << XmlEscape(run.started_at) << "\"";
    out_ << ">\n    <properties>\n";
    Property("schema", run.schema);
    Property("suite_version", run.suite_version);
    Property("tool_version", run.tool_version);
    Property("suite_digest", run.suite_digest);
    Property("dut", run.dut.identity);
    Property("seed", std::to_string(run.seed));
    Property("conformant", s.conformant ? "true" : "false");
    Property("partial", s.partial ? "true" : "false");
    for (const std::string& why : s.partial_reasons) Property("partial_reason", why);
    Property("must", std::to_string(s.must_pass) + "/" + std::to_string(s.must_total));
    Property("incomplete", run.incomplete ? "true" : "false");
    out_ << "    </properties>\n";
  }
  void BeginTest(const TestResult& t) override {
    std::string classname = t.id.substr(0, t.id.rfind('.') == std::string::npos ? t.id.size() : t.id.rfind('.'));
    out_ << "    <testcase classname=\"" << XmlEscape(classname) << "\" name=\"" << XmlEscape(t.id)
         << "\" time=\"" << Seconds(t.duration_s) << "\"";
    std::string body;
    if (t.expectation == ExpectationStatus::kExpected) {
      body = "      <skipped message=\"" +
             XmlEscape("expected " + std::string(harness::ToString(t.verdict)) + ": " + t.expectation_reason) + "\"/>\n";
    } else if (t.verdict == Verdict::kSkip) {
      body = "      <skipped message=\"" + XmlEscape(Message(t)) + "\"/>\n";
    } else if (t.verdict != Verdict::kPass) {
      const char* tag = t.verdict == Verdict::kError ? "error" : "failure";
      body = std::string("      <") + tag + " message=\"" + XmlEscape(Message(t)) + "\" type=\"" +
             std::string(harness::ToString(t.verdict)) + "\">" + XmlEscape(harness::FormatTestResult(t)) + "</" + tag + ">\n";
    }
    if (t.expectation == ExpectationStatus::kUnexpectedPass || t.expectation == ExpectationStatus::kExpiredWaiver) {
      body += "      <system-out>" + XmlEscape(std::string(harness::ToString(t.expectation)) + ": " + t.expectation_reason) +
              "</system-out>\n";
    }
    if (body.empty()) {
      out_ << "/>\n";
    } else {
      out_ << ">\n" << body << "    </testcase>\n";
    }
  }
  void EndRun(const harness::RunResult&) override { out_ << "  </testsuite>\n</testsuites>\n"; }
  std::string Take() { return out_.str(); }

 private:
  void Property(const std::string& name, const std::string& value) {
    out_ << "      <property name=\"" << XmlEscape(name) << "\" value=\"" << XmlEscape(value) << "\"/>\n";
  }
  std::ostringstream out_;
};

}  // namespace

std::string RenderJunit(const harness::RunResult& run) {
  JunitWriter w;
  Walk(run, w);
  return w.Take();
}

}  // namespace mroce::reports
