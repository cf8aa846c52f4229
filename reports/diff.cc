#include "mroce/reports/diff.h"

#include <cctype>
#include <map>
#include <sstream>

namespace mroce::reports {

using harness::Verdict;

std::string_view ToString(DiffEntry::Kind k) {
  switch (k) {
    case DiffEntry::Kind::kRegression: return "regression";
    case DiffEntry::Kind::kImprovement: return "improvement";
    case DiffEntry::Kind::kChanged: return "changed";
    case DiffEntry::Kind::kAdded: return "added";
    case DiffEntry::Kind::kRemoved: return "removed";
  }
  return "changed";
}

namespace {

int Severity(Verdict v) {
  switch (v) {
    case Verdict::kPass:
    case Verdict::kSkip: return 0;
    case Verdict::kInconclusive: return 1;
    case Verdict::kFail: return 2;
    case Verdict::kError: return 3;
  }
  return 3;
}

}  // namespace

RunDiff DiffRuns(const harness::RunResult& old_run, const harness::RunResult& new_run) {
  RunDiff d;
  std::map<std::string, const harness::TestResult*> old_tests, new_tests;
  for (const auto& t : old_run.tests) old_tests[t.id] = &t;
  for (const auto& t : new_run.tests) new_tests[t.id] = &t;
  std::map<std::string, bool> ids;
  for (const auto& [id, _] : old_tests) ids[id] = true;
  for (const auto& [id, _] : new_tests) ids[id] = true;
  for (const auto& [id, _] : ids) {
    auto o = old_tests.find(id);
    auto n = new_tests.find(id);
    DiffEntry e{DiffEntry::Kind::kChanged, id, std::nullopt, std::nullopt, ""};
    if (o == old_tests.end()) {
      e.kind = DiffEntry::Kind::kAdded;
      e.new_verdict = n->second->verdict;
      ++d.added;
    } else if (n == new_tests.end()) {
      e.kind = DiffEntry::Kind::kRemoved;
      e.old_verdict = o->second->verdict;
      ++d.removed;
    } else {
      Verdict ov = o->second->verdict, nv = n->second->verdict;
      if (ov == nv) continue;
      e.old_verdict = ov;
      e.new_verdict = nv;
      if (Severity(nv) > Severity(ov)) {
        e.kind = DiffEntry::Kind::kRegression;
        e.reason = n->second->reason;
        ++d.regressions;
      } else if (Severity(nv) < Severity(ov)) {
        e.kind = DiffEntry::Kind::kImprovement;
        ++d.improvements;
      } else {
        ++d.changed;
      }
    }
    d.entries.push_back(std::move(e));
  }
  d.lost_conformance = harness::Summarize(old_run).conformant && !harness::Summarize(new_run).conformant;
  d.old_digest = old_run.suite_digest;
  d.new_digest = new_run.suite_digest;
  d.other_suite = !d.old_digest.empty() && !d.new_digest.empty() && d.old_digest != d.new_digest;
  return d;
}

std::string FormatDiff(const RunDiff& diff, bool allow_removed) {
  std::ostringstream out;
  const bool gates = diff.gates(allow_removed);
  out << "diff: " << diff.regressions << " regression(s), " << diff.improvements << " fix(es), " << diff.removed
      << " removed, " << diff.added << " added, " << diff.changed << " changed (pass <-> skip)";
  if (diff.lost_conformance) out << ", conformance lost";
  out << ": " << (gates ? "FAIL" : "ok");
  if (diff.removed > 0 && allow_removed) out << " (removed cases allowed by --allow-removed)";
  out << "\n";
  if (diff.other_suite) {
    out << "note: the runs judged different suites (suite_digest " << diff.old_digest << " -> " << diff.new_digest
        << ")\n";
  }
  for (const DiffEntry& e : diff.entries) {
    std::string kind(ToString(e.kind));
    for (char& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out << kind << "  " << e.id << "  " << (e.old_verdict ? harness::ToString(*e.old_verdict) : "-") << " -> "
        << (e.new_verdict ? harness::ToString(*e.new_verdict) : "-");
    if (!e.reason.empty()) out << "  (" << e.reason << ")";
    out << "\n";
  }
  if (diff.lost_conformance) out << "REGRESSION  conformance: conformant -> not conformant\n";
  if (diff.removed > 0 && !allow_removed) {
    out << "gate: " << diff.removed << " case(s) of the baseline are missing in the candidate (REMOVED above): a run "
        << "of fewer cases is no evidence for the missing ones; rerun them, or pass --allow-removed if the suite "
        << "dropped them on purpose\n";
  }
  return out.str();
}

}  // namespace mroce::reports
