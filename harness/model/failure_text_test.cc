#include "mroce/harness/failure_text.h"

#include <gtest/gtest.h>

namespace mroce::harness {
namespace {

TEST(FailureText, PacketdrillStyle) {
  TestResult t;
  t.id = "loss.sack.exact-retransmit";
  t.level = Level::kMust;
  t.clauses = {{"MR-SACK-3", Level::kMust}};
  t.verdict = Verdict::kFail;
  t.reproduce = "mroce-cts run --filter loss.sack.exact-retransmit --seed 7";
  t.evidence = {"evidence/loss.sack.exact-retransmit.pcap"};
  CheckResult c;
  c.check = "expect-ack";
  c.clauses = {"MR-SACK-3"};
  c.verdict = Verdict::kFail;
  c.where = "cases/loss/sack.yaml:31";
  c.mismatch = ValueMismatch::Scalar("ack.epsn", 10, 12);
  c.expected_packet = "ch.opcode = 16 (0x10) ACK\nack.epsn = 10 (0xa)";
  c.actual_packet = "ch.opcode = 16 (0x10) ACK\nack.epsn = 12 (0xc)";
  c.pcap = "evidence/loss.sack.exact-retransmit.pcap";
  c.packet_index = 17;
  CheckResult ok;
  ok.check = "data-intact";
  t.checks = {ok, c};
  EXPECT_EQ(FormatTestResult(t),
            "loss.sack.exact-retransmit: FAIL (MUST MR-SACK-3)\n"
            "cases/loss/sack.yaml:31: check expect-ack: ack.epsn: expected: 10 (0xa) vs actual: 12 (0xc)\n"
            "clauses: MR-SACK-3\n"
            "script packet:\n"
            "  ch.opcode = 16 (0x10) ACK\n"
            "  ack.epsn = 10 (0xa)\n"
            "live packet:\n"
            "  ch.opcode = 16 (0x10) ACK\n"
            "  ack.epsn = 12 (0xc)\n"
            "pcap: evidence/loss.sack.exact-retransmit.pcap (frame 17)\n"
            "reproduce: mroce-cts run --filter loss.sack.exact-retransmit --seed 7\n");
}

TEST(FailureText, PassAndSkipAreOneLine) {
  TestResult t;
  t.id = "a.b";
  t.verdict = Verdict::kSkip;
  t.reason = "DUT lacks capability 'sack'";
  EXPECT_EQ(FormatTestResult(t), "a.b: SKIP: DUT lacks capability 'sack'\n");
  t.verdict = Verdict::kPass;
  EXPECT_EQ(FormatTestResult(t), "a.b: PASS\n");
}

TEST(FailureText, ReasonOnlyCheck) {
  CheckResult c;
  c.check = "recovery-within";
  c.verdict = Verdict::kInconclusive;
  c.reason = "the blackhole never hit an active path";
  EXPECT_EQ(FormatCheckLine(c), "check recovery-within (inconclusive): the blackhole never hit an active path");
}

}  // namespace
}  // namespace mroce::harness
