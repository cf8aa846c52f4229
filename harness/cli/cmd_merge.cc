// `mroce-cts merge --out DIR SHARD_DIR...`: one run from shard runs (conflicting ids are an error).
#include "command.h"
#include "mroce/harness/expectations.h"
#include "mroce/reports/merge.h"
#include "mroce/reports/run_dir.h"

namespace mroce::cli {
namespace {

class MergeCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    sub.add_option("--out,-o", out_dir_, "Directory of the merged run")->required();
    sub.add_option("shards", dirs_, "Shard run directories")->required();
  }

  int Run(std::ostream& out, std::ostream& err) override {
    const Status merging = reports::MergeRunDirs(dirs_, out_dir_);
    if (!merging.ok()) {
      err << "mroce-cts: error: " << merging.error().message << "\n";
      return harness::kExitUsage;
    }
    auto merged = reports::ReadRun(out_dir_);
    if (!merged.ok()) {
      err << "mroce-cts: error: " << merged.error().message << "\n";
      return harness::kExitHarnessError;
    }
    harness::Summary s = harness::Summarize(*merged);
    out << "merged " << dirs_.size() << " shard(s) into " << out_dir_ << ": " << s.total << " case(s), MUST "
        << s.must_pass << "/" << s.must_total << ", "
        << (s.conformant ? "conformant" : s.must_pass < s.must_total || !s.partial ? "not conformant" : "PARTIAL RUN: not a conformance claim")
        << (merged->incomplete ? " (incomplete)" : "") << "\n";
    for (const std::string& why : s.partial_reasons) out << "  partial: " << why << "\n";
    return harness::kExitOk;
  }

 private:
  std::string out_dir_;
  std::vector<std::string> dirs_;
};

}  // namespace

std::unique_ptr<Command> MakeMergeCommand() { return std::make_unique<MergeCommand>(); }

}  // namespace mroce::cli
