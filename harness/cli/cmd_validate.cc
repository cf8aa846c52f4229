// `mroce-cts validate FILE|DIR...`: loads case files and reports every problem with
// file:line:column and key. Exit 0 when all are valid, 1 when some are not, 2 on a bad argument.
#include <filesystem>

#include "cli_common.h"
#include "command.h"
#include "mroce/harness/expectations.h"

namespace mroce::cli {
namespace {

class ValidateCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    sub.add_option("paths", paths_, "Case files or directories")->required();
    sub.add_option("--catalog", catalog_, "Clause catalog (clauses.json); found next to the suite by default");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    int status = harness::kExitOk;
    for (const std::string& p : paths_) {
      std::error_code ec;
      if (!std::filesystem::exists(p, ec)) {
        err << "mroce-cts: error: " << p << ": no such file or directory\n";
        return harness::kExitUsage;
      }
      harness::Catalog catalog;
      auto cases = LoadSuite(p, catalog_, &catalog, err);
      if (!cases) {
        status = harness::kExitUnexpected;
        continue;
      }
      out << p << ": ok, " << cases->size() << " case(s)"
          << (catalog.empty() ? " (no clause catalog found: clause ids not checked)" : "") << "\n";
    }
    return status;
  }

 private:
  std::vector<std::string> paths_;
  std::string catalog_;
};

}  // namespace

std::unique_ptr<Command> MakeValidateCommand() { return std::make_unique<ValidateCommand>(); }

}  // namespace mroce::cli
