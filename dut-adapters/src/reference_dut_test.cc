// Two ReferenceDuts wired back to back through an in-test queue: the adapter carries connection
// setup, memory, work requests, completions and telemetry faithfully.
#include "mroce/dut/reference_dut.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

namespace mroce::dut {
namespace {

constexpr TimeNs kLinkDelay = 2000;  // ns, one way

struct InFlight {
  TimeNs at;
  int to;  // 0 or 1
  std::vector<uint8_t> frame;
  uint8_t plane;
};

class Wire {
 public:
  class End final : public FrameSink {
   public:
    End(Wire* w, int self) : w_(w), self_(self) {}
    void Send(std::span<const uint8_t> f, uint8_t plane) override {
      w_->q_.push_back({w_->now_ + kLinkDelay, 1 - self_, {f.begin(), f.end()}, plane});
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

 private:
  TimeNs now_ = 0;
  std::deque<InFlight> q_;
  End ends_[2];
};

HostConfig Host(uint8_t last_octet) {
  HostConfig h;
  h.mac = {0x02, 0, 0, 0, 0, last_octet};
  h.ip = {10, 0, 0, last_octet};
  h.num_paths = 4;
  return h;
}

TEST(ReferenceDutTest, WriteThroughTheAdapterLandsAndCompletes) {
  Wire wire;
  ReferenceDut a, b;
  ASSERT_TRUE(a.Start(Host(1), wire.end(0)).ok());
  ASSERT_TRUE(b.Start(Host(2), wire.end(1)).ok());
  EXPECT_FALSE(a.Start(Host(1), wire.end(0)).ok()) << "second Start must be refused";

  auto src = a.AllocBuffer(20000, kAccessLocalWrite);
  auto dst = b.AllocBuffer(20000, kAccessLocalWrite | kAccessRemoteWrite);
  ASSERT_TRUE(src.ok() && dst.ok());
  std::vector<uint8_t> pattern(20000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_TRUE(a.WriteBuffer(src.value().id, 0, pattern).ok());

  PeerInfo peer{Host(2).mac, Host(2).ip, 4797, {}};
  auto conn = a.Connect(peer, wire.now());
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  bool established = false;
  ASSERT_TRUE(wire.Run(a, b, [&] {
    for (auto& e : a.PollEvents()) established = established || e.kind == ConnEventKind::kEstablished;
    return established;
  }, 10'000'000));

  ASSERT_TRUE(a.PostWrite({.conn = conn.value(), .local = {src.value().id, 0, 20000},
                           .remote = {dst.value().va, dst.value().rkey}, .wr_id = 77},
                          wire.now()).ok());
  std::vector<Completion> done;
  ASSERT_TRUE(wire.Run(a, b, [&] {
    for (auto& c : a.PollCompletions()) done.push_back(c);
    return !done.empty();
  }, 50'000'000));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].wr_id, 77u);
  EXPECT_EQ(done[0].op, OpKind::kWrite);
  EXPECT_EQ(done[0].status, OpStatus::kSuccess);
  auto landed = b.ReadBuffer(dst.value().id, 0, 20000);
  ASSERT_TRUE(landed.ok());
  EXPECT_EQ(landed.value(), pattern);

  auto tel = a.Telemetry();
  auto it = std::find_if(tel.begin(), tel.end(), [](const Counter& c) {
    return c.first.find(".tx_pkts") != std::string::npos && c.first.rfind("conn.", 0) == 0;
  });
  ASSERT_NE(it, tel.end()) << "no per-connection tx_pkts counter";
  EXPECT_GE(it->second, 5u);  // 20000 bytes at MTU 4096 = 5 data packets, plus setup
  ASSERT_TRUE(a.StateBytes().has_value());
  EXPECT_GT(*a.StateBytes(), 0u);
}

TEST(ReferenceDutTest, BufferBoundsAreChecked) {
  Wire wire;
  ReferenceDut a;
  ASSERT_TRUE(a.Start(Host(1), wire.end(0)).ok());
  auto b = a.AllocBuffer(100, kAccessLocalWrite);
  ASSERT_TRUE(b.ok());
  std::vector<uint8_t> bytes(50, 1);
  EXPECT_TRUE(a.WriteBuffer(b.value().id, 50, bytes).ok());
  auto over = a.WriteBuffer(b.value().id, 51, bytes);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("outside buffer"), std::string::npos);
  EXPECT_FALSE(a.ReadBuffer(9, 0, 1).ok());
}

}  // namespace
}  // namespace mroce::dut
