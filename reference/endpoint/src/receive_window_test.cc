#include "mroce/endpoint/receive_window.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

TEST(ReceiveWindow, InOrderAdvances) {
  ReceiveWindow w(10);
  EXPECT_EQ(w.OnPacket(10), RxVerdict::kInOrder);
  EXPECT_EQ(w.epsn(), 11u);
  EXPECT_TRUE(w.sack().none());
}

TEST(ReceiveWindow, GapSetsBitThenFillSlides) {
  ReceiveWindow w(0);
  EXPECT_EQ(w.OnPacket(2), RxVerdict::kOutOfOrder);
  EXPECT_TRUE(w.sack().test(1));  // bit i = epsn+1+i: PSN 2 is bit 1
  EXPECT_EQ(w.OnPacket(1), RxVerdict::kOutOfOrder);
  EXPECT_EQ(w.OnPacket(0), RxVerdict::kInOrder);
  EXPECT_EQ(w.epsn(), 3u);
  EXPECT_TRUE(w.sack().none());
}

TEST(ReceiveWindow, DuplicatesDetected) {
  ReceiveWindow w(0);
  EXPECT_EQ(w.OnPacket(0), RxVerdict::kInOrder);
  EXPECT_EQ(w.OnPacket(0), RxVerdict::kDuplicate);
  EXPECT_EQ(w.OnPacket(5), RxVerdict::kOutOfOrder);
  EXPECT_EQ(w.OnPacket(5), RxVerdict::kDuplicate);
}

TEST(ReceiveWindow, OutOfWindowAt256) {
  ReceiveWindow w(0);
  EXPECT_EQ(w.OnPacket(255), RxVerdict::kOutOfOrder);   // bit 254
  EXPECT_EQ(w.OnPacket(256), RxVerdict::kOutOfWindow);  // MROCE-PATH-007: p - epsn >= 256
}

TEST(ReceiveWindow, WrapsAroundPsnSpace) {
  ReceiveWindow w(0xFFFFFFFEu);
  EXPECT_EQ(w.OnPacket(0), RxVerdict::kOutOfOrder);
  EXPECT_EQ(w.OnPacket(0xFFFFFFFEu), RxVerdict::kInOrder);
  EXPECT_EQ(w.OnPacket(0xFFFFFFFFu), RxVerdict::kInOrder);
  EXPECT_EQ(w.epsn(), 1u);
  EXPECT_EQ(w.Classify(0xFFFFFFFFu), RxVerdict::kDuplicate);
}

TEST(ReceiveWindow, ResetForNewEpoch) {
  ReceiveWindow w(0);
  (void)w.OnPacket(3);
  w.Reset(1000, 1);
  EXPECT_EQ(w.epsn(), 1000u);
  EXPECT_EQ(w.epoch(), 1);
  EXPECT_TRUE(w.sack().none());
}

}  // namespace
}  // namespace mroce::ref
