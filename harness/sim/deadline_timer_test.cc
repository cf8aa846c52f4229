#include "mroce/sim/deadline_timer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace mroce::sim {
namespace {

constexpr int64_t kIdle = std::numeric_limits<int64_t>::max();

// A machine whose deadline the test sets by hand; it records when OnTimer ran.
struct Machine {
  int64_t deadline = kIdle;  // ns
  std::vector<int64_t> fired;
  [[nodiscard]] int64_t NextDeadline() const { return deadline; }
  void OnTimer(int64_t now) {
    fired.push_back(now);
    deadline = kIdle;
  }
};

TEST(DeadlineTimerTest, FiresAtTheDeadlineAndOnlyThen) {
  Simulator sim;
  Machine m;
  DeadlineTimer<Machine> timer(&sim, &m);
  timer.Call([](Machine& x) { x.deadline = 700; });
  EXPECT_EQ(timer.armed_ns(), 700);
  sim.RunUntilTime(Time::FromNanos(699));
  EXPECT_TRUE(m.fired.empty());
  sim.RunUntilTime(Time::FromNanos(10'000));
  EXPECT_EQ(m.fired, (std::vector<int64_t>{700}));
  EXPECT_EQ(timer.armed_ns(), kIdle);
  EXPECT_EQ(sim.pending(), 0u);
}

TEST(DeadlineTimerTest, ADeadlineInThePastFiresNowNotBackInTime) {
  Simulator sim;
  Machine m;
  DeadlineTimer<Machine> timer(&sim, &m);
  sim.RunUntilTime(Time::FromNanos(500));
  timer.Call([](Machine& x) { x.deadline = 100; });
  sim.RunUntilTime(Time::FromNanos(500));
  EXPECT_EQ(m.fired, (std::vector<int64_t>{500}));
}

TEST(DeadlineTimerTest, ADeadlineMovedLaterOnlyReArms) {
  Simulator sim;
  Machine m;
  DeadlineTimer<Machine> timer(&sim, &m);
  timer.Call([](Machine& x) { x.deadline = 100; });
  m.deadline = 300;  // changed behind the timer's back (no Rearm): the event at 100 must not fire it
  sim.RunUntilTime(Time::FromNanos(1000));
  EXPECT_EQ(m.fired, (std::vector<int64_t>{300}));
}

TEST(DeadlineTimerTest, IdleCancelsAndAnUnchangedDeadlineKeepsItsPlace) {
  Simulator sim;
  Machine m;
  DeadlineTimer<Machine> timer(&sim, &m);
  std::vector<int> order;
  timer.Call([](Machine& x) { x.deadline = 50; });
  sim.Schedule(Time::FromNanos(50), [&] { order.push_back(static_cast<int>(m.fired.size())); });
  timer.Rearm();  // same deadline: the timer's event stays ahead of the one scheduled after it
  sim.RunUntilTime(Time::FromNanos(60));
  EXPECT_EQ(order, (std::vector<int>{1}));
  timer.Call([](Machine& x) { x.deadline = 80; });
  timer.Call([](Machine& x) { x.deadline = kIdle; });
  sim.RunUntilTime(Time::FromNanos(200));
  EXPECT_EQ(m.fired, (std::vector<int64_t>{50}));
}

TEST(DeadlineTimerTest, CallReturnsWhatTheFunctionReturns) {
  Simulator sim;
  Machine m;
  DeadlineTimer<Machine> timer(&sim, &m);
  const int r = timer.Call([](Machine& x) {
    x.deadline = 5;
    return 42;
  });
  EXPECT_EQ(r, 42);
  EXPECT_EQ(timer.armed_ns(), 5);
}

TEST(DeadlineTimerDeathTest, AMachineThatStaysDueAbortsInsteadOfSpinning) {
  struct Stuck {
    int64_t NextDeadline() const { return 10; }
    void OnTimer(int64_t) {}
  } m;
  Simulator sim;
  DeadlineTimer<Stuck> timer(&sim, &m);
  timer.Rearm();
  EXPECT_DEATH(sim.RunUntilTime(Time::FromNanos(100)), "still 10 ns after");
}

}  // namespace
}  // namespace mroce::sim
