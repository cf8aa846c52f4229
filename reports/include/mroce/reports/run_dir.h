// A run directory: report.json (the contract), junit.xml, report.html and evidence/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mroce/harness/results.h"

namespace mroce::reports {

inline constexpr char kReportJson[] = "report.json";
inline constexpr char kJunitXml[] = "junit.xml";
inline constexpr char kReportHtml[] = "report.html";
inline constexpr char kEvidenceDir[] = "evidence";

// Normalises the run and writes all three reports atomically (each file is whole or absent);
// report.json is written last so its presence means the others are current.
bool WriteRunDir(const std::string& dir, harness::RunResult run, std::string* error);

// Reads DIR/report.json (or the file itself when given a path to a .json file).
std::optional<harness::RunResult> ReadRun(const std::string& dir_or_file, std::string* error);

// Rewrites junit.xml and report.html from DIR/report.json (report.json is left untouched).
bool RerenderRunDir(const std::string& dir, std::string* error);

}  // namespace mroce::reports
