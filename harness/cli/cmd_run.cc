// `mroce-cts run`: runs a suite against a DUT in the simulated fabric and writes the run directory
// (report.json, junit.xml, report.html, evidence/). Without arguments: the whole bundled suite
// against the bundled reference endpoint.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli_common.h"
#include "command.h"
#include "mroce/dut/dut_spec.h"
#include "mroce/harness/expectations.h"
#include "mroce/harness/expectations_loader.h"
#include "mroce/harness/failure_text.h"
#include "mroce/reports/run_dir.h"
#include "mroce/session/session.h"

namespace mroce::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void OnSigint(int) { g_interrupted.store(true); }

std::string NowRfc3339() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Parses "I/N" (1 <= I <= N).
bool ParseShard(const std::string& text, int* index, int* count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t a = 0, b = 0;
    *index = std::stoi(text.substr(0, slash), &a);
    *count = std::stoi(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1) return false;
  } catch (...) {
    return false;
  }
  return *count >= 1 && *index >= 1 && *index <= *count;
}

class Progress {
 public:
  Progress(size_t total, std::ostream& out) : total_(total), out_(out), tty_(isatty(STDERR_FILENO) != 0) {}
  void Done(const harness::TestResult& t) {
    std::lock_guard<std::mutex> lock(mu_);
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
  std::mutex mu_;
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
    sub.add_option("--max-stall-us", max_stall_us_, "Live DUTs: a case that did not pass after the harness left the DUT unserved for longer than this is rerun")->capture_default_str();
    sub.add_option("--live-attempts", live_attempts_, "Live DUTs: runs in all for a case that keeps stalling; then it is inconclusive")->capture_default_str();
    sub.add_flag("--quiet,-q", quiet_, "Print only the summary");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    auto spec = dut::DutSpec::Parse(dut_);
    if (!spec.ok()) {
      err << "mroce-cts run: error: " << spec.error().message << "\n";
      return harness::kExitUsage;
    }
    auto probe = dut::MakeDut(spec.value());
    if (!probe.ok()) {
      err << "mroce-cts run: error: " << probe.error().message << "\n";
      return harness::kExitUsage;
    }
    int shard_i = 1, shard_n = 1;
    if (!shard_.empty() && !ParseShard(shard_, &shard_i, &shard_n)) {
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
    std::vector<harness::Expectation> waivers;
    if (!expectations_.empty()) {
      auto loaded = harness::LoadExpectationsFile(expectations_);
      if (!loaded.ok()) {
        err << loaded.ErrorText();
        return harness::kExitUsage;
      }
      waivers = std::move(loaded.value);
    }
    harness::Catalog catalog;
    auto cases = LoadSuite(suite_, catalog_, &catalog, err);
    if (!cases) return harness::kExitUsage;
    std::vector<const harness::Case*> selected;
    size_t index = 0;
    for (const harness::Case& c : *cases) {
      if (!filter_.empty() && !harness::GlobMatch(filter_, c.id)) continue;
      if (static_cast<int>(index++ % static_cast<size_t>(shard_n)) == shard_i - 1) selected.push_back(&c);
    }
    if (selected.empty()) {
      err << "mroce-cts run: error: no case in '" << suite_ << "' matches"
          << (filter_.empty() ? std::string() : " --filter '" + filter_ + "'")
          << (shard_.empty() ? std::string() : " in shard " + shard_) << "\n";
      return harness::kExitUsage;
    }
    std::error_code ec;
    std::filesystem::create_directories(out_, ec);
    if (ec) {
      err << "mroce-cts run: error: --out '" << out_ << "': " << ec.message() << "\n";
      return harness::kExitUsage;
    }

    harness::RunResult run;
    run.suite_version = MROCE_CTS_VERSION;
    run.dut.identity = probe.value()->Identity();
    run.dut.description = std::string(dut::ProtocolName(probe.value()->Caps().protocol)) + " device, --dut " + dut_;
    run.seed = seed_;
    run.started_at = NowRfc3339();
    run.incomplete = true;  // until every selected case has a result
    std::string werr;
    if (!reports::WriteRunDir(out_, run, &werr)) {
      err << "mroce-cts run: error: cannot write the run directory: " << werr << "\n";
      return harness::kExitHarnessError;
    }

    session::SessionOptions opts;
    opts.seed = seed_;
    opts.dut_spec = dut_;
    opts.run_dir = out_;
    opts.max_stall_ns = max_stall_us_ * 1000;
    opts.live_attempts = live_attempts_;
    const dut::DutSpec dut_spec = spec.value();
    opts.make_dut = [dut_spec]() { return dut::MakeDut(dut_spec); };

    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t workers = std::min<size_t>(selected.size(), jobs_ == 0 ? hw : static_cast<size_t>(jobs_));
    std::vector<std::optional<harness::TestResult>> results(selected.size());
    std::atomic<size_t> next{0};
    Progress progress(selected.size(), out);
    auto previous = std::signal(SIGINT, OnSigint);
    auto work = [&] {
      for (;;) {
        if (g_interrupted.load()) return;
        const size_t i = next.fetch_add(1);
        if (i >= selected.size()) return;
        harness::TestResult t;
        try {
          t = session::RunCase(*selected[i], opts);
        } catch (const std::exception& e) {
          t.id = selected[i]->id;
          t.title = selected[i]->title;
          t.clauses = selected[i]->clauses;
          t.level = selected[i]->level();
          t.seed = seed_;
          t.verdict = harness::Verdict::kError;
          t.reason = std::string("harness exception: ") + e.what();
        }
        if (!quiet_) progress.Done(t);
        results[i] = std::move(t);
      }
    };
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    std::signal(SIGINT, previous);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    for (auto& r : results) {
      if (r) run.tests.push_back(std::move(*r));
    }
    run.incomplete = run.tests.size() != selected.size();
    run.finished_at = run.incomplete ? "" : NowRfc3339();
    run.clauses = harness::BuildClauseTable(run.tests, catalog.clauses().empty() ? nullptr : &catalog);
    harness::Normalize(run);
    harness::ApplyExpectations(run, waivers, harness::TodayUtc());
    if (!reports::WriteRunDir(out_, run, &werr)) {
      err << "mroce-cts run: error: cannot write the run directory: " << werr << "\n";
      return harness::kExitHarnessError;
    }

    // Summary: failures in full (packetdrill style), then one line of totals.
    const harness::Summary sum = harness::Summarize(run);
    for (const harness::TestResult& t : run.tests) {
      if (harness::IsBad(t.verdict) && t.expectation != harness::ExpectationStatus::kExpected && !quiet_) {
        out << "\n" << harness::FormatTestResult(t);
      }
    }
    out << "\n" << run.dut.identity << ": " << (sum.conformant ? "CONFORMANT" : sum.must_total == 0 ? "NO CONFORMANCE VERDICT (no MUST case ran)" : "NOT CONFORMANT")
        << "  MUST "
        << sum.must_pass << "/" << sum.must_total << "  |";
    for (const auto v : harness::kAllVerdicts) out << " " << harness::ToString(v) << " " << sum.counts.at(v);
    if (sum.expected) out << " | expected " << sum.expected;
    if (sum.unexpected_pass) out << " | unexpected-pass " << sum.unexpected_pass;
    if (sum.expired_waivers) out << " | expired waivers " << sum.expired_waivers;
    out << " | " << std::fixed << std::setprecision(1) << wall << " s, " << workers << " job(s)\n";
    out << "report: " << (std::filesystem::path(out_) / "report.html").string() << "\n";
    if (run.incomplete) {
      err << "mroce-cts run: interrupted: " << run.tests.size() << " of " << selected.size()
          << " cases ran; the report is marked incomplete\n";
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
  std::string shard_;
  std::string expectations_;
  std::string catalog_;
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeRunCommand() { return std::make_unique<RunCommand>(); }

}  // namespace mroce::cli
