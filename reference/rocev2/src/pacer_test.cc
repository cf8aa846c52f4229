#include "mroce/rocev2/pacer.h"

#include <gtest/gtest.h>

namespace mroce::rocev2 {
namespace {

TEST(PacerTest, SpacesFramesAtLineRate) {
  Pacer p(100'000'000'000);  // 100 Gb/s: 80 ps per byte
  EXPECT_TRUE(p.CanSend(0));
  p.OnSend(0, 1000);  // (1000 + 24) * 8 bits = 81.92 ns
  EXPECT_FALSE(p.CanSend(81));
  EXPECT_EQ(p.NextSendTime(), 82);
  EXPECT_TRUE(p.CanSend(82));
  p.OnSend(82, 1000);  // starts at 81.92 ns (link free), not at 82
  EXPECT_EQ(p.NextSendTime(), 164);
}

TEST(PacerTest, BanksNoCreditWhenIdle) {
  Pacer p(10'000'000'000);
  p.OnSend(1000, 101);  // 1000 bits at 10 Gb/s = 100 ns
  EXPECT_EQ(p.NextSendTime(), 1100);
  p.OnSend(5000, 101);
  EXPECT_EQ(p.NextSendTime(), 5100);
}

TEST(PacerTest, ZeroRateIsUnpaced) {
  Pacer p(0);
  p.OnSend(0, 4000);
  EXPECT_TRUE(p.CanSend(0));
}

}  // namespace
}  // namespace mroce::rocev2
