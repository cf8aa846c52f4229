// Scripted sessions: the harness is the DUT's peer, packetdrill style; it injects crafted frames and
// expects the DUT's frames to match patterns within time windows.
//
//   host 0 = DUT ── fabric (same topology and impairments as end-to-end cases) ── host 1 = script
//
// Steps run in file order on one cursor of simulated time:
//   dut     at max(start + at, cursor): drives the DUT's control interface (open connects the DUT to
//           the script's address, so the script must answer its CONNECT_REQ). cursor := that time.
//   inject  at max(start + at, cursor): sends the frame from host 1 on the path's plane.
//   expect  window [cursor, cursor + within]: the first DUT frame (sent at host 0, not matched by an
//           earlier step) matching every pattern satisfies it; cursor := its send time. absent: no
//           such frame in the window; cursor := window end. The first failed step ends the script.
//
// Injected frames: codec field names, defaults filled (see below), then computed fields (lengths,
// ethertype, checksums, CRC) filled unless the step gives them, so a wrong value can be injected.
//   eth.src/dst, ip4.src/dst      host 1 -> host 0 (Fabric::HostMac / HostIpv4)
//   ip4.ttl 64, ip4.flags 2 (DF), ip4.ecn 2 (ECT(0))
//   udp.sport 49152 + path        udp.dport 4797 (4791 when the frame has bth.* fields)
//   ch.ver 1, ch.path_id path, ch.dst_conn_id $dut_conn (when bound)
//   data opcodes with a payload:  meh.msg_len = payload size, ch.flags.first = ch.flags.last = 1
//   `scapy:` expressions are evaluated by the embedded interpreter (scapy_eval.h) with `from
//   mroce.scapy import *` and every bound variable as a Python global (dut_conn, nonce, ...), plus
//   dut_mac/peer_mac/dut_ip/peer_ip (strings) and sport (49152 + path).
//
// Variables bound automatically:
//   $dut_va $dut_rkey $dut_buf_len   a buffer the session registers on the DUT at start with remote
//                                    read and write access (kScriptBufferBytes; its bytes are a
//                                    function of the seed), the target of scripted WRITEs and READs
//   $peer_va $peer_rkey              what DUT write/read steps use as the remote buffer (the script's)
//   $peer_conn                       a connection id for the script's side (kScriptPeerConnId)
//   $dut_conn $nonce                 from the first CONNECT_REQ/CONNECT_ACK the DUT sends that an
//                                    expect step matches (cmh.src_conn_id, cmh.nonce), unless the
//                                    script bound them itself
//
// Reference comparison: the same script also runs against the bundled reference endpoint with the
// same seed; the DUT's frame matched by each expect step must equal the reference's field by field
// (wire::DiffFieldMaps), except the step's `free` fields, the fields the step matched with a
// variable (already judged by the variable, and their values are each implementation's own choice)
// and BuiltinFreeFields().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mroce/endpoint/types.h"
#include "mroce/harness/case.h"
#include "mroce/harness/results.h"
#include "mroce/session/session.h"

namespace mroce::session {

inline constexpr uint64_t kScriptBufferBytes = 1 << 20;   // $dut_buf_len
inline constexpr uint64_t kScriptPeerVa = 0x7000'0000'0000ull;  // $peer_va
inline constexpr uint32_t kScriptPeerRkey = 0x5c417;      // $peer_rkey
inline constexpr uint32_t kScriptPeerConnId = 0xc0ffee;   // $peer_conn
inline constexpr uint16_t kScriptBaseSport = 49152;       // udp.sport of path p: 49152 + p

// Fields never compared with the reference, because two conformant implementations choose them
// freely or they follow from timing rather than protocol state:
//   ip4.id ip4.checksum   per-implementation IP id; the checksum follows from it
//   ip6.flow_label        free per ENC clauses
//   udp.sport             path entropy is each implementation's choice (ENC/PATH)
//   crc                   follows from the other fields (any real difference shows elsewhere)
//   cmh.src_conn_id cmh.nonce   random per MROCE-CONN-001/002
//   ack.ack_delay         processing time, bounded by MROCE-ACK-004/ACK 8.3, not reference-equal
//   prh.tx_time           the sender's opaque clock
//   eth.padding           Ethernet padding bytes
[[nodiscard]] const std::vector<std::string>& BuiltinFreeFields();

// Scapy expression -> frame bytes. `vars` are the script's bound variables (names without '$').
using ScapyEvaluator =
    std::function<ref::Result<std::vector<uint8_t>>(const std::string& expr, const std::map<std::string, uint64_t>& vars)>;
// Installs the evaluator scripted sessions use for `scapy:` steps (process-wide; scapy_eval.h's
// InstallEmbeddedScapy() installs the embedded-Python one). Without one, such steps give ERROR.
void SetScapyEvaluator(ScapyEvaluator eval);

// Everything one run of a script produced (against the DUT or the reference).
struct ScriptStepOutcome {
  enum class State { kNotRun, kPassed, kFailed, kError };
  State state = State::kNotRun;
  int64_t time_ns = 0;              // When the step ran / matched (absent: window end).
  std::string reason;               // kFailed / kError: one line.
  harness::CheckResult detail;      // kFailed: dumps, mismatch, frame number.
  long matched_frame = -1;          // Index into rec.trace.frames of the matched frame.
};
struct ScriptRun {
  RunRecord rec;
  std::vector<ScriptStepOutcome> steps;  // Parallel to the case's script.
  std::map<std::string, uint64_t> vars;  // Variables at the end.
  std::string error;                     // Harness or setup error (ERROR verdict).
};

// Runs the script once against `make_dut` (pcap named `pcap_suffix`: "" -> evidence/<id>.pcap).
[[nodiscard]] ScriptRun SimulateScript(const harness::Case& c, const SessionOptions& options, const DutFactory& make_dut,
                                       const std::string& pcap_suffix = "");

// Runs a scripted case: against the DUT, then against the reference endpoint, and judges it
// (one "expect@file:line" check per expect step plus "reference-match").
[[nodiscard]] harness::TestResult RunScripted(const harness::Case& c, const SessionOptions& options);

}  // namespace mroce::session
