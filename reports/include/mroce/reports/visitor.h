// RunVisitor: report writers are visitors over one RunResult, walked in a fixed order so every
// report lists the same things in the same order.
#pragma once

#include "mroce/harness/results.h"

namespace mroce::reports {

// Methods default to no-ops; a writer overrides what it needs.
class RunVisitor {
 public:
  virtual ~RunVisitor() = default;
  virtual void BeginRun(const harness::RunResult& run, const harness::Summary& summary) {}
  virtual void BeginTests() {}
  virtual void BeginTest(const harness::TestResult& test) {}
  virtual void VisitCheck(const harness::TestResult& test, const harness::CheckResult& check) {}
  virtual void VisitSeries(const harness::TestResult& test, const harness::TimeSeries& series) {}
  virtual void EndTest(const harness::TestResult& test) {}
  virtual void EndTests() {}
  virtual void BeginClauses() {}
  virtual void VisitClause(const harness::ClauseRow& clause) {}
  virtual void EndClauses() {}
  virtual void EndRun(const harness::RunResult& run) {}
};

// Visits the run: BeginRun, tests (in the order of run.tests, each test's checks then series),
// clauses (in the order of run.clauses), EndRun. Callers Normalize() the run first for id order.
void Walk(const harness::RunResult& run, RunVisitor& visitor);

}  // namespace mroce::reports
