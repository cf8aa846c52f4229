// Atomic file writes: an interrupted run never leaves a half-written report.
#pragma once

#include <string>
#include <string_view>

#include "mroce/sim/result.h"

namespace mroce::reports {

using mroce::Result;
using mroce::Status;

// Writes `contents` to a temporary file beside `path`, flushes it to disk and renames it over
// `path`. Readers see the old file or the new one, never a prefix. Error code "file.write"; the
// message names the path and the system's reason.
[[nodiscard]] Status WriteFileAtomic(const std::string& path, std::string_view contents);

}  // namespace mroce::reports
