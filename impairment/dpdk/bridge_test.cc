// The mbuf-burst driver on net_ring vdevs (EAL --no-huge --no-pci): the same stage code and
// statistics as in simulation. Each test skips (with the reason) only when the EAL cannot start.
#include "mroce/impairment/dpdk/bridge.h"

#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <set>

#include "mroce/impairment/dpdk/bench.h"
#include "mroce/impairment/dpdk/eal.h"
#include "mroce/impairment/dpdk/profile.h"
#include "test_frames.h"

namespace mroce::impairment::dpdk {
namespace {

using impairment::testing::FrameSpec;
using impairment::testing::MakeFrame;

rte_mempool* g_pool = nullptr;

// The EAL and the test pool, started once per process.
mroce::Status EalUp() {
  static int state = 0;
  static mroce::Status status;
  if (state == 0) {
    const std::vector<std::string> args = {"--no-huge", "--no-pci", "-m", "512", "--file-prefix",
                                           "mroce-dpdk-test-" + std::to_string(getpid()), "--log-level", "*:error"};
    status = InitEal("mroce_impairment_dpdk_test", args);
    state = status.ok() ? 1 : -1;
    if (state == 1) {
      auto pool = CreatePool("mroce_test_pool", 8191);
      if (pool.ok()) {
        g_pool = *pool;
      } else {
        status = pool.error();
        state = -1;
      }
    }
  }
  return status;
}

class BridgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const mroce::Status eal_up = EalUp();
    if (!eal_up.ok()) GTEST_SKIP() << "DPDK EAL did not start: " << eal_up.error().message;
    static int instance = 0;  // Fresh ring names per test (a removed net_ring keeps its rings).
    ++instance;
    auto a = OpenPort("net_ring_a" + std::to_string(instance), g_pool);
    ASSERT_TRUE(a.ok()) << a.error().message;
    auto b = OpenPort("net_ring_b" + std::to_string(instance), g_pool);
    ASSERT_TRUE(b.ok()) << b.error().message;
    p0_ = *a;
    p1_ = *b;
    opened_ = true;
    avail_before_ = rte_mempool_avail_count(g_pool);
  }
  void TearDown() override {
    if (!opened_) return;
    bridge_.reset();
    Collect(p0_);
    Collect(p1_);
    // Every mbuf came back: originals, duplicates' copies, drops (nothing leaked or freed twice).
    EXPECT_EQ(rte_mempool_avail_count(g_pool), avail_before_);
    ClosePort(p0_);
    ClosePort(p1_);
  }

  // A bridge with `yaml` (a profile) on both directions.
  void MakeBridge(const std::string& yaml, uint64_t seed) {
    bridge_ = std::make_unique<Bridge>(&sim_, Bridge::Options{p0_, p1_, g_pool, 32, false});
    auto loaded = LoadProfileString(yaml, "test.yaml");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    profile_ = std::move(loaded).value();
    for (Direction d : {Direction::kDutToPeer, Direction::kPeerToDut}) AddProfileStages(profile_, d, seed, &bridge_->pipeline(d));
  }

  // Transmits frames on a loopback ring port: the bridge receives them from that port.
  void Send(uint16_t port, const std::vector<std::vector<uint8_t>>& frames) {
    for (const auto& f : frames) {
      rte_mbuf* m = rte_pktmbuf_alloc(g_pool);
      ASSERT_NE(m, nullptr);
      std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(f.size())), f.data(), f.size());
      ASSERT_EQ(rte_eth_tx_burst(port, 0, &m, 1), 1);
    }
  }
  // Everything waiting on a ring port (what the bridge transmitted there), freed.
  std::vector<std::vector<uint8_t>> Collect(uint16_t port) {
    std::vector<std::vector<uint8_t>> out;
    rte_mbuf* m[64];
    for (;;) {
      const uint16_t n = rte_eth_rx_burst(port, 0, m, 64);
      if (n == 0) break;
      for (uint16_t i = 0; i < n; ++i) {
        const uint8_t* d = rte_pktmbuf_mtod(m[i], const uint8_t*);
        out.emplace_back(d, d + m[i]->data_len);
      }
      rte_pktmbuf_free_bulk(m, n);
    }
    return out;
  }
  // Sends frames dut->peer in chunks (the rings hold 1023) and returns what came out on port 1.
  std::vector<std::vector<uint8_t>> Run(const std::vector<std::vector<uint8_t>>& frames, int64_t* now) {
    std::vector<std::vector<uint8_t>> out;
    for (size_t at = 0; at < frames.size(); at += 512) {
      Send(p0_, {frames.begin() + static_cast<long>(at), frames.begin() + static_cast<long>(std::min(frames.size(), at + 512))});
      for (auto& f : Pump(p1_, now)) out.push_back(std::move(f));
    }
    return out;
  }
  // Polls until nothing more arrives, taking what the bridge sends to `out_port` after every poll
  // (else the loopback ring would hand it back to the bridge).
  std::vector<std::vector<uint8_t>> Pump(uint16_t out_port, int64_t* now) {
    std::vector<std::vector<uint8_t>> out;
    size_t n = 0;
    do {
      n = bridge_->Poll(*now);
      *now += 1000;
      for (auto& f : Collect(out_port)) out.push_back(std::move(f));
    } while (n > 0);
    return out;
  }
  static std::vector<std::vector<uint8_t>> Frames(size_t n) {
    std::vector<std::vector<uint8_t>> v;
    for (size_t i = 0; i < n; ++i) {
      FrameSpec s;
      s.psn = static_cast<uint32_t>(i);
      s.payload = 32;
      v.push_back(MakeFrame(s));
    }
    return v;
  }
  static uint32_t Psn(const std::vector<uint8_t>& bytes) {
    Packet p;
    p.bytes = bytes;
    return p.Info().psn;
  }
  // The same frames through a pure-simulation Pipeline with the same profile and seed.
  std::vector<Packet> Simulate(const std::vector<std::vector<uint8_t>>& frames, uint64_t seed, Pipeline** out_pl,
                               sim::Simulator* sim, std::unique_ptr<Pipeline>* holder, int64_t spacing_ns = 0) {
    *holder = std::make_unique<Pipeline>(sim, "sim");
    std::vector<Packet> out;
    (*holder)->set_output([&out](Packet&& p, Time) { out.push_back(std::move(p)); });
    AddProfileStages(profile_, Direction::kDutToPeer, seed, holder->get());
    for (size_t i = 0; i < frames.size(); ++i) {
      Packet p;
      p.id = p.origin_id = i + 1;
      p.bytes = frames[i];
      p.direction = Direction::kDutToPeer;
      (*holder)->Push(std::move(p));
      if (spacing_ns > 0) sim->RunFor(Duration::Nanos(spacing_ns));
    }
    sim->RunUntilTime(sim->Now() + Duration::Seconds(1));
    *out_pl = holder->get();
    return out;
  }

  uint16_t p0_ = 0, p1_ = 0;
  bool opened_ = false;
  unsigned avail_before_ = 0;
  sim::Simulator sim_;
  ImpairmentProfile profile_;
  std::unique_ptr<Bridge> bridge_;
};

constexpr const char* kLoss10 = R"(impairments:
  - stage: loss.bernoulli
    name: loss
    match: {direction: dut->peer}
    params: {rate: 0.1}
)";

TEST_F(BridgeTest, LossTenPercentOverHundredThousandPackets) {
  MakeBridge(kLoss10, 7);
  int64_t now = 0;
  const auto frames = Frames(100'000);
  const auto out = Run(frames, &now);
  const Pipeline& pl = bridge_->pipeline(Direction::kDutToPeer);
  ASSERT_EQ(pl.stages().size(), 1u);
  EXPECT_TRUE(bridge_->pipeline(Direction::kPeerToDut).empty());  // Pinned to dut->peer.
  const StageStats st = pl.stages()[0]->Stats();
  const std::string line = st.ToString();
  std::smatch m;
  ASSERT_TRUE(std::regex_match(line, m, std::regex(R"(loss \(loss\.bernoulli\): configured loss 10\.00%, achieved )"
                                                   R"((\d+\.\d\d)% over 100000 packets \(in 100000, out (\d+), dropped (\d+)\))")))
      << line;
  const double achieved = std::stod(m[1]);
  EXPECT_NEAR(achieved, 10.0, 0.5) << line;  // 5 standard deviations at n = 100000.
  EXPECT_EQ(out.size(), std::stoull(m[2]));
  EXPECT_EQ(out.size() + std::stoull(m[3]), 100'000u);
  EXPECT_EQ(bridge_->port_counters(0).rx, 100'000u);
  EXPECT_EQ(bridge_->port_counters(1).tx, out.size());
  EXPECT_EQ(bridge_->direction_counters(Direction::kDutToPeer).dropped, std::stoull(m[3]));
  // Survivors leave unchanged, in order.
  uint32_t prev = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const uint32_t psn = Psn(out[i]);
    ASSERT_EQ(out[i], frames[psn]);
    if (i > 0) ASSERT_GT(psn, prev);
    prev = psn;
  }
  // The simulated pipeline's statistics line is the same line: same stage code, same decisions.
  sim::Simulator sim;
  std::unique_ptr<Pipeline> holder;
  Pipeline* spl = nullptr;
  Simulate(frames, 7, &spl, &sim, &holder);
  EXPECT_EQ(spl->stages()[0]->Stats().ToString(), line);
}

TEST_F(BridgeTest, SameDropDecisionsAsSimulationForTheSameSeed) {
  const char* yaml = R"(impairments:
  - stage: loss.gilbert-elliott
    name: ge
    params: {mean_loss: 0.05, mean_burst: 3}
  - stage: loss.bernoulli
    name: bern
    params: {rate: 0.02}
)";
  MakeBridge(yaml, 42);
  int64_t now = 0;
  const auto frames = Frames(20'000);
  std::set<uint32_t> live;
  for (const auto& f : Run(frames, &now)) live.insert(Psn(f));
  sim::Simulator sim;
  std::unique_ptr<Pipeline> holder;
  Pipeline* spl = nullptr;
  std::set<uint32_t> simulated;
  for (const Packet& p : Simulate(frames, 42, &spl, &sim, &holder)) simulated.insert(p.Info().psn);
  EXPECT_GT(frames.size() - live.size(), 1000u);  // Losses happened.
  EXPECT_EQ(live, simulated);
  for (size_t i = 0; i < spl->stages().size(); ++i) {
    EXPECT_EQ(spl->stages()[i]->Stats().ToString(),
              bridge_->pipeline(Direction::kDutToPeer).stages()[i]->Stats().ToString());
  }
  // Another seed, other decisions (the comparison above is not vacuous).
  sim::Simulator sim2;
  std::unique_ptr<Pipeline> holder2;
  std::set<uint32_t> other;
  for (const Packet& p : Simulate(frames, 43, &spl, &sim2, &holder2)) other.insert(p.Info().psn);
  EXPECT_NE(live, other);
}

TEST_F(BridgeTest, DuplicatesGetFreshMbufs) {
  MakeBridge("impairments:\n  - {stage: duplicate, name: dup, params: {probability: 0.3}}\n", 5);
  int64_t now = 0;
  const auto frames = Frames(3000);
  const auto out = Run(frames, &now);
  const auto& dc = bridge_->direction_counters(Direction::kDutToPeer);
  const StageStats st = bridge_->pipeline(Direction::kDutToPeer).stages()[0]->Stats();
  EXPECT_GT(st.duplicated, 700u);
  EXPECT_LT(st.duplicated, 1100u);
  EXPECT_EQ(dc.duplicates, st.duplicated);
  EXPECT_EQ(out.size(), frames.size() + st.duplicated);
  std::map<uint32_t, int> seen;
  for (const auto& f : out) {
    const uint32_t psn = Psn(f);
    ASSERT_LT(psn, frames.size());
    ASSERT_EQ(f, frames[psn]);  // A copy carries the same bytes.
    ++seen[psn];
  }
  EXPECT_EQ(seen.size(), frames.size());
  size_t twice = 0;
  for (const auto& [psn, n] : seen) twice += n == 2;
  EXPECT_EQ(twice, st.duplicated);
}

TEST_F(BridgeTest, DelayFollowsTheClockGivenToPoll) {
  MakeBridge("impairments:\n  - {stage: delay, name: d, match: {direction: dut->peer}, params: {base: 1ms}}\n", 1);
  Send(p0_, Frames(100));
  int64_t now = 0;
  EXPECT_TRUE(Pump(p1_, &now).empty());
  ASSERT_LT(now, 10'000);  // A few polls, 1 us apart.
  EXPECT_EQ(bridge_->parked(Direction::kDutToPeer), 100u);
  bridge_->Poll(999'000);
  EXPECT_TRUE(Collect(p1_).empty());
  bridge_->Poll(now + 1'000'000);  // The last burst arrived before `now`.
  const auto out = Collect(p1_);
  EXPECT_EQ(out.size(), 100u);
  EXPECT_EQ(bridge_->parked(Direction::kDutToPeer), 0u);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(Psn(out[i]), i);
}

TEST_F(BridgeTest, ReorderOnBurstsMatchesSimulation) {
  const char* yaml = "impairments:\n  - {stage: reorder, name: r, params: {k: 3, probability: 0.2, max_hold: 1ms}}\n";
  MakeBridge(yaml, 9);
  int64_t now = 0;
  const auto frames = Frames(2000);
  auto out = Run(frames, &now);
  bridge_->Poll(now + 2'000'000);  // max_hold flushes anything still held.
  for (auto& f : Collect(p1_)) out.push_back(std::move(f));
  std::vector<uint32_t> order;
  for (const auto& f : out) order.push_back(Psn(f));
  ASSERT_EQ(order.size(), frames.size());
  EXPECT_FALSE(std::is_sorted(order.begin(), order.end()));
  std::vector<uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
  sim::Simulator sim;
  std::unique_ptr<Pipeline> holder;
  Pipeline* spl = nullptr;
  std::vector<uint32_t> sim_order;
  for (const Packet& p : Simulate(frames, 9, &spl, &sim, &holder)) sim_order.push_back(p.Info().psn);
  EXPECT_EQ(order, sim_order);
  EXPECT_EQ(spl->stages()[0]->Stats().ToString(), bridge_->pipeline(Direction::kDutToPeer).stages()[0]->Stats().ToString());
}

TEST_F(BridgeTest, CorruptedBytesAreWrittenBackToTheMbuf) {
  MakeBridge("impairments:\n  - {stage: corrupt, name: c, match: {direction: dut->peer}, params: {probability: 1}}\n", 3);
  int64_t now = 0;
  const auto frames = Frames(200);
  const auto out = Run(frames, &now);
  ASSERT_EQ(out.size(), frames.size());
  EXPECT_EQ(bridge_->direction_counters(Direction::kDutToPeer).rewritten, frames.size());
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out[i].size(), frames[i].size());
    int bits = 0;
    for (size_t b = 0; b < out[i].size(); ++b) bits += __builtin_popcount(out[i][b] ^ frames[i][b]);
    EXPECT_EQ(bits, 1) << "frame " << i;
  }
}

TEST_F(BridgeTest, BothDirectionsAndEmptyPipelineFastPath) {
  MakeBridge("impairments:\n  - {stage: loss.bernoulli, name: l, match: {direction: peer->dut}, params: {rate: 0.5}}\n", 2);
  EXPECT_TRUE(bridge_->pipeline(Direction::kDutToPeer).empty());
  const auto frames = Frames(300);
  Send(p0_, frames);  // dut->peer: no stages, forwarded untouched.
  int64_t now = 0;
  const auto to_peer = Pump(p1_, &now);
  EXPECT_EQ(to_peer, frames);
  Send(p1_, Frames(400));  // peer->dut: 50% loss, leaves on port 0.
  const auto to_dut = Pump(p0_, &now);
  EXPECT_GT(to_dut.size(), 140u);
  EXPECT_LT(to_dut.size(), 260u);
  EXPECT_EQ(bridge_->port_counters(1).rx, 400u);
  EXPECT_EQ(bridge_->port_counters(0).tx, to_dut.size());
  EXPECT_EQ(bridge_->direction_counters(Direction::kPeerToDut).dropped, 400u - to_dut.size());
}

TEST_F(BridgeTest, InspectHeadersParsesEveryFrameOfAnEmptyDirection) {
  Bridge::Options o{p0_, p1_, g_pool, 32, false};
  o.inspect_headers = true;
  bridge_ = std::make_unique<Bridge>(&sim_, o);
  auto frames = Frames(300);
  frames.insert(frames.begin() + 100, std::vector<uint8_t>(60, 0));  // Not IP: not MetaRoCE.
  auto udp = Frames(1)[0];
  udp[36] ^= 0x01;  // UDP destination port (14 + 20 + 2) no longer MetaRoCE's.
  frames.push_back(udp);
  Send(p0_, frames);
  int64_t now = 0;
  EXPECT_EQ(Pump(p1_, &now), frames);  // Forwarded untouched.
  const DirectionCounters& dc = bridge_->direction_counters(Direction::kDutToPeer);
  EXPECT_EQ(dc.out, frames.size());
  EXPECT_EQ(dc.inspected_meta, 300u);
}

// testpmd's statistics as its interactive `show port stats all` prints them (one block per port,
// the first show with no earlier one to rate against: 0), read as one sample per show.
TEST(TestpmdOutput, InteractiveShowsAreOneSampleEach) {
  const std::string out = R"(testpmd> start tx_first 8
testpmd>
  ######################## NIC statistics for port 0  ########################
  RX-packets: 0          RX-missed: 0          RX-bytes:  0
  Throughput (since last show)
  Rx-pps:            0          Rx-bps:            0
  Tx-pps:            0          Tx-bps:            0
  ############################################################################

  ######################## NIC statistics for port 1  ########################
  Rx-pps:            0          Rx-bps:            0
  Tx-pps:            0          Tx-bps:            0
  ############################################################################
testpmd>
  ######################## NIC statistics for port 0  ########################
  Rx-pps:     60800000          Rx-bps:            0
  Tx-pps:     60812345          Tx-bps:            0
  ######################## NIC statistics for port 1  ########################
  Rx-pps:     60800000          Rx-bps:            0
  Tx-pps:     60700000          Tx-bps:            0
testpmd>
  ######################## NIC statistics for port 0  ########################
  Tx-pps:     61000000          Tx-bps:            0
  ######################## NIC statistics for port 1  ########################
  Tx-pps:     61000001          Tx-bps:            0
testpmd> stop
)";
  const std::vector<double> samples = ParseTestpmdTxPps(out);
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0], 0);
  EXPECT_EQ(samples[1], 60812345.0 + 60700000.0);
  EXPECT_EQ(samples[2], 122000001.0);
}

// As many frames in testpmd's loop as in ours: whole bursts per port, at least one.
TEST(TestpmdOutput, BurstsForThePopulation) {
  BenchOptions o;
  EXPECT_EQ(o.population, 512u);
  EXPECT_EQ(TestpmdBurstsFor(o), 8u);  // 2 ports x 8 x 32 = 512.
  o.population = 64;
  EXPECT_EQ(TestpmdBurstsFor(o), 1u);
  o.population = 10;
  EXPECT_EQ(TestpmdBurstsFor(o), 1u);
  o.population = 500;
  o.burst = 64;
  EXPECT_EQ(TestpmdBurstsFor(o), 4u);  // 512 frames: the nearest whole number of bursts.
}

}  // namespace
}  // namespace mroce::impairment::dpdk
