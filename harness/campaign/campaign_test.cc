#include "mroce/campaign/campaign.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <set>

#include "mroce/campaign/interrupt.h"
#include "mroce/campaign/suite_run.h"

namespace mroce::campaign {
namespace {

// Two small end-to-end cases (harness/cli/testdata/run-suite).
const Suite& TestSuite() {
  static const Suite suite = [] {
    auto s = LoadSuite(MROCE_CAMPAIGN_SUITE, "");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return std::move(s).value();
  }();
  return suite;
}

// Every case on seeds 1..3 against the reference, then against a quirk: 12 tasks.
std::vector<Task> Tasks() {
  std::vector<Task> tasks;
  for (const std::string dut : {"reference", "reference:quirk=go_back_n"}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      for (const harness::Case& c : TestSuite().cases) tasks.push_back({&c, dut, seed});
    }
  }
  return tasks;
}

Options Quiet(int jobs) {
  Options o;
  o.jobs = jobs;
  o.session.write_evidence = false;
  return o;
}

// A result without its wall-clock duration (the one field that differs between runs).
harness::TestResult Timeless(harness::TestResult r) {
  r.duration_s = 0;
  return r;
}

// Isolation::kFork runs each task in a child and sends its result back as JSON: the results are
// those of the threads, field for field (the duration aside).
TEST(CampaignTest, ForkedTasksGiveTheResultsOfTheThreads) {
  const auto tasks = Tasks();
  const Outcome threads = RunTasks(tasks, Quiet(2));
  Options o = Quiet(2);
  o.isolation = Isolation::kFork;
  size_t calls = 0;
  o.on_result = [&](const Finished& f) {
    ++calls;
    EXPECT_EQ(f.done, calls);
  };
  const Outcome forked = RunTasks(tasks, o);
  EXPECT_EQ(calls, tasks.size());
  EXPECT_FALSE(forked.interrupted);
  EXPECT_EQ(forked.workers, 2u);
  ASSERT_EQ(forked.results.size(), tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    ASSERT_TRUE(forked.results[i].has_value()) << i;
    ASSERT_TRUE(threads.results[i].has_value()) << i;
    EXPECT_EQ(Timeless(*forked.results[i]), Timeless(*threads.results[i])) << tasks[i].test->id;
  }
}

TEST(CampaignTest, AutoIsolationForksForPluginsOnly) {
  EXPECT_EQ(AutoIsolation("plugin:/x/libacme.so,label=a"), Isolation::kFork);
  EXPECT_EQ(AutoIsolation("reference"), Isolation::kNone);
  EXPECT_EQ(AutoIsolation("reference:quirk=go_back_n"), Isolation::kNone);
  EXPECT_EQ(AutoIsolation("rocev2"), Isolation::kNone);
  EXPECT_EQ(AutoIsolation("process:mroce-refd"), Isolation::kNone);
}

TEST(CampaignTest, ResultsComeInTaskOrderWhateverTheJobCount) {
  const auto tasks = Tasks();
  const Outcome one = RunTasks(tasks, Quiet(1));
  ASSERT_EQ(one.results.size(), tasks.size());
  EXPECT_FALSE(one.interrupted);
  EXPECT_EQ(one.workers, 1u);
  for (size_t i = 0; i < tasks.size(); ++i) {
    ASSERT_TRUE(one.results[i].has_value());
    EXPECT_EQ(one.results[i]->id, tasks[i].test->id);
    EXPECT_EQ(one.results[i]->seed, tasks[i].seed);
  }
  EXPECT_EQ(one.results[0]->verdict, harness::Verdict::kPass);
  for (int jobs : {2, 5, 64}) {
    const Outcome many = RunTasks(tasks, Quiet(jobs));
    EXPECT_EQ(many.workers, std::min<size_t>(static_cast<size_t>(jobs), tasks.size()));
    for (size_t i = 0; i < tasks.size(); ++i) {
      ASSERT_TRUE(many.results[i].has_value()) << i;
      EXPECT_EQ(Timeless(*many.results[i]), Timeless(*one.results[i])) << "task " << i << " with " << jobs << " jobs";
    }
  }
}

TEST(CampaignTest, EachResultIsHandedOverOnceAsItsTaskFinishes) {
  const auto tasks = Tasks();
  std::set<size_t> indices;
  size_t last_done = 0;
  Options o = Quiet(3);
  o.on_result = [&](const Finished& f) {
    EXPECT_TRUE(indices.insert(f.index).second) << "task " << f.index << " reported twice";
    EXPECT_EQ(f.done, ++last_done);
    EXPECT_EQ(f.total, tasks.size());
    EXPECT_EQ(f.task, &tasks[f.index]);
    EXPECT_EQ(f.result->id, tasks[f.index].test->id);
  };
  const Outcome out = RunTasks(tasks, o);
  EXPECT_EQ(indices.size(), tasks.size());
}

TEST(CampaignTest, AStopRequestKeepsEveryFinishedResultAndStartsNoNewTask) {
  const auto tasks = Tasks();
  const Outcome full = RunTasks(tasks, Quiet(2));
  std::stop_source stop;
  Options o = Quiet(2);
  o.stop = stop.get_token();
  size_t seen = 0;
  o.on_result = [&](const Finished&) {
    if (++seen == 3) stop.request_stop();
  };
  const Outcome part = RunTasks(tasks, o);
  EXPECT_TRUE(part.interrupted);
  EXPECT_EQ(part.signal, 0);
  size_t finished = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!part.results[i]) continue;
    ++finished;
    EXPECT_EQ(Timeless(*part.results[i]), Timeless(*full.results[i])) << "task " << i;
  }
  // The tasks running when the stop came finish (at most one per other worker); no new one starts.
  EXPECT_GE(finished, 3u);
  EXPECT_LE(finished, 4u);
  EXPECT_EQ(finished, seen);
}

TEST(CampaignTest, SigtermSigintAndSighupStopTheCampaignNotTheProcess) {
  const auto tasks = Tasks();
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    Options o = Quiet(1);
    size_t seen = 0;
    o.on_result = [&](const Finished&) {
      if (++seen == 2) ::raise(sig);
    };
    const Outcome out = RunTasks(tasks, o);
    EXPECT_TRUE(out.interrupted);
    EXPECT_EQ(out.signal, sig);
    EXPECT_TRUE(out.results[0] && out.results[1]);
    for (size_t i = 2; i < tasks.size(); ++i) EXPECT_FALSE(out.results[i]) << "task " << i << " ran after the signal";
  }
  // The previous dispositions are back once the campaign ends.
  struct sigaction now {};
  sigaction(SIGTERM, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  sigaction(SIGHUP, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST(CampaignTest, WithoutSignalHandlingASignalIsNotTheCampaigns) {
  const auto tasks = Tasks();
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ignore, &old);
  Options o = Quiet(1);
  o.handle_signals = false;
  o.on_result = [&](const Finished& f) {
    if (f.done == 1) ::raise(SIGTERM);
  };
  const Outcome out = RunTasks(tasks, o);
  sigaction(SIGTERM, &old, nullptr);
  EXPECT_FALSE(out.interrupted);
}

TEST(CampaignTest, ATaskThatCannotRunIsAnErrorResultAndTheOthersRun) {
  const harness::Case& c = TestSuite().cases.front();
  const std::vector<Task> tasks = {{&c, "nic9", 1}, {&c, "reference:quirk=teleport", 1}, {&c, "reference", 1}};
  const Outcome out = RunTasks(tasks, Quiet(2));
  ASSERT_TRUE(out.results[0] && out.results[1] && out.results[2]);
  EXPECT_EQ(out.results[0]->verdict, harness::Verdict::kError);
  EXPECT_NE(out.results[0]->reason.find("unknown kind 'nic9'"), std::string::npos) << out.results[0]->reason;
  EXPECT_EQ(out.results[0]->id, c.id);
  EXPECT_EQ(out.results[1]->verdict, harness::Verdict::kError);
  EXPECT_NE(out.results[1]->reason.find("teleport"), std::string::npos) << out.results[1]->reason;
  EXPECT_EQ(out.results[2]->verdict, harness::Verdict::kPass);
}

TEST(CampaignTest, NoTaskNoWork) {
  const Outcome out = RunTasks({}, Quiet(4));
  EXPECT_TRUE(out.results.empty());
  EXPECT_FALSE(out.interrupted);
}

}  // namespace
}  // namespace mroce::campaign
