// report.json: the versioned contract of a run (schema docs/report.schema.json, prose
// docs/report-schema.md). Written by a visitor; read back for re-rendering, diff and merge.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mroce/harness/results.h"
#include "mroce/sim/result.h"

namespace mroce::reports {

using mroce::Result;

// The report as JSON (keys in schema order is not guaranteed; nlohmann sorts keys, which keeps
// output deterministic).
[[nodiscard]] nlohmann::json ToJson(const harness::RunResult& run);
// Pretty-printed (2-space indent, trailing newline).
[[nodiscard]] std::string RenderReportJson(const harness::RunResult& run);

// Reads a report back. Fails (message naming the key) on a missing or mistyped key or a schema
// other than mroce-cts/report/v1 (code "report.schema"; a file that cannot be read or is not JSON:
// "report.read"). The summary is not read: it is derived from the tests.
[[nodiscard]] Result<harness::RunResult> FromJson(const nlohmann::json& j);
[[nodiscard]] Result<harness::RunResult> ReadReportFile(const std::string& path);

}  // namespace mroce::reports
