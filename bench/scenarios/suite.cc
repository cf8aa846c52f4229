// suite: the whole compliance suite against the pristine reference endpoint, run `runs` times with
// the same seed and every core: wall time per run (goal: at most 60 s on this 2-core machine) and
// verdict stability (goal: no case changes its verdict between runs; every case passes).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "mroce/bench/scenarios.h"
#include "mroce/dut/dut_spec.h"
#include "mroce/session/session.h"

namespace mroce::bench {

Report RunSuite(const BenchOptions& o) {
  Report r;
  r.scenario = "suite";
  if (o.suite_cases == nullptr || o.suite_cases->empty()) {
    r.notes.push_back("no suite loaded (mroce-cts bench loads --suite, default testcases/)");
    r.goals.push_back({"cases run", ">=", 1, 0, "", true});
    return r;
  }
  const std::vector<harness::Case>& cases = *o.suite_cases;
  const int runs = o.quick ? 3 : 20;
  const unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  r.params = {{"seed", o.seed}, {"quick", o.quick}, {"suite", std::filesystem::path(o.suite_dir).filename().string()}, {"cases", cases.size()},
              {"runs", runs}, {"jobs", jobs}, {"dut", "reference"}};
  r.columns = {"run", "wall_seconds", "pass", "fail", "inconclusive", "error", "skip", "changed_vs_run_1"};
  const auto spec = dut::DutSpec::Parse("reference").value();
  std::vector<harness::Verdict> first(cases.size(), harness::Verdict::kPass);
  std::vector<bool> flaky(cases.size(), false);
  double worst = 0;
  size_t not_passing = 0;
  for (int run = 1; run <= runs; ++run) {
    std::vector<harness::Verdict> v(cases.size(), harness::Verdict::kError);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < cases.size();) {
        session::SessionOptions so;
        so.seed = o.seed;
        so.dut_spec = "reference";
        so.write_evidence = false;
        so.catalog = o.suite_catalog;
        so.make_dut = [spec]() { return dut::MakeDut(spec); };
        v[i] = session::RunCase(cases[i], so).verdict;
      }
    };
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < jobs; ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.wall_seconds += wall;
    worst = std::max(worst, wall);
    std::map<harness::Verdict, int> count;
    size_t changed = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      ++count[v[i]];
      if (run == 1) {
        first[i] = v[i];
        not_passing += v[i] != harness::Verdict::kPass;
      } else if (v[i] != first[i]) {
        ++changed;
        flaky[i] = true;
      }
    }
    r.rows.push_back({{"run", run}, {"wall_seconds", wall}, {"pass", count[harness::Verdict::kPass]},
                      {"fail", count[harness::Verdict::kFail]}, {"inconclusive", count[harness::Verdict::kInconclusive]},
                      {"error", count[harness::Verdict::kError]}, {"skip", count[harness::Verdict::kSkip]},
                      {"changed_vs_run_1", changed}});
    if (o.progress) *o.progress << "  suite run " << run << ": " << wall << " s\n";
  }
  const auto n_flaky = static_cast<double>(std::count(flaky.begin(), flaky.end(), true));
  r.goals.push_back({"whole suite wall time, worst of " + std::to_string(runs) + " runs", "<=", 60, worst, "s"});
  r.goals.push_back({"cases whose verdict changed between runs", "<=", 0, n_flaky, "", true});
  r.goals.push_back({"cases not passing against the pristine reference", "<=", 0, static_cast<double>(not_passing), "",
                     true});
  for (size_t i = 0; i < cases.size(); ++i) {
    if (flaky[i]) r.notes.push_back("flaky: " + cases[i].id);
  }
  r.notes.push_back("every case in simulated time with " + std::to_string(jobs) +
                    " worker thread(s), no evidence files; wall time is host time and varies with the machine");
  return r;
}

}  // namespace mroce::bench
