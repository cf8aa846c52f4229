#include "mroce/reports/run_dir.h"

#include <filesystem>

#include "mroce/reports/atomic_file.h"
#include "mroce/reports/html.h"
#include "mroce/reports/junit.h"
#include "mroce/reports/report_json.h"

namespace mroce::reports {

namespace fs = std::filesystem;

namespace {

Status WriteRenderings(const std::string& dir, const harness::RunResult& run) {
  Status st = WriteFileAtomic((fs::path(dir) / kJunitXml).string(), RenderJunit(run));
  if (!st.ok()) return st;
  return WriteFileAtomic((fs::path(dir) / kReportHtml).string(), RenderHtml(run));
}

}  // namespace

Status WriteRunDir(const std::string& dir, harness::RunResult run) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return MakeError("file.write", dir + ": cannot create directory: " + ec.message());
  harness::Normalize(run);
  Status st = WriteRenderings(dir, run);
  if (!st.ok()) return st;
  return WriteFileAtomic((fs::path(dir) / kReportJson).string(), RenderReportJson(run));
}

Result<harness::RunResult> ReadRun(const std::string& dir_or_file) {
  std::error_code ec;
  std::string path = fs::is_directory(dir_or_file, ec) ? (fs::path(dir_or_file) / kReportJson).string() : dir_or_file;
  if (!fs::exists(path, ec)) {
    return MakeError("report.read", path + ": no such file (expected a run directory holding report.json)");
  }
  return ReadReportFile(path);
}

Status RerenderRunDir(const std::string& dir) {
  auto run = ReadRun(dir);
  if (!run.ok()) return run.error();
  harness::Normalize(*run);
  std::error_code ec;
  std::string out_dir = fs::is_directory(dir, ec) ? dir : fs::path(dir).parent_path().string();
  if (out_dir.empty()) out_dir = ".";
  return WriteRenderings(out_dir, *run);
}

}  // namespace mroce::reports
