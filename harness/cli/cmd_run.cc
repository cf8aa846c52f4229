// `mroce-cts run`: runs a suite against a DUT in the simulated fabric and writes the run directory
// (report.json, junit.xml, report.html, evidence/). Without arguments: the whole bundled suite
// against the bundled reference endpoint. The campaign library (harness/campaign) selects and runs
// the cases; this file parses the flags, prints progress and the summary, and writes the run
// directory (once before the first case, marked incomplete, and once at the end).
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include "cli_common.h"
#include "command.h"
#include "mroce/campaign/suite_run.h"
#include "mroce/harness/expectations.h"
#include "mroce/harness/expectations_loader.h"
#include "mroce/harness/failure_text.h"
#include "mroce/impairment/quantity.h"
#include "mroce/reports/run_dir.h"

namespace mroce::cli {
namespace {

// One progress line (or a bar on a terminal) per finished case; the campaign calls Done one at a time.
class Progress {
 public:
  Progress(size_t total, std::ostream& out) : total_(total), out_(out), tty_(isatty(STDERR_FILENO) != 0) {}
  void Done(const harness::TestResult& t) {
    ++done_;
    ++counts_[t.verdict];
    if (tty_) {
      const int width = 30;
      const int fill = static_cast<int>(width * done_ / std::max<size_t>(total_, 1));
      std::ostringstream bar;
      bar << "\r[" << std::string(static_cast<size_t>(fill), '=') << std::string(static_cast<size_t>(width - fill), ' ')
          << "] " << done_ << "/" << total_ << "  pass " << counts_[harness::Verdict::kPass] << "  fail "
          << counts_[harness::Verdict::kFail] << "  other "
          << done_ - counts_[harness::Verdict::kPass] - counts_[harness::Verdict::kFail] << "  " << t.id;
      std::string line = bar.str();
      if (line.size() < last_len_) line += std::string(last_len_ - line.size(), ' ');
      last_len_ = line.size();
      std::cerr << line << std::flush;
      if (done_ == total_) std::cerr << "\n";
    } else {
      std::string v(harness::ToString(t.verdict));
      for (auto& ch : v) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      out_ << "[" << done_ << "/" << total_ << "] " << std::left << std::setw(13) << v << t.id;
      if (t.verdict != harness::Verdict::kPass && !t.reason.empty()) out_ << ": " << t.reason;
      out_ << "\n" << std::flush;
    }
  }

 private:
  size_t total_;
  std::ostream& out_;
  bool tty_;
  size_t done_ = 0;
  size_t last_len_ = 0;
  std::map<harness::Verdict, size_t> counts_;
};

class RunCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    suite_ = DefaultSuite();
    sub.add_option("--suite", suite_, "Suite directory (or one case file)")->capture_default_str();
    sub.add_option("--filter", filter_, "Only cases whose id matches this glob");
    sub.add_option("--dut", dut_, "Device under test: reference, reference:quirk=NAME, rocev2, plugin:PATH.so[,k=v], process:[net=A.B.C.D,][timeout_ms=N,]COMMAND, dpdk:port=PORT,net=A.B.C.D[,...],control=COMMAND (docs/adapter-guide.md)")->capture_default_str();
    sub.add_option("--seed", seed_, "Run seed: the same seed gives the same bytes, verdicts and report")->capture_default_str();
    sub.add_option("--out", out_, "Run directory to write")->capture_default_str();
    sub.add_option("--jobs,-j", jobs_, "Cases run in parallel (0 = one per core)")->capture_default_str();
    sub.add_option("--shard", shard_, "Run only shard I of N (I/N, 1-based); merge the shards with 'mroce-cts merge'");
    sub.add_option("--expectations", expectations_, "Waivers file (YAML): expected non-pass results of this DUT");
    sub.add_option("--catalog", catalog_, "Clause catalog (clauses.json); found next to the suite by default");
    sub.add_option("--max-stall-us", max_stall_us_, "Live DUTs: a case that did not pass after the DUT went unserved (harness or DUT host too busy) for longer than this is rerun")->capture_default_str();
    sub.add_option("--stall-log", stall_logs_,
                   "Live DUTs: a stall log that another process of the live path writes (mroce-cts impair --stall-log); a "
                   "gap it logs during a case counts as a stall of that run (repeatable)");
    sub.add_option("--live-attempts", live_attempts_, "Live DUTs: runs in all for a case that keeps stalling; then it is inconclusive")->capture_default_str();
    sub.add_option("--isolation", isolation_,
                   "Where each case runs: fork (a child process of its own: a DUT that crashes, aborts or hangs costs "
                   "that case an error and the run goes on), none (in this process: faster), auto (fork for plugin: "
                   "DUTs, none for the others)")
        ->check(CLI::IsMember({"auto", "fork", "none"}))
        ->capture_default_str();
    sub.add_option("--case-timeout", case_timeout_,
                   "With --isolation fork: wall-clock limit of one case (e.g. 300s, 10m); a case still running then is "
                   "killed and is an error. 0: no limit")
        ->capture_default_str();
    sub.add_flag("--quiet,-q", quiet_, "Print only the summary");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    std::optional<campaign::Shard> shard = campaign::Shard{};
    if (!shard_.empty()) shard = campaign::Shard::Parse(shard_);
    if (!shard) {
      err << "mroce-cts run: error: --shard '" << shard_ << "': expected I/N with 1 <= I <= N, e.g. 2/4\n";
      return harness::kExitUsage;
    }
    if (jobs_ < 0) {
      err << "mroce-cts run: error: --jobs " << jobs_ << ": must be >= 0\n";
      return harness::kExitUsage;
    }
    if (max_stall_us_ <= 0) {
      err << "mroce-cts run: error: --max-stall-us " << max_stall_us_ << ": must be > 0\n";
      return harness::kExitUsage;
    }
    if (live_attempts_ < 1) {
      err << "mroce-cts run: error: --live-attempts " << live_attempts_ << ": must be >= 1\n";
      return harness::kExitUsage;
    }
    double case_timeout_s = 0;
    {
      auto d = impairment::ParseDuration(case_timeout_);
      if (!d.ok() || (d->unit == impairment::DurationSpec::Unit::kRtt && d->value != 0) || d->value < 0) {
        err << "mroce-cts run: error: --case-timeout '" << case_timeout_
            << "': expected a wall-clock duration with its unit (e.g. 300s, 10m, 1500ms), or 0 for no limit\n";
        return harness::kExitUsage;
      }
      case_timeout_s = static_cast<double>(d->ToNanoseconds(0)) / 1e9;
    }
    campaign::RunSpec spec;
    spec.dut_spec = dut_;
    spec.seed = seed_;
    spec.filter = filter_;
    spec.shard = *shard;
    spec.suite_version = MROCE_CTS_VERSION;
    if (!expectations_.empty()) {
      auto loaded = harness::LoadExpectationsFile(expectations_);
      if (!loaded.ok()) {
        err << loaded.ErrorText();
        return harness::kExitUsage;
      }
      spec.waivers = std::move(loaded.value);
    }
    const auto suite = LoadSuite(suite_, catalog_, err);
    if (!suite) return harness::kExitUsage;
    auto planned = campaign::PlanRun(*suite, spec);
    if (!planned.ok()) {
      err << "mroce-cts run: error: " << planned.error().message << "\n";
      return harness::kExitUsage;
    }
    const campaign::RunPlan& plan = planned.value();
    std::error_code ec;
    std::filesystem::create_directories(out_, ec);
    if (ec) {
      err << "mroce-cts run: error: --out '" << out_ << "': " << ec.message() << "\n";
      return harness::kExitUsage;
    }
    if (const Status w = reports::WriteRunDir(out_, plan.run); !w.ok()) {
      err << "mroce-cts run: error: cannot write the run directory: " << w.error().message << "\n";
      return harness::kExitHarnessError;
    }

    campaign::Options options;
    options.jobs = jobs_;
    options.isolation = isolation_ == "fork"   ? campaign::Isolation::kFork
                        : isolation_ == "none" ? campaign::Isolation::kNone
                                               : campaign::AutoIsolation(dut_);
    options.case_timeout_s = case_timeout_s;
    options.session.run_dir = out_;
    // The rerun of a case must run as printed from here: this program's path, and the suite and
    // catalog unless they are what a bare `run` finds.
    options.session.reproduce_prefix = ProgramForCommands() + " run";
    if (!IsBundledSuite(suite_)) options.session.reproduce_prefix += " --suite " + ShellQuote(suite_);
    if (!catalog_.empty()) options.session.reproduce_prefix += " --catalog " + ShellQuote(catalog_);
    options.session.max_stall_ns = max_stall_us_ * 1000;
    options.session.live_attempts = live_attempts_;
    options.session.stall_logs = stall_logs_;
    Progress progress(plan.tasks.size(), out);
    if (!quiet_) options.on_result = [&](const campaign::Finished& f) { progress.Done(*f.result); };
    const campaign::ExecutedRun done = campaign::ExecuteRun(plan, options);
    const harness::RunResult& run = done.run;
    if (const Status w = reports::WriteRunDir(out_, run); !w.ok()) {
      err << "mroce-cts run: error: cannot write the run directory: " << w.error().message << "\n";
      return harness::kExitHarnessError;
    }

    // Summary: failures in full (packetdrill style), then one line of totals.
    const harness::Summary sum = harness::Summarize(run);
    for (const harness::TestResult& t : run.tests) {
      if (harness::IsBad(t.verdict) && t.expectation != harness::ExpectationStatus::kExpected && !quiet_) {
        out << "\n" << harness::FormatTestResult(t);
      }
    }
    const bool must_failed = sum.must_pass < sum.must_total;
    out << "\n" << run.dut.identity << ": "
        << (sum.conformant       ? "CONFORMANT"
            : must_failed        ? "NOT CONFORMANT"
            : sum.partial        ? "PARTIAL RUN: not a conformance claim"
            : sum.must_total == 0 ? "NO CONFORMANCE VERDICT (no MUST case ran)"
                                 : "NOT CONFORMANT")
        << "  MUST "
        << sum.must_pass << "/" << sum.must_total << "  |";
    for (const auto v : harness::kAllVerdicts) out << " " << harness::ToString(v) << " " << sum.counts.at(v);
    if (sum.expected) out << " | expected " << sum.expected;
    if (sum.unexpected_pass) out << " | unexpected-pass " << sum.unexpected_pass;
    if (sum.expired_waivers) out << " | expired waivers " << sum.expired_waivers;
    out << " | " << std::fixed << std::setprecision(1) << done.campaign.wall_s << " s, " << done.campaign.workers
        << " job(s)\n";
    for (const std::string& why : sum.partial_reasons) out << "partial: " << why << "\n";
    for (const harness::TestResult& t : run.tests) {
      if (t.expectation != harness::ExpectationStatus::kExpiredWaiver) continue;
      out << "expired waiver: " << t.id << " (" << harness::ToString(t.verdict) << ") matches a waiver of "
          << expectations_ << " past its 'expires' date (reason: " << t.expectation_reason
          << "): it gates until renewed or removed\n";
    }
    out << "report: " << (std::filesystem::path(out_) / "report.html").string() << "\n";
    if (run.incomplete) {
      const int sig = done.campaign.signal;
      err << "mroce-cts run: interrupted" << (sig == SIGTERM ? " by SIGTERM" : sig == SIGINT ? " by SIGINT" : sig == SIGHUP ? " by SIGHUP" : "") << ": "
          << run.tests.size() << " of " << done.planned << " cases ran; the report is marked incomplete\n";
      return harness::kExitHarnessError;
    }
    return harness::ComputeExitStatus(run);
  }

 private:
  std::string suite_;
  std::string filter_;
  std::string dut_ = "reference";
  uint64_t seed_ = 1;
  std::string out_ = "mroce-run";
  int jobs_ = 0;
  int64_t max_stall_us_ = 5000;
  int live_attempts_ = 3;
  std::vector<std::string> stall_logs_;
  std::string shard_;
  std::string expectations_;
  std::string catalog_;
  std::string isolation_ = "auto";
  std::string case_timeout_ = "300s";
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeRunCommand() { return std::make_unique<RunCommand>(); }

}  // namespace mroce::cli
