// Test harness shared by the loopback and quirk tests: two reference endpoints joined by a tiny
// deterministic link that can drop, delay (reorder), duplicate and CE-mark frames by rule, driven
// by sim::Simulator (the only clock; equal times run in insertion order); every emitted frame is
// logged.
//
//   A (10.0.0.1) ==[ plane 0..P-1, 2 us + rule delay ]== B (10.0.0.2)
//
// Each endpoint's NextDeadline() is kept armed as one simulator event (sim::DeadlineTimer); frames
// in flight are simulator events too. Calls the test makes into an endpoint between runs are
// picked up when the next run starts (both timers are re-armed then).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "mroce/endpoint/endpoint.h"
#include "mroce/sim/deadline_timer.h"
#include "mroce/sim/simulator.h"
#include "mroce/wire/frame_view.h"

namespace mroce::ref::testing_loop {

struct Verdict {
  bool drop = false;
  TimeNs extra_delay = 0;
  bool duplicate = false;
  bool ce_mark = false;  // rewrite the IP ECN field to CE (congestion experienced)
};
// (direction 0 = A->B, frame view, now) -> what the link does.
using Rule = std::function<Verdict(int, const wire::FrameView&, TimeNs)>;

// A sink that keeps every frame an endpoint sends, for tests that drive an endpoint by hand.
struct CaptureSink : FrameSink {
  std::vector<std::vector<uint8_t>> frames;
  void Send(std::span<const uint8_t> f, uint8_t) override { frames.emplace_back(f.begin(), f.end()); }
};

class Loop {
 public:
  class Port : public FrameSink {
   public:
    Port(Loop* loop, int from) : loop_(loop), from_(from) {}
    void Send(std::span<const uint8_t> frame, uint8_t plane) override { loop_->Carry(from_, frame, plane); }

   private:
    Loop* loop_;
    int from_;
  };

  explicit Loop(EndpointConfig cfg, Rule rule = nullptr) : Loop(cfg, cfg, std::move(rule)) {}
  Loop(EndpointConfig acfg, EndpointConfig bcfg, Rule rule = nullptr) : rule_(std::move(rule)) {
    EndpointConfig a = acfg, b = bcfg;
    a.mac = {2, 0, 0, 0, 0, 1};
    a.ip = {10, 0, 0, 1};
    a.seed = 11;
    b.mac = {2, 0, 0, 0, 0, 2};
    b.ip = {10, 0, 0, 2};
    b.seed = 22;
    ep_[0] = std::make_unique<Endpoint>(a, &ports_[0]);
    ep_[1] = std::make_unique<Endpoint>(b, &ports_[1]);
    for (int i = 0; i < 2; ++i) timer_[i].emplace(&sim_, ep_[i].get());
  }

  Endpoint& a() { return *ep_[0]; }
  Endpoint& b() { return *ep_[1]; }
  TimeNs now() const { return sim_.Now().nanos(); }
  uint64_t frames() const { return frames_; }
  sim::Simulator& sim() { return sim_; }

  // Every frame an endpoint emitted, in emission order, with what the link did to it.
  struct Sent {
    int from;      // 0 = A, 1 = B
    TimeNs at;     // emission time, ns
    std::vector<uint8_t> bytes;
    bool dropped;
  };
  const std::vector<Sent>& log() const { return log_; }

  void Carry(int from, std::span<const uint8_t> frame, uint8_t plane) {
    ++frames_;
    Verdict v;
    if (rule_) {
      auto view = wire::FrameView::Locate(frame);
      if (view.ok()) v = rule_(from, *view, now());
    }
    log_.push_back(Sent{from, now(), std::vector<uint8_t>(frame.begin(), frame.end()), v.drop});
    if (v.drop) return;
    std::vector<uint8_t> bytes(frame.begin(), frame.end());
    if (v.ce_mark) {
      auto f = wire::ParseFrame(bytes);
      if (f.ok()) {
        if (f->ip4()) f->ip4()->ecn = wire::kEcnCe;
        if (f->ip6()) f->ip6()->ecn = wire::kEcnCe;
        bytes = wire::SerializeFrame(*f);
      }
    }
    const sim::Time at = sim_.Now() + sim::Duration::Nanos(2 * kMicrosecond + v.extra_delay);
    const int to = 1 - from;
    if (v.duplicate) {
      sim_.Schedule(at, [this, to, bytes, plane] { Deliver(to, bytes, plane); });
      sim_.Schedule(at + sim::Duration::Nanos(500), [this, to, bytes = std::move(bytes), plane] { Deliver(to, bytes, plane); });
    } else {
      sim_.Schedule(at, [this, to, bytes = std::move(bytes), plane] { Deliver(to, bytes, plane); });
    }
  }

  // Hand `bytes` to endpoint `to` (0 = A, 1 = B) at the current time, as if from the link.
  void Inject(int to, const std::vector<uint8_t>& bytes) { Deliver(to, bytes, 0); }

  // Run until `done()` or simulated `deadline`; returns done(). Stopped by the deadline, the clock
  // stands at the deadline.
  bool RunUntil(const std::function<bool()>& done, TimeNs deadline) {
    for (auto& t : timer_) t->Rearm();  // the test may have called into the endpoints
    return sim_.RunUntil(done, sim::Time::FromNanos(deadline));
  }

 private:
  void Deliver(int to, const std::vector<uint8_t>& bytes, uint8_t plane) {
    timer_[to]->Call([&](Endpoint& ep) { ep.OnFrame(bytes, plane, now()); });
  }

  sim::Simulator sim_;  // first: outlives the events and timers below
  Rule rule_;
  Port ports_[2] = {Port(this, 0), Port(this, 1)};
  std::unique_ptr<Endpoint> ep_[2];
  std::optional<sim::DeadlineTimer<Endpoint>> timer_[2];
  uint64_t frames_ = 0;
  std::vector<Sent> log_;
};

inline EndpointConfig BaseConfig() {
  EndpointConfig c;
  c.num_paths = 4;
  c.num_planes = 2;
  c.mtu = 1024;
  c.max_streams = 8;
  return c;
}

inline PeerAddress PeerB() {
  PeerAddress p;
  p.mac = {2, 0, 0, 0, 0, 2};
  p.ip = {10, 0, 0, 2};
  return p;
}

inline ConnId Establish(Loop& loop) {
  auto id = loop.a().Connect(PeerB(), {}, loop.now());
  EXPECT_TRUE(id.ok());
  bool up = false;
  EXPECT_TRUE(loop.RunUntil([&] {
    for (const ConnEvent& e : loop.a().PollEvents()) up |= e.kind == ConnEventKind::kEstablished;
    return up;
  }, loop.now() + 300 * kMillisecond));
  return id.value();
}

// A mixed workload: WRITE, SEND, READ, WRITE_IMM on several streams, with data checks.
struct Workload {
  static constexpr int kStreams = 4;
  static constexpr int kPerStream = 8;
  std::vector<uint8_t> src = std::vector<uint8_t>(1 << 20);       // A: source of WRITE/SEND
  std::vector<uint8_t> read_dst = std::vector<uint8_t>(1 << 20);  // A: READ destination
  std::vector<uint8_t> b_region = std::vector<uint8_t>(1 << 20);  // B: WRITE target
  std::vector<uint8_t> b_read = std::vector<uint8_t>(1 << 20);    // B: READ source
  std::vector<uint8_t> b_recv = std::vector<uint8_t>(1 << 20);    // B: receive buffers
  struct Expect {
    int op;  // 0 write, 1 send, 2 read, 3 write_imm
    uint32_t off;
    uint32_t len;
  };
  std::map<uint64_t, Expect> posted;  // wr_id -> what
  int expected_b_recvs = 0;
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> recv_slot;  // B wr_id -> (offset, len)

  void Run(Loop& loop, ConnId conn) {
    std::mt19937 rng(5);
    for (auto& x : src) x = static_cast<uint8_t>(rng());
    for (auto& x : b_read) x = static_cast<uint8_t>(rng());
    auto mr_b = loop.b().RegisterMemory(b_region.data(), b_region.size(), kAccessRemoteWrite);
    auto mr_r = loop.b().RegisterMemory(b_read.data(), b_read.size(), kAccessRemoteRead);
    ASSERT_TRUE(mr_b.ok() && mr_r.ok());
    const ConnId bconn = loop.b().connections().at(0);
    const uint32_t sizes[] = {1, 1024, 3000, 10000, 0, 2048, 7777, 20000};
    uint32_t cursor = 0;
    uint64_t wr = 1;
    uint64_t bwr = 1000;
    for (int i = 0; i < kPerStream; ++i) {
      for (uint16_t s = 0; s < kStreams; ++s) {
        const uint32_t len = sizes[(i + s) % 8];
        const int op = (i + s) % 4;
        const uint32_t off = cursor;
        cursor += len + 64;
        Status st = OkStatus();
        if (op == 0) {
          st = loop.a().PostWrite(conn, s, src.data() + off, len, mr_b->va + off, mr_b->rkey, wr, std::nullopt, loop.now());
        } else if (op == 1 || op == 3) {
          ASSERT_TRUE(loop.b().PostRecv(bconn, s, b_recv.data() + off, len + 64, bwr).ok());
          recv_slot[bwr++] = {off, len};
          ++expected_b_recvs;
          if (op == 1) {
            st = loop.a().PostSend(conn, s, src.data() + off, len, wr, std::nullopt, loop.now());
          } else {
            st = loop.a().PostWrite(conn, s, src.data() + off, len, mr_b->va + off, mr_b->rkey, wr,
                                    static_cast<uint32_t>(wr), loop.now());
          }
        } else {
          st = loop.a().PostRead(conn, s, read_dst.data() + off, len, mr_r->va + off, mr_r->rkey, wr, loop.now());
        }
        ASSERT_TRUE(st.ok()) << st.error().message;
        posted[wr++] = Expect{op, off, len};
      }
    }
  }

  // Drives the loop to completion and checks everything. Returns false on timeout.
  void Check(Loop& loop, TimeNs limit) {
    std::vector<Completion> a_done, b_done;
    const bool ok = loop.RunUntil([&] {
      for (const Completion& c : loop.a().PollCompletions()) a_done.push_back(c);
      for (const Completion& c : loop.b().PollCompletions()) b_done.push_back(c);
      return a_done.size() >= posted.size() && static_cast<int>(b_done.size()) >= expected_b_recvs;
    }, loop.now() + limit);
    ASSERT_TRUE(ok) << "timeout: A " << a_done.size() << "/" << posted.size() << " B " << b_done.size() << "/"
                    << expected_b_recvs;
    // Let stray duplicates arrive, then require nothing more (exactly once).
    loop.RunUntil([] { return false; }, loop.now() + 2 * kMillisecond);
    for (const Completion& c : loop.a().PollCompletions()) a_done.push_back(c);
    for (const Completion& c : loop.b().PollCompletions()) b_done.push_back(c);
    EXPECT_EQ(a_done.size(), posted.size());
    EXPECT_EQ(static_cast<int>(b_done.size()), expected_b_recvs);
    std::set<uint64_t> seen;
    std::map<uint16_t, Msn> last_msn;
    for (const Completion& c : a_done) {
      EXPECT_EQ(c.status, CompletionStatus::kSuccess) << CompletionStatusName(c.status);
      EXPECT_TRUE(seen.insert(c.wr_id).second) << "wr_id completed twice: " << c.wr_id;
      if (last_msn.contains(c.stream)) {
        EXPECT_GT(c.msn, last_msn[c.stream]) << "out of order on stream " << c.stream;
      }
      last_msn[c.stream] = c.msn;
      const Expect& e = posted.at(c.wr_id);
      if (e.op == 0 || e.op == 3) {
        EXPECT_TRUE(std::equal(src.begin() + e.off, src.begin() + e.off + e.len, b_region.begin() + e.off))
            << "WRITE data wr " << c.wr_id;
      } else if (e.op == 2) {
        EXPECT_TRUE(std::equal(b_read.begin() + e.off, b_read.begin() + e.off + e.len, read_dst.begin() + e.off))
            << "READ data wr " << c.wr_id;
      }
    }
    std::set<uint64_t> bseen;
    std::map<uint16_t, Msn> blast;
    for (const Completion& c : b_done) {
      EXPECT_EQ(c.status, CompletionStatus::kSuccess);
      EXPECT_TRUE(bseen.insert(c.wr_id).second) << "receive completed twice: " << c.wr_id;
      if (blast.contains(c.stream)) {
        EXPECT_GT(c.msn, blast[c.stream]);
      }
      blast[c.stream] = c.msn;
      const auto [off, len] = recv_slot.at(c.wr_id);
      EXPECT_EQ(c.byte_len, len);
      if (c.op == CompletionOp::kRecv) {
        EXPECT_TRUE(std::equal(src.begin() + off, src.begin() + off + len, b_recv.begin() + off)) << "SEND data";
      } else {
        EXPECT_TRUE(c.has_imm);
      }
    }
  }
};

inline const Connection& ConnA(Loop& loop) { return *loop.a().connection(loop.a().connections().at(0)); }
inline const Connection& ConnB(Loop& loop) { return *loop.b().connection(loop.b().connections().at(0)); }

inline bool IsData(const wire::FrameView& v) { return v.is_meta() && v.meta_opcode() >= 1 && v.meta_opcode() <= 6; }

// Parsed frames endpoint `from` emitted (0 = A, 1 = B) with MetaRoCE opcode `op`, in order;
// `delivered_only` skips frames the link dropped.
inline std::vector<wire::Frame> Frames(const Loop& loop, int from, wire::Opcode op, bool delivered_only = false) {
  std::vector<wire::Frame> out;
  for (const Loop::Sent& s : loop.log()) {
    if (s.from != from || (delivered_only && s.dropped)) continue;
    auto f = wire::ParseFrame(s.bytes);
    if (f.ok() && f->meta() != nullptr && f->meta()->ch.opcode == op) out.push_back(*f);
  }
  return out;
}

// A data packet as A would send it on B's connection, path 0, at B's current epoch and epsn.
struct DataSpec {
  wire::Opcode op = wire::Opcode::kWrite;
  uint16_t stream = 0;
  Msn msn = 0;
  uint32_t msg_len = 4;
  uint32_t offset = 0;
  uint32_t recv_seq = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  std::vector<uint8_t> payload = {1, 2, 3, 4};
  uint8_t ver = 1;
  int epoch_delta = 0;  // added to B's current epoch of path 0
  uint16_t flags = wire::kFlagAr;
};

inline std::vector<uint8_t> DataFrame(Loop& loop, const DataSpec& d) {
  const Connection& b = ConnB(loop);
  wire::Frame f;
  f.eth.src = {2, 0, 0, 0, 0, 1};
  f.eth.dst = {2, 0, 0, 0, 0, 2};
  wire::Ipv4Header ip;
  ip.src = {10, 0, 0, 1};
  ip.dst = {10, 0, 0, 2};
  f.ip = ip;
  f.udp.sport = 50000;
  f.udp.dport = 4797;
  wire::MetaPacket pkt;
  pkt.ch.ver = d.ver;
  pkt.ch.opcode = d.op;
  pkt.ch.dst_conn_id = b.id();
  pkt.ch.path_id = 0;
  pkt.ch.path_epoch = static_cast<uint8_t>(b.paths()[0].rx.epoch() + d.epoch_delta);
  pkt.ch.psn = b.paths()[0].rx.epsn();
  pkt.ch.flags = d.flags;
  pkt.ch.Set(wire::kFlagFirst, d.offset == 0);
  pkt.ch.Set(wire::kFlagLast, d.offset + d.payload.size() == d.msg_len);
  wire::MessageExt meh;
  meh.stream_id = d.stream;
  meh.msn = d.msn;
  meh.msg_len = d.msg_len;
  meh.msg_offset = d.offset;
  meh.recv_seq = d.recv_seq;
  meh.rkey = d.rkey;
  meh.va = d.va;
  pkt.ext = meh;
  pkt.payload = d.payload;
  f.l4 = pkt;
  return wire::SerializeFrame(f);
}

}  // namespace mroce::ref::testing_loop
