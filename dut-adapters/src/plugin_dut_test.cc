// The plugin adapter: the example plugin (the reference endpoint behind the C ABI) behaves on the
// wire exactly like the in-process ReferenceDut; loading errors name the path and the cause; the
// --dut plugin:PATH,key=value options reach the plugin; the C skeleton loads and answers honestly.
#include "plugin_dut.h"

#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <deque>

#include "mroce/dut/dut_spec.h"
#include "mroce/dut/reference_dut.h"

namespace mroce::dut {
namespace {

constexpr TimeNs kLinkDelay = 2000;  // ns, one way

struct InFlight {
  TimeNs at;
  int to;  // 0 or 1
  std::vector<uint8_t> frame;
  uint8_t plane;
};

// Two devices back to back with a fixed delay; every frame is also logged for comparison.
class Wire {
 public:
  class End final : public FrameSink {
   public:
    End(Wire* w, int self) : w_(w), self_(self) {}
    void Send(std::span<const uint8_t> f, uint8_t plane) override {
      w_->q_.push_back({w_->now_ + kLinkDelay, 1 - self_, {f.begin(), f.end()}, plane});
      w_->log_.push_back(w_->q_.back());
    }

   private:
    Wire* w_;
    int self_;
  };

  Wire() : ends_{End(this, 0), End(this, 1)} {}
  End* end(int i) { return &ends_[i]; }

  // Runs until `done` or `limit` ns; returns whether `done` held.
  template <typename Pred>
  bool Run(Dut& a, Dut& b, Pred done, TimeNs limit) {
    Dut* d[2] = {&a, &b};
    while (!done()) {
      TimeNs next = std::min(a.NextDeadline(), b.NextDeadline());
      auto it = std::min_element(q_.begin(), q_.end(), [](auto& x, auto& y) { return x.at < y.at; });
      if (it != q_.end()) next = std::min(next, it->at);
      if (next == kNever || next > limit) return false;
      now_ = std::max(now_, next);
      if (it != q_.end() && it->at <= now_) {
        InFlight f = std::move(*it);
        q_.erase(it);
        d[f.to]->OnFrame(f.frame, f.plane, now_);
        continue;
      }
      for (Dut* x : d) {
        if (x->NextDeadline() <= now_) x->OnTimer(now_);
      }
    }
    return true;
  }
  TimeNs now() const { return now_; }
  const std::vector<InFlight>& log() const { return log_; }

 private:
  TimeNs now_ = 0;
  std::deque<InFlight> q_;
  std::vector<InFlight> log_;
  End ends_[2];
};

HostConfig Host(uint8_t last_octet) {
  HostConfig h;
  h.mac = {0x02, 0, 0, 0, 0, last_octet};
  h.ip = {10, 0, 0, last_octet};
  h.num_paths = 4;
  return h;
}

std::unique_ptr<Dut> Example(const PluginDut::Options& options = {}) {
  auto d = PluginDut::Create(MROCE_EXAMPLE_PLUGIN, options);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return d.ok() ? std::unique_ptr<Dut>(std::move(d).value()) : nullptr;
}

// The WRITE scenario of reference_dut_test.cc; returns the frames both sides sent.
std::vector<InFlight> WriteScenario(Dut& a, Dut& b) {
  Wire wire;
  EXPECT_TRUE(a.Start(Host(1), wire.end(0)).ok());
  EXPECT_TRUE(b.Start(Host(2), wire.end(1)).ok());
  EXPECT_FALSE(a.Start(Host(1), wire.end(0)).ok()) << "second Start must be refused";

  auto src = a.AllocBuffer(20000, kAccessLocalWrite);
  auto dst = b.AllocBuffer(20000, kAccessLocalWrite | kAccessRemoteWrite);
  EXPECT_TRUE(src.ok() && dst.ok());
  if (!src.ok() || !dst.ok()) return {};
  std::vector<uint8_t> pattern(20000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  EXPECT_TRUE(a.WriteBuffer(src.value().id, 0, pattern).ok());

  PeerInfo peer{Host(2).mac, Host(2).ip, 4797, {}};
  auto conn = a.Connect(peer, wire.now());
  EXPECT_TRUE(conn.ok()) << conn.error().message;
  if (!conn.ok()) return {};
  bool established = false;
  EXPECT_TRUE(wire.Run(a, b, [&] {
    for (auto& e : a.PollEvents()) established = established || e.kind == ConnEventKind::kEstablished;
    return established;
  }, 10'000'000));

  EXPECT_TRUE(a.PostWrite({.conn = conn.value(), .local = {src.value().id, 0, 20000},
                           .remote = {dst.value().va, dst.value().rkey}, .wr_id = 77},
                          wire.now()).ok());
  std::vector<Completion> done;
  EXPECT_TRUE(wire.Run(a, b, [&] {
    for (auto& c : a.PollCompletions()) done.push_back(c);
    return !done.empty();
  }, 50'000'000));
  EXPECT_EQ(done.size(), 1u);
  if (done.size() == 1) {
    EXPECT_EQ(done[0].wr_id, 77u);
    EXPECT_EQ(done[0].op, OpKind::kWrite);
    EXPECT_EQ(done[0].status, OpStatus::kSuccess);
  }
  auto landed = b.ReadBuffer(dst.value().id, 0, 20000);
  EXPECT_TRUE(landed.ok());
  if (landed.ok()) EXPECT_EQ(landed.value(), pattern);

  auto tel = a.Telemetry();
  auto it = std::find_if(tel.begin(), tel.end(), [](const Counter& c) {
    return c.first.find(".tx_pkts") != std::string::npos && c.first.rfind("conn.", 0) == 0;
  });
  EXPECT_NE(it, tel.end()) << "no per-connection tx_pkts counter";
  if (it != tel.end()) EXPECT_GE(it->second, 5u);  // 20000 bytes at MTU 4096 = 5 data packets
  EXPECT_TRUE(a.StateBytes().has_value());
  return wire.log();
}

TEST(PluginDutTest, WriteThroughTheExamplePluginLandsAndCompletes) {
  auto a = Example(), b = Example();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->Identity(), "example-reference-plugin");
  EXPECT_TRUE(a->Caps().Has("write"));
  EXPECT_FALSE(WriteScenario(*a, *b).empty());
}

TEST(PluginDutTest, ExamplePluginSendsTheSameBytesAsTheInProcessReference) {
  ReferenceDut ra, rb;
  const auto expected = WriteScenario(ra, rb);
  auto pa = Example();
  ReferenceDut pb;  // plugin against the in-process endpoint, as in a test session
  ASSERT_TRUE(pa);
  const auto actual = WriteScenario(*pa, pb);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].at, expected[i].at) << "frame " << i;
    EXPECT_EQ(actual[i].plane, expected[i].plane) << "frame " << i;
    EXPECT_EQ(actual[i].frame, expected[i].frame) << "frame " << i;
  }
  EXPECT_EQ(ReferenceDut().Caps().features, pa->Caps().features);
}

// plane_link, appended to ABI 1, reaches the plugin: with the fail_on_link_down variant the paths
// on the plane whose link went down are FAILED at once (path state gauge 2, table 17.3); without
// it the device ignores the signal.
TEST(PluginDutTest, PlaneLinkReachesThePlugin) {
  for (const bool variant : {true, false}) {
    PluginDut::Options options;
    if (variant) options.push_back({"variant", "fail_on_link_down"});
    auto a = Example(options);
    ReferenceDut b;
    ASSERT_TRUE(a);
    Wire wire;
    HostConfig ha = Host(1), hb = Host(2);
    ha.num_planes = hb.num_planes = 2;
    ASSERT_TRUE(a->Start(ha, wire.end(0)).ok());
    ASSERT_TRUE(b.Start(hb, wire.end(1)).ok());
    auto conn = a->Connect(PeerInfo{hb.mac, hb.ip, 4797, {}}, wire.now());
    ASSERT_TRUE(conn.ok());
    bool established = false;
    ASSERT_TRUE(wire.Run(*a, b, [&] {
      for (auto& e : a->PollEvents()) established = established || e.kind == ConnEventKind::kEstablished;
      return established;
    }, 10'000'000));
    a->OnPlaneLink(1, false, wire.now());
    std::map<std::string, uint64_t> states;
    for (const Counter& c : a->Telemetry()) {
      if (c.first.rfind("path.", 0) == 0 && c.first.size() > 6 && c.first.substr(c.first.size() - 6) == ".state") states[c.first] = c.second;
    }
    ASSERT_EQ(states.size(), 4u);
    int failed = 0;
    for (const auto& [name, state] : states) failed += state == 2;  // FAILED
    EXPECT_EQ(failed, variant ? 2 : 0) << "paths 1 and 3 are on plane 1";
  }
}

TEST(PluginDutTest, ErrorsFromThePluginCarryItsMessage) {
  Wire wire;
  auto a = Example();
  ASSERT_TRUE(a);
  auto early = a->AllocBuffer(10, kAccessLocalWrite);
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.error().message.find("alloc_buffer: alloc_buffer before start"), std::string::npos)
      << early.error().message;
  ASSERT_TRUE(a->Start(Host(1), wire.end(0)).ok());
  auto b = a->AllocBuffer(100, kAccessLocalWrite);
  ASSERT_TRUE(b.ok());
  std::vector<uint8_t> bytes(50, 1);
  auto over = a->WriteBuffer(b.value().id, 51, bytes);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("outside buffer"), std::string::npos) << over.error().message;
  EXPECT_FALSE(a->ReadBuffer(9, 0, 1).ok());
}

TEST(PluginDutTest, BadPathNamesThePathAndDlerror) {
  auto d = PluginDut::Create("/nonexistent/libnope.so", {});
  ASSERT_FALSE(d.ok());
  const std::string& m = d.error().message;
  EXPECT_NE(m.find("plugin '/nonexistent/libnope.so'"), std::string::npos) << m;
  EXPECT_NE(m.find("dlopen failed"), std::string::npos) << m;
  EXPECT_NE(m.find("No such file or directory"), std::string::npos) << m;  // dlerror's own words
}

TEST(PluginDutTest, LibraryWithoutEntryPointIsRefused) {
  auto d = PluginDut::Create("libm.so.6", {});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("no entry point mroce_dut_plugin_v1"), std::string::npos) << d.error().message;
}

TEST(PluginDutTest, WrongAbiVersionIsRefused) {
  auto d = PluginDut::Create(MROCE_BAD_ABI_PLUGIN, {});
  ASSERT_FALSE(d.ok());
  const std::string& m = d.error().message;
  EXPECT_EQ(d.error().code, "plugin.abi");
  EXPECT_NE(m.find(MROCE_BAD_ABI_PLUGIN), std::string::npos) << m;
  EXPECT_NE(m.find("ABI version 99, but this mroce-cts speaks ABI version 1"), std::string::npos) << m;
}

TEST(PluginDutTest, SpecParsesPathThenOptions) {
  auto s = DutSpec::Parse("plugin:/opt/acme/libacme.so,quirk=go_back_n,mode=fast");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s.value().kind, "plugin");
  EXPECT_EQ(s.value().Values("path"), std::vector<std::string>{"/opt/acme/libacme.so"});
  EXPECT_EQ(s.value().Values("quirk"), std::vector<std::string>{"go_back_n"});
  EXPECT_EQ(s.value().Values("mode"), std::vector<std::string>{"fast"});
  auto only_path = DutSpec::Parse("plugin:libacme.so");
  ASSERT_TRUE(only_path.ok());
  EXPECT_EQ(only_path.value().Values("path"), std::vector<std::string>{"libacme.so"});
  auto explicit_path = DutSpec::Parse("plugin:path=/a=b/lib.so,x=1");
  ASSERT_TRUE(explicit_path.ok());
  EXPECT_EQ(explicit_path.value().Values("path"), std::vector<std::string>{"/a=b/lib.so"});
  EXPECT_FALSE(DutSpec::Parse("plugin:").ok());
  auto no_path = MakeDut(DutSpec::Parse("plugin:quirk=go_back_n").value());
  ASSERT_FALSE(no_path.ok());
  EXPECT_NE(no_path.error().message.find("plugin needs a shared object"), std::string::npos);
}

TEST(PluginDutTest, OptionsReachThePluginsCreate) {
  const std::string path = MROCE_EXAMPLE_PLUGIN;
  auto quirky = MakeDut(DutSpec::Parse("plugin:" + path + ",quirk=go_back_n").value());
  ASSERT_TRUE(quirky.ok()) << quirky.error().message;
  EXPECT_EQ(quirky.value()->Identity(), "example-reference-plugin:quirk=go_back_n");
  auto unknown = MakeDut(DutSpec::Parse("plugin:" + path + ",speed=1").value());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("create failed: unknown option 'speed' (known: quirk, variant)"), std::string::npos)
      << unknown.error().message;
  auto bad_quirk = MakeDut(DutSpec::Parse("plugin:" + path + ",quirk=no_such_quirk").value());
  ASSERT_FALSE(bad_quirk.ok());
  EXPECT_NE(bad_quirk.error().message.find("no_such_quirk"), std::string::npos);
}

TEST(PluginDutTest, SkeletonLoadsAndClaimsNothing) {
  auto d = MakeDut(DutSpec::Parse(std::string("plugin:") + MROCE_SKELETON_PLUGIN + ",label=lab").value());
  ASSERT_TRUE(d.ok()) << d.error().message;
  Dut& s = *d.value();
  EXPECT_EQ(s.Identity(), "skeleton:lab");
  EXPECT_TRUE(s.Caps().features.empty());
  Wire wire;
  ASSERT_TRUE(s.Start(Host(1), wire.end(0)).ok());
  auto b = s.AllocBuffer(64, kAccessLocalWrite);
  ASSERT_TRUE(b.ok());
  std::vector<uint8_t> bytes(64, 0xab);
  ASSERT_TRUE(s.WriteBuffer(b.value().id, 0, bytes).ok());
  EXPECT_EQ(s.ReadBuffer(b.value().id, 0, 64).value(), bytes);
  auto c = s.Connect(PeerInfo{Host(2).mac, Host(2).ip, 4797, {}}, 0);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "connect: skeleton: connections are not implemented");
  EXPECT_EQ(s.NextDeadline(), kNever);
  s.OnFrame(bytes, 0, 10);
  ASSERT_EQ(s.Telemetry().size(), 1u);
  EXPECT_EQ(s.Telemetry()[0], (Counter{"endpoint.rx_frames", 1}));
}

}  // namespace
}  // namespace mroce::dut
