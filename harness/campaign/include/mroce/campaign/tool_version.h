// The version of the mroce-cts build that runs: the project version and, when built from a git
// checkout, the commit ("0.1.0+git.37c26dd", "+dirty" when the tree had local changes at build
// time). Generated at every build (tool_version.cmake), so a report names the harness that judged.
#pragma once

#include <string>

namespace mroce::campaign {

[[nodiscard]] const std::string& ToolVersion();

}  // namespace mroce::campaign
