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

// Memory of one WRITE from A into B; it must outlive the run.
struct WriteBuffers {
  std::vector<uint8_t> src, region;
};

// Posts a WRITE (wr_id 1, stream 0) of `len` bytes of 1s from A into a region of B registered for it.
void PostWriteOf(Loop& loop, ConnId conn, uint32_t len, WriteBuffers& b) {
  b.src.assign(len, 1);
  b.region.assign(len, 0);
  auto mr = loop.b().RegisterMemory(b.region.data(), b.region.size(), kAccessRemoteWrite);
  ASSERT_TRUE(mr.ok());
  EXPECT_TRUE(loop.a().PostWrite(conn, 0, b.src.data(), len, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
}

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
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 3072, buffers);
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
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 4096, buffers);
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
  WriteBuffers buffers;
  PostWriteOf(loop, conn, 16 * 1024, buffers);
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
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 8192, buffers);
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
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 100, buffers);
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
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 16 * 1024, buffers);
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

// --- The quirks of stop 39: realistic one-line slips, one behaviour each -------------------------

// A's frames with opcode `op` (all, dropped or not) and the times they left.
std::vector<std::pair<TimeNs, wire::Frame>> Sent(const Loop& loop, int from, wire::Opcode op) {
  std::vector<std::pair<TimeNs, wire::Frame>> out;
  for (const Loop::Sent& s : loop.log()) {
    auto f = wire::ParseFrame(s.bytes);
    if (s.from == from && f.ok() && f->meta() != nullptr && f->meta()->ch.opcode == op) out.emplace_back(s.at, *f);
  }
  return out;
}

// The value of the first telemetry name of `ep` that ends with `suffix`.
uint64_t Telem(const Endpoint& ep, std::string_view suffix) {
  std::optional<uint64_t> v;
  ep.ForEachTelemetry([&](std::string_view name, uint64_t value) {
    if (!v && name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix) v = value;
  });
  EXPECT_TRUE(v.has_value()) << suffix;
  return v.value_or(0);
}

// One WRITE of `len` bytes over one path, run to completion: the WRITE frames A sent.
std::vector<wire::Frame> OneWrite(const char* q, uint32_t len) {
  Loop loop(WithQuirks(q, OnePath()));
  const ConnId conn = Establish(loop);
  WriteBuffers buffers;
  PostWriteOf(loop, conn, len, buffers);
  EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
  return Frames(loop, 0, wire::Opcode::kWrite);
}

TEST(QuirkBehaviour, ArOnlyOnLast) {
  auto window_ar = [](const char* q) {
    size_t n = 0;
    for (const wire::Frame& f : OneWrite(q, 16 * 1024)) {
      const auto& ch = f.meta()->ch;
      n += ch.Has(wire::kFlagAr) && !ch.Has(wire::kFlagLast) && !ch.Has(wire::kFlagRtx);
    }
    return n;
  };
  EXPECT_GT(window_ar(""), 0u);  // the 4th packet fills the initial window (MROCE-ACK-014)
  EXPECT_EQ(window_ar("ar_only_on_last"), 0u);
}

TEST(QuirkBehaviour, FirstOnEverySegment) {
  // (segments after the first, those of them with FIRST)
  auto first_inside = [](const char* q) {
    size_t inside = 0, n = 0;
    for (const wire::Frame& f : OneWrite(q, 8 * 1024)) {
      inside += f.meta()->meh()->msg_offset != 0;
      n += f.meta()->ch.Has(wire::kFlagFirst) && f.meta()->meh()->msg_offset != 0;
    }
    EXPECT_GT(inside, 0u);
    return std::make_pair(inside, n);
  };
  EXPECT_EQ(first_inside("").second, 0u);  // MROCE-HDR-006
  const auto quirk = first_inside("first_on_every_segment");
  EXPECT_EQ(quirk.second, quirk.first);
}

TEST(QuirkBehaviour, ImmFlagOnWrite) {
  auto imm = [](const char* q) {
    size_t n = 0;
    for (const wire::Frame& f : OneWrite(q, 4 * 1024)) n += f.meta()->ch.Has(wire::kFlagImm);
    return n;
  };
  EXPECT_EQ(imm(""), 0u);
  EXPECT_EQ(imm("imm_flag_on_write"), 4u);
}

// Path 1 loses its data for 10 ms: it fails, is probed and comes back.
template <typename F>
auto WithFailedPath(const char* q, F probe) {
  Loop loop(WithQuirks(q), [](int dir, const wire::FrameView& v, TimeNs now) {
    Verdict out;
    out.drop = dir == 0 && IsData(v) && v.meta_path_id() == 1 && now < 10 * kMillisecond;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 100 * kMillisecond);
  return probe(loop);
}

TEST(QuirkBehaviour, ProbeSeqStuck) {
  auto seqs = [](const char* q) {
    return WithFailedPath(q, [](Loop& loop) {
      std::set<uint32_t> s;
      for (const wire::Frame& f : Frames(loop, 0, wire::Opcode::kProbe)) s.insert(f.meta()->prh()->probe_seq);
      return s;
    });
  };
  EXPECT_GT(seqs("").size(), 1u);  // 1, 2, 3 ... (MROCE-PATH-016)
  EXPECT_EQ(seqs("probe_seq_stuck"), std::set<uint32_t>{1});
}

TEST(QuirkBehaviour, ProbeAckTxTimeZero) {
  auto zero_echoes = [](const char* q) {
    return WithFailedPath(q, [](Loop& loop) {
      size_t zero = 0, all = 0;
      for (const wire::Frame& f : Frames(loop, 1, wire::Opcode::kProbeAck)) {
        ++all;
        zero += f.meta()->prh()->tx_time == 0;
      }
      EXPECT_GT(all, 0u);
      return zero;
    });
  };
  EXPECT_EQ(zero_echoes(""), 0u);  // MROCE-PATH-020
  EXPECT_GT(zero_echoes("probe_ack_tx_time_zero"), 0u);
}

TEST(QuirkBehaviour, RetryLimitEight) {
  // Every copy of the first WRITE is lost; 300 more keep leaving (paced by B's 1 Gb/s hint), and
  // the ACKs for them deem it lost again each time (MROCE-LOSS-007) until the retry limit.
  auto run = [](const char* q) {
    EndpointConfig a = WithQuirks(q, OnePath()), b = WithQuirks(q, OnePath());
    a.mtu = b.mtu = 256;
    b.link_capacity_mbps = 1000;
    Loop loop(a, b, [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.drop = dir == 0 && v.is_meta() && v.meta_opcode() == static_cast<uint8_t>(wire::Opcode::kWrite) && v.meta_psn() == 0;
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> src(16, 1), region(16 * 301);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    for (uint64_t i = 0; i < 301; ++i) {
      EXPECT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 16, mr->va + 16 * i, mr->rkey, i + 1, std::nullopt, loop.now()).ok());
    }
    std::vector<Completion> done = RunFor(loop, loop.a(), 301, 50 * kMillisecond);
    size_t copies = 0;
    for (const wire::Frame& f : Frames(loop, 0, wire::Opcode::kWrite)) copies += f.meta()->ch.psn == 0 && f.meta()->ch.path_epoch == 0;
    const bool exceeded = std::any_of(done.begin(), done.end(), [](const Completion& c) {
      return c.wr_id == 1 && c.status == CompletionStatus::kRetryExceeded;
    });
    EXPECT_TRUE(exceeded) << q;
    return copies;
  };
  EXPECT_EQ(run(""), 8u);  // the first transmission and 7 retransmissions (MROCE-LOSS-008)
  EXPECT_EQ(run("retry_limit_eight"), 9u);
}

TEST(QuirkBehaviour, ReadsOutstanding65) {
  auto run = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.drop = dir == 1 && v.is_meta() && v.meta_opcode() == static_cast<uint8_t>(wire::Opcode::kReadResp);
      return out;
    });
    const ConnId conn = Establish(loop);
    std::vector<uint8_t> dst(16 * 100), region(16 * 100, 3);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteRead);
    for (uint64_t i = 0; i < 100; ++i) {
      EXPECT_TRUE(loop.a().PostRead(conn, 0, dst.data() + 16 * i, 16, mr->va + 16 * i, mr->rkey, i + 1, loop.now()).ok());
    }
    loop.RunUntil([] { return false; }, loop.now() + 200 * kMicrosecond);  // before any RTO
    size_t fresh = 0;  // new READ_REQs (B's NACKs or ACKs may cause retransmissions too)
    for (const wire::Frame& f : Frames(loop, 0, wire::Opcode::kReadReq)) fresh += !f.meta()->ch.Has(wire::kFlagRtx);
    return fresh;
  };
  EXPECT_EQ(run(""), 64u);  // MROCE-PLACE-013
  EXPECT_EQ(run("reads_outstanding_65"), 65u);
}

// Data packets A sent on one path before the first ACK reached it (emission + 2 us link).
size_t SentBeforeFirstAck(const char* q) {
  Loop loop(WithQuirks(q, OnePath()));
  const ConnId conn = Establish(loop);
  WriteBuffers buffers;
  PostWriteOf(loop, conn, 16 * 1024, buffers);
  EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
  const auto acks = Sent(loop, 1, wire::Opcode::kAck);
  const TimeNs first_ack_arrival = acks.empty() ? kNever : acks.front().first + 2 * kMicrosecond;
  size_t before = 0;
  for (const auto& [at, f] : Sent(loop, 0, wire::Opcode::kWrite)) before += at < first_ack_arrival;
  return before;
}

TEST(QuirkBehaviour, InitialWindow8Mtu) {
  EXPECT_EQ(SentBeforeFirstAck(""), 4u);  // MROCE-CC-002
  EXPECT_EQ(SentBeforeFirstAck("initial_window_8mtu"), 8u);
}

// One path whose ACKs are all lost for 5 ms: the cwnd gauge 1.2 ms after a WRITE, past the first RTO.
uint64_t CwndAfterRto(const char* q) {
  Loop loop(WithQuirks(q, OnePath()), [](int dir, const wire::FrameView& v, TimeNs now) {
    Verdict out;
    out.drop = dir == 1 && v.is_meta() && v.meta_opcode() == static_cast<uint8_t>(wire::Opcode::kAck) && now < 5 * kMillisecond;
    return out;
  });
  const ConnId conn = Establish(loop);
  WriteBuffers buffers;
  PostWriteOf(loop, conn, 16 * 1024, buffers);
  loop.RunUntil([] { return false; }, loop.now() + 1200 * kMicrosecond);
  EXPECT_EQ(Telem(loop.a(), ".rto_events"), 1u);
  return Telem(loop.a(), ".cwnd_bytes");
}

TEST(QuirkBehaviour, RtoWindowTwoMtu) {
  EXPECT_EQ(CwndAfterRto(""), 1024u);  // 1 MTU (MROCE-CC-006)
  EXPECT_EQ(CwndAfterRto("rto_window_two_mtu"), 2048u);
}

TEST(QuirkBehaviour, AdditiveIncreaseDouble) {
  auto cwnd = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    const ConnId conn = Establish(loop);
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 64 * 1024, buffers);
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
    return Telem(loop.a(), ".cwnd_bytes");
  };
  const uint64_t spec = cwnd(""), quirk = cwnd("additive_increase_double");
  EXPECT_GT(spec, 4096u);
  EXPECT_GT(quirk, spec);
}

TEST(QuirkBehaviour, HalveEveryEce) {
  // Two marked ACKs at once: one decrease (MROCE-CC-005), or two.
  auto decreases = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.ce_mark = dir == 0 && IsData(v);
      out.duplicate = dir == 1 && v.is_meta() && v.meta_opcode() == static_cast<uint8_t>(wire::Opcode::kAck);
      return out;
    });
    const ConnId conn = Establish(loop);
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 4 * 1024, buffers);
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
    loop.RunUntil([] { return false; }, loop.now() + 10 * kMicrosecond);  // the copy of the last ACK too
    return Telem(loop.a(), ".cwnd_decreases");
  };
  EXPECT_EQ(decreases(""), 1u);
  EXPECT_GT(decreases("halve_every_ece"), 1u);
}

TEST(QuirkBehaviour, RtoInitial2ms) {
  auto first_rto = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()), [](int dir, const wire::FrameView& v, TimeNs now) {
      Verdict out;
      out.drop = dir == 0 && IsData(v) && now < 10 * kMillisecond;
      return out;
    });
    const ConnId conn = Establish(loop);
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 100, buffers);
    loop.RunUntil([] { return false; }, loop.now() + 5 * kMillisecond);
    const auto w = Sent(loop, 0, wire::Opcode::kWrite);
    EXPECT_GE(w.size(), 2u);
    return w.size() < 2 ? 0 : w[1].first - w[0].first;
  };
  EXPECT_EQ(first_rto(""), 1 * kMillisecond);  // MROCE-RTO-004
  EXPECT_EQ(first_rto("rto_initial_2ms"), 2 * kMillisecond);
}

// B's ACKs for one 64 KiB WRITE over one path, each data packet of A CE-marked when `mark` says so.
std::vector<wire::Frame> AcksOf(const char* q, const std::function<bool(const wire::FrameView&)>& mark) {
  Loop loop(WithQuirks(q, OnePath()), [mark](int dir, const wire::FrameView& v, TimeNs) {
    Verdict out;
    out.ce_mark = dir == 0 && IsData(v) && mark(v);
    return out;
  });
  const ConnId conn = Establish(loop);
  WriteBuffers buffers;
  PostWriteOf(loop, conn, 64 * 1024, buffers);
  EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
  return Frames(loop, 1, wire::Opcode::kAck);
}

TEST(QuirkBehaviour, TriggerPsnIsEpsn) {
  auto at_epsn = [](const char* q) {
    size_t n = 0;
    for (const wire::Frame& f : AcksOf(q, [](const wire::FrameView&) { return false; })) n += f.meta()->ack()->trigger_psn == f.meta()->ack()->epsn;
    return n;
  };
  EXPECT_EQ(at_epsn(""), 0u);  // the PSN that arrived (MROCE-ACK-004)
  EXPECT_GT(at_epsn("trigger_psn_epsn"), 0u);
}

TEST(QuirkBehaviour, EceOnEveryAck) {
  auto ece = [](const char* q) {
    size_t n = 0;
    for (const wire::Frame& f : AcksOf(q, [](const wire::FrameView& v) { return v.meta_psn() == 0; })) n += f.meta()->ch.Has(wire::kFlagEce);
    return n;
  };
  EXPECT_LE(ece(""), 1u);  // only an ACK whose trigger was the marked packet
  EXPECT_GT(ece("ece_on_every_ack"), 3u);
}

TEST(QuirkBehaviour, CeCountDoubled) {
  auto ce = [](const char* q) {
    uint64_t n = 0;
    for (const wire::Frame& f : AcksOf(q, [](const wire::FrameView&) { return true; })) n += f.meta()->ack()->ce_count;
    return n;
  };
  const uint64_t spec = ce("");
  EXPECT_GT(spec, 0u);
  EXPECT_EQ(ce("ce_count_doubled"), 2 * spec);
}

TEST(QuirkBehaviour, AckDelayInUs) {
  // A lone packet without AR: B acknowledges it when its 4 us ACK timer runs out (MROCE-ACK-006).
  auto delay = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    Establish(loop);
    std::vector<uint8_t> region(64);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    DataSpec d;
    d.va = mr->va;
    d.rkey = mr->rkey;
    d.flags = 0;
    loop.Inject(1, DataFrame(loop, d));
    loop.RunUntil([] { return false; }, loop.now() + 20 * kMicrosecond);
    const auto acks = Frames(loop, 1, wire::Opcode::kAck);
    EXPECT_EQ(acks.size(), 1u);
    return acks.empty() ? 0 : acks.back().meta()->ack()->ack_delay;
  };
  EXPECT_EQ(delay(""), 4000 / 64);  // 64 ns units (MROCE-ACK-004)
  EXPECT_EQ(delay("ack_delay_in_us"), 4);
}

TEST(QuirkBehaviour, RateHintTxUncounted) {
  auto counted = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    const ConnId conn = Establish(loop);
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 4096, buffers);
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
    EXPECT_GT(Frames(loop, 1, wire::Opcode::kAck).size(), 0u);
    return ConnB(loop).counters().Get(ConnCounter::kRateHintTx);
  };
  EXPECT_EQ(counted(""), 1u);  // one ACK (MROCE-HINT-004)
  EXPECT_EQ(counted("rate_hint_tx_uncounted"), 0u);
}

TEST(QuirkBehaviour, DupRxUncounted) {
  auto dups = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()), [](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.duplicate = dir == 0 && IsData(v);
      return out;
    });
    const ConnId conn = Establish(loop);
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 100, buffers);
    loop.RunUntil([] { return false; }, loop.now() + 1 * kMillisecond);
    return ConnB(loop).paths()[0].rx_counters.Get(PathRxCounter::kDupRx);
  };
  EXPECT_EQ(dups(""), 1u);  // MROCE-DUP-001
  EXPECT_EQ(dups("dup_rx_uncounted"), 0u);
}

TEST(QuirkBehaviour, OowNackInfoPsn) {
  auto info = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    Establish(loop);
    std::vector<uint8_t> region(64);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    DataSpec d;
    d.va = mr->va;
    d.rkey = mr->rkey;
    auto bytes = DataFrame(loop, d);
    auto f = wire::ParseFrame(bytes);
    f->meta()->ch.psn = 300;  // epsn 0: beyond the window (MROCE-PATH-007)
    loop.Inject(1, wire::SerializeFrame(*f));
    loop.RunUntil([] { return false; }, loop.now() + 20 * kMicrosecond);
    const auto nacks = Frames(loop, 1, wire::Opcode::kNack);
    EXPECT_EQ(nacks.size(), 1u);
    return nacks.empty() ? 0 : nacks[0].meta()->nack()->info;
  };
  EXPECT_EQ(info(""), 0u);  // epsn
  EXPECT_EQ(info("oow_nack_info_psn"), 300u);
}

TEST(QuirkBehaviour, ConnectRetryNoDoubling) {
  auto gaps = [](const char* q) {
    Loop loop(WithQuirks(q), [](int dir, const wire::FrameView&, TimeNs) {
      Verdict out;
      out.drop = dir == 1;  // B never answers
      return out;
    });
    EXPECT_TRUE(loop.a().Connect(PeerB(), {}, loop.now()).ok());
    loop.RunUntil([] { return false; }, loop.now() + 20 * kMillisecond);
    std::vector<TimeNs> g;
    const auto reqs = Sent(loop, 0, wire::Opcode::kConnectReq);
    for (size_t i = 1; i < reqs.size() && i < 4; ++i) g.push_back(reqs[i].first - reqs[i - 1].first);
    return g;
  };
  EXPECT_EQ(gaps(""), (std::vector<TimeNs>{1 * kMillisecond, 2 * kMillisecond, 4 * kMillisecond}));  // MROCE-CONN-005
  EXPECT_EQ(gaps("connect_retry_no_doubling"), (std::vector<TimeNs>{1 * kMillisecond, 1 * kMillisecond, 1 * kMillisecond}));
}

// A closes an established connection; from then on B's frames are lost when `deaf`.
template <typename F>
auto AfterClose(const char* q, bool deaf, TimeNs run_for, F probe) {
  bool closed = false;
  Loop loop(WithQuirks(q), [&closed, deaf](int dir, const wire::FrameView&, TimeNs) {
    Verdict out;
    out.drop = deaf && closed && dir == 1;
    return out;
  });
  const ConnId conn = Establish(loop);
  closed = true;
  EXPECT_TRUE(loop.a().Disconnect(conn, loop.now()).ok());
  loop.RunUntil([] { return false; }, loop.now() + run_for);
  return probe(loop);
}

TEST(QuirkBehaviour, DisconnectRetriesFive) {
  auto copies = [](const char* q) {
    return AfterClose(q, true, 100 * kMillisecond, [](Loop& loop) { return Frames(loop, 0, wire::Opcode::kDisconnect).size(); });
  };
  EXPECT_EQ(copies(""), 4u);  // the first and 3 retransmissions (MROCE-CONN-013)
  EXPECT_EQ(copies("disconnect_retries_five"), 6u);
}

TEST(QuirkBehaviour, Quarantine64ms) {
  auto open_at_100ms = [](const char* q) {
    return AfterClose(q, false, 100 * kMillisecond, [](Loop& loop) { return loop.a().connections().size(); });
  };
  EXPECT_EQ(open_at_100ms(""), 1u);  // QUARANTINE lasts 128 ms (MROCE-CONN-015)
  EXPECT_EQ(open_at_100ms("quarantine_64ms"), 0u);
}

TEST(QuirkBehaviour, QuarantineGaugeClosed) {
  auto gauge = [](const char* q) {
    return AfterClose(q, false, 10 * kMillisecond, [](Loop& loop) { return Telem(loop.a(), ".conn_state"); });
  };
  EXPECT_EQ(gauge(""), 6u);  // table 17.2
  EXPECT_EQ(gauge("quarantine_gauge_closed"), 0u);
}

TEST(QuirkBehaviour, ControlNotEct) {
  auto not_ect = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    const ConnId conn = Establish(loop);
    WriteBuffers buffers;
    PostWriteOf(loop, conn, 4096, buffers);
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 5 * kMillisecond).size(), 1u);
    size_t n = 0;
    for (const Loop::Sent& s : loop.log()) {
      wire::FrameView v;
      n += wire::FrameView::TryLocate(s.bytes, &v) && v.is_meta() && !IsData(v) && v.ecn() != wire::kEcnEct0;
    }
    return n;
  };
  EXPECT_EQ(not_ect(""), 0u);  // MROCE-ENC-007
  EXPECT_GT(not_ect("control_not_ect"), 0u);
}

TEST(QuirkBehaviour, ConnectAckKeepsOwnMtu) {
  auto mtu = [](const char* q) {
    Loop loop(WithQuirks(q));
    ConnectOptions o;
    o.mtu = 512;  // B's own is 1024
    EXPECT_TRUE(loop.a().Connect(PeerB(), o, loop.now()).ok());
    loop.RunUntil([] { return false; }, loop.now() + 100 * kMicrosecond);
    const auto acks = Frames(loop, 1, wire::Opcode::kConnectAck);
    EXPECT_FALSE(acks.empty());
    return acks.empty() ? 0 : acks[0].meta()->cmh()->mtu;
  };
  EXPECT_EQ(mtu(""), 512);  // at most requested (MROCE-CONN-007)
  EXPECT_EQ(mtu("connect_ack_keeps_own_mtu"), 1024);
}

// A WRITE to an rkey B does not know, on stream 3: NACK REMOTE_ACCESS, A's connection in ERROR.
template <typename F>
auto AfterFatalNack(const char* q, F probe) {
  Loop loop(WithQuirks(q));
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(64, 1);
  EXPECT_TRUE(loop.a().PostWrite(conn, 3, src.data(), 64, 0x1000, 0xBAD, 7, std::nullopt, loop.now()).ok());
  std::vector<Completion> done = RunFor(loop, loop.a(), 1, 1 * kMillisecond);
  return probe(loop, conn, done);
}

TEST(QuirkBehaviour, FatalCompletionStreamZero) {
  auto stream = [](const char* q) {
    return AfterFatalNack(q, [](Loop&, ConnId, const std::vector<Completion>& done) {
      EXPECT_EQ(done.size(), 1u);
      return done.empty() ? 99 : done[0].stream;
    });
  };
  EXPECT_EQ(stream(""), 3);  // MROCE-CMPL-009
  EXPECT_EQ(stream("fatal_completion_stream_zero"), 0);
}

TEST(QuirkBehaviour, RecvAfterErrorLost) {
  auto flushed = [](const char* q) {
    return AfterFatalNack(q, [](Loop& loop, ConnId conn, const std::vector<Completion>&) {
      std::vector<uint8_t> buf(64);
      EXPECT_TRUE(loop.a().PostRecv(conn, 0, buf.data(), 64, 9).ok());
      size_t n = 0;
      for (const Completion& c : RunFor(loop, loop.a(), 1, 100 * kMicrosecond)) n += c.wr_id == 9 && c.status == CompletionStatus::kFlushed;
      return n;
    });
  };
  EXPECT_EQ(flushed(""), 1u);  // MROCE-CMPL-011
  EXPECT_EQ(flushed("recv_after_error_lost"), 0u);
}

TEST(QuirkBehaviour, InvalidConnRxUncounted) {
  auto counted = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    Establish(loop);
    auto f = wire::ParseFrame(DataFrame(loop, DataSpec{}));
    f->meta()->ch.dst_conn_id = 0x7777;  // no such connection at B
    loop.Inject(1, wire::SerializeFrame(*f));
    loop.RunUntil([] { return false; }, loop.now() + 10 * kMicrosecond);
    return loop.b().counters().Get(EndpointCounter::kInvalidConnRx);
  };
  EXPECT_EQ(counted(""), 1u);  // MROCE-DUP-006
  EXPECT_EQ(counted("invalid_conn_rx_uncounted"), 0u);
}

TEST(QuirkBehaviour, HintIdleWindow1ms) {
  // Two connections from A to B; a WRITE on the first, 300 us later one on the second: by then the
  // first no longer counts in N (MROCE-HINT-002), so the second's ACK carries the whole share.
  auto hint = [](const char* q) {
    Loop loop(WithQuirks(q, OnePath()));
    const ConnId c1 = Establish(loop);
    const ConnId c2 = Establish(loop);
    std::vector<uint8_t> src(64, 1), region(128);
    auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
    EXPECT_TRUE(loop.a().PostWrite(c1, 0, src.data(), 64, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 1 * kMillisecond).size(), 1u);
    loop.RunUntil([] { return false; }, loop.now() + 300 * kMicrosecond);
    EXPECT_TRUE(loop.a().PostWrite(c2, 0, src.data(), 64, mr->va + 64, mr->rkey, 2, std::nullopt, loop.now()).ok());
    EXPECT_EQ(RunFor(loop, loop.a(), 1, 1 * kMillisecond).size(), 1u);
    return Frames(loop, 1, wire::Opcode::kAck).back().meta()->ack()->rate_hint;
  };
  EXPECT_EQ(hint(""), 95000u);  // floor(100000 x 0.95 / 1)
  EXPECT_EQ(hint("hint_idle_window_1ms"), 47500u);
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
      "probe_epoch_skip" /* sender_test.cc FirstProbeAnnouncesTheNextEpoch */,
      "ar_only_on_last",
      "first_on_every_segment",
      "imm_flag_on_write",
      "probe_seq_stuck",
      "retry_limit_eight",
      "reads_outstanding_65",
      "initial_window_8mtu",
      "rto_window_two_mtu",
      "additive_increase_double",
      "halve_every_ece",
      "rto_initial_2ms",
      "trigger_psn_epsn",
      "ece_on_every_ack",
      "ce_count_doubled",
      "rate_hint_tx_uncounted",
      "dup_rx_uncounted",
      "probe_ack_tx_time_zero",
      "oow_nack_info_psn",
      "connect_retry_no_doubling",
      "disconnect_retries_five",
      "quarantine_64ms",
      "quarantine_gauge_closed",
      "control_not_ect",
      "connect_ack_keeps_own_mtu",
      "recv_after_error_lost",
      "invalid_conn_rx_uncounted",
      "fatal_completion_stream_zero",
      "hint_idle_window_1ms",
      "ack_delay_in_us"};
  for (const QuirkInfo& q : AllQuirks()) EXPECT_TRUE(tested.contains(q.name)) << q.name;
  EXPECT_EQ(tested.size(), AllQuirks().size());
}

}  // namespace
}  // namespace mroce::ref
