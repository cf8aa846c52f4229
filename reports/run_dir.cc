#include "mroce/reports/run_dir.h"

#include <filesystem>

#include "mroce/reports/atomic_file.h"
#include "mroce/reports/html.h"
#include "mroce/reports/junit.h"
#include "mroce/reports/report_json.h"

namespace mroce::reports {

namespace fs = std::filesystem;

namespace {

bool WriteRenderings(const std::string& dir, const harness::RunResult& run, std::string* error) {
  return WriteFileAtomic((fs::path(dir) / kJunitXml).string(), RenderJunit(run), error) &&
         WriteFileAtomic((fs::path(dir) / kReportHtml).string(), RenderHtml(run), error);
}

}  // namespace

bool WriteRunDir(const std::string& dir, harness::RunResult run, std::string* error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *error = dir + ": cannot create directory: " + ec.message();
    return false;
  }
  harness::Normalize(run);
  return WriteRenderings(dir, run, error) &&
         WriteFileAtomic((fs::path(dir) / kReportJson).string(), RenderReportJson(run), error);
}

std::optional<harness::RunResult> ReadRun(const std::string& dir_or_file, std::string* error) {
  std::error_code ec;
  std::string path = fs::is_directory(dir_or_file, ec) ? (fs::path(dir_or_file) / kReportJson).string() : dir_or_file;
  if (!fs::exists(path, ec)) {
    *error = path + ": no such file (expected a run directory holding report.json)";
    return std::nullopt;
  }
  return ReadReportFile(path, error);
}

bool RerenderRunDir(const std::string& dir, std::string* error) {
  auto run = ReadRun(dir, error);
  if (!run) return false;
  harness::Normalize(*run);
  std::error_code ec;
  std::string out_dir = fs::is_directory(dir, ec) ? dir : fs::path(dir).parent_path().string();
  if (out_dir.empty()) out_dir = ".";
  return WriteRenderings(out_dir, *run, error);
}

}  // namespace mroce::reports
