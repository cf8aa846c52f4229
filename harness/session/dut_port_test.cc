// DutPort: a device's frames enter the fabric on the plane it names, delivered frames reach it, and
// its NextDeadline() is kept armed as one simulator event.
#include "mroce/session/dut_port.h"

#include <gtest/gtest.h>

#include "mroce/impairment/fabric.h"
#include "mroce/sim/simulator.h"

namespace mroce::session {
namespace {

// A device that does only what the test tells it: sends given frames, asks for a given deadline,
// and logs what the port hands it. (The port is under test, not a device.)
class ProbeDevice final : public dut::Dut {
 public:
  std::vector<std::pair<std::vector<uint8_t>, uint8_t>> to_send;  // Sent at the next call into it.
  dut::TimeNs deadline = dut::kNever;
  std::vector<dut::TimeNs> timers;                                  // OnTimer calls.
  std::vector<std::pair<uint8_t, dut::TimeNs>> frames;              // OnFrame (plane, now).
  dut::FrameSink* sink = nullptr;
  long keep_deadline = 0;  // OnTimer calls that leave the deadline where it is (-1: all of them)

  std::string Identity() const override { return "probe"; }
  dut::Capabilities Caps() const override { return {}; }
  dut::Status Start(const dut::HostConfig&, dut::FrameSink* s) override {
    sink = s;
    Flush();
    return dut::OkStatus();
  }
  dut::Result<dut::Buffer> AllocBuffer(uint64_t, uint32_t) override { return dut::MakeError("probe", "no memory"); }
  dut::Status WriteBuffer(uint32_t, uint64_t, std::span<const uint8_t>) override { return dut::MakeError("probe", "no"); }
  dut::Result<std::vector<uint8_t>> ReadBuffer(uint32_t, uint64_t, uint64_t) override {
    return dut::MakeError("probe", "no memory");
  }
  dut::Result<dut::ConnHandle> Connect(const dut::PeerInfo&, dut::TimeNs) override {
    Flush();
    return dut::ConnHandle{1};
  }
  dut::Status Disconnect(dut::ConnHandle, dut::TimeNs) override { return dut::OkStatus(); }
  std::vector<dut::ConnEvent> PollEvents() override { return {}; }
  dut::Status PostRecv(const dut::RecvRequest&) override { return dut::MakeError("probe", "no"); }
  dut::Status PostSend(const dut::SendRequest&, dut::TimeNs) override { return dut::MakeError("probe", "no"); }
  dut::Status PostWrite(const dut::WriteRequest&, dut::TimeNs) override { return dut::MakeError("probe", "no"); }
  dut::Status PostRead(const dut::ReadRequest&, dut::TimeNs) override { return dut::MakeError("probe", "no"); }
  std::vector<dut::Completion> PollCompletions() override { return {}; }
  void OnFrame(std::span<const uint8_t>, uint8_t plane, dut::TimeNs now) override { frames.emplace_back(plane, now); }
  dut::TimeNs NextDeadline() const override { return deadline; }
  void OnTimer(dut::TimeNs now) override {
    timers.push_back(now);
    if (keep_deadline != 0) {  // a device whose timer work is not done (or never gets done)
      if (keep_deadline > 0) --keep_deadline;
      return;
    }
    deadline = dut::kNever;  // as a device does once its deadline has passed
    Flush();
  }

 private:
  void Flush() {
    for (auto& [bytes, plane] : to_send) sink->Send(bytes, plane);
    to_send.clear();
  }
};

// Counts what the fabric reports sent per (host, plane).
class SendLog final : public impairment::FabricObserver {
 public:
  std::vector<std::tuple<int, int, int64_t>> sent;  // (host, plane, time)
  void OnSend(int host, const impairment::Packet& p, sim::Time now) override { sent.emplace_back(host, p.plane, now.nanos()); }
};

// A UDP frame from host `from` to host `to` (the fabric routes on the IP destination).
std::vector<uint8_t> FrameTo(int from, int to) {
  std::vector<uint8_t> f(64, 0);
  const auto dst_mac = impairment::Fabric::HostMac(to), src_mac = impairment::Fabric::HostMac(from);
  std::copy(dst_mac.begin(), dst_mac.end(), f.begin());
  std::copy(src_mac.begin(), src_mac.end(), f.begin() + 6);
  f[12] = 0x08;
  f[14] = 0x45;
  f[16] = 0;
  f[17] = 50;   // IP total length
  f[22] = 64;   // TTL
  f[23] = 17;   // UDP
  const auto src_ip = impairment::Fabric::HostIpv4(from), dst_ip = impairment::Fabric::HostIpv4(to);
  std::copy(src_ip.begin(), src_ip.end(), f.begin() + 26);
  std::copy(dst_ip.begin(), dst_ip.end(), f.begin() + 30);
  f[34] = 0xc0;
  f[36] = 0x12;
  f[37] = 0xbd;  // dport 4797
  f[39] = 30;    // UDP length
  return f;
}

struct Bed {
  sim::Simulator sim;
  impairment::Fabric fabric;
  SendLog log;
  explicit Bed(int planes) : fabric(&sim, [planes] {
    impairment::FabricConfig fc;
    fc.num_hosts = 2;
    fc.num_planes = planes;
    return fc;
  }()) {
    fabric.AddObserver(&log);
  }
};

TEST(DutPortTest, FramesEnterTheFabricOnTheirPlaneAndABadPlaneIsCountedNotSent) {
  Bed bed(2);
  ProbeDevice dev;
  DutPort port(&bed.sim, &bed.fabric, 0, &dev);
  dev.to_send = {{FrameTo(0, 1), 1}, {FrameTo(0, 1), 0}, {FrameTo(0, 1), 2}};
  ASSERT_TRUE(port.Call([&](dut::Dut& d) { return d.Start({}, &port); }).ok());
  ASSERT_EQ(bed.log.sent.size(), 2u);
  EXPECT_EQ(bed.log.sent[0], std::make_tuple(0, 1, int64_t{0}));
  EXPECT_EQ(bed.log.sent[1], std::make_tuple(0, 0, int64_t{0}));
  EXPECT_EQ(port.bad_plane_frames(), 1u);
}

TEST(DutPortTest, DeliveredFramesReachTheDeviceWithPlaneAndTime) {
  Bed bed(2);
  ProbeDevice dev;
  DutPort port(&bed.sim, &bed.fabric, 0, &dev);
  bed.fabric.SetSink(1, [](const impairment::Packet&, sim::Time) {});
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(1000));
  bed.fabric.Send(1, 1, FrameTo(1, 0));
  bed.sim.RunUntil([&] { return !dev.frames.empty(); }, sim::Time::FromNanos(1'000'000));
  ASSERT_EQ(dev.frames.size(), 1u);
  EXPECT_EQ(dev.frames[0].first, 1);
  EXPECT_GT(dev.frames[0].second, 1000);
  EXPECT_EQ(dev.frames[0].second, bed.sim.Now().nanos());
}

TEST(DutPortTest, TheDeadlineIsOneEventReArmedAfterEveryCall) {
  Bed bed(1);
  ProbeDevice dev;
  DutPort port(&bed.sim, &bed.fabric, 0, &dev);
  dev.deadline = 5000;
  port.Call([](dut::Dut&) {});
  dev.deadline = 3000;  // moved earlier: the old event must not fire too
  port.Call([](dut::Dut&) {});
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(10'000));
  ASSERT_EQ(dev.timers, std::vector<dut::TimeNs>{3000});  // once, at the earlier deadline
  // A deadline in the past fires now: the clock never goes back.
  dev.deadline = 2000;
  port.Call([](dut::Dut&) {});
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(20'000));
  ASSERT_EQ(dev.timers.size(), 2u);
  EXPECT_EQ(dev.timers[1], 10'000);
  // kNever cancels.
  dev.deadline = 30'000;
  port.Call([](dut::Dut&) {});
  dev.deadline = dut::kNever;
  port.Call([](dut::Dut&) {});
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(40'000));
  EXPECT_EQ(dev.timers.size(), 2u);
}

TEST(DutPortTest, ATimerDueAgainAndAgainAtOneInstantIsAllowedUpToTheLimit) {
  Bed bed(1);
  ProbeDevice dev;
  DutPort port(&bed.sim, &bed.fabric, 0, &dev);
  dev.deadline = 1000;
  dev.keep_deadline = 999;  // 1000 calls at t = 1000 ns, then done
  port.Call([](dut::Dut&) {});
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(5000));
  EXPECT_EQ(dev.timers.size(), 1000u);
  EXPECT_EQ(port.Failure(), "");
  dev.deadline = 6000;  // and the timer is armed again afterwards
  port.Call([](dut::Dut&) {});
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(10'000));
  EXPECT_EQ(dev.timers.back(), 6000);
}

TEST(DutPortTest, ATimerThatNeverDoesItsWorkStopsBeingArmedAndIsTheDevicesFailure) {
  // A device whose next_deadline() stays at or before the time on_timer was called with would
  // hold the simulated clock at one instant for ever (a hung run): after the limit the port
  // stops arming it, the clock moves on and the port names the failure.
  Bed bed(1);
  ProbeDevice dev;
  DutPort port(&bed.sim, &bed.fabric, 0, &dev);
  dev.deadline = 2000;
  dev.keep_deadline = -1;
  port.Call([](dut::Dut&) {});
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(1'000'000));
  EXPECT_EQ(bed.sim.Now().nanos(), 1'000'000);
  EXPECT_EQ(dev.timers.size(), DutPort::kMaxTimerCallsAtOneInstant);
  EXPECT_EQ(dev.timers.back(), 2000);
  EXPECT_NE(port.Failure().find("timer at t=2000 ns 1000000 times in a row"), std::string::npos) << port.Failure();
  EXPECT_NE(port.Failure().find("next_deadline() = 2000 ns"), std::string::npos) << port.Failure();
  port.Call([](dut::Dut&) {});  // later calls do not arm it again
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(2'000'000));
  EXPECT_EQ(dev.timers.size(), DutPort::kMaxTimerCallsAtOneInstant);
}

TEST(DutPortTest, DestroyingThePortCancelsItsTimerAndUnhooksTheHost) {
  Bed bed(1);
  ProbeDevice dev;
  {
    DutPort port(&bed.sim, &bed.fabric, 0, &dev);
    dev.deadline = 1000;
    port.Call([](dut::Dut&) {});
  }
  bed.fabric.SetSink(1, [](const impairment::Packet&, sim::Time) {});
  bed.fabric.Send(1, 0, FrameTo(1, 0));
  bed.sim.RunUntil([] { return false; }, sim::Time::FromNanos(1'000'000));
  EXPECT_TRUE(dev.timers.empty());
  EXPECT_TRUE(dev.frames.empty());
}

}  // namespace
}  // namespace mroce::session
