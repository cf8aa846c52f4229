// Campaign runner (see campaign.h).
#include "mroce/campaign/campaign.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "mroce/campaign/interrupt.h"
#include "mroce/dut/dut_spec.h"
#include "mroce/reports/report_json.h"
#include "mroce/reports/utf8.h"

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

// --- Isolation::kFork -------------------------------------------------------------------------

// "SIGSEGV" (or "signal 64").
std::string SignalName(int sig) {
  if (const char* abbrev = sigabbrev_np(sig)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

// The end of what the child wrote on stderr, as one line of valid UTF-8 without control characters
// (it goes into a report's reason and onto a terminal): at most `keep` bytes, cut at a character.
std::string LastWords(const std::string& raw, size_t keep = 400) {
  size_t from = raw.size() > keep ? raw.size() - keep : 0;
  while (from < raw.size() && from > 0 && (static_cast<unsigned char>(raw[from]) & 0xC0) == 0x80) ++from;
  const std::string text = reports::ValidUtf8(std::string_view(raw).substr(from));
  std::string line;
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    const bool control = u < 0x20 || u == 0x7F;
    if (control) {
      if (!line.empty() && line.back() != ' ') line += ' ';
    } else {
      line += ch;
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return (from > 0 ? "..." : "") + line;
}

// One running child.
struct Child {
  pid_t pid = -1;
  size_t index = 0;                 // task
  int result_fd = -1;               // its TestResult as JSON, then EOF
  int err_fd = -1;                  // its stderr (and the DUT's)
  std::string result;
  std::string err_tail;             // the last kErrTail bytes of its stderr
  std::chrono::steady_clock::time_point started;
  bool timed_out = false;
  bool reaped = false;
  int status = 0;
};

constexpr size_t kErrTail = 4096;

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Reads what is there (the fds are non-blocking); false at EOF or on an error.
bool Drain(int fd, Child& c, bool is_err) {
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      if (is_err) {
        // What the child says on stderr still reaches this process's stderr, as without isolation.
        (void)!write(STDERR_FILENO, buf, static_cast<size_t>(n));
        c.err_tail.append(buf, static_cast<size_t>(n));
        if (c.err_tail.size() > kErrTail) c.err_tail.erase(0, c.err_tail.size() - kErrTail);
      } else {
        c.result.append(buf, static_cast<size_t>(n));
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;
  }
}

// In the child: runs the task, writes its result to `fd`, never returns.
[[noreturn]] void ChildMain(const Task& task, const session::SessionOptions& base, const dut::Result<dut::DutSpec>& spec,
                            int fd, int err_fd, pid_t parent) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, SIG_DFL);
  setpgid(0, 0);  // the parent ends the child and whatever the DUT started with one kill(-pid)
  // A parent that dies without ending it (SIGKILL, a crash) takes the child along: in its own
  // process group, nothing else would, and its watchdog died with the parent.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(3);  // the parent died before prctl
  if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
  int code = 0;
  try {
    harness::RunResult one;
    one.tests.push_back(RunTask(task, base, spec));
    const std::string text =
        reports::ToJson(one).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    size_t off = 0;
    while (off < text.size()) {
      const ssize_t n = write(fd, text.data() + off, text.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        code = 3;
        break;
      }
      off += static_cast<size_t>(n);
    }
  } catch (...) {
    code = 3;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(code);
}

// The result of a child that has been reaped.
std::optional<harness::TestResult> ChildResult(const Task& task, const session::SessionOptions& base, const Child& c,
                                               double timeout_s, bool stopping) {
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.started).count();
  if (!c.timed_out && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0) {
    try {
      auto parsed = reports::FromJson(nlohmann::json::parse(c.result));
      if (parsed.ok() && parsed.value().tests.size() == 1) return std::move(parsed.value().tests.front());
    } catch (const std::exception&) {
    }
  }
  if (stopping && !c.timed_out) return std::nullopt;  // ended by the stop: the case never ran to its end
  std::string why;
  if (c.timed_out) {
    std::ostringstream t;
    t << "the case exceeded --case-timeout " << timeout_s << " s (the DUT did not return)";
    why = t.str();
  } else if (WIFSIGNALED(c.status)) {
    why = "the DUT's process died of " + SignalName(WTERMSIG(c.status)) + " during the case";
  } else if (WIFEXITED(c.status)) {
    why = "the DUT's process exited with status " + std::to_string(WEXITSTATUS(c.status)) +
          " during the case without a result";
  } else {
    why = "the DUT's process ended without a result";
  }
  const std::string words = LastWords(c.err_tail);
  if (!words.empty()) why += "; its last words on stderr: " + words;
  harness::TestResult t = ErrorResult(task, why);
  session::SessionOptions o = base;
  o.seed = task.seed;
  o.dut_spec = task.dut_spec;
  t.reproduce = session::ReproduceCommand(*task.test, o);
  t.duration_s = took;
  return t;
}

void RunForked(const std::vector<Task>& tasks, const Options& options, const std::map<std::string, dut::Result<dut::DutSpec>>& specs,
               const std::function<bool()>& stopping, Outcome& out, size_t& done) {
  std::vector<Child> running;
  size_t next = 0;
  const auto timeout = std::chrono::duration<double>(options.case_timeout_s);
  auto spawn = [&](size_t i) -> bool {
    int rp[2], ep[2];
    if (pipe2(rp, O_CLOEXEC) != 0) return false;
    if (pipe2(ep, O_CLOEXEC) != 0) {
      close(rp[0]);
      close(rp[1]);
      return false;
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t self = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      for (int fd : {rp[0], rp[1], ep[0], ep[1]}) close(fd);
      return false;
    }
    if (pid == 0) {
      close(rp[0]);
      close(ep[0]);
      for (Child& other : running) {
        close(other.result_fd);
        close(other.err_fd);
      }
      ChildMain(tasks[i], options.session, specs.at(tasks[i].dut_spec), rp[1], ep[1], self);
    }
    setpgid(pid, pid);  // as the child does: whichever runs first
    close(rp[1]);
    close(ep[1]);
    Child c;
    c.pid = pid;
    c.index = i;
    c.result_fd = rp[0];
    c.err_fd = ep[0];
    c.started = std::chrono::steady_clock::now();
    for (int fd : {c.result_fd, c.err_fd}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    running.push_back(std::move(c));
    return true;
  };
  auto finish = [&](Child& c, bool stopped) {
    if (c.result_fd >= 0) Drain(c.result_fd, c, false);
    if (c.err_fd >= 0) Drain(c.err_fd, c, true);
    CloseFd(c.result_fd);
    CloseFd(c.err_fd);
    auto r = ChildResult(tasks[c.index], options.session, c, options.case_timeout_s, stopped);
    if (!r) return;
    out.results[c.index] = std::move(*r);
    ++done;
    if (options.on_result) options.on_result(Finished{c.index, &tasks[c.index], &*out.results[c.index], done, tasks.size()});
  };

  for (;;) {
    const bool stop = stopping();
    while (!stop && next < tasks.size() && running.size() < out.workers) {
      if (!spawn(next)) {
        out.results[next] = ErrorResult(tasks[next], std::string("cannot start the case's process: ") + strerror(errno));
        ++done;
        if (options.on_result) options.on_result(Finished{next, &tasks[next], &*out.results[next], done, tasks.size()});
      }
      ++next;
    }
    if (running.empty()) break;
    if (stop) {  // end every child (and what its DUT started); their cases have no result
      for (Child& c : running) {
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
      }
      for (Child& c : running) {
        while (waitpid(c.pid, &c.status, 0) < 0 && errno == EINTR) {
        }
        finish(c, true);
      }
      running.clear();
      break;
    }
    // Wait for output, a child's end (its result pipe's EOF) or the next deadline.
    const auto now = std::chrono::steady_clock::now();
    int wait_ms = 200;
    std::vector<pollfd> fds;
    for (Child& c : running) {
      if (options.case_timeout_s > 0 && !c.timed_out) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              c.started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout) - now)
                              .count();
        wait_ms = static_cast<int>(std::clamp<int64_t>(left + 1, 0, wait_ms));
      }
      if (c.result_fd >= 0) fds.push_back(pollfd{c.result_fd, POLLIN, 0});
      if (c.err_fd >= 0) fds.push_back(pollfd{c.err_fd, POLLIN, 0});
      // A child whose pipes are closed (or held open by a process its DUT started) is watched by waitpid.
      if (c.result_fd < 0) wait_ms = std::min(wait_ms, 20);
    }
    poll(fds.data(), fds.size(), wait_ms);
    const auto after = std::chrono::steady_clock::now();
    for (size_t k = 0; k < running.size();) {
      Child& c = running[k];
      if (c.result_fd >= 0 && !Drain(c.result_fd, c, false)) CloseFd(c.result_fd);
      if (c.err_fd >= 0 && !Drain(c.err_fd, c, true)) CloseFd(c.err_fd);
      if (options.case_timeout_s > 0 && !c.timed_out && after - c.started >= timeout) {
        c.timed_out = true;
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
      }
      const pid_t w = waitpid(c.pid, &c.status, WNOHANG);
      if (w == c.pid) {
        kill(-c.pid, SIGKILL);  // what its DUT left behind in its process group
        finish(c, false);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
      ++k;
    }
  }
  (void)next;
}

}  // namespace

Isolation AutoIsolation(const std::string& dut_spec) {
  return dut_spec.rfind("plugin:", 0) == 0 ? Isolation::kFork : Isolation::kNone;
}

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

  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t wanted = options.jobs <= 0 ? hw : static_cast<size_t>(options.jobs);
  out.workers = std::max<size_t>(1, std::min(tasks.size(), wanted));
  size_t done = 0;
  if (options.isolation == Isolation::kFork) {
    RunForked(tasks, options, specs, stopping, out, done);
    out.interrupted = done != tasks.size();
    if (out.interrupted && signals) out.signal = InterruptScope::Signal();
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }

  std::atomic<size_t> next{0};
  std::mutex mu;  // serialises on_result and counts `done`
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
