#include "mroce/rocev2/queue_pair.h"

#include <gtest/gtest.h>

#include <vector>

#include "mroce/rocev2/aeth_syndrome.h"
#include "mroce/sim/deadline_timer.h"
#include "mroce/sim/simulator.h"
#include "mroce/wire/frame.h"

namespace mroce::rocev2 {
namespace {

using wire::RoceOpcode;

struct CaptureSink : FrameSink {
  void SendFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) override {
    frames.emplace_back(frame.begin(), frame.end());
    times.push_back(now);
    planes.push_back(plane);
  }
  std::vector<std::vector<uint8_t>> frames;
  std::vector<TimeNs> times;
  std::vector<uint8_t> planes;
};

class QueuePairTest : public ::testing::Test {
 protected:
  void SetUp() override {
    buf_.assign(1 << 16, 0x5A);
    mr_ = *mrs_.Register(buf_.data(), buf_.size(), kAccessLocalWrite | kAccessRemoteWrite);
  }
  std::unique_ptr<QueuePair> Make(QpConfig cfg) {
    auto qp = std::make_unique<QueuePair>(0x11, cfg, local_, &mrs_, &cq_, &sink_, 3);
    EXPECT_TRUE(qp->Connect(RemoteQp{0x22, 500, remote_}).ok());
    return qp;
  }
  // The simulator is the clock of the tests that run timers: now() is its time, AdvanceTo moves it,
  // FireNextTimer(qp) moves it to qp's next deadline, fires qp's timer there and returns that time.
  TimeNs now() const { return sim_.Now().nanos(); }
  void AdvanceTo(TimeNs t) { sim_.RunUntilTime(sim::Time::FromNanos(t)); }
  TimeNs FireNextTimer(QueuePair& qp) {
    sim::DeadlineTimer<QueuePair> timer(&sim_, &qp);
    timer.Rearm();
    EXPECT_TRUE(sim_.Step()) << "no timer armed";
    return now();
  }
  wire::Frame Parse(size_t i) {
    auto f = wire::ParseFrame(sink_.frames.at(i));
    EXPECT_TRUE(f.ok()) << f.error().ToString();
    return *f;
  }
  // A frame from the peer (remote -> local) carrying `pkt`, with IP ECN `ecn`.
  wire::Frame FromPeer(const wire::RocePacket& pkt, uint8_t ecn = wire::kEcnEct0) {
    RoceFramer peer(FramerConfig{remote_, local_, 0xC001, 0, ecn});
    std::vector<uint8_t> bytes;
    peer.Build(pkt, bytes);
    return *wire::ParseFrame(bytes);
  }

  RoceAddress local_{{2, 0, 0, 0, 0, 1}, {10, 0, 0, 1}};
  RoceAddress remote_{{2, 0, 0, 0, 0, 2}, {10, 0, 0, 2}};
  std::vector<uint8_t> buf_;
  MemoryRegionTable mrs_;
  MemoryRegion mr_;
  CompletionQueue cq_;
  CaptureSink sink_;
  sim::Simulator sim_;
};

TEST_F(QueuePairTest, MustBeConnectedBeforePosting) {
  QueuePair qp(0x11, QpConfig{}, local_, &mrs_, &cq_, &sink_, 0);
  EXPECT_EQ(qp.state(), QpState::kInit);
  EXPECT_EQ(qp.PostSend(SendWr{1, WrOpcode::kSend, Sge{mr_.va, 8, mr_.lkey}}, 0).error().code, "qp.state");
  ASSERT_TRUE(qp.Connect(RemoteQp{0x22, 0, remote_}).ok());
  EXPECT_EQ(qp.state(), QpState::kReadyToSend);
  EXPECT_FALSE(qp.Connect(RemoteQp{0x22, 0, remote_}).ok());
}

TEST_F(QueuePairTest, FramesCarryTheFixedPathAndArePacedAtLineRate) {
  QpConfig cfg;
  cfg.line_rate_bps = 10'000'000'000;
  cfg.udp_sport = 0xC0DE;
  auto qp = Make(cfg);
  AdvanceTo(100);
  ASSERT_TRUE(qp->PostSend(SendWr{1, WrOpcode::kWrite, Sge{mr_.va, 3000, mr_.lkey}, 0x1000, 7}, now()).ok());
  ASSERT_EQ(sink_.frames.size(), 1u);  // the rest waits for the pacer
  EXPECT_EQ(FireNextTimer(*qp), 100 + 898);  // WRITE FIRST: 1122 wire bytes at 10 Gb/s = 897.6 ns
  FireNextTimer(*qp);
  ASSERT_EQ(sink_.frames.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    wire::Frame f = Parse(i);
    EXPECT_EQ(f.udp.sport, 0xC0DE);
    EXPECT_EQ(f.udp.dport, 4791);
    EXPECT_EQ(f.eth.dst, remote_.mac);
    EXPECT_EQ(f.ip4()->dst, remote_.ip);
    EXPECT_EQ(f.roce()->bth.dest_qp, 0x22u);
    EXPECT_EQ(sink_.planes[i], 3);
  }
  EXPECT_EQ(Parse(2).roce()->bth.opcode, RoceOpcode::kWriteLast);
  // Only the ACK timer is left.
  EXPECT_EQ(qp->NextDeadline(), 100 + cfg.ack_timeout_ns);
}

TEST_F(QueuePairTest, AnswersCeWithRateLimitedCnp) {
  QpConfig cfg;
  cfg.send_cnp = true;
  cfg.cnp_interval_ns = 1000;
  auto qp = Make(cfg);
  wire::RocePacket w;
  w.bth.opcode = RoceOpcode::kWriteOnly;
  w.bth.dest_qp = 0x11;
  w.bth.psn = 500;
  w.reth = wire::Reth{mr_.va, mr_.rkey, 0};
  qp->OnPacket(FromPeer(w, wire::kEcnCe), 100, 10);
  w.bth.psn = 501;
  qp->OnPacket(FromPeer(w, wire::kEcnCe), 100, 500);  // inside the interval: no second CNP
  w.bth.psn = 502;
  qp->OnPacket(FromPeer(w, wire::kEcnCe), 100, 1010);
  size_t cnps = 0;
  for (size_t i = 0; i < sink_.frames.size(); ++i) {
    wire::Frame f = Parse(i);
    if (f.roce()->bth.opcode == RoceOpcode::kCnp) {
      ++cnps;
      EXPECT_TRUE(f.roce()->bth.becn);
      EXPECT_EQ(f.roce()->payload.size(), 16u);
    }
  }
  EXPECT_EQ(cnps, 2u);
  EXPECT_EQ(qp->counters().Get(Counter::kEcnCeRx), 3u);
}

TEST_F(QueuePairTest, ResponderFailureMovesTheWholeQpToError) {
  auto qp = Make(QpConfig{});
  ASSERT_TRUE(qp->PostSend(SendWr{1, WrOpcode::kSend, Sge{mr_.va, 8, mr_.lkey}}, 0).ok());
  wire::RocePacket w;
  w.bth.opcode = RoceOpcode::kWriteOnly;
  w.bth.dest_qp = 0x11;
  w.bth.psn = 500;
  w.reth = wire::Reth{mr_.va, mr_.rkey + 1, 4};  // bad rkey
  w.payload = {1, 2, 3, 4};
  qp->OnPacket(FromPeer(w), 100, 10);
  EXPECT_EQ(qp->state(), QpState::kError);
  auto cs = cq_.Poll();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 1u);
  EXPECT_EQ(cs[0].status, CompletionStatus::kFlushed);
  wire::Frame nak = Parse(sink_.frames.size() - 1);
  EXPECT_EQ(nak.roce()->aeth->syndrome, kNakRemoteAccessError);
}

TEST_F(QueuePairTest, StateBytesGrowWithQueuedWork) {
  auto qp = Make(QpConfig{});
  const size_t idle = qp->StateBytes();
  EXPECT_GT(idle, sizeof(Requester) + sizeof(Responder));
  for (uint64_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(qp->PostRecv(RecvWr{i, Sge{mr_.va, 8, mr_.lkey}}).ok());
  }
  EXPECT_GT(qp->StateBytes(), idle);
}

}  // namespace
}  // namespace mroce::rocev2
