// `mroce-cts run --dut process:...` against mroce-refd: the live-capable cases give the verdicts of
// the simulation, and a DUT process that crashes, hangs or never starts gives ERROR verdicts with the
// reason while the campaign goes on and the run directory is complete.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cts_test_util.h"

// Judging a live DUT's timing needs a harness that keeps up with the wall clock. A sanitized Debug
// build does not: in CI (ASan+UBSan, -O0) 20 of the 34 live cases stalled the DUT for more than 5 ms
// in each of 3 runs. The failure-handling tests (crash, hang, garbage) still run there.
#ifdef MROCE_SANITIZED_BUILD
#define SKIP_WHERE_THE_HARNESS_CANNOT_KEEP_REAL_TIME() \
  GTEST_SKIP() << "sanitized build: the harness cannot keep real time for a live DUT's verdicts"
#else
#define SKIP_WHERE_THE_HARNESS_CANNOT_KEEP_REAL_TIME() (void)0
#endif

namespace {

namespace fs = std::filesystem;

using mroce::cli::testing::Cts;
using mroce::cli::testing::Output;

nlohmann::json Report(const fs::path& dir) {
  std::ifstream f(dir / "report.json");
  return nlohmann::json::parse(f);
}

class Live : public mroce::cli::testing::TempDirTest {
 protected:
  Live() : TempDirTest("live_test") {}
  std::string Dut(const std::string& opts_and_args) const {
    return "'process:" + opts_and_args + "'";
  }
  const std::string refd_ = MROCE_REFD_BIN;
  const std::string suite_ = MROCE_SUITE;
};

TEST_F(Live, LiveCapableCasesGiveTheSimulationsVerdicts) {
  SKIP_WHERE_THE_HARNESS_CANNOT_KEEP_REAL_TIME();
  const Output sim = Cts("run -q --suite " + suite_ + " --out " + (root_ / "sim").string());
  ASSERT_EQ(sim.status, 0) << sim.out;
  // One case at a time: each live case is a harness and a DUT process keeping real time.
  const Output live = Cts("run -q -j 1 --suite " + suite_ + " --dut " + Dut(refd_) + " --out " + (root_ / "live").string());
  ASSERT_TRUE(fs::exists(root_ / "live" / "report.json")) << live.out;
  std::map<std::string, std::string> sim_verdict;
  const nlohmann::json sim_report = Report(root_ / "sim"), live_report = Report(root_ / "live");
  for (const auto& t : sim_report["tests"]) sim_verdict[t["id"]] = t["verdict"];
  int ran = 0, skipped = 0, stalled = 0, unjudged = 0;
  for (const auto& t : live_report["tests"]) {
    const std::string id = t["id"], verdict = t["verdict"];
    if (verdict == "skip") {
      ++skipped;
      const std::string reason = t["reason"];
      EXPECT_TRUE(reason.find("simulated clock") != std::string::npos || reason.find("kernel UDP sockets") != std::string::npos)
          << id << ": skipped for another reason: " << reason;
      continue;
    }
    ++ran;
    const std::string reason = t.value("reason", "");
    if (verdict == "inconclusive" && (reason.find("a starved host explains it") != std::string::npos ||
                                      (reason.find("not judged live") != std::string::npos &&
                                       reason.find("left unserved") != std::string::npos))) {
      // A failure the DUT's timers, fired during a measured stall, explain (run_case.cc), or a frame
      // a stall may have moved into a window: host load, said so, tolerated like a stall.
      ++stalled;
      continue;
    }
    if (verdict == "inconclusive" && sim_verdict[id] == "pass" &&
        (reason.find("not judged live") != std::string::npos || reason.find("never happened") != std::string::npos ||
         reason.find("out of reach") != std::string::npos)) {
      // A scripted step whose window the live path's latency or a stall leaves undecided, or a
      // trigger the live timing never met (a handshake outlasting a scheduled impairment, the
      // retry limit reached only through the fabric's losses): said so, never a verdict.
      ++unjudged;
      continue;
    }
    if (verdict == "inconclusive" && reason.find("live DUT went unserved") != std::string::npos) {
      // The host was too loaded in every run of this case (3 runs): the harness said so instead
      // of blaming the DUT. Tolerated for a few cases on a busy CI machine, never a fail.
      ++stalled;
      EXPECT_EQ(t["attempts"], 3) << id;
      continue;
    }
    if (verdict == "inconclusive" && sim_verdict[id] == "pass" && reason.find("not decidable") != std::string::npos) {
      // A check the live run could not decide (the host queued or dropped frames between tap and
      // DUT, or a wall-clock RTO fired): said so, not blamed on the DUT; tolerated like a stall.
      ++stalled;
      continue;
    }
    EXPECT_EQ(verdict, sim_verdict[id]) << id << ": " << reason << " (stall " << t.value("stall_ms", 0.0) << " ms, "
                                        << t.value("attempts", 1) << " run(s))";
  }
  // Scripted cases run live too (packetdrill-style, windows widened by the calibrated latency):
  // 248 of the 279 cases run live; 31 need the simulated clock or kernel UDP sockets.
  EXPECT_GE(ran, 240) << "the live-capable part of the suite shrank";
  // Every unjudged case is one whose window or counter the live path's timing leaves undecided
  // (each says so, with the latency it measured). How many depends on the host's wake-up latency,
  // not only on its load: measured on this 2-core machine, 19 of 248 idle (calibrated round trips
  // up to 865 us from idle-state wake-ups), 18 under `stress-ng --cpu 2` (the busy cores answer in
  // 5 us), 37 in CI beside the netns and DPDK tests. So the floor is on the cases judged, three
  // quarters of those run: it catches the live path losing its precision (a calibration or a
  // window rule gone wrong leaves most cases undecided), not a host's timing; a wrong verdict is
  // caught above on any host.
  if (stalled <= 3) {
    EXPECT_GE(ran - unjudged - stalled, ran * 3 / 4)
        << unjudged << " of " << ran << " live cases went unjudged and " << stalled << " stalled";
  }
  EXPECT_EQ(ran + skipped, static_cast<int>(sim_verdict.size()));
  EXPECT_NE(live_report["dut"].dump().find("mroce-refd"), std::string::npos);
  if (stalled == 0 && unjudged == 0) {
    EXPECT_EQ(live.status, 0) << live.out;
  } else if (stalled > 3) {
    // Every judged case agreed (else the test failed above); the host was too loaded to judge
    // the rest: starvation is inconclusive, never a failure of the DUT or of the harness.
    GTEST_SKIP() << stalled << " of " << ran << " live cases could not be judged on this host (too loaded)";
  }
}

TEST_F(Live, ACrashingDutIsAnErrorPerCaseAndTheCampaignGoesOn) {
  const Output o = Cts("run --suite " + suite_ + " --filter 'multipath.e2e.*' --dut " +
                       Dut(refd_ + " --fault crash-after-frames=10") + " --out " + root_.string());
  EXPECT_EQ(o.status, 3) << o.out;  // ERROR verdicts: exit status 3
  const nlohmann::json r = Report(root_);
  int errors = 0;
  for (const auto& t : r["tests"]) {
    if (t["verdict"] == "skip") continue;
    EXPECT_EQ(t["verdict"], "error") << t["id"];
    const std::string reason = t.value("reason", "");
    EXPECT_NE(reason.find("was killed by signal 6"), std::string::npos) << reason;
    EXPECT_NE(reason.find("crash-after-frames=10: aborting now"), std::string::npos) << reason;
    ++errors;
  }
  EXPECT_GE(errors, 3) << "every multipath e2e case ran, each with its own fresh process";
  EXPECT_TRUE(fs::exists(root_ / "junit.xml"));
  EXPECT_TRUE(fs::exists(root_ / "report.html"));
}

TEST_F(Live, AHungDutTimesOutAndAGarblingOneBreaksTheProtocol) {
  const Output hang = Cts("run --suite " + suite_ + " --filter 'multipath.e2e.spray-sender' --dut " +
                          Dut("timeout_ms=300," + refd_ + " --fault hang-after-frames=5") + " --out " + (root_ / "h").string());
  EXPECT_EQ(hang.status, 3) << hang.out;
  const nlohmann::json hr = Report(root_ / "h");
  const auto& h = hr["tests"][0];
  EXPECT_EQ(h["verdict"], "error");
  EXPECT_NE(h.value("reason", "").find("within 300 ms (hung?)"), std::string::npos) << h.dump();

  const Output garbage = Cts("run --suite " + suite_ + " --filter 'multipath.e2e.spray-sender' --dut " +
                             Dut(refd_ + " --fault garbage-after-frames=5") + " --out " + (root_ / "g").string());
  EXPECT_EQ(garbage.status, 3) << garbage.out;
  const nlohmann::json gr = Report(root_ / "g");
  const auto& g = gr["tests"][0];
  EXPECT_EQ(g["verdict"], "error");
  EXPECT_NE(g.value("reason", "").find("broke the control protocol: not JSON"), std::string::npos) << g.dump();
}

TEST_F(Live, ADutThatCannotStartStopsTheRunBeforeItBeginsNamingWhy) {
  // The run opens the DUT once to name it in the report; a process that cannot even say hello is
  // reported then, with its exit status and its own words, before any case runs.
  const Output o = Cts("run --suite " + suite_ + " --filter 'multipath.e2e.*' --dut " +
                       Dut("echo \"no such device: mlx9_0\" >&2; exit 4") + " --out " + root_.string());
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("exited with status 4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("no such device: mlx9_0"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(root_ / "report.json"));
}

}  // namespace

TEST_F(Live, AFailureAfterAStallIsRerunAndThenInconclusiveNotBlamedOnTheDut) {
  SKIP_WHERE_THE_HARNESS_CANNOT_KEEP_REAL_TIME();
  // A DUT that really fails (sends on one path only). With a stall limit no run reaches (1 s) the
  // failure is stated after one run; with a 1 us limit every run counts as stalled, so the case is
  // run 3 times and ends inconclusive naming the stall, with the DUT's own failure quoted.
  const std::string dut = Dut(refd_ + " --quirk single_path");
  const std::string filter = " --filter 'multipath.e2e.spray-sender' --dut " + dut;
  const Output strict = Cts("run -q --max-stall-us 1000000 --suite " + suite_ + filter + " --out " + (root_ / "a").string());
  EXPECT_EQ(strict.status, 1) << strict.out;
  const auto a = Report(root_ / "a")["tests"][0];
  EXPECT_EQ(a["verdict"], "fail") << a.dump();
  EXPECT_EQ(a.value("attempts", 1), 1);
  EXPECT_GT(a.value("stall_ms", 0.0), 0.0) << "a live run reports its longest stall";

  const Output tight = Cts("run -q --max-stall-us 1 --suite " + suite_ + filter + " --out " + (root_ / "b").string());
  const auto b = Report(root_ / "b")["tests"][0];
  EXPECT_EQ(b["verdict"], "inconclusive") << b.dump();
  EXPECT_EQ(b["attempts"], 3);
  const std::string reason = b["reason"];
  EXPECT_NE(reason.find("the live DUT went unserved for"), std::string::npos) << reason;
  EXPECT_NE(reason.find("(limit 0.001 ms) in each of 3 run(s)"), std::string::npos) << reason;
  EXPECT_NE(reason.find("the last run said fail (multipath:"), std::string::npos) << reason;

  // A process of the live path (the impair bridge) that logged a stall over every run: the same. The
  // logged gap counts for the part of it within a run, so the limit is a quarter of the strict run's
  // duration (a run with no logged gap stays a failure unless the harness itself stalls that long).
  const std::string log = (root_ / "bridge.stalls").string();
  {
    std::ofstream f(log);
    f << "0 9000000000000000000\n";  // CLOCK_MONOTONIC: from boot to far beyond the test
  }
  const int64_t quarter_us = std::max<int64_t>(1000, static_cast<int64_t>(a["duration_s"].get<double>() * 1e6 / 4));
  const Output logged = Cts("run -q --max-stall-us " + std::to_string(quarter_us) + " --stall-log " + log + " --suite " +
                            suite_ + filter + " --out " + (root_ / "g").string());
  const auto g = Report(root_ / "g")["tests"][0];
  EXPECT_EQ(g["verdict"], "inconclusive") << g.dump();
  EXPECT_EQ(g["attempts"], 3);
  EXPECT_NE(std::string(g["reason"]).find("by a process of the live path (--stall-log)"), std::string::npos) << g.dump();

  const Output once = Cts("run -q --max-stall-us 1 --live-attempts 1 --suite " + suite_ + filter + " --out " + (root_ / "c").string());
  EXPECT_EQ(Report(root_ / "c")["tests"][0].value("attempts", 1), 1);

  const Output bad = Cts("run -q --max-stall-us 0 --suite " + suite_ + filter + " --out " + (root_ / "d").string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("--max-stall-us 0: must be > 0"), std::string::npos) << bad.out;
  const Output bad2 = Cts("run -q --live-attempts 0 --suite " + suite_ + filter + " --out " + (root_ / "e").string());
  EXPECT_EQ(bad2.status, 2);
  EXPECT_NE(bad2.out.find("--live-attempts 0: must be >= 1"), std::string::npos) << bad2.out;
}
