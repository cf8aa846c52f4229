#include "mroce/sim/simulator.h"

#include <gtest/gtest.h>

#include <vector>

namespace mroce::sim {
namespace {

TEST(SimulatorTest, EqualTimesRunInInsertionOrder) {
  Simulator sim;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) sim.Schedule(Time::FromNanos(5), [&order, i] { order.push_back(i); });
  sim.Schedule(Time::FromNanos(1), [&order] { order.push_back(-1); });
  sim.RunUntilTime(Time::FromNanos(10));
  ASSERT_EQ(order.size(), 101u);
  EXPECT_EQ(order[0], -1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i + 1], i);
}

TEST(SimulatorTest, ClockNeverGoesBack) {
  Simulator sim;
  uint64_t x = 12345;
  Time last = Time::Zero();
  int ran = 0;
  std::function<void()> chain;
  for (int i = 0; i < 1000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sim.Schedule(Time::FromNanos(static_cast<int64_t>(x >> 40)), [&] {
      EXPECT_GE(sim.Now(), last);
      last = sim.Now();
      ++ran;
      // Schedule more from inside callbacks, at now and later.
      if (ran < 3000) sim.ScheduleIn(Duration::Nanos(ran % 7), [&] {
        EXPECT_GE(sim.Now(), last);
        last = sim.Now();
      });
    });
  }
  sim.RunUntilTime(Time::Infinite());
  EXPECT_EQ(ran, 1000);
  EXPECT_EQ(sim.pending(), 0u);
}

TEST(SimulatorDeathTest, SchedulingInThePastAborts) {
  Simulator sim;
  sim.RunUntilTime(Time::FromNanos(100));
  EXPECT_DEATH(sim.Schedule(Time::FromNanos(50), [] {}), "in the past");
}

// An event scheduled later with a reserved id runs where a Schedule at reservation time would have
// run it among events at the same time (and reserving counts as scheduling for last_scheduled()).
TEST(SimulatorTest, ReservedEventsRunInTheirReservedPlace) {
  struct Log : EventHandler {
    std::vector<uint64_t> order;
    void OnEvent(Time, uint64_t arg) override { order.push_back(arg); }
  } log;
  Simulator sim;
  sim.Schedule(Time::FromNanos(10), &log, 1);
  const EventId reserved = sim.ReserveId();
  EXPECT_EQ(sim.last_scheduled(), reserved);
  sim.Schedule(Time::FromNanos(10), &log, 3);
  sim.Schedule(Time::FromNanos(5), [&] { sim.ScheduleReserved(Time::FromNanos(10), reserved, &log, 2); });
  sim.RunUntilTime(Time::FromNanos(20));
  EXPECT_EQ(log.order, (std::vector<uint64_t>{1, 2, 3}));

  // Reserved at the running event's own time, scheduled from inside it: still in its place.
  log.order.clear();
  const EventId later = sim.ReserveId();
  sim.Schedule(Time::FromNanos(30), &log, 5);
  sim.Schedule(Time::FromNanos(30), [&] { log.order.push_back(4); });
  sim.Schedule(Time::FromNanos(25), [&] { sim.ScheduleReserved(Time::FromNanos(30), later, &log, 6); });
  sim.RunUntilTime(Time::FromNanos(40));
  EXPECT_EQ(log.order, (std::vector<uint64_t>{6, 5, 4}));
}

TEST(SimulatorDeathTest, ReservedEventOutOfOrderAborts) {
  Simulator sim;
  const EventId early = sim.ReserveId();
  bool ran = false;
  sim.Schedule(Time::FromNanos(10), [&] { ran = true; });
  sim.RunUntilTime(Time::FromNanos(10));
  ASSERT_TRUE(ran);
  struct : EventHandler {
    void OnEvent(Time, uint64_t) override {}
  } nop;
  // Its place (time 10, before the event that ran at 10) has passed; so has time 5.
  EXPECT_DEATH(sim.ScheduleReserved(Time::FromNanos(10), early, &nop, 0), "out of order");
  EXPECT_DEATH(sim.ScheduleReserved(Time::FromNanos(5), early, &nop, 0), "out of order");
  EXPECT_DEATH(sim.ScheduleReserved(Time::FromNanos(50), 999, &nop, 0), "out of order");  // Never reserved.
  sim.ScheduleReserved(Time::FromNanos(11), early, &nop, 0);  // Later than what ran: fine.
  EXPECT_EQ(sim.pending(), 1u);
}

TEST(SimulatorTest, RunUntilStopsByPredicate) {
  Simulator sim;
  int count = 0;
  for (int i = 1; i <= 10; ++i) sim.Schedule(Time::FromNanos(i * 10), [&] { ++count; });
  EXPECT_TRUE(sim.RunUntil([&] { return count == 4; }, Time::FromNanos(1000)));
  EXPECT_EQ(count, 4);
  EXPECT_EQ(sim.Now(), Time::FromNanos(40));
  EXPECT_EQ(sim.pending(), 6u);
}

TEST(SimulatorTest, RunUntilStopsByDeadline) {
  Simulator sim;
  int count = 0;
  for (int i = 1; i <= 10; ++i) sim.Schedule(Time::FromNanos(i * 10), [&] { ++count; });
  EXPECT_FALSE(sim.RunUntil([&] { return count == 100; }, Time::FromNanos(55)));
  EXPECT_EQ(count, 5);
  EXPECT_EQ(sim.Now(), Time::FromNanos(55));
  // An event exactly at the deadline runs.
  EXPECT_FALSE(sim.RunUntil([] { return false; }, Time::FromNanos(60)));
  EXPECT_EQ(count, 6);
}

TEST(SimulatorTest, RunUntilPredicateTrueAtStartRunsNothing) {
  Simulator sim;
  int count = 0;
  sim.Schedule(Time::FromNanos(1), [&] { ++count; });
  EXPECT_TRUE(sim.RunUntil([] { return true; }, Time::Infinite()));
  EXPECT_EQ(count, 0);
}

TEST(SimulatorTest, CancelSkipsEvent) {
  Simulator sim;
  int a = 0, b = 0;
  EventId ida = sim.Schedule(Time::FromNanos(10), [&] { ++a; });
  sim.Schedule(Time::FromNanos(20), [&] { ++b; });
  sim.Cancel(ida);
  sim.RunUntilTime(Time::FromNanos(100));
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 1);
}

class Counter : public EventHandler {
 public:
  void OnEvent(Time now, uint64_t arg) override { sum += arg; last = now; }
  uint64_t sum = 0;
  Time last;
};

TEST(SimulatorTest, HandlerEventsCarryArgument) {
  Simulator sim;
  Counter c;
  sim.Schedule(Time::FromNanos(3), &c, 7);
  sim.ScheduleIn(Duration::Nanos(9), &c, 5);
  sim.RunUntilTime(Time::FromNanos(10));
  EXPECT_EQ(c.sum, 12u);
  EXPECT_EQ(c.last, Time::FromNanos(9));
  EXPECT_EQ(sim.events_run(), 2u);
}

TEST(SimulatorTest, MillionsOfEventsRunInOrder) {
  Simulator sim;
  Counter c;
  uint64_t x = 1;
  for (int i = 0; i < 1000000; ++i) {
    x = x * 6364136223846793005ULL + 1;
    sim.Schedule(Time::FromNanos(static_cast<int64_t>(x >> 44)), &c, 1);
  }
  Time last = Time::Zero();
  while (sim.Step()) {
    ASSERT_GE(sim.Now(), last);
    last = sim.Now();
  }
  EXPECT_EQ(c.sum, 1000000u);
}

}  // namespace
}  // namespace mroce::sim
