// `mroce-cts selftest`: proves the suite's power. The pristine reference endpoint must pass every
// case on several seeds; every quirk of the reference endpoint (a deliberate deviation from the
// spec) must be caught by at least one MUST case; the RoCEv2 baseline must run the whole suite
// without a harness error. Prints the kill matrix (quirk -> cases that failed); --json for machines.
#include <atomic>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "command.h"
#include "mroce/dut/dut_spec.h"
#include "mroce/endpoint/quirks.h"
#include "mroce/harness/expectations.h"
#include "mroce/session/session.h"

namespace mroce::cli {
namespace {

struct Task {
  std::string dut;   // --dut spec
  uint64_t seed = 1;
  size_t case_index = 0;
  harness::Verdict verdict = harness::Verdict::kPass;
  std::string reason;
};

class SelftestCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    suite_ = DefaultSuite();
    sub.add_option("--suite", suite_, "Suite directory")->capture_default_str();
    sub.add_option("--seeds", seeds_, "Seeds of the pristine runs")->delimiter(',')->capture_default_str();
    sub.add_option("--quirks", quirks_, "Only these quirks (default: every quirk)")->delimiter(',');
    sub.add_option("--jobs,-j", jobs_, "Cases run in parallel (0 = one per core)")->capture_default_str();
    sub.add_option("--catalog", catalog_, "Clause catalog (clauses.json); found next to the suite by default");
    sub.add_flag("--json", json_, "Print the result as JSON");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    harness::Catalog catalog;
    auto cases = LoadSuite(suite_, catalog_, &catalog, err);
    if (!cases) return harness::kExitUsage;
    if (cases->empty()) {
      err << "mroce-cts selftest: error: the suite '" << suite_ << "' has no cases\n";
      return harness::kExitUsage;
    }
    if (seeds_.empty()) {
      err << "mroce-cts selftest: error: --seeds needs at least one seed\n";
      return harness::kExitUsage;
    }
    std::vector<std::string> quirks;
    for (const auto& q : ref::AllQuirks()) {
      if (quirks_.empty() || std::find(quirks_.begin(), quirks_.end(), std::string(q.name)) != quirks_.end()) {
        quirks.emplace_back(q.name);
      }
    }
    for (const auto& q : quirks_) {
      if (std::find(quirks.begin(), quirks.end(), q) == quirks.end()) {
        err << "mroce-cts selftest: error: --quirks: unknown quirk '" << q << "'\n";
        return harness::kExitUsage;
      }
    }

    // One flat task list: pristine x seeds, every quirk x MUST cases (seed 1), RoCEv2 x all cases.
    std::vector<Task> tasks;
    for (uint64_t seed : seeds_) {
      for (size_t i = 0; i < cases->size(); ++i) tasks.push_back({"reference", seed, i});
    }
    for (const auto& q : quirks) {
      for (size_t i = 0; i < cases->size(); ++i) {
        if ((*cases)[i].level() == harness::Level::kMust) tasks.push_back({"reference:quirk=" + q, seeds_.front(), i});
      }
    }
    for (size_t i = 0; i < cases->size(); ++i) tasks.push_back({"rocev2", seeds_.front(), i});

    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t t; (t = next.fetch_add(1)) < tasks.size();) {
        Task& task = tasks[t];
        session::SessionOptions o;
        o.seed = task.seed;
        o.dut_spec = task.dut;
        o.write_evidence = false;
        const auto spec = dut::DutSpec::Parse(task.dut).value();
        o.make_dut = [spec]() { return dut::MakeDut(spec); };
        try {
          const harness::TestResult r = session::RunCase((*cases)[task.case_index], o);
          task.verdict = r.verdict;
          task.reason = r.reason;
        } catch (const std::exception& e) {
          task.verdict = harness::Verdict::kError;
          task.reason = std::string("harness exception: ") + e.what();
        }
      }
    };
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t workers = std::min<size_t>(tasks.size(), jobs_ == 0 ? hw : static_cast<size_t>(std::max(1, jobs_)));
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();

    // Tally.
    int p_fail = 0, p_error = 0, p_inconclusive = 0;
    std::vector<std::string> pristine_bad;
    std::map<std::string, std::vector<std::string>> killed;
    int r_error = 0, r_fail = 0, r_pass = 0;
    for (const Task& t : tasks) {
      const std::string& id = (*cases)[t.case_index].id;
      if (t.dut == "reference") {
        p_fail += t.verdict == harness::Verdict::kFail;
        p_error += t.verdict == harness::Verdict::kError;
        p_inconclusive += t.verdict == harness::Verdict::kInconclusive;
        if (harness::IsBad(t.verdict)) {
          pristine_bad.push_back(id + " (seed " + std::to_string(t.seed) + "): " +
                                 std::string(harness::ToString(t.verdict)) + ": " + t.reason);
        }
      } else if (t.dut == "rocev2") {
        r_error += t.verdict == harness::Verdict::kError;
        r_fail += t.verdict == harness::Verdict::kFail;
        r_pass += t.verdict == harness::Verdict::kPass;
      } else if (t.verdict == harness::Verdict::kFail) {
        killed[t.dut.substr(std::string("reference:quirk=").size())].push_back(id);
      }
    }
    size_t survivors = 0;
    for (const auto& q : quirks) survivors += killed[q].empty();
    const bool ok = p_fail + p_error + p_inconclusive == 0 && survivors == 0 && r_error == 0;

    if (json_) {
      nlohmann::ordered_json j;
      j["pristine"] = {{"seeds", seeds_}, {"fail", p_fail}, {"error", p_error}, {"inconclusive", p_inconclusive}};
      j["quirks"] = nlohmann::ordered_json::array();
      for (const auto& q : quirks) j["quirks"].push_back({{"name", q}, {"killed_by", killed[q]}});
      j["rocev2"] = {{"pass", r_pass}, {"fail", r_fail}, {"error", r_error}};
      j["cases"] = cases->size();
      j["ok"] = ok;
      out << j.dump(2) << "\n";
      return ok ? harness::kExitOk : harness::kExitUnexpected;
    }
    out << "pristine reference on " << seeds_.size() << " seed(s) x " << cases->size() << " cases: fail " << p_fail
        << ", error " << p_error << ", inconclusive " << p_inconclusive << "\n";
    for (const auto& b : pristine_bad) out << "  " << b << "\n";
    out << "\nkill matrix (quirk -> MUST cases that failed):\n";
    for (const auto& q : quirks) {
      const auto& k = killed[q];
      out << "  " << std::left << std::setw(28) << q << (k.empty() ? "SURVIVED" : std::to_string(k.size()) + " case(s):");
      for (size_t i = 0; i < k.size() && i < 4; ++i) out << " " << k[i];
      if (k.size() > 4) out << " ...";
      out << "\n";
    }
    out << "\nrocev2 baseline: pass " << r_pass << ", fail " << r_fail << ", error " << r_error << "\n";
    out << "\nselftest: " << (ok ? "OK" : "FAILED") << " (" << quirks.size() - survivors << "/" << quirks.size()
        << " quirks caught)\n";
    return ok ? harness::kExitOk : harness::kExitUnexpected;
  }

 private:
  std::string suite_;
  std::vector<uint64_t> seeds_ = {1, 2, 3, 4, 5};
  std::vector<std::string> quirks_;
  int jobs_ = 0;
  std::string catalog_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeSelftestCommand() { return std::make_unique<SelftestCommand>(); }

}  // namespace mroce::cli
