#include "mroce/rocev2/responder.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "mroce/rocev2/aeth_syndrome.h"
#include "mroce/rocev2/roce_framer.h"

namespace mroce::rocev2 {
namespace {

using wire::RoceOpcode;

class ResponderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_.resize(4096);
    std::iota(mem_.begin(), mem_.end(), 0);
    mr_ = *mrs_.Register(mem_.data(), mem_.size(),
                         kAccessLocalWrite | kAccessRemoteWrite | kAccessRemoteRead);
  }
  Responder Make(QpConfig cfg, Psn remote_psn = 0) {
    cfg.path_mtu = 256;
    Responder r(cfg, 0x11, QpEnv{&mrs_, &cq_, &counters_});
    r.Connect(0x22, remote_psn);
    return r;
  }
  wire::RocePacket Pkt(RoceOpcode op, Psn psn, size_t len, uint8_t fill = 0xEE, bool ack_req = false) {
    wire::RocePacket p;
    p.bth.opcode = op;
    p.bth.psn = psn;
    p.bth.dest_qp = 0x11;
    p.bth.ack_req = ack_req;
    std::vector<uint8_t> data(len, fill);
    RoceFramer::SetPaddedPayload(p, data);
    return p;
  }
  wire::RocePacket WithReth(wire::RocePacket p, uint64_t off, uint32_t len, uint32_t rkey = 0) {
    p.reth = wire::Reth{mr_.va + off, rkey == 0 ? mr_.rkey : rkey, len};
    return p;
  }
  std::vector<wire::RocePacket> Out(Responder& r) {
    std::vector<wire::RocePacket> out;
    while (r.HasOutput()) out.push_back(r.NextOutput());
    return out;
  }

  std::vector<uint8_t> mem_;
  MemoryRegionTable mrs_;
  MemoryRegion mr_;
  CompletionQueue cq_;
  Counters counters_;
};

TEST_F(ResponderTest, PlacesAWriteAndAcksOnAckReq) {
  Responder r = Make(QpConfig{}, 50);
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteFirst, 50, 256, 1), 100, 600), 0);
  r.OnRequest(Pkt(RoceOpcode::kWriteMiddle, 51, 256, 2), 0);
  EXPECT_FALSE(r.HasOutput());
  r.OnRequest(Pkt(RoceOpcode::kWriteLast, 52, 88, 3, /*ack_req=*/true), 0);
  auto out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].bth.opcode, RoceOpcode::kAck);
  EXPECT_EQ(out[0].bth.psn, 52u);
  EXPECT_EQ(out[0].bth.dest_qp, 0x22u);
  EXPECT_EQ(*out[0].aeth, (wire::Aeth{kSyndromeAck, 1}));
  EXPECT_EQ(mem_[100], 1);
  EXPECT_EQ(mem_[100 + 256], 2);
  EXPECT_EQ(mem_[100 + 599], 3);
  EXPECT_EQ(mem_[100 + 600], static_cast<uint8_t>(700));
  EXPECT_EQ(r.expected_psn(), 53u);
  EXPECT_EQ(r.msn(), 1u);
}

TEST_F(ResponderTest, OutOfSequenceNaksOncePerEpisode) {
  Responder r = Make(QpConfig{});
  for (Psn p : {2u, 3u, 4u}) r.OnRequest(Pkt(RoceOpcode::kSendOnly, p, 8), 0);
  auto out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].aeth->syndrome, kNakPsnSequenceError);
  EXPECT_EQ(out[0].bth.psn, 0u);  // the expected PSN
  EXPECT_EQ(counters_.Get(Counter::kOutOfSeqRx), 3u);
  EXPECT_EQ(counters_.Get(Counter::kSeqNaksTx), 1u);
  // The expected PSN ends the episode; the next gap NAKs again.
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 0, 8), 0, 8), 0);
  r.OnRequest(Pkt(RoceOpcode::kSendOnly, 5, 8), 0);
  out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].bth.psn, 1u);
  EXPECT_EQ(out[0].aeth->syndrome, kNakPsnSequenceError);
}

TEST_F(ResponderTest, DuplicateIsReAckedWithTheLastAcceptedPsn) {
  QpConfig cfg;
  Responder r = Make(cfg, 0xFFFFFF);
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 0xFFFFFF, 8, 9), 0, 8), 0);
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 0, 8, 9), 0, 8), 0);  // across the wrap
  EXPECT_FALSE(r.HasOutput());
  mem_[0] = 0;
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 0xFFFFFF, 8, 9), 0, 8), 0);
  auto out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].aeth->syndrome, kSyndromeAck);
  EXPECT_EQ(out[0].bth.psn, 0u);
  EXPECT_EQ(mem_[0], 0);  // a duplicate is not placed again
  EXPECT_EQ(counters_.Get(Counter::kDupRx), 1u);
}

TEST_F(ResponderTest, CoalescesAcksEveryNPackets) {
  QpConfig cfg;
  cfg.ack_every = 4;
  Responder r = Make(cfg);
  std::vector<Psn> acked;
  for (Psn p = 0; p < 10; ++p) {
    r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, p, 4), 0, 4), 0);
    for (auto& a : Out(r)) acked.push_back(a.bth.psn);
  }
  EXPECT_EQ(acked, (std::vector<Psn>{3, 7}));
  // Not drained between packets: the ACK of 15 replaces the queued ACK of 11 (16, 17 wait).
  for (Psn p = 10; p < 18; ++p) r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, p, 4), 0, 4), 0);
  auto out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].bth.psn, 15u);
}

TEST_F(ResponderTest, SendWithoutAPostedReceiveGetsRnrNakThenLandsWhenResent) {
  QpConfig cfg;
  cfg.min_rnr_timer = 4;
  Responder r = Make(cfg);
  r.OnRequest(Pkt(RoceOpcode::kSendFirst, 0, 256, 1), 0);
  r.OnRequest(Pkt(RoceOpcode::kSendLast, 1, 10, 2, true), 0);  // dropped quietly: same episode
  auto out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].aeth->syndrome, RnrNakSyndrome(4));
  EXPECT_EQ(out[0].bth.psn, 0u);
  ASSERT_TRUE(r.PostRecv(RecvWr{77, Sge{mr_.va + 1000, 300, mr_.lkey}}).ok());
  r.OnRequest(Pkt(RoceOpcode::kSendFirst, 0, 256, 1), 0);
  r.OnRequest(Pkt(RoceOpcode::kSendLast, 1, 10, 2, true), 0);
  out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].aeth->syndrome, kSyndromeAck);
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 77u);
  EXPECT_EQ(cs[0].op, CompletionOp::kRecv);
  EXPECT_EQ(cs[0].byte_len, 266u);
  EXPECT_EQ(mem_[1000 + 265], 2);
}

TEST_F(ResponderTest, BadRkeyGetsRemoteAccessNakAndTheQpFails) {
  Responder r = Make(QpConfig{});
  ASSERT_TRUE(r.PostRecv(RecvWr{5, Sge{mr_.va, 16, mr_.lkey}}).ok());
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 0, 8), 0, 8, mr_.rkey + 1), 0);
  auto out = Out(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].aeth->syndrome, kNakRemoteAccessError);
  EXPECT_TRUE(r.in_error());
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kFlushed);
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 0, 8), 0, 8), 0);
  EXPECT_FALSE(r.HasOutput());
}

TEST_F(ResponderTest, OutOfBoundsWriteAndReadGetRemoteAccessNak) {
  Responder a = Make(QpConfig{});
  a.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 0, 8), 4090, 8), 0);
  EXPECT_EQ(Out(a)[0].aeth->syndrome, kNakRemoteAccessError);
  Responder b = Make(QpConfig{});
  b.OnRequest(WithReth(Pkt(RoceOpcode::kReadRequest, 0, 0), 4000, 200), 0);
  EXPECT_EQ(Out(b)[0].aeth->syndrome, kNakRemoteAccessError);
  EXPECT_EQ(counters_.Get(Counter::kRemoteAccessErrors), 2u);
}

TEST_F(ResponderTest, ReadRequestProducesResponsesInPsnOrderBehindEarlierAcks) {
  Responder r = Make(QpConfig{}, 10);
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 10, 4, 1, true), 0, 4), 0);
  r.OnRequest(WithReth(Pkt(RoceOpcode::kReadRequest, 11, 0), 256, 600), 0);
  EXPECT_EQ(r.expected_psn(), 14u);  // 3 responses: PSN 11, 12, 13
  r.OnRequest(WithReth(Pkt(RoceOpcode::kWriteOnly, 14, 4, 1, true), 0, 4), 0);
  auto out = Out(r);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].bth.opcode, RoceOpcode::kAck);
  EXPECT_EQ(out[1].bth.opcode, RoceOpcode::kReadResponseFirst);
  EXPECT_EQ(out[2].bth.opcode, RoceOpcode::kReadResponseMiddle);
  EXPECT_EQ(out[3].bth.opcode, RoceOpcode::kReadResponseLast);
  EXPECT_EQ(out[4].bth.opcode, RoceOpcode::kAck);
  EXPECT_TRUE(out[1].aeth && out[3].aeth);
  EXPECT_FALSE(out[2].aeth);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[1 + i].bth.psn, 11u + i);
  EXPECT_EQ(out[4].bth.psn, 14u);
  EXPECT_EQ(RoceFramer::UnpaddedPayload(out[3]).size(), 88u);
  EXPECT_EQ(RoceFramer::UnpaddedPayload(out[2])[0], static_cast<uint8_t>(512));
  // A duplicate READ (its responses were lost) is executed again from its PSN.
  r.OnRequest(WithReth(Pkt(RoceOpcode::kReadRequest, 12, 0), 512, 344), 0);
  out = Out(r);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].bth.opcode, RoceOpcode::kReadResponseFirst);
  EXPECT_EQ(out[0].bth.psn, 12u);
  EXPECT_EQ(out[1].bth.psn, 13u);
}

TEST_F(ResponderTest, SendLargerThanTheReceiveFailsWithLocalLength) {
  Responder r = Make(QpConfig{});
  ASSERT_TRUE(r.PostRecv(RecvWr{5, Sge{mr_.va, 100, mr_.lkey}}).ok());
  r.OnRequest(Pkt(RoceOpcode::kSendOnly, 0, 200), 0);
  EXPECT_EQ(Out(r)[0].aeth->syndrome, kNakInvalidRequest);
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kLocalLength);
}

TEST_F(ResponderTest, BrokenOpcodeSequenceIsAnInvalidRequest) {
  Responder r = Make(QpConfig{});
  r.OnRequest(Pkt(RoceOpcode::kWriteMiddle, 0, 256), 0);
  EXPECT_EQ(Out(r)[0].aeth->syndrome, kNakInvalidRequest);
  EXPECT_TRUE(r.in_error());
}

}  // namespace
}  // namespace mroce::rocev2
