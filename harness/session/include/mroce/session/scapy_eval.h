// Embedded-Python Scapy evaluator for scripted `scapy:` steps (library mroce_session_scapy; only
// programs that run scripted cases with Scapy steps need to link it and libpython).
//
// The interpreter starts on first use (once per process, never finalised) with <repo>/python (or
// $MROCE_PYTHONPATH, ':'-separated) prepended to sys.path, runs `from mroce.scapy import *` and
// evaluates the expression with the script's variables as globals; the result may be a Scapy
// packet (bytes(pkt) is taken) or bytes. Errors name the problem: no interpreter, Scapy not
// importable, the expression's Python exception.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mroce/endpoint/types.h"

namespace mroce::session {

[[nodiscard]] ref::Result<std::vector<uint8_t>> EvalScapyExpression(const std::string& expr,
                                                                    const std::map<std::string, uint64_t>& vars);
// SetScapyEvaluator(EvalScapyExpression) plus the fabric's host addresses as globals.
void InstallEmbeddedScapy();

}  // namespace mroce::session
