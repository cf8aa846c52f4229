#include "mroce/harness/failure_text.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace mroce::harness {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void Indented(std::ostringstream& out, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out << "  " << line << "\n";
}

}  // namespace

std::string FormatCheckLine(const CheckResult& check) {
  std::ostringstream out;
  if (!check.where.empty()) out << check.where << ": ";
  out << "check " << check.check;
  if (check.verdict != Verdict::kFail) out << " (" << ToString(check.verdict) << ")";
  if (check.mismatch) {
    out << ": " << check.mismatch->field << ": expected: " << check.mismatch->expected
        << " vs actual: " << check.mismatch->actual;
    if (!check.reason.empty()) out << " (" << check.reason << ")";
  } else if (!check.reason.empty()) {
    out << ": " << check.reason;
  }
  return out.str();
}

std::string FormatCheckFailure(const CheckResult& check) {
  std::ostringstream out;
  out << FormatCheckLine(check) << "\n";
  if (!check.clauses.empty()) {
    out << "clauses:";
    for (const std::string& c : check.clauses) out << " " << c;
    out << "\n";
  }
  if (!check.expected_packet.empty()) {
    out << "script packet:\n";
    Indented(out, check.expected_packet);
  }
  if (!check.actual_packet.empty()) {
    out << "live packet:\n";
    Indented(out, check.actual_packet);
  }
  if (!check.pcap.empty()) {
    out << "pcap: " << check.pcap;
    if (check.packet_index != 0) out << " (frame " << check.packet_index << ")";
    out << "\n";
  }
  return out.str();
}

std::string FormatTestResult(const TestResult& test) {
  std::ostringstream out;
  out << test.id << ": " << Upper(ToString(test.verdict));
  if (!test.clauses.empty()) {
    out << " (" << ToString(test.level);
    for (const ClauseRef& c : test.clauses) out << " " << c.id;
    out << ")";
  }
  if (test.expectation != ExpectationStatus::kNone) out << " [" << ToString(test.expectation) << "]";
  if (test.verdict == Verdict::kSkip || test.verdict == Verdict::kPass) {
    if (test.verdict == Verdict::kSkip && !test.reason.empty()) out << ": " << test.reason;
    out << "\n";
    return out.str();
  }
  out << "\n";
  bool any_check = false;
  for (const CheckResult& c : test.checks) {
    if (c.verdict == Verdict::kPass || c.verdict == Verdict::kSkip) continue;
    out << FormatCheckFailure(c);
    any_check = true;
  }
  if (!any_check && !test.reason.empty()) out << test.reason << "\n";
  for (const std::string& e : test.evidence) {
    bool printed = std::any_of(test.checks.begin(), test.checks.end(),
                               [&](const CheckResult& c) { return c.pcap == e && IsBad(c.verdict); });
    if (!printed) out << "evidence: " << e << "\n";
  }
  if (!test.reproduce.empty()) out << "reproduce: " << test.reproduce << "\n";
  return out.str();
}

}  // namespace mroce::harness
