// mroce-refd: the MetaRoCE reference endpoint as a daemon (stdin/stdout JSON lines, UDP data plane).
//
//   mroce-refd [--quirk NAME]... [--fault crash-after-frames=N|hang-after-frames=N|garbage-after-frames=N|reply-delay-us=N]
//
// The harness starts it with `--dut process:mroce-refd`; docs/process-protocol.md has the protocol.
#include <csignal>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "refd.h"

int main(int argc, char** argv) {
  CLI::App app{"mroce-refd: the MetaRoCE reference endpoint as a live daemon. Control: JSON lines on stdin/stdout "
               "(docs/process-protocol.md). Data: MetaRoCE over UDP sockets at the address the harness's 'start' names."};
  std::vector<std::string> quirks;
  std::string fault;
  app.add_option("--quirk", quirks, "Deviate from the spec on purpose (self-test; names as `mroce-cts list quirks`)");
  app.add_option("--fault", fault, "Misbehave on purpose for harness tests: crash-after-frames=N, hang-after-frames=N, "
                                   "garbage-after-frames=N, reply-delay-us=N (each reply after start written N us late)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  mroce::refd::Options options;
  for (const std::string& q : quirks) {
    auto parsed = mroce::ref::Quirks::Parse(q);
    if (!parsed.ok()) {
      std::fprintf(stderr, "mroce-refd: --quirk %s: %s\n", q.c_str(), parsed.error().message.c_str());
      return 2;
    }
    for (const auto& info : mroce::ref::AllQuirks()) {
      if (parsed.value().Has(info.quirk)) options.quirks.Set(info.quirk);
    }
  }
  if (!fault.empty()) {
    auto f = mroce::refd::Fault::Parse(fault);
    if (!f.ok()) {
      std::fprintf(stderr, "mroce-refd: %s\n", f.error().message.c_str());
      return 2;
    }
    options.fault = f.value();
  }
  std::signal(SIGPIPE, SIG_IGN);
  mroce::refd::Refd daemon(std::move(options));
  return daemon.Run(0, 1);
}
