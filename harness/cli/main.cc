// mroce-cts: the MetaRoCE conformance test suite's command-line tool.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string_view>
#include <vector>

#include "cli_common.h"
#include "command.h"
#include "mroce/campaign/tool_version.h"
#include "mroce/harness/expectations.h"
#ifdef MROCE_HAVE_DUT_DPDK
#include "mroce/dut/dpdk_dut.h"
#endif
#ifdef MROCE_HAVE_SCAPY
#include "mroce/session/scapy_eval.h"
#endif

namespace {

// Subcommands in the order `--help` lists them.
const mroce::cli::CommandInfo kCommands[] = {
    {"run", "Run the suite against a DUT in the simulated fabric and write a report", mroce::cli::MakeRunCommand},
    {"selftest", "Prove the suite's power: pristine reference passes, every quirk is caught", mroce::cli::MakeSelftestCommand},
    {"list", "List the cases of a suite", mroce::cli::MakeListCommand},
    {"validate", "Check case files (schema, clause ids, duplicate ids)", mroce::cli::MakeValidateCommand},
    {"report", "Re-render junit.xml and report.html of a run directory from its report.json",
     mroce::cli::MakeReportCommand},
    {"diff", "Compare two runs; exit 1 on regressions", mroce::cli::MakeDiffCommand},
    {"merge", "Merge shard run directories into one run", mroce::cli::MakeMergeCommand},
    {"package", "Pack a run directory into a certification package (tar.zst with a SHA-256 manifest)",
     mroce::cli::MakePackageCommand},
    {"verify", "Check a certification package: intact, and a full conformant run of a known suite",
     mroce::cli::MakeVerifyCommand},
    {"decode", "Decode every frame of a pcap with the MetaRoCE codec", mroce::cli::MakeDecodeCommand},
    {"bench", "Benchmark scenarios (resilience, incast, planes, failover, scale; MetaRoCE vs RoCEv2)",
     mroce::cli::MakeBenchCommand},
    {"impair", "Live impairment between two DPDK ports (bump in the wire); --bench: Mpps beside dpdk-testpmd",
     mroce::cli::MakeImpairCommand},
};

}  // namespace

int main(int argc, char** argv) {
  mroce::cli::SetProgramPath(argc > 0 ? argv[0] : nullptr);
  CLI::App app{"mroce-cts: conformance test suite for MetaRoCE", "mroce-cts"};
  app.set_version_flag("--version", std::string("mroce-cts ") + mroce::campaign::ToolVersion());
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, std::unique_ptr<mroce::cli::Command>>> commands;
  for (const auto& info : kCommands) {
    CLI::App* sub = app.add_subcommand(info.name, info.help);
    auto cmd = info.make();
    cmd->Configure(*sub);
    commands.emplace_back(sub, std::move(cmd));
  }
  // CLI11 reports an unknown command only as "a subcommand is required"; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const auto& info : kCommands) known = known || std::string_view(argv[1]) == info.name;
    if (!known) {
      std::cerr << "mroce-cts: error: unknown command '" << argv[1] << "' (run 'mroce-cts --help')\n";
      return mroce::harness::kExitUsage;
    }
  }
#ifdef MROCE_HAVE_DUT_DPDK
  mroce::dut::dpdk::RegisterDpdkDut();  // `--dut dpdk:...` (without DPDK, MakeDut says it was not built)
#endif
#ifdef MROCE_HAVE_SCAPY
  mroce::session::InstallEmbeddedScapy();  // scripted `scapy:` steps; the interpreter starts on first use
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "mroce-cts: error: " << e.what() << "\n(run 'mroce-cts --help' or 'mroce-cts <command> --help')\n";
    return mroce::harness::kExitUsage;
  }
  for (auto& [sub, cmd] : commands) {
    if (sub->parsed()) {
      try {
        return cmd->Run(std::cout, std::cerr);
      } catch (const std::exception& e) {
        std::cerr << "mroce-cts: internal error: " << e.what() << "\n";
        return mroce::harness::kExitHarnessError;
      }
    }
  }
  return mroce::harness::kExitUsage;
}
