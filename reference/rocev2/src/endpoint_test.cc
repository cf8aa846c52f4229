#include "mroce/rocev2/endpoint.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <cstdio>
#include <vector>

#include "mroce/rocev2/roce_framer.h"

namespace mroce::rocev2 {
namespace {

using wire::RoceOpcode;

struct CaptureSink : FrameSink {
  void SendFrame(std::span<const uint8_t> frame, uint8_t, TimeNs) override {
    frames.emplace_back(frame.begin(), frame.end());
  }
  std::vector<std::vector<uint8_t>> frames;
};

const RoceAddress kHostA{{2, 0, 0, 0, 0, 1}, {10, 0, 0, 1}};
const RoceAddress kHostB{{2, 0, 0, 0, 0, 2}, {10, 0, 0, 2}};

TEST(EndpointTest, CreatesAndConnectsQpsOutOfBand) {
  CaptureSink sink;
  RoceEndpoint ep(EndpointConfig{kHostA}, &sink);
  QpConfig cfg;
  cfg.initial_psn = 0x123456;
  auto a = ep.CreateQp(cfg);
  auto b = ep.CreateQp(cfg);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->qpn, b->qpn);
  EXPECT_EQ(a->initial_psn, 0x123456u);
  EXPECT_EQ(a->address.ip, kHostA.ip);
  EXPECT_TRUE(ep.ConnectQp(a->qpn, RemoteQp{0x99, 7, kHostB}).ok());
  EXPECT_EQ(ep.ConnectQp(0xABCDE, RemoteQp{}).error().code, "qp.unknown");
  EXPECT_EQ(ep.PostRecv(0xABCDE, RecvWr{}).error().code, "qp.unknown");
  QpConfig bad;
  bad.path_mtu = 1000 + 2;
  EXPECT_EQ(ep.CreateQp(bad).error().code, "qp.config");
}

TEST(EndpointTest, CountsFramesItCannotDeliver) {
  CaptureSink sink;
  RoceEndpoint ep(EndpointConfig{kHostB}, &sink);
  auto qp = ep.CreateQp(QpConfig{});
  ASSERT_TRUE(ep.ConnectQp(qp->qpn, RemoteQp{0x99, 0, kHostA}).ok());

  RoceFramer peer(FramerConfig{kHostA, kHostB, 0xC000, 0, 0});
  wire::RocePacket pkt;
  pkt.bth.opcode = RoceOpcode::kSendOnly;
  pkt.bth.dest_qp = 0x777;  // no such QP
  std::vector<uint8_t> bytes;
  peer.Build(pkt, bytes);
  ep.OnFrame(bytes, 0, 0);
  EXPECT_EQ(ep.counters().Get(Counter::kUnknownQpRx), 1u);

  pkt.bth.dest_qp = qp->qpn;
  peer.Build(pkt, bytes);
  bytes[bytes.size() - 5] ^= 0x80;  // breaks the ICRC
  ep.OnFrame(bytes, 0, 0);
  EXPECT_EQ(ep.counters().Get(Counter::kIcrcErrors), 1u);
  EXPECT_EQ(ep.counters().Get(Counter::kRxPkts), 0u);

  const std::vector<uint8_t> junk = {1, 2, 3};
  ep.OnFrame(junk, 0, 0);
  EXPECT_EQ(ep.counters().Get(Counter::kParseErrors), 1u);

  // A valid SEND with no receive posted draws an RNR NAK through the sink.
  peer.Build(pkt, bytes);
  ep.OnFrame(bytes, 0, 5);
  ASSERT_EQ(sink.frames.size(), 1u);
  auto f = wire::ParseFrame(sink.frames[0]);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->roce()->bth.opcode, RoceOpcode::kAck);
  EXPECT_EQ(f->roce()->aeth->syndrome & 0xE0, 0x20);
  EXPECT_EQ(ep.qp_counters(qp->qpn)->Get(Counter::kRnrNaksTx), 1u);
}

// Memory per QP: the QP object and its queues (not registered buffers). Printed for the README.
TEST(EndpointTest, MeasuresStatePerQp) {
  CaptureSink sink;
  RoceEndpoint ep(EndpointConfig{kHostA}, &sink);
  std::vector<uint8_t> buf(1 << 20);
  auto mr = ep.RegisterMemory(buf.data(), buf.size(), kAccessLocalWrite | kAccessRemoteWrite);
  ASSERT_TRUE(mr.ok());
  QpConfig cfg;
  cfg.line_rate_bps = 0;
  const size_t before = ep.StateBytes();
  std::vector<Qpn> qpns;
  qpns.reserve(100);
  const size_t heap_before = mallinfo2().uordblks;  // glibc: bytes in use by malloc
  for (int i = 0; i < 100; ++i) {
    auto qp = ep.CreateQp(cfg);
    ASSERT_TRUE(qp.ok());
    ASSERT_TRUE(ep.ConnectQp(qp->qpn, RemoteQp{0x99, 0, kHostB}).ok());
    qpns.push_back(qp->qpn);
  }
  const size_t idle_per_qp = (ep.StateBytes() - before) / 100;
  // The real heap cost also counts allocator and container overhead (std::deque keeps a 512-byte
  // block per queue, the QP map a node per QP).
  const size_t heap_per_qp = (mallinfo2().uordblks - heap_before) / 100;
  // Load one QP: a full window of 1-packet WRITEs in flight and 128 posted receives.
  for (uint64_t i = 0; i < 1024; ++i) {
    ASSERT_TRUE(ep.PostSend(qpns[0], SendWr{i, WrOpcode::kWrite, Sge{mr->va, 1024, mr->lkey}, 0, 1}, 0).ok());
  }
  for (uint64_t i = 0; i < 128; ++i) {
    ASSERT_TRUE(ep.PostRecv(qpns[0], RecvWr{i, Sge{mr->va, 1024, mr->lkey}}).ok());
  }
  const size_t loaded = ep.QpStateBytes(qpns[0]);
  std::printf("RoCEv2 QP state: idle %zu B per QP by StateBytes (QueuePair object %zu B), %zu B of heap "
              "per QP by mallinfo2; with 1024 send WRs and 128 receives posted: %zu B\n",
              idle_per_qp, sizeof(QueuePair), heap_per_qp, loaded);
  EXPECT_LT(heap_per_qp, 8192u);
  EXPECT_LT(idle_per_qp, 4096u);
  EXPECT_GT(loaded, idle_per_qp);
}

}  // namespace
}  // namespace mroce::rocev2
