#include "mroce/endpoint/stream_state.h"

#include <gtest/gtest.h>

namespace mroce::ref {
namespace {

TEST(StreamState, PostedReceivesMatchedByRecvSeqInAnyOrder) {
  StreamState s;
  uint8_t a[4], b[4], c[4];
  s.posted.push_back(PostedRecv{a, 4, 1});
  s.posted.push_back(PostedRecv{b, 4, 2});
  s.posted.push_back(PostedRecv{c, 4, 3});
  ASSERT_NE(s.FindRecv(2), nullptr);
  EXPECT_EQ(s.FindRecv(2)->wr_id, 3u);
  s.ConsumeRecv(1);  // out of order: front stays
  EXPECT_EQ(s.recv_seq_base, 0u);
  EXPECT_EQ(s.FindRecv(1), nullptr);
  s.ConsumeRecv(0);  // front and the consumed one behind it go
  EXPECT_EQ(s.recv_seq_base, 2u);
  EXPECT_EQ(s.posted.size(), 1u);
  EXPECT_EQ(s.FindRecv(2)->wr_id, 3u);
  EXPECT_EQ(s.FindRecv(3), nullptr);
}

TEST(StreamState, OutMessagePacketCount) {
  OutMessage m;
  m.len = 0;
  EXPECT_EQ(m.packets(4096), 1u);
  m.len = 8193;
  EXPECT_EQ(m.packets(4096), 3u);
}

}  // namespace
}  // namespace mroce::ref
