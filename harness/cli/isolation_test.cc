// `mroce-cts run --isolation fork` (issue 19, item 2): a plugin DUT that segfaults, aborts, loops in
// on_timer or returns next_deadline() = 0 forever costs only its case an ERROR naming the signal,
// the --case-timeout or the stuck timer; every other case keeps its verdict, the run ends with its
// normal exit status and report.json / junit.xml / report.html are complete. The same seed gives the same report with
// and without isolation; SIGTERM and SIGHUP end the children and keep the finished cases.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cts_test_util.h"
#include "report_test_util.h"

namespace {

namespace fs = std::filesystem;

using mroce::cli::testing::Cts;
using mroce::cli::testing::Output;
using mroce::cli::testing::Sh;
using mroce::cli::testing::Slurp;
using mroce::cli::testing::Stable;

const std::string kHostileSuite = MROCE_HOSTILE_SUITE;
const std::string kHostileCase = "basic.hostile.trigger";


class Isolation : public mroce::cli::testing::TempDirTest {
 protected:
  Isolation() : TempDirTest("isolation_test") {}

  // Runs the hostile suite against `plugin` and checks what every hostile run must give: exit 3 (an
  // ERROR verdict, not a death by signal), a complete report with the three cases, the hostile one
  // ERROR (its reason returned), the two others pass, junit.xml and report.json parse.
  std::string RunHostile(const std::string& plugin, const std::string& extra) {
    const std::string out = Dir("run");
    Output o = Cts("run --suite " + kHostileSuite + " --dut plugin:" + plugin + " --out " + out + " " + extra);
    EXPECT_EQ(o.status, 3) << o.out;
    EXPECT_EQ(o.out.find("interrupted"), std::string::npos) << o.out;
    nlohmann::json j = nlohmann::json::parse(Slurp(fs::path(out) / "report.json"));
    EXPECT_EQ(j["incomplete"], false) << j.dump(2);
    EXPECT_NE(j["finished_at"], "") << j.dump(2);
    EXPECT_EQ(j["tests"].size(), 3u) << j.dump(2);
    std::string reason;
    for (const auto& t : j["tests"]) {
      if (t["id"] == kHostileCase) {
        EXPECT_EQ(t["verdict"], "error") << t.dump(2);
        reason = t["reason"];
        EXPECT_NE(t["reproduce"], "") << t.dump(2);
      } else {
        EXPECT_EQ(t["verdict"], "pass") << t.dump(2);
      }
    }
    // junit.xml is well-formed (an independent parser) and names the ERROR.
    Output x = Sh("/usr/bin/python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' " + out + "/junit.xml");
    EXPECT_EQ(x.status, 0) << x.out;
    EXPECT_NE(Slurp(fs::path(out) / "junit.xml").find(kHostileCase), std::string::npos);
    EXPECT_NE(Slurp(fs::path(out) / "report.html").find("</html>"), std::string::npos);
    return reason;
  }

};

TEST_F(Isolation, ASegfaultInAHookIsAnErrorOfItsCaseNamingTheSignalAndTheLastWords) {
  // A sanitized build's SEGV handler turns the signal into an exit with its report (status 1): let
  // the signal kill the child as in a release build, which is what this test is about.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string saved = asan ? asan : "";
  ::setenv("ASAN_OPTIONS", (saved.empty() ? std::string("handle_segv=0") : saved + ":handle_segv=0").c_str(), 1);
  // --isolation auto forks for a plugin: no flag needed.
  const std::string reason = RunHostile(MROCE_HOSTILE_PLUGIN_SEGV, "-j 2");
  if (asan) {
    ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
  } else {
    ::unsetenv("ASAN_OPTIONS");
  }
  EXPECT_NE(reason.find("the DUT's process died of SIGSEGV during the case"), std::string::npos) << reason;
  EXPECT_NE(reason.find("hostile plugin: about to dereference null"), std::string::npos) << reason;
}

TEST_F(Isolation, AnAbortIsAnErrorAndItsNonUtf8LastWordsAreSanitized) {
  const std::string reason = RunHostile(MROCE_HOSTILE_PLUGIN_ABORT, "-j 1 --isolation fork");
  EXPECT_NE(reason.find("died of SIGABRT"), std::string::npos) << reason;
  EXPECT_NE(reason.find("hostile plugin: giving up \xEF\xBF\xBD\xEF\xBF\xBD here"), std::string::npos) << reason;
}

TEST_F(Isolation, AnEndlessLoopInOnTimerIsEndedByTheCaseTimeout) {
  const std::string reason = RunHostile(MROCE_HOSTILE_PLUGIN_TIMER_LOOP, "-j 2 --case-timeout 3s");
  EXPECT_NE(reason.find("the case exceeded --case-timeout 3 s (the DUT did not return)"), std::string::npos) << reason;
}

TEST_F(Isolation, ADeadlineOfZeroForeverIsAnErrorOfItsCaseLongBeforeTheCaseTimeout) {
  // The port's guard (DutPort::kMaxTimerCallsAtOneInstant) ends it on the simulated clock: the
  // case is an ERROR naming the stuck timer, not a wall-clock timeout (which would take 60 s).
  const std::string reason = RunHostile(MROCE_HOSTILE_PLUGIN_DEADLINE_ZERO, "-j 2 --case-timeout 60s");
  EXPECT_NE(reason.find("1000000 times in a row and still asks for it (next_deadline() = 0 ns"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("--case-timeout"), std::string::npos) << reason;
}

TEST_F(Isolation, TheSameSeedGivesTheSameReportWithAndWithoutFork) {
  for (const std::string& dut : {std::string("reference"), std::string("reference:quirk=go_back_n")}) {
    const std::string args = " -q --suite " MROCE_TESTCASES_DIR " --filter 'loss.*' --seed 7 -j 2 --dut '" + dut + "'";
    Output fork = Cts("run" + args + " --isolation fork --out " + Dir("fork"));
    Output none = Cts("run" + args + " --isolation none --out " + Dir("none"));
    EXPECT_EQ(fork.status, none.status) << fork.out << none.out;
    const nlohmann::json f = Stable(Dir("fork")), n = Stable(Dir("none"));
    EXPECT_GT(f["tests"].size(), 5u);
    EXPECT_EQ(f, n) << dut;
    // The evidence the children wrote stays.
    for (const auto& t : f["tests"]) {
      for (const auto& e : t["evidence"]) EXPECT_TRUE(fs::exists(fs::path(Dir("fork")) / e.get<std::string>())) << e;
    }
  }
}

// A stop signal while a child hangs: the children are ended, the finished cases are kept, the run
// is marked incomplete and says which signal; SIGHUP as SIGTERM.
TEST_F(Isolation, SigtermAndSighupEndTheChildrenAndKeepTheFinishedCases) {
  for (const std::string sig : {"TERM", "HUP"}) {
    const std::string out = Dir("sig" + sig);
    const std::string log = Dir("log" + sig);
    Output o = Sh(std::string(MROCE_CTS_BIN) + " run --suite " + kHostileSuite + " --dut plugin:" +
                  MROCE_HOSTILE_PLUGIN_TIMER_LOOP + " --case-timeout 0 -j 3 --out " + out + " > " + log +
                  " 2>&1 & pid=$!; for i in $(seq 1 600); do grep -q '\\[2/3\\]' " + log +
                  " && break; sleep 0.1; done; kill -" + sig + " $pid; wait $pid; echo rc=$?; cat " + log);
    EXPECT_NE(o.out.find("rc=3"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("interrupted by SIG" + sig + ": 2 of 3 cases ran"), std::string::npos) << o.out;
    nlohmann::json j = nlohmann::json::parse(Slurp(fs::path(out) / "report.json"));
    EXPECT_EQ(j["incomplete"], true);
    ASSERT_EQ(j["tests"].size(), 2u) << j.dump(2);
    for (const auto& t : j["tests"]) EXPECT_EQ(t["verdict"], "pass") << t.dump(2);
    // No child is left spinning in on_timer (children are forks: their command line is the run's;
    // the bracket keeps the pattern from matching the shell that runs pgrep).
    const std::string pattern = out.substr(0, out.size() - 1) + "[" + out.back() + "]";
    Output ps = Sh("pgrep -f -- '" + pattern + "' || true");
    EXPECT_EQ(ps.out, "") << ps.out;
  }
}

// A parent killed outright (SIGKILL: no handler runs) leaves no child behind: each dies with it,
// though in its own process group and with no watchdog left.
TEST_F(Isolation, AChildDiesWithAParentKilledOutright) {
  const std::string out = Dir("killed");
  const std::string log = Dir("log");
  Output o = Sh(std::string(MROCE_CTS_BIN) + " run --suite " + kHostileSuite + " --dut plugin:" +
                MROCE_HOSTILE_PLUGIN_TIMER_LOOP + " --case-timeout 0 -j 3 --out " + out + " > " + log +
                " 2>&1 & pid=$!; for i in $(seq 1 600); do grep -q '\\[2/3\\]' " + log +
                " && break; sleep 0.1; done; kids=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p=$pid '$4 == p {print $1}');"
                " kill -KILL $pid; wait $pid; echo rc=$? kids=$kids; for i in $(seq 1 50); do left=;"
                " for k in $kids; do [ -d /proc/$k ] && ! grep -q '^State:.*Z' /proc/$k/status 2>/dev/null && left=\"$left $k\"; done;"
                " [ -z \"$left\" ] && break; sleep 0.1; done; echo left=$left");
  EXPECT_NE(o.out.find("rc=137"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("kids=\n"), std::string::npos) << "the hanging case's child was not found: " << o.out;
  EXPECT_NE(o.out.find("left=\n"), std::string::npos) << o.out;
}

TEST_F(Isolation, BadFlags) {
  Output o = Cts("run --isolation threads --out " + Dir("x"));
  EXPECT_EQ(o.status, 2) << o.out;
  o = Cts("run --case-timeout 300 --out " + Dir("x"));
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("--case-timeout '300': expected a wall-clock duration with its unit"), std::string::npos)
      << o.out;
  o = Cts("run --case-timeout 5rtt --out " + Dir("x"));
  EXPECT_EQ(o.status, 2) << o.out;
}

}  // namespace
