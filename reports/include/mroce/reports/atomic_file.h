// Atomic file writes: an interrupted run never leaves a half-written report.
#pragma once

#include <string>
#include <string_view>

namespace mroce::reports {

// Writes `contents` to a temporary file beside `path`, flushes it to disk and renames it over
// `path`. Readers see the old file or the new one, never a prefix. Returns false with *error set.
bool WriteFileAtomic(const std::string& path, std::string_view contents, std::string* error);

}  // namespace mroce::reports
