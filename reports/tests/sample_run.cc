#include "sample_run.h"

namespace mroce::reports::testing {

using namespace harness;

harness::RunResult SampleRun() {
  RunResult run;
  run.suite_version = "0.1.0";
  run.tool_version = "0.1.0+git.37c26dd0a1b2";
  run.suite_digest = "sha256:" + std::string(64, 'a');
  run.dut = {"reference:quirk=go-back-n", "bundled reference endpoint <with quirk> & friends"};
  run.seed = 42;
  run.started_at = "2025-01-31T12:00:00Z";
  run.finished_at = "2025-01-31T12:01:30Z";

  TestResult pass;
  pass.id = "loss.sack.exact-retransmit";
  pass.title = "Retransmits exactly the lost packets";
  pass.clauses = {{"MR-SACK-3", Level::kMust}};
  pass.level = Level::kMust;
  pass.verdict = Verdict::kPass;
  pass.duration_s = 0.25;
  pass.seed = 42;
  pass.evidence = {"evidence/loss.sack.exact-retransmit.pcap"};
  pass.reproduce = "mroce-cts run --filter loss.sack.exact-retransmit --seed 42";
  pass.checks = {{"data-intact", {"MR-SACK-3"}, Verdict::kPass, "", std::nullopt, "", "", "", "", 0}};
  pass.series = {{"cwnd path 0", "bytes", "rtt", {{0, 1000}, {1, 2000}, {2, 4000}, {3, 3000.5}}},
                 {"cwnd path 1", "bytes", "rtt", {{0, 1000}, {1, 1500}, {2, 2500}}},
                 {"goodput", "Gbps", "rtt", {{0, 0}, {1, 40}, {2, 92.5}}}};

  TestResult fail;
  fail.id = "conn.crc.bad-crc-dropped";
  fail.title = "A frame with a bad CRC is dropped";
  fail.clauses = {{"MR-CONN-4", Level::kMust}};
  fail.level = Level::kMust;
  fail.verdict = Verdict::kFail;
  fail.reason = "ack.epsn: expected: 1 (0x1) vs actual: 2 (0x2)";
  fail.duration_s = 0.01;
  fail.seed = 42;
  fail.evidence = {"evidence/conn.crc.bad-crc-dropped.pcap"};
  fail.reproduce = "mroce-cts run --filter conn.crc.bad-crc-dropped --seed 42";
  CheckResult c;
  c.check = "expect";
  c.clauses = {"MR-CONN-4"};
  c.verdict = Verdict::kFail;
  c.reason = "the bad frame was acknowledged";
  c.mismatch = ValueMismatch::Scalar("ack.epsn", 1, 2);
  c.expected_packet = "ch.opcode = 16 (0x10) ACK\nack.epsn = 1 (0x1)";
  c.actual_packet = "ch.opcode = 16 (0x10) ACK\nack.epsn = 2 (0x2) <bad & \"quoted\">\x01";
  c.pcap = "evidence/conn.crc.bad-crc-dropped.pcap";
  c.where = "testcases/conn/bad-crc.yaml:24";
  c.packet_index = 3;
  fail.checks = {c};

  TestResult skip;
  skip.id = "paths.failover.blackhole";
  skip.title = "Recovers from a blackholed plane";
  skip.clauses = {{"MR-PATH-7", Level::kMust}};
  skip.level = Level::kMust;
  skip.verdict = Verdict::kSkip;
  skip.reason = "DUT lacks capability 'multipath'";

  TestResult error;
  error.id = "cc.hint.rate-under-hint";
  error.title = "Sender stays under the rate hint";
  error.clauses = {{"MR-CC-2", Level::kShould}};
  error.level = Level::kShould;
  error.verdict = Verdict::kError;
  error.reason = "DUT process exited with status 139";
  error.duration_s = 1.5;
  error.expectation = ExpectationStatus::kExpected;
  error.expectation_reason = "known crash, bug 12";

  TestResult inconclusive;
  inconclusive.id = "cc.ecn.aimd";
  inconclusive.title = "ECN AIMD";
  inconclusive.clauses = {{"MR-CC-5", Level::kMay}};
  inconclusive.level = Level::kMay;
  inconclusive.verdict = Verdict::kInconclusive;
  inconclusive.reason = "no CE marks were applied";
  inconclusive.stall_ms = 12.5;  // a live DUT's case, rerun after stalls
  inconclusive.attempts = 3;

  run.tests = {pass, fail, skip, error, inconclusive};
  run.clauses = {{"MR-ZZZ-1", Level::kMust, "an untested clause", {}, "untested"}};
  Normalize(run);
  return run;
}

}  // namespace mroce::reports::testing
