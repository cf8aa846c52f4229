// Campaign: runs (case, DUT, seed) tasks on a pool of worker threads, one session::RunCase each.
//
// With Isolation::kFork each task runs in a child process of its own (fork() of this process, which
// has loaded the suite; the child runs session::RunCase as a thread would and sends its TestResult
// back as JSON over a pipe): a DUT that crashes, aborts or hangs (plugins run in-process) costs that
// case an `error` result naming the signal or the --case-timeout, with the DUT's last words on
// stderr, and the campaign goes on. The parent is then one thread running at most `jobs` children.
//
// Results come back in task order whatever the number of workers (a run is the same report with
// -j 1 and -j 8). While it runs, SIGINT and SIGTERM (InterruptScope) or a stop request end it
// cleanly: no new task is started, the running ones finish, and every result obtained is kept;
// tasks that never ran have no result. Each result is also handed to a callback as soon as its task
// finishes (progress lines, incremental writing). `mroce-cts run`, `mroce-cts selftest` and the
// Python binding (mroce.run) all run their cases through here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "mroce/harness/case.h"
#include "mroce/harness/results.h"
#include "mroce/session/session.h"

namespace mroce::campaign {

// One run of one case against one DUT with one seed.
struct Task {
  const harness::Case* test = nullptr;  // outlives the campaign
  std::string dut_spec = "reference";   // --dut syntax (mroce/dut/dut_spec.h)
  uint64_t seed = 1;
};

// A task that just finished, as Options::on_result sees it.
struct Finished {
  size_t index = 0;                             // into the task list
  const Task* task = nullptr;
  const harness::TestResult* result = nullptr;  // valid during the call
  size_t done = 0;                              // tasks finished so far, this one included
  size_t total = 0;                             // tasks in the campaign
};

// Where a task runs: on a worker thread of this process, or in a forked child (see above).
enum class Isolation { kNone, kFork };

// "auto": what `mroce-cts run --isolation auto` picks for a --dut spec: kFork for code loaded into
// the harness's process that the project did not write (plugin:), kNone for the in-tree DUTs
// (reference, rocev2) and for DUTs that already run in a process of their own (process:, dpdk:).
[[nodiscard]] Isolation AutoIsolation(const std::string& dut_spec);

struct Options {
  // Worker threads (kFork: children at a time); 0: one per core. Never more than there are tasks.
  int jobs = 0;
  Isolation isolation = Isolation::kNone;
  // kFork only: a child still running after this many wall-clock seconds is killed (SIGKILL, with
  // its process group) and its case is an `error`; 0: no limit.
  double case_timeout_s = 300;
  // What every task's session starts from (run_dir, write_evidence, stall limits, ...); seed,
  // dut_spec and make_dut are the task's.
  session::SessionOptions session;
  // SIGINT, SIGTERM and SIGHUP stop the campaign while it runs instead of ending the process (kFork:
  // the running children are killed and their cases have no result).
  bool handle_signals = true;
  // A stop request ends the campaign as a signal does.
  std::stop_token stop;
  // Called once per finished task, in the order tasks finish (not task order), one call at a time,
  // on a worker thread (kFork: on the calling thread). Must not throw.
  std::function<void(const Finished&)> on_result;
};

struct Outcome {
  // By task index: the task's result, or nullopt when it never ran (the campaign was stopped).
  std::vector<std::optional<harness::TestResult>> results;
  bool interrupted = false;  // stopped (a signal or a stop request) before every task ran
  int signal = 0;            // the signal that stopped it (SIGINT, SIGTERM, SIGHUP), 0 for none
  size_t workers = 0;        // worker threads (kFork: children at a time) used
  double wall_s = 0;         // wall-clock seconds it took
};

// Runs the tasks and returns when every task ran or, once stopped, every running task finished. A
// task whose DUT spec does not parse, or whose session throws, gets an `error` result saying so.
[[nodiscard]] Outcome RunTasks(const std::vector<Task>& tasks, const Options& options);

}  // namespace mroce::campaign
