// Session: runs one test case against a device under test and judges it. This is the one place
// that probes the DUT's capabilities (a case it cannot run is a skip), dispatches by style, runs
// the checks, builds the reproduce command and reruns a live case whose DUT was left unserved.
//
//   RunCase ─► capability probe ─► Simulate: end-to-end (workload.h) or scripted (scripted.h)
//                                  on a Testbed (testbed.h) ─► RunRecord (run_record.h)
//                                ─► scripted: the same script against the reference endpoint
//                                ─► RunChecks (checks.h) ─► verdict, evidence, reproduce command
//
// The simulator is the only clock; the same seed gives the same bytes, verdicts and report.
#pragma once

#include "mroce/harness/case.h"
#include "mroce/harness/results.h"
#include "mroce/session/options.h"
#include "mroce/session/run_record.h"

namespace mroce::session {

// Runs the case and returns its result (verdict from its checks, evidence paths, reproduce command).
[[nodiscard]] harness::TestResult RunCase(const harness::Case& c, const SessionOptions& options);

// Runs the case once against options.make_dut without judging it: for tests and benchmarks.
[[nodiscard]] RunRecord Simulate(const harness::Case& c, const SessionOptions& options);

// The command that reruns exactly this case with this seed and DUT.
// "PREFIX --filter 'ID' --seed N --dut 'SPEC' --out 'mroce-repro/ID'" (PREFIX: options.reproduce_prefix).
[[nodiscard]] std::string ReproduceCommand(const harness::Case& c, const SessionOptions& options);

}  // namespace mroce::session
