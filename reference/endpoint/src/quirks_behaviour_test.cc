// One test per quirk: the pristine endpoint does X, the quirky one does Y, observed on the wire,
// in completions or in counters. Quirks go_back_n, single_path and reorder_is_loss are covered in
// loopback_test.cc and accept_bad_crc in the Endpoint tests there; the table at the end checks that
// every quirk has its test.
#include <gtest/gtest.h>

#include "test_loop.h"

namespace mroce::ref {
namespace {

using namespace testing_loop;  // NOLINT

EndpointConfig WithQuirks(const char* q, EndpointConfig c = BaseConfig()) {
  c.quirks = *Quirks::Parse(q);
  return c;
}

EndpointConfig OnePath(EndpointConfig c = BaseConfig()) {
  c.num_paths = 1;
  c.num_planes = 1;
  return c;
}

// MEH fields of a data frame (MEH follows the 16-byte CH).
uint16_t MehStream(const wire::FrameView& v) { const uint8_t* m = v.udp_payload().data() + 16; return static_cast<uint16_t>(m[0] << 8 | m[1]); }
uint32_t Be32(const uint8_t* p) { return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3]; }
uint32_t MehMsn(const wire::FrameView& v) { return Be32(v.udp_payload().data() + 16 + 4); }
uint32_t MehOffset(const wire::FrameView& v) { return Be32(v.udp_payload().data() + 16 + 12); }

std::vector<Completion> RunFor(Loop& loop, Endpoint& ep, size_t n, TimeNs limit) {
  std::vector<Completion> out;
  loop.RunUntil([&] {
    for (auto& c : ep.PollCompletions()) out.push_back(c);
    return out.size() >= n;
  }, loop.now() + limit);
  return out;
}

uint64_t SumTx(const Connection& c, PathCounter k) {
  uint64_t s = 0;
  for (int p = 0; p < c.paths().size(); ++p) s += c.paths()[p].counters.Get(k);
  return s;
}

uint64_t LossyRetransmits(const char* quirks) {
  std::mt19937_64 rng(9);
  Loop loop(WithQuirks(quirks), [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    out.drop = IsData(v) && rng() % 50 == 0;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 500 * kMillisecond);
  return ConnA(loop).counters().Get(ConnCounter::kRetransmits);
}

TEST(QuirkBehaviour, RetransmitAllAfterGap) {
  EXPECT_GT(LossyRetransmits("retransmit_all_after_gap"), LossyRetransmits(""));
}

TEST(QuirkBehaviour, NoEntropyChange) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q), [](int dir, const wire::FrameView& v, TimeNs now) {
      Verdict out;
      out.drop = dir == 0 && IsData(v) && v.meta_path_id() == 1 && now < 10 * kMillisecond;
      return out;
    });
    const ConnId conn = Establish(loop);
    Workload w;
    w.Run(loop, conn);
    w.Check(loop, 100 * kMillisecond);
    std::set<uint16_t> ports;
    for (const wire::Frame& f : Frames(loop, 0, wire::Opcode::kWrite)) {
      if (f.meta()->ch.path_id == 1) ports.insert(f.udp.sport);
    }
    return std::make_pair(ConnA(loop).paths()[1].counters.Get(PathCounter::kEntropyRerolls), ports.size());
  };
  const auto spec = run("");
  const auto quirk = run("no_entropy_change");
  EXPECT_GT(spec.first, 0u);
  EXPECT_GT(spec.second, 1u);  // path 1 left through several source ports
  EXPECT_EQ(quirk.first, 0u);
  EXPECT_EQ(quirk.second, 1u);
}

TEST(QuirkBehaviour, IgnoreEcn) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.ce_mark = dir == 0 && IsData(v);
      return out;
    });
    const ConnId conn = Establish(loop);
    Workload w;
    w.Run(loop, conn);
    w.Check(loop, 200 * kMillisecond);
    return SumTx(ConnA(loop), PathCounter::kCwndDecreases);
  };
  EXPECT_GT(run(""), 0u);
  EXPECT_EQ(run("ignore_ecn"), 0u);
}

TEST(QuirkBehaviour, IgnoreRateHint) {
  // B can take 2 Gb/s (CMH max_rate) and hints half of it (U = 0.5): 1000 Mb/s.
  auto run = [](const char* q) {
    EndpointConfig a = WithQuirks(q), b = WithQuirks(q);
    b.link_capacity_mbps = 2000;
    b.hint_utilisation_permille = 500;
    Loop loop(a, b);
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(200000, 1), region(200000);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    const TimeNs start = loop.now();
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 200000, mr->va, mr->rkey, 1, std::nullopt, start).ok());
    auto c = RunFor(loop, loop.a(), 1, 50 * kMillisecond);
    EXPECT_EQ(c.size(), 1u);
    return loop.now() - start;
  };
  const TimeNs spec = run("");
  const TimeNs quirk = run("ignore_rate_hint");
  EXPECT_GE(spec, 1600 * kMicrosecond);  // 200 KB at 1000 Mb/s
  EXPECT_LT(quirk, spec * 3 / 4);
}

TEST(QuirkBehaviour, ConstantRateHint) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q));
    const ConnId c1 = Establish(loop);
    const ConnId c2 = Establish(loop);
    std::vector<uint8_t> src(100000, 1), region(200000);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(c1, 0, src.data(), 100000, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    EXPECT_TRUE(loop.a().PostWrite(c2, 0, src.data(), 100000, mr->va + 100000, mr->rkey, 2, std::nullopt, loop.now()).ok());
    (void)RunFor(loop, loop.a(), 2, 50 * kMillisecond);
    uint32_t lowest = UINT32_MAX;
    for (const wire::Frame& f : Frames(loop, 1, wire::Opcode::kAck)) lowest = std::min(lowest, f.meta()->ack()->rate_hint);
    return lowest;
  };
  EXPECT_EQ(run(""), 47500u);  // two active senders share 95 Gb/s
  EXPECT_EQ(run("constant_rate_hint"), 95000u);
}

TEST(QuirkBehaviour, CompleteOutOfOrder) {
  auto run = [](const char* q) {
    bool dropped = false;
    Loop loop(WithQuirks(q), [&](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      if (dir == 0 && IsData(v) && MehMsn(v) == 0 && MehOffset(v) == 0 && !dropped) out.drop = dropped = true;
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(4096, 1), region(8192);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 2048, mr->va, mr->rkey, 100, std::nullopt, loop.now()).ok());
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 100, mr->va + 4096, mr->rkey, 101, std::nullopt, loop.now()).ok());
    auto c = RunFor(loop, loop.a(), 2, 20 * kMillisecond);
    EXPECT_EQ(c.size(), 2u);
    return c.empty() ? 0 : c[0].wr_id;
  };
  EXPECT_EQ(run(""), 100u);
  EXPECT_EQ(run("complete_out_of_order"), 101u);
}

TEST(QuirkBehaviour, HolBlockStreams) {
  auto run = [](const char* q) {
    bool dropped = false;
    Loop loop(WithQuirks(q), [&](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      if (dir == 0 && IsData(v) && MehStream(v) == 0 && MehOffset(v) == 1024 && !dropped) out.drop = dropped = true;
      return out;
    });
    const ConnId conn = Establish(loop);
    const ConnId bconn = loop.b().connections().at(0);
    std::vector<uint8_t> src(4096, 1), dst(8192);
    EXPECT_TRUE(loop.b().PostRecv(bconn, 0, dst.data(), 4096, 500).ok());
    EXPECT_TRUE(loop.b().PostRecv(bconn, 1, dst.data() + 4096, 4096, 501).ok());
    EXPECT_TRUE(loop.a().PostSend(conn, 0, src.data(), 2048, 1, std::nullopt, loop.now()).ok());
    EXPECT_TRUE(loop.a().PostSend(conn, 1, src.data(), 100, 2, std::nullopt, loop.now()).ok());
    auto c = RunFor(loop, loop.b(), 2, 20 * kMillisecond);
    EXPECT_EQ(c.size(), 2u);
    return c.empty() ? 0 : c[0].wr_id;
  };
  EXPECT_EQ(run(""), 501u);  // stream 1 does not wait for stream 0 (MROCE-CMPL-008)
  EXPECT_EQ(run("hol_block_streams"), 500u);
}

TEST(QuirkBehaviour, DoubleCompletionOnDup) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.duplicate = dir == 0 && IsData(v);
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(100, 1), dst(100);
    EXPECT_TRUE(loop.b().PostRecv(loop.b().connections().at(0), 0, dst.data(), 100, 7).ok());
    EXPECT_TRUE(loop.a().PostSend(conn, 0, src.data(), 100, 1, std::nullopt, loop.now()).ok());
    return RunFor(loop, loop.b(), 99, 2 * kMillisecond).size();
  };
  EXPECT_EQ(run(""), 1u);
  EXPECT_EQ(run("double_completion_on_dup"), 2u);
}

// A WRITE of 4 bytes to B's region, completed; then `inject` goes to B. Returns the region.
template <typename Inject>
std::vector<uint8_t> AfterWrite(const char* q, Inject inject, Loop** out_loop = nullptr) {
  static std::vector<uint8_t> region;
  region.assign(64, 0);
  auto loop = std::make_unique<Loop>(WithQuirks(q, OnePath()));
  const ConnId conn = Establish(*loop);
  std::vector<uint8_t> src = {5, 5, 5, 5};
  auto mr = loop->b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
  EXPECT_TRUE(loop->a().PostWrite(conn, 0, src.data(), 4, mr->va, mr->rkey, 1, std::nullopt, loop->now()).ok());
  EXPECT_EQ(RunFor(*loop, loop->a(), 1, 5 * kMillisecond).size(), 1u);
  inject(*loop, *mr);
  loop->RunUntil([] { return false; }, loop->now() + 100 * kMicrosecond);
  if (out_loop != nullptr) *out_loop = loop.release();
  return region;
}

TEST(QuirkBehaviour, PlaceStalePacket) {
  auto stale = [](Loop& loop, const MemoryRegion& mr) {
    DataSpec d;  // msn 0 again (finished: below the stream base), a new PSN, other bytes
    d.rkey = mr.rkey;
    d.va = mr.va;
    d.payload = {9, 9, 9, 9};
    loop.Inject(1, DataFrame(loop, d));
  };
  EXPECT_EQ(AfterWrite("", stale)[0], 5);
  EXPECT_EQ(AfterWrite("place_stale_packet", stale)[0], 9);
}

TEST(QuirkBehaviour, AcceptUnknownVersion) {
  auto v2 = [](Loop& loop, const MemoryRegion& mr) {
    DataSpec d;
    d.msn = 1;
    d.rkey = mr.rkey;
    d.va = mr.va;
    d.payload = {7, 7, 7, 7};
    d.ver = 2;
    loop.Inject(1, DataFrame(loop, d));
  };
  Loop* spec_loop = nullptr;
  EXPECT_EQ(AfterWrite("", v2, &spec_loop)[0], 5);
  EXPECT_EQ(ConnB(*spec_loop).counters().Get(ConnCounter::kBadVersionRx), 1u);  // MROCE-HDR-002
  delete spec_loop;
  EXPECT_EQ(AfterWrite("accept_unknown_version", v2)[0], 7);
}

TEST(QuirkBehaviour, AcceptStaleEpoch) {
  auto old_epoch = [](Loop& loop, const MemoryRegion& mr) {
    DataSpec d;
    d.msn = 1;
    d.rkey = mr.rkey;
    d.va = mr.va;
    d.payload = {8, 8, 8, 8};
    d.epoch_delta = -1;  // epoch 255: serially below 0
    loop.Inject(1, DataFrame(loop, d));
  };
  Loop* spec_loop = nullptr;
  EXPECT_EQ(AfterWrite("", old_epoch, &spec_loop)[0], 5);
  EXPECT_EQ(ConnB(*spec_loop).paths()[0].rx_counters.Get(PathRxCounter::kStaleEpochRx), 1u);  // MROCE-DUP-003
  delete spec_loop;
  EXPECT_EQ(AfterWrite("accept_stale_epoch", old_epoch)[0], 8);
}

TEST(QuirkBehaviour, NoResourceLimit) {
  auto beyond = [](Loop& loop, const MemoryRegion& mr) {
    DataSpec d;
    d.msn = 1 + 1024;  // base is 1: msn base + 1024 is beyond the stream window
    d.rkey = mr.rkey;
    d.va = mr.va;
    d.payload = {6, 6, 6, 6};
    loop.Inject(1, DataFrame(loop, d));
  };
  Loop* spec_loop = nullptr;
  EXPECT_EQ(AfterWrite("", beyond, &spec_loop)[0], 5);
  const auto nacks = Frames(*spec_loop, 1, wire::Opcode::kNack);
  ASSERT_EQ(nacks.size(), 1u);
  EXPECT_EQ(nacks[0].meta()->nack()->code, wire::NackCode::kResource);  // MROCE-STRM-012
  delete spec_loop;
  Loop* quirk_loop = nullptr;
  EXPECT_EQ(AfterWrite("no_resource_limit", beyond, &quirk_loop)[0], 6);
  EXPECT_TRUE(Frames(*quirk_loop, 1, wire::Opcode::kNack).empty());
  delete quirk_loop;
}

TEST(QuirkBehaviour, SkipRkeyBoundsCheck) {
  auto run = [](const char* q, std::vector<uint8_t>& memory) {
    Loop loop(WithQuirks(q));
    const ConnId conn = Establish(loop);
    memory.assign(200, 0);
    std::vector<uint8_t> src(150, 4);
    auto mr = loop.b().RegisterMemory(memory.data(), 100, kAccessRemoteWrite);  // only 100 bytes
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 150, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    auto c = RunFor(loop, loop.a(), 1, 5 * kMillisecond);
    return c.empty() ? CompletionStatus::kFlushed : c[0].status;
  };
  std::vector<uint8_t> spec_mem, quirk_mem;
  EXPECT_EQ(run("", spec_mem), CompletionStatus::kRemoteAccess);
  EXPECT_EQ(spec_mem[0], 0);  // nothing placed (MROCE-PLACE-001)
  EXPECT_EQ(run("skip_rkey_bounds_check", quirk_mem), CompletionStatus::kSuccess);
  // The deviation is on the wire (acked and completed instead of NACK REMOTE_ACCESS); the reference
  // still never touches memory outside the region it was given.
  EXPECT_EQ(quirk_mem[120], 0);
}

TEST(QuirkBehaviour, DropSendWithoutRnr) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q));
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(10, 1);
    EXPECT_TRUE(loop.a().PostSend(conn, 0, src.data(), 10, 1, std::nullopt, loop.now()).ok());
    loop.RunUntil([] { return false; }, loop.now() + 15 * kMicrosecond);
    return Frames(loop, 1, wire::Opcode::kNack).size() + Frames(loop, 1, wire::Opcode::kAck).size();
  };
  EXPECT_EQ(run(""), 1u);  // NACK RNR
  EXPECT_EQ(run("drop_send_without_rnr"), 0u);
}

TEST(QuirkBehaviour, RetryForever) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q));
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(10, 1);
    EXPECT_TRUE(loop.a().PostSend(conn, 0, src.data(), 10, 1, std::nullopt, loop.now()).ok());
    auto c = RunFor(loop, loop.a(), 1, 3 * kMillisecond);
    return std::make_pair(c.size(), Frames(loop, 1, wire::Opcode::kNack).size());
  };
  const auto spec = run("");
  const auto quirk = run("retry_forever");
  EXPECT_EQ(spec.first, 1u);   // RNR_RETRY_EXC_ERR after the eighth RNR NACK
  EXPECT_EQ(spec.second, 8u);
  EXPECT_EQ(quirk.first, 0u);
  EXPECT_GT(quirk.second, 8u);
}

TEST(QuirkBehaviour, SackOffByOne) {
  auto run = [](const char* q) {
    bool dropped = false;
    Loop loop(WithQuirks(q, OnePath()), [&](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      if (dir == 0 && IsData(v) && v.meta_psn() == 0 && !dropped) out.drop = dropped = true;
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(3072, 1), region(3072);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 3072, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    loop.RunUntil([] { return false; }, loop.now() + 10 * kMicrosecond);
    const auto acks = Frames(loop, 1, wire::Opcode::kAck);
    EXPECT_FALSE(acks.empty());
    return acks.empty() ? wire::AckHeader{} : *acks[0].meta()->ack();
  };
  const wire::AckHeader spec = run("");
  EXPECT_EQ(spec.epsn, 0u);
  EXPECT_TRUE(spec.SackBit(0));  // PSN 1 = epsn + 1 + 0
  const wire::AckHeader quirk = run("sack_off_by_one");
  EXPECT_FALSE(quirk.SackBit(0));
  EXPECT_TRUE(quirk.SackBit(1));
}

TEST(QuirkBehaviour, NeverReintroducePath) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q), [](int dir, const wire::FrameView& v, TimeNs now) {
      Verdict out;
      out.drop = dir == 0 && v.is_meta() && v.meta_path_id() == 1 && v.meta_opcode() != 0x20 && now < 20 * kMillisecond;
      return out;
    });
    const ConnId conn = Establish(loop);
    Workload w;
    w.Run(loop, conn);
    w.Check(loop, 100 * kMillisecond);
    loop.RunUntil([] { return false; }, 40 * kMillisecond);
    const Path& p1 = ConnA(loop).paths()[1];
    return std::make_pair(p1.state(), p1.counters.Get(PathCounter::kProbesTx));
  };
  const auto spec = run("");
  EXPECT_EQ(spec.first, PathState::kActive);
  EXPECT_GT(spec.second, 0u);
  const auto quirk = run("never_reintroduce_path");
  EXPECT_EQ(quirk.first, PathState::kFailed);
  EXPECT_EQ(quirk.second, 0u);
}

TEST(QuirkBehaviour, NoAckCoalescingLimit) {
  // B hints 950 Mb/s: the 4 packets of one WRITE arrive about 9 us apart, so only the 4 us
  // coalescing timer acknowledges the early ones.
  auto run = [](const char* q) {
    EndpointConfig a = WithQuirks(q, OnePath()), b = WithQuirks(q, OnePath());
    b.link_capacity_mbps = 1000;
    Loop loop(a, b);
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(4096, 1), region(4096);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 4096, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
    return Frames(loop, 1, wire::Opcode::kAck).size();
  };
  EXPECT_GE(run(""), 3u);
  EXPECT_EQ(run("no_ack_coalescing_limit"), 1u);
}

TEST(QuirkBehaviour, NoRtoBackoff) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.drop = dir == 0 && IsData(v);
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(10, 1), region(10);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    const TimeNs start = loop.now();
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 10, mr->va, mr->rkey, 1, std::nullopt, start).ok());
    loop.RunUntil([] { return false; }, start + 2500 * kMicrosecond);
    return ConnA(loop).paths()[0].counters.Get(PathCounter::kRtoEvents);
  };
  EXPECT_EQ(run(""), 1u);  // 1 ms, then 2 ms (MROCE-RTO-006)
  EXPECT_EQ(run("no_rto_backoff"), 2u);
}

// The first data packet of path 0 is lost once; where and how does its content go again?
std::vector<wire::Frame> RetransmissionsOfLostPsn0(const char* q) {
  bool dropped = false;
  Loop loop(WithQuirks(q), [&](int dir, const wire::FrameView& v, TimeNs) {
    Verdict out;
    if (dir == 0 && IsData(v) && v.meta_path_id() == 0 && v.meta_psn() == 0 && !dropped) out.drop = dropped = true;
    return out;
  });
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(16 * 1024, 1), region(16 * 1024);
  auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
  EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 16 * 1024, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
  EXPECT_EQ(RunFor(loop, loop.a(), 1, 10 * kMillisecond).size(), 1u);
  std::vector<wire::Frame> out;
  for (const wire::Frame& f : Frames(loop, 0, wire::Opcode::kWrite)) {
    if (f.meta()->ch.Has(wire::kFlagRtx) && f.meta()->meh()->msg_offset == 0) out.push_back(f);
  }
  return out;
}

TEST(QuirkBehaviour, RetransmitNewPsn) {
  const auto spec = RetransmissionsOfLostPsn0("");
  ASSERT_EQ(spec.size(), 1u);
  EXPECT_EQ(spec[0].meta()->ch.path_id, 0);
  EXPECT_EQ(spec[0].meta()->ch.psn, 0u);  // MROCE-LOSS-002: same path, same PSN
  const auto quirk = RetransmissionsOfLostPsn0("retransmit_new_psn");
  ASSERT_EQ(quirk.size(), 1u);
  EXPECT_NE(quirk[0].meta()->ch.psn, 0u);
}

TEST(QuirkBehaviour, RetransmitOtherPath) {
  const auto quirk = RetransmissionsOfLostPsn0("retransmit_other_path");
  ASSERT_EQ(quirk.size(), 1u);
  EXPECT_NE(quirk[0].meta()->ch.path_id, 0);
}

TEST(QuirkBehaviour, NoCeEcho) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.ce_mark = dir == 0 && IsData(v);
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(8192, 1), region(8192);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 8192, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
    int echoed = 0;
    for (const wire::Frame& f : Frames(loop, 1, wire::Opcode::kAck)) {
      echoed += f.meta()->ch.Has(wire::kFlagEce) || f.meta()->ack()->ce_count > 0;
    }
    return echoed;
  };
  EXPECT_GT(run(""), 0);
  EXPECT_EQ(run("no_ce_echo"), 0);
}

TEST(QuirkBehaviour, NoDupAck) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.duplicate = dir == 0 && IsData(v);
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(100, 1), region(100);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 100, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    loop.RunUntil([] { return false; }, loop.now() + 1 * kMillisecond);
    return Frames(loop, 1, wire::Opcode::kAck).size();
  };
  EXPECT_EQ(run(""), 2u);  // the packet and its duplicate (MROCE-ACK-007)
  EXPECT_EQ(run("no_dup_ack"), 1u);
}

TEST(QuirkBehaviour, IgnoreWindow) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(16 * 1024, 1), region(16 * 1024);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 16 * 1024, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
    // Data packets A sent before the first ACK reached it (emission + 2 us link).
    TimeNs first_ack_arrival = kNever;
    for (const Loop::Sent& s : loop.log()) {
      auto f = wire::ParseFrame(s.bytes);
      if (s.from == 1 && f.ok() && f->meta()->ch.opcode == wire::Opcode::kAck) {
        first_ack_arrival = s.at + 2 * kMicrosecond;
        break;
      }
    }
    size_t before = 0;
    for (const Loop::Sent& s : loop.log()) {
      auto f = wire::ParseFrame(s.bytes);
      before += s.from == 0 && f.ok() && f->meta()->ch.opcode == wire::Opcode::kWrite && s.at < first_ack_arrival;
    }
    return before;
  };
  EXPECT_EQ(run(""), 4u);  // cwnd_init = 4 MTU (MROCE-CC-002, MROCE-CC-003)
  EXPECT_EQ(run("ignore_window"), 16u);
}

// Every quirk has a behaviour test (here or in loopback_test.cc).
TEST(QuirkBehaviour, EveryQuirkHasATest) {
  const std::set<std::string_view> tested = {
      "go_back_n", "retransmit_all_after_gap", "reorder_is_loss", "single_path", "no_entropy_change",
      "ignore_ecn", "ignore_rate_hint", "constant_rate_hint", "complete_out_of_order", "hol_block_streams",
      "double_completion_on_dup", "place_stale_packet", "accept_bad_crc", "accept_unknown_version",
      "skip_rkey_bounds_check", "drop_send_without_rnr", "retry_forever", "sack_off_by_one",
      "never_reintroduce_path", "no_ack_coalescing_limit", "no_rto_backoff", "accept_stale_epoch",
      "retransmit_new_psn", "retransmit_other_path", "no_ce_echo", "no_dup_ack", "ignore_window",
      "no_resource_limit", "accept_epoch_jump" /* receiver_test.cc ProbeEpochWindow */,
      "rnr_hold_tenfold" /* sender_test.cc RnrHoldBounds */,
      "probe_epoch_skip" /* sender_test.cc FirstProbeAnnouncesTheNextEpoch */};
  for (const QuirkInfo& q : AllQuirks()) EXPECT_TRUE(tested.contains(q.name)) << q.name;
  EXPECT_EQ(tested.size(), AllQuirks().size());
}

}  // namespace
}  // namespace mroce::ref
