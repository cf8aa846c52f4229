// `mroce-cts package RUN_DIR -o NAME.tar.zst` and `mroce-cts verify NAME.tar.zst`: a certification
// package (mroce/campaign/package.h) and what a lab checks before it accepts one.
#include "cli_common.h"
#include "command.h"
#include "mroce/campaign/package.h"
#include "mroce/campaign/suite_digest.h"
#include "mroce/harness/expectations.h"

namespace mroce::cli {
namespace {

std::string Claim(bool conformant, bool partial, bool incomplete) {
  if (incomplete) return "INCOMPLETE RUN: not a conformance claim";
  if (partial) return "PARTIAL RUN: not a conformance claim";
  return conformant ? "CONFORMANT" : "NOT CONFORMANT";
}

class PackageCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    sub.add_option("run_dir", run_dir_, "Run directory (written by run or merge)")->required();
    sub.add_option("-o,--out", out_, "Package to write, NAME.tar.zst (NAME becomes its top directory)")->required();
    sub.add_flag("--force", force_, "Replace an existing package");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    auto p = campaign::WritePackage(run_dir_, out_, force_);
    if (!p.ok()) {
      err << "mroce-cts package: error: " << p.error().message << "\n";
      return harness::kExitUsage;
    }
    out << "packaged " << p->files << " file(s), " << p->bytes << " bytes of " << run_dir_ << " into " << p->path << " ("
        << p->name << "/, manifest.json, SHA256SUMS)\n"
        << "run: " << Claim(p->conformant, p->partial, p->incomplete) << ", suite " << p->suite_digest << "\n";
    return harness::kExitOk;
  }

 private:
  std::string run_dir_, out_;
  bool force_ = false;
};

class VerifyCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    suite_ = DefaultSuite();
    sub.add_option("package", package_, "Package to check (NAME.tar.zst)")->required();
    sub.add_option("--suite", suite_, "The suite the run must have judged (its digest must match)")->capture_default_str();
    sub.add_option("--catalog", catalog_, "Clause catalog (clauses.json); found next to the suite by default");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    auto c = campaign::CheckPackage(package_);
    if (!c.ok()) {
      err << "mroce-cts verify: error: " << c.error().message << "\n";
      return harness::kExitUsage;
    }
    out << package_ << ": " << c->name << "/, " << c->files << " file(s), " << c->bytes << " bytes\n";
    if (!c->problems.empty()) {
      out << "manifest: DAMAGED, " << c->problems.size() << " problem(s):\n";
      for (const std::string& p : c->problems) out << "  " << p << "\n";
      out << "verify: REJECTED: the package is not what was packaged\n";
      return harness::kExitUsage;
    }
    out << "manifest: intact (every file's size and SHA-256 as listed, nothing unlisted)\n";
    out << "run: " << Claim(c->conformant, c->partial, c->incomplete) << ", MUST " << c->must_pass << "/" << c->must_total
        << ", " << c->total << " case(s); DUT " << c->dut << "; tool " << c->tool_version << "\n";
    for (const std::string& why : c->partial_reasons) out << "  partial: " << why << "\n";
    const std::string catalog = FindCatalog(catalog_, suite_);
    auto digest = campaign::DigestSuite(suite_, catalog);
    if (!digest.ok()) {
      err << "mroce-cts verify: error: " << digest.error().message << "\n";
      return harness::kExitUsage;
    }
    const bool known = digest->sha256 == c->suite_digest;
    out << "suite: " << c->suite_digest << (known ? " = " : " != ") << digest->sha256 << " (" << suite_
        << (catalog.empty() ? "" : ", " + catalog) << ")\n";
    const bool accepted = known && c->conformant && !c->partial && !c->incomplete;
    if (accepted) {
      out << "verify: ACCEPTED: an intact, full, conformant run of this suite\n";
      return harness::kExitOk;
    }
    out << "verify: NOT A CONFORMANCE CLAIM: "
        << (!known ? "the run judged another suite than " + suite_
                   : c->incomplete || c->partial ? std::string("the run did not cover the whole suite")
                                                 : std::string("the DUT failed MUST cases"))
        << "\n";
    return harness::kExitUnexpected;
  }

 private:
  std::string package_, suite_, catalog_;
};

}  // namespace

std::unique_ptr<Command> MakePackageCommand() { return std::make_unique<PackageCommand>(); }
std::unique_ptr<Command> MakeVerifyCommand() { return std::make_unique<VerifyCommand>(); }

}  // namespace mroce::cli
