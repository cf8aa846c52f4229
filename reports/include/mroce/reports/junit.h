// junit.xml for CI servers: one <testcase> per case; fail/inconclusive as <failure>, error as
// <error>, skip and waived (expected) results as <skipped>.
#pragma once

#include <string>

#include "mroce/harness/results.h"

namespace mroce::reports {

[[nodiscard]] std::string RenderJunit(const harness::RunResult& run);

// Escapes &, <, >, ", ' and drops characters XML 1.0 forbids.
[[nodiscard]] std::string XmlEscape(std::string_view s);

}  // namespace mroce::reports
