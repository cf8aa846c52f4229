#include "mroce/reports/visitor.h"

namespace mroce::reports {

void Walk(const harness::RunResult& run, RunVisitor& visitor) {
  harness::Summary summary = harness::Summarize(run);
  visitor.BeginRun(run, summary);
  visitor.BeginTests();
  for (const harness::TestResult& t : run.tests) {
    visitor.BeginTest(t);
    for (const harness::CheckResult& c : t.checks) visitor.VisitCheck(t, c);
    for (const harness::TimeSeries& s : t.series) visitor.VisitSeries(t, s);
    visitor.EndTest(t);
  }
  visitor.EndTests();
  visitor.BeginClauses();
  for (const harness::ClauseRow& c : run.clauses) visitor.VisitClause(c);
  visitor.EndClauses();
  visitor.EndRun(run);
}

}  // namespace mroce::reports
