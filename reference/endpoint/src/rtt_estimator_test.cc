#include "mroce/endpoint/rtt_estimator.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

TEST(RttEstimator, InitialRtoIsOneMillisecond) {
  RttEstimator rtt;
  EXPECT_FALSE(rtt.has_sample());
  EXPECT_EQ(rtt.rto(), 1 * kMillisecond);
}

TEST(RttEstimator, FirstSampleSetsSrttAndHalfVar) {
  RttEstimator rtt;
  rtt.OnSample(100 * kMicrosecond, 0);
  EXPECT_EQ(rtt.srtt(), 100 * kMicrosecond);
  EXPECT_EQ(rtt.rttvar(), 50 * kMicrosecond);
  EXPECT_EQ(rtt.rto(), 300 * kMicrosecond);
}

TEST(RttEstimator, SmoothsWithRfc6298Gains) {
  RttEstimator rtt;
  rtt.OnSample(80 * kMicrosecond, 0);
  rtt.OnSample(160 * kMicrosecond, 0);
  EXPECT_EQ(rtt.srtt(), 90 * kMicrosecond);           // 7/8*80 + 1/8*160
  EXPECT_EQ(rtt.rttvar(), 50 * kMicrosecond);         // 3/4*40 + 1/4*80
}

TEST(RttEstimator, RtoClampedToMinimum) {
  RttEstimator rtt;
  for (int i = 0; i < 50; ++i) rtt.OnSample(2 * kMicrosecond, 0);
  EXPECT_EQ(rtt.rto(), 50 * kMicrosecond);
}

TEST(RttEstimator, BackoffDoublesUpToMax) {
  RttEstimator rtt;
  for (int i = 0; i < 10; ++i) rtt.Backoff();
  EXPECT_EQ(rtt.rto(), 64 * kMillisecond);
  EXPECT_EQ(rtt.backoff_count(), 10);
  rtt.OnSample(10 * kMicrosecond, 0);
  EXPECT_EQ(rtt.backoff_count(), 0);
  EXPECT_EQ(rtt.rto(), 50 * kMicrosecond);
}

TEST(RttEstimator, NoBackoffWhenDisabled) {
  RttEstimator rtt(RttConfig{.backoff = false});
  rtt.Backoff();
  EXPECT_EQ(rtt.rto(), 1 * kMillisecond);
}

TEST(RttEstimator, AckDelaySubtractedWithOneMicrosecondFloor) {
  RttEstimator rtt;
  rtt.OnSample(20 * kMicrosecond, 4 * kMicrosecond);  // MROCE-RTO-001: R = 16 us
  EXPECT_EQ(rtt.srtt(), 16 * kMicrosecond);
  RttEstimator other;
  other.OnSample(3 * kMicrosecond, 5 * kMicrosecond);  // negative: R = 1 us
  EXPECT_EQ(other.srtt(), 1 * kMicrosecond);
}

}  // namespace
}  // namespace mroce::ref
