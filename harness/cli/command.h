// A subcommand of mroce-cts: it declares its flags on a CLI11 sub-app, then runs and returns the
// process exit status (see mroce/harness/expectations.h: 0 ok, 1 unexpected, 2 usage, 3 harness).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

namespace mroce::cli {

class Command {
 public:
  virtual ~Command() = default;
  virtual void Configure(CLI::App& sub) = 0;
  virtual int Run(std::ostream& out, std::ostream& err) = 0;
};

struct CommandInfo {
  const char* name;
  const char* help;
  std::unique_ptr<Command> (*make)();
};

std::unique_ptr<Command> MakeListCommand();
std::unique_ptr<Command> MakeReportCommand();
std::unique_ptr<Command> MakeDiffCommand();
std::unique_ptr<Command> MakeMergeCommand();
std::unique_ptr<Command> MakePackageCommand();
std::unique_ptr<Command> MakeVerifyCommand();
std::unique_ptr<Command> MakeValidateCommand();
std::unique_ptr<Command> MakeDecodeCommand();
std::unique_ptr<Command> MakeRunCommand();
std::unique_ptr<Command> MakeBenchCommand();
std::unique_ptr<Command> MakeSelftestCommand();
std::unique_ptr<Command> MakeImpairCommand();

}  // namespace mroce::cli
