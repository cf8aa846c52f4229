// Fabric: routing, ECMP, incast queueing and ECN, plane/spine blackholes, taps and determinism.
#include "mroce/impairment/fabric.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <sstream>

#include "mroce/impairment/loss.h"
#include "mroce/impairment/stages.h"
#include "mroce/impairment/tap.h"
#include "test_frames.h"

namespace mroce::impairment {
namespace {

using testing::FrameSpec;

uint32_t IpOf(int host) {
  const auto a = Fabric::HostIpv4(host);
  return uint32_t{a[0]} << 24 | uint32_t{a[1]} << 16 | uint32_t{a[2]} << 8 | a[3];
}

std::vector<uint8_t> Frame(int src, int dst, uint16_t sport, uint32_t psn, size_t payload = 1000) {
  FrameSpec s;
  s.src_ip = IpOf(src);
  s.dst_ip = IpOf(dst);
  s.sport = sport;
  s.psn = psn;
  s.payload = payload;
  return testing::MakeFrame(s);
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(FabricTest, DeliversWithinAndAcrossLeavesWithExpectedLatency) {
  sim::Simulator sim;
  FabricConfig cfg;
  Fabric fabric(&sim, cfg);
  std::vector<std::pair<int, Time>> got;
  for (int h = 0; h < cfg.num_hosts; ++h)
    fabric.SetSink(h, [&got, h](const Packet& p, Time t) { got.emplace_back(h, t); });
  const auto f1 = Frame(0, 1, 49152, 0);
  const auto f2 = Frame(0, 5, 49152, 1);
  fabric.Send(0, 0, f1);
  sim.RunUntilTime(Time::FromNanos(100'000));
  fabric.Send(0, 1, f2);
  sim.RunUntilTime(Time::FromNanos(200'000));
  ASSERT_EQ(got.size(), 2u);
  const auto wire = static_cast<int64_t>(f1.size()) + 24;
  const int64_t host_ser = cfg.host_rate.TransferTime(wire).nanos();
  const int64_t fab_ser = cfg.fabric_rate.TransferTime(wire).nanos();
  EXPECT_EQ(got[0].first, 1);
  EXPECT_EQ(got[0].second.nanos(), 2 * (host_ser + 1000));
  EXPECT_EQ(got[1].first, 5);
  EXPECT_EQ(got[1].second.nanos(), 100'000 + 2 * (host_ser + 1000) + 2 * (fab_ser + 1000));
  EXPECT_EQ(fabric.hops(), 6u);
}

TEST(FabricTest, EcmpSpreadsSourcePortsOverSpinesAsHashed) {
  sim::Simulator sim;
  FabricConfig cfg;
  Fabric fabric(&sim, cfg);
  std::map<int, int> expected;
  for (int i = 0; i < 400; ++i) {
    const auto f = Frame(0, 8, static_cast<uint16_t>(49152 + i), static_cast<uint32_t>(i));
    expected[fabric.SpineFor(f)]++;
    fabric.Send(0, 0, f);
    sim.RunFor(Duration::Micros(1));
  }
  sim.RunFor(Duration::Millis(1));
  EXPECT_EQ(fabric.frames_delivered(), 400u);
  for (int s = 0; s < cfg.num_spines; ++s) {
    EXPECT_EQ(fabric.GetPortStats(fabric.LeafToSpinePort(0, s, 0)).tx_packets, static_cast<uint64_t>(expected[s]));
    EXPECT_GT(expected[s], 60) << "spine " << s;  // Roughly uniform over 4 spines.
  }
}

TEST(FabricTest, IncastBuildsQueueAndMarksEcnAsConfigured) {
  sim::Simulator sim;
  FabricConfig cfg;  // Default ECN: step K = 300 KB on 100G ports.
  Fabric fabric(&sim, cfg);
  const int port = fabric.LeafDownlinkPort(0, 0);
  const sim::ByteCount k = EcnConfig::DefaultStepFor(cfg.host_rate).k;
  uint64_t delivered = 0, ce = 0;
  fabric.SetSink(0, [&](const Packet& p, Time) {
    ++delivered;
    ce += p.ce_marked;
  });
  // 8 senders on other leaves, each paced at its full 100 Gb/s line rate into host 0: 8:1 incast.
  const int senders = 8, per_sender = 400;
  const auto sample = Frame(4, 0, 49152, 0);
  const Duration gap = cfg.host_rate.TransferTime(static_cast<int64_t>(sample.size()) + 24);
  for (int s = 0; s < senders; ++s) {
    const int host = 4 + s;
    for (int i = 0; i < per_sender; ++i) {
      auto f = Frame(host, 0, static_cast<uint16_t>(49152 + i % 16), static_cast<uint32_t>(i));
      sim.Schedule(Time::Zero() + gap * i, [&fabric, host, f = std::move(f)] { fabric.Send(host, 0, f); });
    }
  }
  sim.RunUntil([&] { return delivered == senders * per_sender; }, Time::FromNanos(100'000'000));
  EXPECT_EQ(delivered, static_cast<uint64_t>(senders * per_sender));
  const PortStats st = fabric.GetPortStats(port);
  // 8x overload for 400 frames: the queue grows to about 7/8 of all bytes sent.
  EXPECT_GT(st.max_queue_bytes, 2 * k);
  EXPECT_GT(st.marks, 0u);
  EXPECT_EQ(ce, st.marks);
  // Step marking: frames that found < K queued were not marked; about (total - K)/frame are.
  const double total = double(senders * per_sender);
  const double unmarked_expected = double(k) / double(sample.size());
  EXPECT_NEAR(total - double(st.marks), unmarked_expected, 0.02 * total);
  EXPECT_EQ(st.drops, 0u);
}

TEST(FabricTest, IncastWithSmallBufferDropsTail) {
  sim::Simulator sim;
  FabricConfig cfg;
  cfg.host_queue_bytes = 50'000;
  Fabric fabric(&sim, cfg);
  const auto sample = Frame(4, 0, 49152, 0);
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < 100; ++i) {
      auto f = Frame(4 + s, 0, 49152, static_cast<uint32_t>(i));
      sim.Schedule(Time::FromNanos(i * 90), [&fabric, s, f = std::move(f)] { fabric.Send(4 + s, 0, f); });
    }
  sim.RunFor(Duration::Millis(10));
  const PortStats st = fabric.GetPortStats(fabric.LeafDownlinkPort(0, 0));
  EXPECT_GT(st.drops, 0u);
  EXPECT_LE(st.max_queue_bytes, 50'000);
  EXPECT_EQ(fabric.frames_delivered() + fabric.frames_dropped(), 400u);
}

// Paced traffic (no queueing): a frame reaches its leaf host_ser + 1 us after it is sent.
struct BlackholeRun {
  std::vector<std::tuple<uint64_t, int, int64_t, int>> sent;  // id, plane, send ns, spine
  std::set<uint64_t> dropped;
};

TEST(FabricTest, PlaneBlackholeDropsExactlyItsFramesDuringWindow) {
  sim::Simulator sim;
  FabricConfig cfg;
  Fabric fabric(&sim, cfg);
  const Time t1 = Time::FromNanos(200'000), t2 = Time::FromNanos(600'000);
  BlackholeStage::Params bh;
  bh.match.plane = 1;
  bh.schedule = {{t1, t2, Duration::Zero()}};
  fabric.PlaneIngress(1).Emplace<BlackholeStage>("blackhole.plane1", bh, cfg.seed);
  struct Obs : FabricObserver {
    std::set<uint64_t> dropped;
    void OnDrop(const Packet& p, const char* where, Time) override {
      EXPECT_STREQ(where, "blackhole.plane1");
      dropped.insert(p.id);
    }
  } obs;
  fabric.AddObserver(&obs);
  const auto sample = Frame(0, 9, 49152, 0);
  const int64_t lead = cfg.host_rate.TransferTime(static_cast<int64_t>(sample.size()) + 24).nanos() + 1000;
  std::vector<std::tuple<uint64_t, int, int64_t>> sent;
  for (int i = 0; i < 1000; ++i) {
    const int plane = i % 2;
    const int64_t at = int64_t{i} * 1000;
    sim.Schedule(Time::FromNanos(at), [&, plane, at, i] {
      sent.emplace_back(fabric.Send(i % 16, plane, Frame(i % 16, (i + 7) % 16, static_cast<uint16_t>(49152 + i % 64), i)),
                        plane, at);
    });
  }
  sim.RunFor(Duration::Millis(5));
  size_t expected = 0;
  for (auto& [id, plane, at] : sent) {
    const bool in = plane == 1 && at + lead >= t1.nanos() && at + lead < t2.nanos();
    expected += in;
    EXPECT_EQ(obs.dropped.count(id) == 1, in) << "id " << id << " plane " << plane << " at " << at;
  }
  EXPECT_EQ(obs.dropped.size(), expected);
  EXPECT_EQ(expected, 200u);
  EXPECT_EQ(fabric.frames_delivered(), 800u);
}

TEST(FabricTest, SpineLinkBlackholeDropsExactlyFramesHashedOntoIt) {
  sim::Simulator sim;
  FabricConfig cfg;
  Fabric fabric(&sim, cfg);
  const int bad_spine = 2;
  BlackholeStage::Params bh;
  bh.schedule = {{Time::Zero(), Time::Infinite(), Duration::Zero()}};
  for (int l = 0; l < fabric.num_leaves(); ++l)
    fabric.Link(fabric.LeafToSpinePort(l, bad_spine, 0)).Emplace<BlackholeStage>("blackhole.spine2", bh, cfg.seed);
  std::set<uint64_t> dropped;
  struct Obs : FabricObserver {
    std::set<uint64_t>* d;
    void OnDrop(const Packet& p, const char*, Time) override { d->insert(p.id); }
  } obs;
  obs.d = &dropped;
  fabric.AddObserver(&obs);
  size_t expected = 0;
  for (int i = 0; i < 500; ++i) {
    const int src = i % 4, dst = 4 + (i % 12);  // Always across leaves.
    const auto f = Frame(src, dst, static_cast<uint16_t>(49152 + i), i);
    const bool hit = fabric.SpineFor(f) == bad_spine;
    expected += hit;
    const uint64_t id = fabric.Send(src, 0, f);
    sim.RunFor(Duration::Micros(1));
    (void)id;
  }
  sim.RunFor(Duration::Millis(1));
  EXPECT_EQ(dropped.size(), expected);
  EXPECT_GT(expected, 60u);
  EXPECT_EQ(fabric.frames_delivered(), 500u - expected);
}

// A small impaired run with taps on host 0 (DUT) and host 5 (peer); returns pcap + trace bytes.
std::string RunTapped(uint64_t seed, const std::string& tag) {
  sim::Simulator sim;
  FabricConfig cfg;
  cfg.seed = seed;
  Fabric fabric(&sim, cfg);
  fabric.HostEgress(0, 0).Emplace<BernoulliLoss>("loss@h0p0", BernoulliLoss::Params{0.05, {}}, seed);
  fabric.HostEgress(0, 1).Emplace<DuplicateStage>("dup@h0p1", DuplicateStage::Params{0.05, Duration::Micros(20), Duration::Micros(5), {}}, seed);
  fabric.PlaneIngress(0).Emplace<DelayStage>(
      "jitter@p0", DelayStage::Params{Duration::Zero(), DelayStage::Distribution::kUniform, 3000, 2.5, false, Scope::kPerPath, {}}, seed);
  fabric.PlaneIngress(1).Emplace<CorruptStage>("corrupt@p1", CorruptStage::Params{0.02, {}}, seed);
  const std::string dir = ::testing::TempDir();
  Tap dut(&fabric, 0, {dir + "/dut_" + tag + ".pcap", dir + "/dut_" + tag + ".jsonl", true});
  Tap peer(&fabric, 5, {dir + "/peer_" + tag + ".pcap", dir + "/peer_" + tag + ".jsonl", true});
  EXPECT_TRUE(dut.status().ok()) << dut.status().error().message;
  for (int i = 0; i < 2000; ++i) {
    const int plane = i % 2;
    sim.Schedule(Time::FromNanos(i * 200), [&fabric, i, plane] {
      fabric.Send(0, plane, Frame(0, 5, static_cast<uint16_t>(49152 + (i % 8)), i, 512));
      if (i % 4 == 0) fabric.Send(5, plane, testing::MakeAck(static_cast<uint8_t>(i % 8), i, {}));
    });
  }
  sim.RunFor(Duration::Millis(2));
  dut.Flush();
  peer.Flush();
  EXPECT_GT(dut.records().size(), 2000u);
  return ReadFile(dir + "/dut_" + tag + ".pcap") + ReadFile(dir + "/dut_" + tag + ".jsonl") +
         ReadFile(dir + "/peer_" + tag + ".pcap") + ReadFile(dir + "/peer_" + tag + ".jsonl");
}

TEST(FabricTest, SameSeedGivesByteIdenticalPcapAndTrace) {
  const std::string a = RunTapped(42, "a");
  const std::string b = RunTapped(42, "b");
  const std::string c = RunTapped(43, "c");
  EXPECT_GT(a.size(), 100'000u);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == c);
}

TEST(FabricTest, TapRecordsFatesAndWritesReadablePcap) {
  RunTapped(7, "fate");
  const std::string dir = ::testing::TempDir();
  auto read = pcap::ReadAll(dir + "/peer_fate.pcap");
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  const std::vector<pcap::Record>& recs = *read;
  EXPECT_GT(recs.size(), 1500u);
  for (size_t i = 1; i < recs.size(); ++i) EXPECT_GE(recs[i].time_ns, recs[i - 1].time_ns);
  const std::string trace = ReadFile(dir + "/dut_fate.jsonl");
  EXPECT_NE(trace.find("\"event\":\"drop\""), std::string::npos);
  EXPECT_NE(trace.find("dropped by loss@h0p0"), std::string::npos);
  const std::string peer = ReadFile(dir + "/peer_fate.jsonl");
  EXPECT_NE(peer.find("\"dup\":true"), std::string::npos);
  EXPECT_NE(peer.find("corrupted by corrupt@p1"), std::string::npos);
}

}  // namespace
}  // namespace mroce::impairment
