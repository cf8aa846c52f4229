// `mroce-cts impair` end to end on net_ring/net_null vdevs (EAL --no-huge --no-pci): runs for
// --duration, stops on SIGINT with final statistics, and rejects bad flags with exit 2. Skips (with
// the reason) only when the DPDK EAL cannot start.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

namespace {

struct Outcome {
  int status = -1;  // Exit status, or -1 when killed.
  std::string out;  // stdout + stderr.
};

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mroce_impair_" + std::to_string(getpid()) + "_" + name)).string();
}

std::string WriteProfile(const std::string& name, const std::string& yaml) {
  const std::string p = TempPath(name);
  std::ofstream(p) << yaml;
  return p;
}

// Runs mroce-cts impair ARGS; when `interrupt_after` is set, sends SIGINT once the output contains
// it. Gives up (SIGKILL) after `limit_s`.
Outcome RunImpair(std::vector<std::string> args, const std::string& interrupt_after = "", double limit_s = 15) {
  args.insert(args.begin(), {MROCE_CTS_BIN, "impair"});
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  Outcome o;
  bool sent = false;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 50) > 0) {
      char buf[4096];
      const ssize_t n = read(fds[0], buf, sizeof(buf));
      if (n <= 0) break;
      o.out.append(buf, static_cast<size_t>(n));
    }
    if (!interrupt_after.empty() && !sent && o.out.find(interrupt_after) != std::string::npos) {
      kill(pid, SIGINT);
      sent = true;
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(limit_s)) {
      kill(pid, SIGKILL);
      o.out += "\n[test: killed after " + std::to_string(limit_s) + " s]";
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

#define SKIP_IF_NO_EAL(o)                                                              \
  if ((o).out.find("EAL initialisation failed") != std::string::npos)                 \
    GTEST_SKIP() << "DPDK EAL did not start: " << (o).out

constexpr const char* kProfile = R"(rtt: 10us
impairments:
  - stage: loss.bernoulli
    name: loss
    params: {rate: 0.1}
  - stage: delay
    match: {direction: peer->dut}
    params: {base: 1rtt}
)";

TEST(ImpairCli, RunsForDurationAndExitsZero) {
  const std::string prof = WriteProfile("p1.yaml", kProfile);
  // net_null0 generates frames (dut side); net_ring0 is a loopback: its frames come back peer->dut.
  Outcome o = RunImpair({"--eal", "--no-huge --no-pci -m 512 --log-level *:error", "--port0", "net_null0", "--port1",
                   "net_ring0", "--profile", prof, "--duration", "1s", "--stats-interval", "300ms"});
  SKIP_IF_NO_EAL(o);
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("final (duration reached)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("] live"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ports closed"), std::string::npos) << o.out;
  // Counters moved, and the stage lines are StageStats::ToString of both directions.
  const size_t fin = o.out.find("final (");
  std::smatch m;
  const std::string tail = o.out.substr(fin);
  ASSERT_TRUE(std::regex_search(tail, m, std::regex(R"(port0 net_null0: rx (\d+) tx (\d+))"))) << tail;
  EXPECT_GT(std::stoull(m[1]), 1000u) << tail;
  EXPECT_GT(std::stoull(m[2]), 100u) << tail;  // Frames looped back peer->dut and were sent to net_null0.
  EXPECT_TRUE(std::regex_search(
      tail, std::regex(R"(loss@dut->peer \(loss\.bernoulli\): configured loss 10\.00%, achieved \d+\.\d\d% over \d+ packets)")))
      << tail;
  EXPECT_NE(tail.find("loss@peer->dut (loss.bernoulli)"), std::string::npos) << tail;
  EXPECT_NE(tail.find("delay#1 (delay.constant): configured mean delay 10000 ns"), std::string::npos) << tail;
  std::remove(prof.c_str());
}

// --idle-sleep: with no traffic the bridge naps instead of spinning (about one nap per
// millisecond here), and frames still flow when they come (the loop of the test above).
TEST(ImpairCli, IdleSleepNapsWhenNoFrameComes) {
  const std::string prof = WriteProfile("p4.yaml", kProfile);
  Outcome o = RunImpair({"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--duration", "500ms",
                         "--stats-interval", "0", "--idle-sleep", "1ms"});
  SKIP_IF_NO_EAL(o);
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("idle: sleeps up to 1ms after 64 empty polls"), std::string::npos) << o.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.out, m, std::regex(R"(idle sleeps: (\d+))"))) << o.out;
  EXPECT_GT(std::stoull(m[1]), 100u) << o.out;  // 500 ms of 1 ms naps, less EAL start and oversleep.
  EXPECT_LE(std::stoull(m[1]), 500u) << o.out;
  Outcome busy = RunImpair({"--eal", "--no-huge --no-pci -m 512 --log-level *:error", "--port0", "net_null0", "--port1",
                            "net_ring0", "--profile", prof, "--duration", "500ms", "--stats-interval", "0",
                            "--idle-sleep", "50us"});
  ASSERT_EQ(busy.status, 0) << busy.out;
  ASSERT_TRUE(std::regex_search(busy.out, m, std::regex(R"(port0 net_null0: rx (\d+) tx (\d+))"))) << busy.out;
  EXPECT_GT(std::stoull(m[1]), 1000u) << busy.out;
  EXPECT_GT(std::stoull(m[2]), 100u) << busy.out;
  std::remove(prof.c_str());
}

TEST(ImpairCli, SigintStopsWithFinalStatsAndExitZero) {
  const std::string prof = WriteProfile("p2.yaml", kProfile);
  Outcome o = RunImpair({"--port0", "net_null0", "--port1", "net_null1", "--profile", prof, "--stats-interval", "200ms"},
                  "] live");
  SKIP_IF_NO_EAL(o);
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("final (interrupted)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ports closed"), std::string::npos) << o.out;
  std::remove(prof.c_str());
}

TEST(ImpairCli, BadFlagsExitTwoNamingTheProblem) {
  const std::string prof = WriteProfile("p3.yaml", kProfile);
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--port1", "net_ring1", "--profile", prof}, "--port0 is required"},
      {{"--port0", "net_ring0", "--profile", prof}, "--port1 is required"},
      {{"--port0", "net_ring0", "--port1", "net_ring1"}, "--profile is required"},
      {{"--port0", "net_ring0", "--port1", "net_ring0", "--profile", prof}, "must be different ports"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--duration", "5parsecs"},
       "--duration: unknown time unit"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--stats-interval", "3"},
       "--stats-interval: '3' needs a unit"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", "/nonexistent.yaml"},
       "/nonexistent.yaml: cannot read file"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--burst", "0"}, "--burst must be in 1..256"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--mbuf-size", "64"}, "--mbuf-size must be 0 or 128..65000"},
      {{"--bench", "--port0", "net_ring0"}, "--bench makes its own"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--idle-sleep", "1s"},
       "--idle-sleep must be in 0..100ms"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--idle-sleep", "5"},
       "--idle-sleep: '5' needs a unit"},
      {{"--bench", "--idle-sleep", "50us"}, "--idle-sleep does not go with --bench"},
      {{"--port0", "net_ring0", "--port1", "net_ring1", "--profile", prof, "--frobnicate"}, "frobnicate"},
  };
  for (const Case& c : cases) {
    Outcome o = RunImpair(c.args);
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find(c.message), std::string::npos) << "want '" << c.message << "' in: " << o.out;
  }
  const std::string bad = WriteProfile("bad.yaml", "impairments:\n  - stage: loss.bernoulli\n    params: {rate: 7}\n");
  Outcome o = RunImpair({"--port0", "net_ring0", "--port1", "net_ring1", "--profile", bad});
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find(bad + ":3:20: impairments[0].params.rate: must be in [0, 1], got 7"), std::string::npos) << o.out;
  std::remove(prof.c_str());
  std::remove(bad.c_str());
}

TEST(ImpairCli, BadEalArgumentsAndPortsExitTwo) {
  const std::string prof = WriteProfile("p4.yaml", kProfile);
  Outcome o = RunImpair({"--eal", "--no-huge --no-pci --definitely-not-an-eal-flag", "--port0", "net_ring0", "--port1",
                   "net_ring1", "--profile", prof});
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("EAL initialisation failed"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Invalid argument (22); an argument is not valid"), std::string::npos) << o.out;
  o = RunImpair({"--port0", "net_nosuchdriver0", "--port1", "net_ring1", "--profile", prof});
  SKIP_IF_NO_EAL(o);
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("--port0: cannot create virtual device 'net_nosuchdriver0'"), std::string::npos) << o.out;
  std::remove(prof.c_str());
}

TEST(ImpairCli, BenchQuickSmoke) {
  const std::string json = TempPath("bench.json");
  Outcome o = RunImpair({"--bench", "--quick", "--testpmd", "none", "--json", json}, "", 30);
  SKIP_IF_NO_EAL(o);
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("dpdk-testpmd, --tx-first: not run (disabled)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("dpdk-testpmd, start tx_first 8 (as many frames as the all-stages loop): not run (disabled)"),
            std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ratio all stages on: none (testpmd with 512 frames did not run)"), std::string::npos) << o.out;
  std::ifstream f(json);
  ASSERT_TRUE(f) << json;
  const auto j = nlohmann::json::parse(f);
  ASSERT_EQ(j.at("ours").size(), 4u);
  EXPECT_EQ(j.at("ours")[0].at("name"), "stages off");
  EXPECT_EQ(j.at("ours")[3].at("name"), "pointer forwarding (not compared)");
  // Frames moved in every configuration; how fast is the benchmark's business, not this test's (a
  // sanitized Debug build runs the all-stages loop at ~0.06 Mpps).
  for (const auto& r : j.at("ours")) {
    EXPECT_GT(r.at("packets").get<uint64_t>(), 1000u) << r.dump();
    EXPECT_GT(r.at("mpps").get<double>(), 0.0) << r.dump();
  }
  EXPECT_EQ(j.at("ours")[2].at("stage_stats").size(), 8u);  // 4 stages x 2 directions.
  // Rows without stages circulate testpmd --tx-first's 2 x 32 frames, all stages on 512.
  for (int i : {0, 1, 3}) EXPECT_EQ(j.at("ours")[i].at("frames").get<unsigned>(), 64u);
  EXPECT_EQ(j.at("ours")[2].at("frames").get<unsigned>(), 512u);
  EXPECT_FALSE(j.at("testpmd_tx_first").at("ran").get<bool>());
  EXPECT_FALSE(j.at("testpmd_same_frames_as_all_stages").at("ran").get<bool>());
  EXPECT_TRUE(j.at("ratios").empty());
  std::remove(json.c_str());
}

// With dpdk-testpmd (Debian's dpdk package): both of its loops run and are read, and each of our
// rows is compared with the one of its own size: the rows without stages with --tx-first's 64
// frames (2 ports x one burst of 32), all stages on with 512 (interactive `start tx_first 8`).
TEST(ImpairCli, BenchQuickComparesEachRowWithTestpmdsLoopOfItsSize) {
  if (access("/usr/bin/dpdk-testpmd", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/dpdk-testpmd (apt-get install dpdk)";
  const std::string json = TempPath("bench-testpmd.json");
  Outcome o = RunImpair({"--bench", "--quick", "--json", json}, "", 90);
  SKIP_IF_NO_EAL(o);
  ASSERT_EQ(o.status, 0) << o.out;
  std::ifstream f(json);
  ASSERT_TRUE(f) << json;
  const auto j = nlohmann::json::parse(f);
  const auto& usual = j.at("testpmd_tx_first");
  const auto& big = j.at("testpmd_same_frames_as_all_stages");
  ASSERT_TRUE(usual.at("ran").get<bool>()) << usual.dump() << "\n" << o.out;
  ASSERT_TRUE(big.at("ran").get<bool>()) << big.dump() << "\n" << o.out;
  EXPECT_EQ(usual.at("frames").get<unsigned>(), 64u);
  EXPECT_EQ(big.at("frames").get<unsigned>(), 512u);
  EXPECT_NE(usual.at("command").get<std::string>().find("--tx-first"), std::string::npos);
  EXPECT_NE(big.at("command").get<std::string>().find("start tx_first 8"), std::string::npos);
  for (const auto* t : {&usual, &big}) {
    EXPECT_GT(t->at("mpps").get<double>(), 1.0) << t->dump();
    EXPECT_GE(t->at("samples_pps").size(), 2u) << t->dump();
  }
  const auto& ours = j.at("ours");
  const auto& ratios = j.at("ratios");
  EXPECT_DOUBLE_EQ(ratios.at("stages_off").get<double>(),
                   ours[0].at("mpps").get<double>() / usual.at("mpps").get<double>());
  EXPECT_DOUBLE_EQ(ratios.at("all_stages_on").get<double>(),
                   ours[2].at("mpps").get<double>() / big.at("mpps").get<double>());
  EXPECT_EQ(j.at("ratios_against_the_other_testpmd_loop").at("all_stages_on").at("testpmd_frames").get<unsigned>(), 64u);
  EXPECT_NE(o.out.find("ratio all stages on / testpmd, both 512 frames: "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ratio stages off (headers parsed) / testpmd, both 64 frames: "), std::string::npos) << o.out;
  std::remove(json.c_str());
}

}  // namespace
