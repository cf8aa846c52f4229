// `mroce-cts report RUN_DIR`: re-renders junit.xml and report.html from RUN_DIR/report.json.
#include "command.h"
#include "mroce/harness/expectations.h"
#include "mroce/reports/run_dir.h"

namespace mroce::cli {
namespace {

class ReportCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    sub.add_option("run_dir", dir_, "Run directory holding report.json")->required();
  }

  int Run(std::ostream& out, std::ostream& err) override {
    const Status rendered = reports::RerenderRunDir(dir_);
    if (!rendered.ok()) {
      err << "mroce-cts: error: " << rendered.error().message << "\n";
      return harness::kExitUsage;
    }
    out << "wrote " << dir_ << "/" << reports::kJunitXml << " and " << dir_ << "/" << reports::kReportHtml << "\n";
    return harness::kExitOk;
  }

 private:
  std::string dir_;
};

}  // namespace

std::unique_ptr<Command> MakeReportCommand() { return std::make_unique<ReportCommand>(); }

}  // namespace mroce::cli
