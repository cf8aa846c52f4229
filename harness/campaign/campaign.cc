// Campaign runner (see campaign.h).
#include "mroce/campaign/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "mroce/campaign/interrupt.h"
#include "mroce/dut/dut_spec.h"

namespace mroce::campaign {
namespace {

// The result of a task that could not run: an `error` naming why, with the case's identity.
harness::TestResult ErrorResult(const Task& task, std::string reason) {
  harness::TestResult t;
  t.id = task.test->id;
  t.title = task.test->title;
  t.clauses = task.test->clauses;
  t.level = task.test->level();
  t.seed = task.seed;
  t.verdict = harness::Verdict::kError;
  t.reason = std::move(reason);
  return t;
}

harness::TestResult RunTask(const Task& task, const session::SessionOptions& base,
                            const dut::Result<dut::DutSpec>& spec) {
  if (!spec.ok()) return ErrorResult(task, "DUT: " + spec.error().message);
  session::SessionOptions o = base;
  o.seed = task.seed;
  o.dut_spec = task.dut_spec;
  o.make_dut = [s = spec.value()]() { return dut::MakeDut(s); };
  try {
    return session::RunCase(*task.test, o);
  } catch (const std::exception& e) {
    return ErrorResult(task, std::string("harness exception: ") + e.what());
  }
}

}  // namespace

Outcome RunTasks(const std::vector<Task>& tasks, const Options& options) {
  const auto t0 = std::chrono::steady_clock::now();
  Outcome out;
  out.results.resize(tasks.size());
  std::optional<InterruptScope> signals;
  if (options.handle_signals) signals.emplace();
  auto stopping = [&] { return options.stop.stop_requested() || (signals && InterruptScope::Interrupted()); };

  // Each distinct DUT spec parsed once, before the workers start (they only read the map).
  std::map<std::string, dut::Result<dut::DutSpec>> specs;
  for (const Task& t : tasks) {
    if (specs.count(t.dut_spec) == 0) specs.emplace(t.dut_spec, dut::DutSpec::Parse(t.dut_spec));
  }

  std::atomic<size_t> next{0};
  std::mutex mu;  // serialises on_result and counts `done`
  size_t done = 0;
  auto work = [&] {
    while (!stopping()) {
      const size_t i = next.fetch_add(1);
      if (i >= tasks.size()) return;
      harness::TestResult r = RunTask(tasks[i], options.session, specs.at(tasks[i].dut_spec));
      std::lock_guard<std::mutex> lock(mu);
      out.results[i] = std::move(r);
      ++done;
      if (options.on_result) options.on_result(Finished{i, &tasks[i], &*out.results[i], done, tasks.size()});
    }
  };
  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t wanted = options.jobs <= 0 ? hw : static_cast<size_t>(options.jobs);
  out.workers = std::max<size_t>(1, std::min(tasks.size(), wanted));
  std::vector<std::thread> pool;
  for (size_t w = 1; w < out.workers; ++w) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();

  out.interrupted = done != tasks.size();
  if (out.interrupted && signals) out.signal = InterruptScope::Signal();
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace mroce::campaign
