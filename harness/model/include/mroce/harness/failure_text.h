// Human-readable failure reports, packetdrill style: location, check, clause, the field with
// expected vs actual in decimal and hex, then the script packet and the live packet, the pcap and
// the command that reproduces the run.
//
//   loss.sack.exact-retransmit: FAIL (MUST MR-SACK-3)
//   cases/loss/sack.yaml:31: check expect-ack: ack.epsn: expected: 10 (0xa) vs actual: 12 (0xc)
//   script packet:
//     ch.opcode = 16 (0x10) ACK
//   live packet:
//     ch.opcode = 16 (0x10) ACK
//   pcap: evidence/loss.sack.exact-retransmit.pcap (frame 17)
//   reproduce: mroce-cts run --filter loss.sack.exact-retransmit --seed 7
#pragma once

#include <string>

#include "mroce/harness/results.h"

namespace mroce::harness {

// One line: "<where>: check <name>: <field>: expected: E vs actual: A" or "... check <name>: reason".
[[nodiscard]] std::string FormatCheckLine(const CheckResult& check);

// The full block for one check (line, packet dumps, pcap).
[[nodiscard]] std::string FormatCheckFailure(const CheckResult& check);

// The block for a test: header line, then every non-pass check, then the reproduce command.
// For passing or skipped tests only the header line.
[[nodiscard]] std::string FormatTestResult(const TestResult& test);

}  // namespace mroce::harness
