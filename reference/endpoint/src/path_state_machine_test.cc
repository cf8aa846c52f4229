#include "mroce/endpoint/path_state_machine.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

void Fail(PathStateMachine& m) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(m.Apply(PathEvent::kRto).ok());
}

TEST(PathStateMachine, SuspectAfterOneRtoFailedAfterThree) {
  PathStateMachine m;
  auto t = m.Apply(PathEvent::kRto);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->row, 2);
  EXPECT_EQ(m.state(), PathState::kSuspect);
  EXPECT_FALSE(m.CarriesNewData());
  EXPECT_TRUE(m.CarriesRetransmissions());
  EXPECT_EQ(m.Apply(PathEvent::kRto)->row, 4);
  EXPECT_EQ(m.state(), PathState::kSuspect);
  EXPECT_EQ(m.Apply(PathEvent::kRto)->row, 5);
  EXPECT_EQ(m.state(), PathState::kFailed);
  EXPECT_TRUE(m.Probes());
}

TEST(PathStateMachine, AckRestoresSuspect) {
  PathStateMachine m;
  ASSERT_TRUE(m.Apply(PathEvent::kRto).ok());
  EXPECT_EQ(m.Apply(PathEvent::kAckProgress)->row, 3);
  EXPECT_EQ(m.state(), PathState::kActive);
  EXPECT_EQ(m.consecutive_rtos(), 0);
}

TEST(PathStateMachine, ReintroducedAfterThreeConsecutiveProbeAcks) {
  PathStateMachine m;
  Fail(m);
  EXPECT_EQ(m.Apply(PathEvent::kProbeAck)->row, 8);
  EXPECT_EQ(m.state(), PathState::kProbing);
  EXPECT_EQ(m.Apply(PathEvent::kProbeAck)->row, 9);
  EXPECT_EQ(m.Apply(PathEvent::kProbeAck)->row, 10);
  EXPECT_EQ(m.state(), PathState::kActive);
}

TEST(PathStateMachine, ProbeTimeoutResetsCount) {
  PathStateMachine m;
  Fail(m);
  ASSERT_TRUE(m.Apply(PathEvent::kProbeAck).ok());
  ASSERT_TRUE(m.Apply(PathEvent::kProbeAck).ok());
  EXPECT_EQ(m.Apply(PathEvent::kProbeTimeout)->row, 11);
  EXPECT_EQ(m.state(), PathState::kFailed);
  EXPECT_EQ(m.consecutive_probe_acks(), 0);
  EXPECT_EQ(m.Apply(PathEvent::kProbeTimeout)->row, 7);
  ASSERT_TRUE(m.Apply(PathEvent::kProbeAck).ok());
  EXPECT_EQ(m.state(), PathState::kProbing);
}

TEST(PathStateMachine, PlaneDownFailsAnyState) {
  PathStateMachine m;
  EXPECT_EQ(m.Apply(PathEvent::kPlaneDown)->row, 6);
  EXPECT_EQ(m.state(), PathState::kFailed);
  EXPECT_EQ(m.Apply(PathEvent::kPlaneDown)->row, 12);
}

TEST(PathStateMachine, UndeclaredTransitionNamesStateAndEvent) {
  PathStateMachine m;
  auto r = m.Apply(PathEvent::kProbeAck);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "path.transition");
  EXPECT_NE(r.error().message.find("state=active"), std::string::npos);
  EXPECT_NE(r.error().message.find("event=probe_ack"), std::string::npos);
  EXPECT_EQ(m.state(), PathState::kActive);
}

TEST(PathStateMachine, RtoOnFailedPathIsUndeclared) {
  PathStateMachine m;
  ASSERT_TRUE(m.Apply(PathEvent::kPlaneDown).ok());
  EXPECT_FALSE(m.Apply(PathEvent::kRto).ok());
  EXPECT_FALSE(m.Apply(PathEvent::kAckProgress).ok());
}

}  // namespace
}  // namespace mroce::ref
