// A run directory: report.json (the contract), junit.xml, report.html and evidence/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mroce/harness/results.h"
#include "mroce/sim/result.h"

namespace mroce::reports {

using mroce::Result;
using mroce::Status;

inline constexpr char kReportJson[] = "report.json";
inline constexpr char kJunitXml[] = "junit.xml";
inline constexpr char kReportHtml[] = "report.html";
inline constexpr char kEvidenceDir[] = "evidence";

// Normalises the run and writes all three reports atomically (each file is whole or absent);
// report.json is written last so its presence means the others are current. Error: "file.write".
[[nodiscard]] Status WriteRunDir(const std::string& dir, harness::RunResult run);

// Reads DIR/report.json (or the file itself when given a path to a .json file). Errors:
// "report.read" (absent, unreadable, not JSON), "report.schema" (a key missing or mistyped).
[[nodiscard]] Result<harness::RunResult> ReadRun(const std::string& dir_or_file);

// Rewrites junit.xml and report.html from DIR/report.json (report.json is left untouched).
[[nodiscard]] Status RerenderRunDir(const std::string& dir);

}  // namespace mroce::reports
