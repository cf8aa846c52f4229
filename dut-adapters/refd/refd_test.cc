// mroce-refd driven through the process adapter: the JSON-lines protocol, the UDP data plane on the
// loopback, and what the harness sees when the process crashes, hangs or writes garbage.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <deque>
#include <thread>

#include "mroce/dut/reference_dut.h"
#include "mroce/dut/process_dut.h"

namespace mroce::dut {
namespace {

using Clock = std::chrono::steady_clock;

std::string Refd(const std::string& args = "") { return std::string(MROCE_REFD_BIN) + (args.empty() ? "" : " " + args); }

std::unique_ptr<ProcessDut> Spawn(const std::string& command, int timeout_ms = 5000) {
  ProcessDut::Options o;
  o.command = command;
  o.timeout_ms = timeout_ms;
  auto d = ProcessDut::Create(o);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return d.ok() ? std::move(d).value() : nullptr;
}

HostConfig Host(uint8_t n) {
  HostConfig h;
  h.mac = {0x02, 0, 0, 0, 0, n};
  h.ip = {10, 0, 0, n};
  h.num_paths = 4;
  h.num_planes = 1;
  return h;
}

// The live DUT (host 1) and an in-process reference peer (host 2) joined by frame queues, driven
// on the wall clock (the process runs on its own).
class LiveWire {
 public:
  struct Queue final : FrameSink {
    std::deque<std::vector<uint8_t>> q;
    void Send(std::span<const uint8_t> f, uint8_t) override { q.emplace_back(f.begin(), f.end()); }
  };
  LiveWire() : t0_(Clock::now()) {}
  TimeNs now() const { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count(); }
  template <typename Pred>
  bool Run(Dut& live, Dut& peer, Pred done, int64_t limit_ms) {
    const auto until = Clock::now() + std::chrono::milliseconds(limit_ms);
    while (!done()) {
      if (Clock::now() > until || !live.Failure().empty()) return false;
      const TimeNs t = now();
      if (live.NextDeadline() <= t) live.OnTimer(t);
      if (peer.NextDeadline() <= t) peer.OnTimer(t);
      while (!to_peer.q.empty()) {
        auto f = std::move(to_peer.q.front());
        to_peer.q.pop_front();
        peer.OnFrame(f, 0, now());
      }
      while (!to_live.q.empty()) {
        auto f = std::move(to_live.q.front());
        to_live.q.pop_front();
        live.OnFrame(f, 0, now());
      }
    }
    return true;
  }
  Queue to_peer;  // the live DUT's sink
  Queue to_live;  // the peer's sink

 private:
  Clock::time_point t0_;
};

TEST(RefdTest, HelloReportsALiveDeviceWithPlanes) {
  auto d = Spawn(Refd());
  ASSERT_TRUE(d);
  EXPECT_NE(d->Identity().find("mroce-refd"), std::string::npos) << d->Identity();
  const Capabilities c = d->Caps();
  EXPECT_FALSE(c.simulated_time);
  EXPECT_EQ(c.max_planes, 8);
  EXPECT_TRUE(c.Has("write"));
  EXPECT_FALSE(c.Has("simulated_time"));
  EXPECT_TRUE(d->Failure().empty());
}

TEST(RefdTest, WriteOverUdpSocketsLandsAndCompletes) {
  auto live = Spawn(Refd());
  ASSERT_TRUE(live);
  LiveWire wire;
  ReferenceDut peer;
  ASSERT_TRUE(live->Start(Host(1), &wire.to_peer).ok());
  ASSERT_TRUE(peer.Start(Host(2), &wire.to_live).ok());

  auto src = live->AllocBuffer(20000, kAccessLocalWrite);
  auto dst = peer.AllocBuffer(20000, kAccessLocalWrite | kAccessRemoteWrite);
  ASSERT_TRUE(src.ok() && dst.ok()) << (src.ok() ? dst.error().message : src.error().message);
  std::vector<uint8_t> pattern(20000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_TRUE(live->WriteBuffer(src.value().id, 0, pattern).ok());
  auto back = live->ReadBuffer(src.value().id, 100, 1000);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(std::equal(back.value().begin(), back.value().end(), pattern.begin() + 100));

  auto conn = live->Connect(PeerInfo{Host(2).mac, Host(2).ip, 4797, {}}, wire.now());
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  bool established = false;
  ASSERT_TRUE(wire.Run(*live, peer, [&] {
    for (auto& e : live->PollEvents()) established = established || e.kind == ConnEventKind::kEstablished;
    for (auto& e : peer.PollEvents()) (void)e;
    return established;
  }, 3000)) << live->Failure();

  ASSERT_TRUE(live->PostWrite({.conn = conn.value(), .local = {src.value().id, 0, 20000},
                               .remote = {dst.value().va, dst.value().rkey}, .wr_id = 77},
                              wire.now()).ok());
  std::vector<Completion> done;
  ASSERT_TRUE(wire.Run(*live, peer, [&] {
    for (auto& c : live->PollCompletions()) done.push_back(c);
    return !done.empty();
  }, 3000)) << live->Failure();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].wr_id, 77u);
  EXPECT_EQ(done[0].status, OpStatus::kSuccess);
  auto landed = peer.ReadBuffer(dst.value().id, 0, 20000);
  ASSERT_TRUE(landed.ok());
  EXPECT_EQ(landed.value(), pattern);

  uint64_t udp_rx = 0, udp_tx = 0;
  for (const auto& [name, v] : live->Telemetry()) {
    if (name == "daemon.udp_rx") udp_rx = v;
    if (name == "daemon.udp_tx") udp_tx = v;
  }
  EXPECT_GE(udp_tx, 6u) << "CONNECT_REQ and 5 data packets went out through the daemon's sockets";
  EXPECT_GE(udp_rx, 2u) << "CONNECT_ACK and ACKs came in through them";
  ASSERT_TRUE(live->StateBytes().has_value());
  EXPECT_TRUE(live->Failure().empty());
}

// A host that keeps the daemon off the CPU (here: SIGSTOP for 150 ms; a loaded machine does the same
// by scheduling) is a stall the DUT reports in its replies, so the harness can tell starvation from
// a device bug (issue 19): LongestStall() counts it although the harness itself never stalled. It
// counts only while a timer of the endpoint runs: before that nothing it sends could change.
TEST(RefdTest, StarvationTheDaemonSawIsReportedAsAStall) {
  auto d = Spawn(Refd());
  ASSERT_TRUE(d);
  LiveWire wire;
  ASSERT_TRUE(d->Start(Host(1), &wire.to_peer).ok());
  ASSERT_TRUE(d->StateBytes().has_value());  // a reply: the stall so far is known
  auto stop = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the daemon is back in its wait
    ASSERT_EQ(::kill(d->pid(), SIGSTOP), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    ASSERT_EQ(::kill(d->pid(), SIGCONT), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(d->StateBytes().has_value());
  };
  stop();  // idle: no connection, no timer
  const TimeNs idle = d->LongestStall();
  EXPECT_LT(idle, 40 * kMillisecond) << "no timer ran while the daemon was stopped";
  TimeNs t = d->NextDeadline();
  d->OnTimer(t);  // the session's first tick starts the live clock
  ASSERT_TRUE(d->Connect(PeerInfo{Host(2).mac, Host(2).ip, 4797, {}}, t).ok());  // a peer that never answers
  stop();  // its CONNECT_REQ retransmission timer runs (1 ms, doubling)
  // Stopped inside a wait for that timer, it returned at least 100 ms late.
  EXPECT_GE(d->LongestStall(), 40 * kMillisecond) << "idle: " << idle << " ns";
}

// While the harness waits for a control reply its simulated clock stands still and nothing is
// read from the DUT's sockets, so the frames the DUT sends meanwhile reach the fabric all at once
// afterwards, their spacing lost. After a connect the DUT is timing its CONNECT_REQ: the wait is
// time the DUT went unserved (LongestStall), so that a verdict resting on those frames' spacing is
// not a FAIL. Here the daemon answers `connect` 3 ms late, sending its CONNECT_REQ and the
// retransmissions it times 1 ms and 3 ms after it meanwhile.
TEST(RefdTest, AWaitForASlowConnectReplyIsTimeTheDutWentUnserved) {
  auto d = Spawn(Refd("--fault reply-delay-us=3000"));
  ASSERT_TRUE(d);
  struct Count final : FrameSink {
    size_t frames = 0;
    void Send(std::span<const uint8_t>, uint8_t) override { ++frames; }
  } sink;
  ASSERT_TRUE(d->Start(Host(1), &sink).ok());  // answered 3 ms late too, before any frame: service
  TimeNs t = d->NextDeadline();
  d->OnTimer(t);  // the session's first tick starts the live clock
  const TimeNs before = d->LongestStall();
  ASSERT_TRUE(d->Connect(PeerInfo{Host(2).mac, Host(2).ip, 4797, {}}, t).ok());
  t = d->NextDeadline();
  d->OnTimer(t);
  ASSERT_TRUE(d->Failure().empty()) << d->Failure();
  EXPECT_GE(sink.frames, 2u) << "the CONNECT_REQ and its first retransmission, read together";
  EXPECT_GE(d->LongestStall(), 3 * kMillisecond) << "before the connect: " << before << " ns";
  EXPECT_LT(before, 3 * kMillisecond);
}

TEST(RefdTest, ARefusedCallIsTheDevicesAnswerNotAFailure) {
  auto d = Spawn(Refd());
  ASSERT_TRUE(d);
  LiveWire wire;
  ASSERT_TRUE(d->Start(Host(1), &wire.to_peer).ok());
  auto r = d->ReadBuffer(99, 0, 10);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(d->Failure().empty()) << d->Failure();
  auto again = d->Start(Host(1), &wire.to_peer);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("already started"), std::string::npos) << again.error().message;
}

TEST(RefdTest, AProcessThatExitsAtOnceIsNamedWithItsStatusAndStderr) {
  ProcessDut::Options o;
  o.command = "echo 'cannot open the NIC' >&2; exit 3";
  auto d = ProcessDut::Create(o);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("exited with status 3"), std::string::npos) << d.error().message;
  EXPECT_NE(d.error().message.find("cannot open the NIC"), std::string::npos) << d.error().message;
}

TEST(RefdTest, AProcessThatNeverAnswersTimesOut) {
  ProcessDut::Options o;
  o.command = "sleep 30";
  o.timeout_ms = 300;
  const auto t0 = Clock::now();
  auto d = ProcessDut::Create(o);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("did not answer 'hello' within 300 ms"), std::string::npos) << d.error().message;
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3)) << "the hung process must be killed, not waited for";
}

TEST(RefdTest, GarbageOnTheControlChannelBreaksTheProtocol) {
  ProcessDut::Options o;
  o.command = "echo 'Welcome to VendorNIC shell'; sleep 30";
  auto d = ProcessDut::Create(o);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("broke the control protocol: not JSON: 'Welcome to VendorNIC shell'"), std::string::npos)
      << d.error().message;
}

// Starts a live DUT that misbehaves after a few frames and drives a write into it until it fails.
std::string RunUntilFailure(const std::string& fault, int timeout_ms) {
  auto live = Spawn(Refd("--fault " + fault), timeout_ms);
  if (!live) return "spawn failed";
  LiveWire wire;
  ReferenceDut peer;
  EXPECT_TRUE(live->Start(Host(1), &wire.to_peer).ok());
  EXPECT_TRUE(peer.Start(Host(2), &wire.to_live).ok());
  auto src = peer.AllocBuffer(64000, kAccessLocalWrite);
  auto dst = live->AllocBuffer(64000, kAccessLocalWrite | kAccessRemoteWrite);
  EXPECT_TRUE(src.ok() && dst.ok());
  auto conn = peer.Connect(PeerInfo{Host(1).mac, Host(1).ip, 4797, {}}, wire.now());
  EXPECT_TRUE(conn.ok());
  bool established = false;
  wire.Run(*live, peer, [&] {
    for (auto& e : peer.PollEvents()) established = established || e.kind == ConnEventKind::kEstablished;
    return established;
  }, 2000);
  if (established) {
    EXPECT_TRUE(peer.PostWrite({.conn = conn.value(), .local = {src.value().id, 0, 64000},
                                .remote = {dst.value().va, dst.value().rkey}, .wr_id = 1},
                               wire.now()).ok());
    wire.Run(*live, peer, [&] { return false; }, 1500);
  }
  if (live->Failure().empty()) (void)live->Telemetry();  // a hung process shows on the next request
  EXPECT_EQ(live->NextDeadline(), kNever) << "a failed device asks for no more time";
  return live->Failure();
}

TEST(RefdTest, ACrashMidRunIsAFailureNamingTheSignal) {
  const std::string f = RunUntilFailure("crash-after-frames=3", 2000);
  EXPECT_NE(f.find("was killed by signal 6"), std::string::npos) << f;
  EXPECT_NE(f.find("crash-after-frames=3: aborting now"), std::string::npos) << f;
}

TEST(RefdTest, AHangMidRunIsAFailureAfterTheTimeout) {
  const std::string f = RunUntilFailure("hang-after-frames=3", 400);
  EXPECT_NE(f.find("within 400 ms (hung?)"), std::string::npos) << f;
}

TEST(RefdTest, GarbageMidRunIsAFailure) {
  const std::string f = RunUntilFailure("garbage-after-frames=3", 2000);
  EXPECT_NE(f.find("broke the control protocol: not JSON"), std::string::npos) << f;
}

TEST(ProcessSpecTest, OptionsComeBeforeTheCommand) {
  auto o = ProcessDut::ParseSpec("net=10.77.0.0,timeout_ms=250,tick_us=20,ip netns exec dut mroce-refd --quirk a,b=c");
  ASSERT_TRUE(o.ok()) << o.error().message;
  ASSERT_TRUE(o.value().net.has_value());
  EXPECT_EQ((*o.value().net)[1], 77);
  EXPECT_EQ(o.value().timeout_ms, 250);
  EXPECT_EQ(o.value().tick_ns, 20000);
  EXPECT_EQ(o.value().command, "ip netns exec dut mroce-refd --quirk a,b=c");
  EXPECT_EQ(ProcessDut::ParseSpec("mroce-refd").value().command, "mroce-refd");
  auto bad = ProcessDut::ParseSpec("net=10.77.0,mroce-refd");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("net=10.77.0"), std::string::npos) << bad.error().message;
  auto none = ProcessDut::ParseSpec("timeout_ms=100,");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no command"), std::string::npos);
  EXPECT_FALSE(ProcessDut::ParseSpec("timeout_ms=0,x").ok());
}

}  // namespace
}  // namespace mroce::dut
