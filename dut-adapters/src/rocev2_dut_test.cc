// The RoCEv2 adapter: out-of-band QP setup through PrepareConnection/Connect, then a WRITE.
#include "mroce/dut/rocev2_dut.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include "mroce/dut/dut_spec.h"

namespace mroce::dut {
namespace {

struct Pending {
  TimeNs at;
  int to;
  std::vector<uint8_t> frame;
};

class Link {
 public:
  class End final : public FrameSink {
   public:
    End(Link* l, int self) : l_(l), self_(self) {}
    void Send(std::span<const uint8_t> f, uint8_t) override { l_->q_.push_back({l_->now_ + 1000, 1 - self_, {f.begin(), f.end()}}); }

   private:
    Link* l_;
    int self_;
  };
  End a{this, 0}, b{this, 1};
  TimeNs now_ = 0;
  std::deque<Pending> q_;

  template <typename Pred>
  bool Run(Dut& x, Dut& y, Pred done) {
    Dut* d[2] = {&x, &y};
    while (!done()) {
      TimeNs next = std::min(x.NextDeadline(), y.NextDeadline());
      if (!q_.empty()) next = std::min(next, q_.front().at);
      if (next == kNever || next > 100'000'000) return false;
      now_ = std::max(now_, next);
      if (!q_.empty() && q_.front().at <= now_) {
        Pending p = std::move(q_.front());
        q_.pop_front();
        d[p.to]->OnFrame(p.frame, 0, now_);
        continue;
      }
      for (Dut* z : d) {
        if (z->NextDeadline() <= now_) z->OnTimer(now_);
      }
    }
    return true;
  }
};

HostConfig Host(uint8_t n) {
  HostConfig h;
  h.mac = {2, 0, 0, 0, 0, n};
  h.ip = {10, 0, 0, n};
  return h;
}

TEST(Rocev2DutTest, OutOfBandSetupThenWrite) {
  auto made = MakeDut(DutSpec::Parse("rocev2").value());
  ASSERT_TRUE(made.ok());
  Rocev2Dut b;
  Dut& a = *made.value();
  EXPECT_EQ(a.Identity(), "rocev2");
  EXPECT_FALSE(a.Caps().in_band_connect);
  Link link;
  ASSERT_TRUE(a.Start(Host(1), &link.a).ok());
  ASSERT_TRUE(b.Start(Host(2), &link.b).ok());

  PeerInfo no_oob{Host(2).mac, Host(2).ip, 4791, {}};
  auto refused = a.Connect(no_oob, 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("no in-band connection setup"), std::string::npos);

  auto ai = a.PrepareConnection(0, 0);
  auto bi = b.PrepareConnection(0, 0);
  ASSERT_TRUE(ai.ok() && bi.ok());
  auto ah = a.Connect({Host(2).mac, Host(2).ip, 4791, bi.value()}, 0);
  auto bh = b.Connect({Host(1).mac, Host(1).ip, 4791, ai.value()}, 0);
  ASSERT_TRUE(ah.ok()) << ah.error().message;
  ASSERT_TRUE(bh.ok()) << bh.error().message;
  auto ev = a.PollEvents();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ConnEventKind::kEstablished);

  auto src = a.AllocBuffer(10000, kAccessLocalWrite);
  auto dst = b.AllocBuffer(10000, kAccessLocalWrite | kAccessRemoteWrite);
  ASSERT_TRUE(src.ok() && dst.ok());
  std::vector<uint8_t> data(10000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i ^ 0x5a);
  ASSERT_TRUE(a.WriteBuffer(src.value().id, 0, data).ok());
  ASSERT_TRUE(a.PostWrite({.conn = ah.value(), .stream = 3, .local = {src.value().id, 0, 10000},
                           .remote = {dst.value().va, dst.value().rkey}, .wr_id = 9},
                          0).ok());
  std::vector<Completion> done;
  ASSERT_TRUE(link.Run(a, b, [&] {
    for (auto& c : a.PollCompletions()) done.push_back(c);
    return !done.empty();
  }));
  EXPECT_EQ(done[0].wr_id, 9u);
  EXPECT_EQ(done[0].stream, 3) << "the stream the harness posted on is reported back";
  EXPECT_EQ(done[0].status, OpStatus::kSuccess);
  EXPECT_EQ(b.ReadBuffer(dst.value().id, 0, 10000).value(), data);
  bool has_alias = false;
  for (const auto& [name, v] : a.Telemetry()) has_alias = has_alias || name == "endpoint.rto_events";
  EXPECT_TRUE(has_alias);
}

}  // namespace
}  // namespace mroce::dut
