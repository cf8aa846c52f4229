// `mroce-cts diff OLD NEW [--allow-removed]`: regressions between two runs (directories or
// report.json files). Exit 1 on any regression (or lost conformance) and when cases of OLD are
// missing in NEW (unless --allow-removed), 0 otherwise, 2 when a run cannot be read.
#include "command.h"
#include "mroce/harness/expectations.h"
#include "mroce/reports/diff.h"
#include "mroce/reports/run_dir.h"

namespace mroce::cli {
namespace {

class DiffCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    sub.add_option("old", old_, "Baseline run directory or report.json")->required();
    sub.add_option("new", new_, "Candidate run directory or report.json")->required();
    sub.add_flag("--allow-removed", allow_removed_,
                 "Cases of the baseline missing in the candidate do not fail the diff (the suite dropped them)");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    auto old_run = reports::ReadRun(old_);
    if (!old_run.ok()) {
      err << "mroce-cts: error: " << old_run.error().message << "\n";
      return harness::kExitUsage;
    }
    auto new_run = reports::ReadRun(new_);
    if (!new_run.ok()) {
      err << "mroce-cts: error: " << new_run.error().message << "\n";
      return harness::kExitUsage;
    }
    reports::RunDiff diff = reports::DiffRuns(*old_run, *new_run);
    out << reports::FormatDiff(diff, allow_removed_);
    return diff.gates(allow_removed_) ? harness::kExitUnexpected : harness::kExitOk;
  }

 private:
  std::string old_;
  std::string new_;
  bool allow_removed_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeDiffCommand() { return std::make_unique<DiffCommand>(); }

}  // namespace mroce::cli
