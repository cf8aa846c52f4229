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
//   respond from now to the script's end: each DUT frame sent after the last matched one that
//           matches is answered at once (at the frame's send time) with the step's frame, at most
//           `max` times; unbound variables of the match bind per answered frame. cursor unchanged.
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
// The case's verdict comes from registered checks (checks.h): "script-steps" judges each step (an
// "expect@file:line" result per expect step, "dut-control@file:line" for a refused DUT call) and
// "reference-match" compares the DUT's matched frames with the reference endpoint's run of the same
// script.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mroce/endpoint/types.h"
#include "mroce/harness/case.h"
#include "mroce/session/options.h"
#include "mroce/session/run_record.h"

namespace mroce::session {

inline constexpr int kScriptHost = 1;                     // The script's host (the DUT is kDutHost).
inline constexpr uint64_t kScriptBufferBytes = 1 << 20;   // $dut_buf_len
inline constexpr uint64_t kScriptPeerVa = 0x7000'0000'0000ull;  // $peer_va
inline constexpr uint32_t kScriptPeerRkey = 0x5c417;      // $peer_rkey
inline constexpr uint32_t kScriptPeerConnId = 0xc0ffee;   // $peer_conn
inline constexpr uint16_t kScriptBaseSport = 49152;       // udp.sport of path p: 49152 + p

// Scapy expression -> frame bytes. `vars` are the script's bound variables (names without '$').
using ScapyEvaluator =
    std::function<ref::Result<std::vector<uint8_t>>(const std::string& expr, const std::map<std::string, uint64_t>& vars)>;
// Installs the evaluator scripted sessions use for `scapy:` steps (process-wide; scapy_eval.h's
// InstallEmbeddedScapy() installs the embedded-Python one). Without one, such steps give ERROR.
void SetScapyEvaluator(ScapyEvaluator eval);

// Runs the script once against `make_dut` (pcap named `pcap_suffix`: "" -> evidence/<id>.pcap).
// The record carries the step outcomes (RunRecord::steps) and the variables bound at the end.
[[nodiscard]] RunRecord SimulateScript(const harness::Case& c, const SessionOptions& options, const DutFactory& make_dut,
                                       const std::string& pcap_suffix = "");

// "file:line" of a script step (or "<script>" for a step without a file), as checks name steps.
[[nodiscard]] std::string ScriptWhere(const harness::SourceLocation& where);

}  // namespace mroce::session
