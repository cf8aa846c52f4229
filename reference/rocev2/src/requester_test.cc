#include "mroce/rocev2/requester.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "mroce/rocev2/aeth_syndrome.h"
#include "mroce/rocev2/roce_framer.h"
#include "mroce/sim/deadline_timer.h"
#include "mroce/sim/simulator.h"

namespace mroce::rocev2 {
namespace {

using wire::RoceOpcode;

wire::RocePacket Ack(Psn psn, uint8_t syndrome = kSyndromeAck) {
  wire::RocePacket p;
  p.bth.opcode = RoceOpcode::kAck;
  p.bth.psn = psn;
  p.aeth = wire::Aeth{syndrome, 0};
  return p;
}

class RequesterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    buf_.resize(8192);
    std::iota(buf_.begin(), buf_.end(), 0);
    mr_ = *mrs_.Register(buf_.data(), buf_.size(), kAccessLocalWrite);
  }
  Requester Make(QpConfig cfg) {
    Requester r(cfg, 0x11, QpEnv{&mrs_, &cq_, &counters_});
    r.Connect(0x22);
    return r;
  }
  SendWr Wr(uint64_t id, WrOpcode op, uint32_t len, uint32_t offset = 0) {
    return SendWr{id, op, Sge{mr_.va + offset, len, mr_.lkey}, 0x5000, 0x99};
  }
  // Sends everything the window allows; returns the packets.
  std::vector<wire::RocePacket> Drain(Requester& r, TimeNs now) {
    std::vector<wire::RocePacket> out;
    while (r.HasPacketToSend()) out.push_back(r.NextPacket(now));
    return out;
  }
  // The simulator is the clock of the tests that run timers: now() is its time, AdvanceTo moves it,
  // FireNextTimer(r) moves it to r's next deadline and fires r's timer there (as a run of the
  // endpoint on the simulator would) and returns that time.
  TimeNs now() const { return sim_.Now().nanos(); }
  void AdvanceTo(TimeNs t) { sim_.RunUntilTime(sim::Time::FromNanos(t)); }
  TimeNs FireNextTimer(Requester& r) {
    sim::DeadlineTimer<Requester> timer(&sim_, &r);
    timer.Rearm();
    EXPECT_TRUE(sim_.Step()) << "no timer armed";
    return now();
  }
  std::vector<uint64_t> PollIds(CompletionStatus want = CompletionStatus::kSuccess) {
    std::vector<uint64_t> ids;
    for (const Completion& c : cq_.Poll()) {
      EXPECT_EQ(c.status, want) << "wr " << c.wr_id << ": " << CompletionStatusName(c.status);
      ids.push_back(c.wr_id);
    }
    return ids;
  }

  std::vector<uint8_t> buf_;
  MemoryRegionTable mrs_;
  MemoryRegion mr_;
  CompletionQueue cq_;
  Counters counters_;
  sim::Simulator sim_;
};

TEST_F(RequesterTest, SegmentsWriteFirstMiddleLastWithRethOnFirst) {
  QpConfig cfg;
  cfg.path_mtu = 256;
  cfg.initial_psn = 100;
  Requester r = Make(cfg);
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kWrite, 600)).ok());
  auto pkts = Drain(r, 0);
  ASSERT_EQ(pkts.size(), 3u);
  EXPECT_EQ(pkts[0].bth.opcode, RoceOpcode::kWriteFirst);
  EXPECT_EQ(pkts[1].bth.opcode, RoceOpcode::kWriteMiddle);
  EXPECT_EQ(pkts[2].bth.opcode, RoceOpcode::kWriteLast);
  ASSERT_TRUE(pkts[0].reth);
  EXPECT_EQ(*pkts[0].reth, (wire::Reth{0x5000, 0x99, 600}));
  EXPECT_FALSE(pkts[1].reth);
  EXPECT_FALSE(pkts[2].reth);
  EXPECT_EQ(RoceFramer::UnpaddedPayload(pkts[2]).size(), 88u);
  EXPECT_EQ(RoceFramer::UnpaddedPayload(pkts[1])[0], buf_[256]);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pkts[i].bth.psn, 100 + i);
    EXPECT_EQ(pkts[i].bth.dest_qp, 0x22u);
  }
  EXPECT_FALSE(pkts[0].bth.ack_req);
  EXPECT_TRUE(pkts[2].bth.ack_req);  // last packet of the message
}

TEST_F(RequesterTest, SendOnlyAndReadRequestOccupyingOnePsnPerResponse) {
  QpConfig cfg;
  cfg.path_mtu = 256;
  Requester r = Make(cfg);
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kSend, 10)).ok());
  ASSERT_TRUE(r.Post(Wr(2, WrOpcode::kRead, 1000, 4096)).ok());
  ASSERT_TRUE(r.Post(Wr(3, WrOpcode::kWrite, 4)).ok());
  auto pkts = Drain(r, 0);
  ASSERT_EQ(pkts.size(), 3u);
  EXPECT_EQ(pkts[0].bth.opcode, RoceOpcode::kSendOnly);
  EXPECT_EQ(pkts[0].bth.pad_count, 2);
  EXPECT_EQ(pkts[1].bth.opcode, RoceOpcode::kReadRequest);
  EXPECT_EQ(pkts[1].bth.psn, 1u);
  EXPECT_EQ(*pkts[1].reth, (wire::Reth{0x5000, 0x99, 1000}));
  EXPECT_EQ(pkts[2].bth.opcode, RoceOpcode::kWriteOnly);
  EXPECT_EQ(pkts[2].bth.psn, 5u);  // the READ took PSNs 1..4
}

TEST_F(RequesterTest, WindowLimitsPsnsInFlightAndAckReqMarksAFullWindow) {
  QpConfig cfg;
  cfg.window_pkts = 4;
  Requester r = Make(cfg);
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kWrite, 1024 * 8)).ok());
  auto pkts = Drain(r, 0);
  ASSERT_EQ(pkts.size(), 4u);
  EXPECT_FALSE(pkts[2].bth.ack_req);
  EXPECT_TRUE(pkts[3].bth.ack_req);
  r.OnAck(Ack(1), 10);
  EXPECT_EQ(Drain(r, 10).size(), 2u);
  EXPECT_EQ(r.una(), 2u);
}

TEST_F(RequesterTest, AcksCompleteWorkRequestsInOrder) {
  Requester r = Make(QpConfig{});
  for (uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(r.Post(Wr(i, WrOpcode::kWrite, 100)).ok());
  Drain(r, 0);
  r.OnAck(Ack(1), 5);
  EXPECT_EQ(PollIds(), (std::vector<uint64_t>{0, 1}));
  r.OnAck(Ack(0), 6);  // stale: ignored
  r.OnAck(Ack(3), 7);
  EXPECT_EQ(PollIds(), (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(r.NextDeadline(), kNever);  // nothing outstanding: timer stopped
  EXPECT_EQ(counters_.Get(Counter::kMessagesTx), 4u);
}

TEST_F(RequesterTest, SequenceErrorNakGoesBackNFromItsPsn) {
  Requester r = Make(QpConfig{});
  for (uint64_t i = 0; i < 8; ++i) ASSERT_TRUE(r.Post(Wr(i, WrOpcode::kWrite, 100)).ok());
  EXPECT_EQ(Drain(r, 0).size(), 8u);
  r.OnAck(Ack(3, kNakPsnSequenceError), 10);
  EXPECT_EQ(PollIds(), (std::vector<uint64_t>{0, 1, 2}));  // PSNs before the NAK's are acknowledged
  auto again = Drain(r, 10);
  ASSERT_EQ(again.size(), 5u);
  for (size_t i = 0; i < again.size(); ++i) EXPECT_EQ(again[i].bth.psn, 3 + i);
  EXPECT_EQ(counters_.Get(Counter::kRetransmits), 5u);
  EXPECT_EQ(counters_.Get(Counter::kSeqNaksRx), 1u);
}

TEST_F(RequesterTest, TimeoutGoesBackToUnaAndFailsAfterRetryCount) {
  QpConfig cfg;
  cfg.retry_cnt = 2;
  cfg.ack_timeout_ns = 1000;
  Requester r = Make(cfg);
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kWrite, 100)).ok());
  ASSERT_TRUE(r.Post(Wr(2, WrOpcode::kSend, 100)).ok());
  Drain(r, now());
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(FireNextTimer(r), (i + 1) * 1000);
    EXPECT_EQ(Drain(r, now()).size(), 2u);
  }
  FireNextTimer(r);
  EXPECT_TRUE(r.in_error());
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kRetryExceeded);
  EXPECT_EQ(cs[1].status, CompletionStatus::kFlushed);
  EXPECT_EQ(counters_.Get(Counter::kTimeouts), 3u);
  EXPECT_EQ(counters_.Get(Counter::kRetransmits), 4u);
  EXPECT_FALSE(r.Post(Wr(3, WrOpcode::kSend, 1)).ok());
}

TEST_F(RequesterTest, ProgressResetsTheRetryCount) {
  QpConfig cfg;
  cfg.retry_cnt = 1;
  cfg.ack_timeout_ns = 1000;
  Requester r = Make(cfg);
  for (uint64_t i = 0; i < 3; ++i) ASSERT_TRUE(r.Post(Wr(i, WrOpcode::kWrite, 10)).ok());
  Drain(r, now());
  EXPECT_EQ(FireNextTimer(r), 1000);  // retry 1 of 1
  Drain(r, now());
  AdvanceTo(1500);
  r.OnAck(Ack(0), now());  // progress: count restored
  FireNextTimer(r);
  EXPECT_FALSE(r.in_error());
}

TEST_F(RequesterTest, RnrNakWaitsItsTimerThenResendsAndFailsAfterRnrRetry) {
  QpConfig cfg;
  cfg.rnr_retry = 1;
  Requester r = Make(cfg);
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kSend, 100)).ok());
  ASSERT_TRUE(r.Post(Wr(2, WrOpcode::kSend, 100)).ok());
  Drain(r, now());
  AdvanceTo(100);
  r.OnAck(Ack(0, RnrNakSyndrome(3)), now());  // 30 us
  EXPECT_FALSE(r.HasPacketToSend());
  EXPECT_EQ(r.NextDeadline(), 100 + 30 * kMicrosecond);
  EXPECT_EQ(FireNextTimer(r), 100 + 30 * kMicrosecond);
  auto again = Drain(r, now());
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].bth.psn, 0u);
  EXPECT_EQ(counters_.Get(Counter::kRnrRetries), 1u);
  AdvanceTo(40 * kMicrosecond);
  r.OnAck(Ack(0, RnrNakSyndrome(3)), now());
  EXPECT_TRUE(r.in_error());
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kRnrRetryExceeded);
  EXPECT_EQ(cs[1].status, CompletionStatus::kFlushed);
}

TEST_F(RequesterTest, RnrRetrySevenRetriesForever) {
  Requester r = Make(QpConfig{});  // rnr_retry = 7
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kSend, 100)).ok());
  for (int i = 0; i < 50; ++i) {
    Drain(r, now());
    r.OnAck(Ack(0, RnrNakSyndrome(1)), now());
    FireNextTimer(r);
  }
  EXPECT_FALSE(r.in_error());
  EXPECT_EQ(counters_.Get(Counter::kRnrRetries), 50u);
}

TEST_F(RequesterTest, RemoteAccessNakFailsThatRequestAndFlushesTheRest) {
  Requester r = Make(QpConfig{});
  for (uint64_t i = 0; i < 3; ++i) ASSERT_TRUE(r.Post(Wr(i, WrOpcode::kWrite, 10)).ok());
  Drain(r, 0);
  r.OnAck(Ack(1, kNakRemoteAccessError), 10);
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kSuccess);
  EXPECT_EQ(cs[1].status, CompletionStatus::kRemoteAccess);
  EXPECT_EQ(cs[2].status, CompletionStatus::kFlushed);
  EXPECT_TRUE(r.in_error());
}

TEST_F(RequesterTest, ReadResponsesPlaceDataAndAGapReRequestsTheRest) {
  QpConfig cfg;
  cfg.path_mtu = 256;
  Requester r = Make(cfg);
  ASSERT_TRUE(r.Post(Wr(7, WrOpcode::kRead, 700, 1024)).ok());  // 3 responses: PSN 0, 1, 2
  Drain(r, 0);
  auto resp = [](Psn psn, RoceOpcode op, size_t len, uint8_t fill) {
    wire::RocePacket p;
    p.bth.opcode = op;
    p.bth.psn = psn;
    if (op != RoceOpcode::kReadResponseMiddle) p.aeth = wire::Aeth{kSyndromeAck, 1};
    std::vector<uint8_t> data(len, fill);
    RoceFramer::SetPaddedPayload(p, data);
    return p;
  };
  r.OnReadResponse(resp(0, RoceOpcode::kReadResponseFirst, 256, 0xA1), 10);
  r.OnReadResponse(resp(2, RoceOpcode::kReadResponseLast, 188, 0xA3), 11);  // PSN 1 lost
  EXPECT_EQ(counters_.Get(Counter::kImpliedNaks), 1u);
  r.OnReadResponse(resp(2, RoceOpcode::kReadResponseLast, 188, 0xA3), 12);  // same episode: quiet
  EXPECT_EQ(counters_.Get(Counter::kImpliedNaks), 1u);
  auto again = Drain(r, 12);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].bth.opcode, RoceOpcode::kReadRequest);
  EXPECT_EQ(again[0].bth.psn, 1u);
  EXPECT_EQ(*again[0].reth, (wire::Reth{0x5000 + 256, 0x99, 700 - 256}));
  r.OnReadResponse(resp(1, RoceOpcode::kReadResponseFirst, 256, 0xA2), 20);
  r.OnReadResponse(resp(2, RoceOpcode::kReadResponseLast, 188, 0xA3), 21);
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].op, CompletionOp::kRead);
  EXPECT_EQ(cs[0].byte_len, 700u);
  EXPECT_EQ(buf_[1024], 0xA1);
  EXPECT_EQ(buf_[1024 + 256], 0xA2);
  EXPECT_EQ(buf_[1024 + 699], 0xA3);
  EXPECT_EQ(buf_[1024 + 700], static_cast<uint8_t>(1024 + 700));  // untouched
}

TEST_F(RequesterTest, AnAckPastAReadWithoutResponsesIsAnImpliedNak) {
  Requester r = Make(QpConfig{});
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kRead, 100, 0)).ok());
  ASSERT_TRUE(r.Post(Wr(2, WrOpcode::kWrite, 100)).ok());
  Drain(r, 0);
  r.OnAck(Ack(1), 10);  // acknowledges the WRITE at PSN 1, but the READ's response never came
  EXPECT_EQ(counters_.Get(Counter::kImpliedNaks), 1u);
  auto again = Drain(r, 10);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].bth.opcode, RoceOpcode::kReadRequest);
  EXPECT_TRUE(cq_.Poll().empty());
}

TEST_F(RequesterTest, PsnWrapsAt24Bits) {
  QpConfig cfg;
  cfg.initial_psn = 0xFFFFFE;
  Requester r = Make(cfg);
  for (uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(r.Post(Wr(i, WrOpcode::kSend, 8)).ok());
  auto pkts = Drain(r, 0);
  ASSERT_EQ(pkts.size(), 4u);
  EXPECT_EQ(pkts[0].bth.psn, 0xFFFFFEu);
  EXPECT_EQ(pkts[1].bth.psn, 0xFFFFFFu);
  EXPECT_EQ(pkts[2].bth.psn, 0u);
  EXPECT_EQ(pkts[3].bth.psn, 1u);
  r.OnAck(Ack(0, kNakPsnSequenceError), 5);
  EXPECT_EQ(PollIds(), (std::vector<uint64_t>{0, 1}));
  auto again = Drain(r, 5);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].bth.psn, 0u);
  r.OnAck(Ack(1), 6);
  EXPECT_EQ(PollIds(), (std::vector<uint64_t>{2, 3}));
}

TEST_F(RequesterTest, PostValidatesTheLocalBufferAndQueueDepth) {
  QpConfig cfg;
  cfg.max_send_wr = 1;
  Requester r = Make(cfg);
  SendWr bad = Wr(1, WrOpcode::kSend, 100);
  bad.local.addr = mr_.va + 8190;
  EXPECT_EQ(r.Post(bad).error().code, "access.bounds");
  ASSERT_TRUE(r.Post(Wr(1, WrOpcode::kSend, 100)).ok());
  EXPECT_EQ(r.Post(Wr(2, WrOpcode::kSend, 100)).error().code, "limit.send_queue");
}

}  // namespace
}  // namespace mroce::rocev2
