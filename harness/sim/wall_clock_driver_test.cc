#include "mroce/sim/wall_clock_driver.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>
#include <vector>

namespace mroce::sim {
namespace {

using Service = WallClockDriver::Service;

// A wall clock that moves `step_ns` every time it is read (and jumps when told to).
struct FakeWall {
  int64_t now_ns = 1'000'000;
  int64_t step_ns = 100;
  std::function<int64_t()> Source() {
    return [this] { return now_ns += step_ns; };
  }
};

TEST(WallClockDriverTest, SimulatedTimeFollowsTheWallClockFromTheStartAnchor) {
  FakeWall wall;
  WallClockDriver d({.wall = wall.Source()});
  d.Start(Time::FromNanos(5'000));
  // Pinned: simulated 5000 ns = the wall time at Start; each read of the fake clock adds 100 ns.
  EXPECT_EQ(d.Now(), Time::FromNanos(5'100));
  EXPECT_EQ(d.Now(), Time::FromNanos(5'200));
}

TEST(WallClockDriverTest, WaitUntilServesUntilTheWallClockReachesTheDeadlineNeverPastIt) {
  FakeWall wall;
  WallClockDriver d({.wall = wall.Source()});
  d.Start(Time::Zero());
  std::vector<Time> seen;
  const Time reached = d.WaitUntil(Time::FromNanos(10'000), [&](Time now) {
    seen.push_back(now);
    return Service::kIdle;
  });
  EXPECT_GE(reached, Time::FromNanos(10'000));
  ASSERT_GT(seen.size(), 10u);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_LT(seen[i - 1], seen[i]) << "simulated time went back";
  EXPECT_LT(seen.back(), Time::FromNanos(10'000)) << "served after the deadline was reached";
}

TEST(WallClockDriverTest, BehindTheWallClockItServesOnceAndReturnsAtOnce) {
  FakeWall wall;
  WallClockDriver d({.wall = wall.Source()});
  d.Start(Time::Zero());
  wall.now_ns += 1'000'000;  // the simulation fell 1 ms behind
  int serves = 0;
  const Time reached = d.WaitUntil(Time::FromNanos(500'000), [&](Time) {
    ++serves;
    return Service::kIdle;
  });
  EXPECT_EQ(serves, 1) << "the live side is served even when the deadline already passed";
  EXPECT_GT(reached, Time::FromNanos(1'000'000));
}

TEST(WallClockDriverTest, ServeEndsTheWaitEarly) {
  FakeWall wall;
  WallClockDriver d({.wall = wall.Source()});
  d.Start(Time::Zero());
  int serves = 0;
  const Time reached = d.WaitUntil(Time::Infinite(), [&](Time) {
    return ++serves == 3 ? Service::kReturn : Service::kBusy;
  });
  EXPECT_EQ(serves, 3);
  EXPECT_LT(reached, Time::FromNanos(10'000));
}

TEST(WallClockDriverTest, StallIsTheLongestWallGapBetweenServices) {
  FakeWall wall;
  wall.step_ns = 0;
  WallClockDriver d({.wall = wall.Source()});
  d.Start(Time::Zero());
  auto idle = [](Time) { return Service::kReturn; };
  d.WaitUntil(Time::Zero(), idle);
  EXPECT_EQ(d.longest_stall(), Duration::Zero()) << "no service before the first wait: nothing to measure";
  wall.now_ns += 3'000'000;  // 3 ms descheduled
  d.WaitUntil(Time::Zero(), idle);
  wall.now_ns += 1'000'000;
  d.WaitUntil(Time::Zero(), idle);
  EXPECT_EQ(d.longest_stall(), Duration::Millis(3));
  wall.now_ns += 4'000'000;
  d.MarkServed();  // served in between (a control request): the gap restarts
  wall.now_ns += 2'000'000;
  d.WaitUntil(Time::Zero(), idle);
  EXPECT_EQ(d.longest_stall(), Duration::Millis(3));
}

TEST(WallClockDriverTest, SleepsOnDescriptorsAndInputWakesIt) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  WallClockDriver d;
  d.Start(Time::Zero());
  const int fds[] = {p[0]};
  d.SetWaitFds(fds);
  // Nothing to read: it sleeps to the deadline instead of spinning.
  int serves = 0;
  const Time deadline = d.Now() + Duration::Millis(20);
  const Time reached = d.WaitUntil(deadline, [&](Time) {
    ++serves;
    return Service::kIdle;
  });
  EXPECT_LE(serves, 5) << "it spun";
  EXPECT_GE(reached, deadline);
  // Input wakes it long before a 10 s deadline; serve reads it and ends the wait.
  std::thread writer([&] {
    ::usleep(20'000);
    EXPECT_EQ(::write(p[1], "x", 1), 1);
  });
  const Time start = d.Now();
  d.WaitUntil(start + Duration::Seconds(10), [&](Time) {
    char c;
    return ::read(p[0], &c, 1) == 1 ? Service::kReturn : Service::kIdle;
  });
  writer.join();
  EXPECT_LT(d.Now() - start, Duration::Seconds(5));
  ::close(p[0]);
  ::close(p[1]);
}

TEST(WallClockDriverTest, WithoutDescriptorsItSpinsThenNapsAfterIdleServices) {
  WallClockDriver spin;
  spin.Start(Time::Zero());
  int spins = 0;
  spin.WaitUntil(spin.Now() + Duration::Millis(2), [&](Time) {
    ++spins;
    return Service::kIdle;
  });
  EXPECT_GT(spins, 100);
  EXPECT_EQ(spin.naps(), 0u);

  WallClockDriver nap({.idle_sleep_ns = 1'000'000, .idle_services_before_sleep = 4});
  nap.Start(Time::Zero());
  int serves = 0;
  nap.WaitUntil(nap.Now() + Duration::Millis(20), [&](Time) {
    ++serves;
    return Service::kIdle;
  });
  EXPECT_GT(nap.naps(), 0u);
  EXPECT_LT(serves, 4 + 40) << "at most about one service per 1 ms nap after the first idle ones";
}

}  // namespace
}  // namespace mroce::sim
