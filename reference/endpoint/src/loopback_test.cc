// In-process loopback: two reference endpoints joined by a tiny deterministic link that can drop,
// delay (reorder) and duplicate frames by rule, driven by sim::Simulator (test_loop.h).
//
//   A (10.0.0.1) ==[ plane 0..P-1, 2 us + rule delay ]== B (10.0.0.2)
#include <gtest/gtest.h>

#include "test_loop.h"

namespace mroce::ref {
namespace {

using namespace testing_loop;  // NOLINT


TEST(Loopback, ConnectAndCleanTransfer) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 50 * kMillisecond);
  EXPECT_EQ(ConnA(loop).counters().Get(ConnCounter::kRetransmits), 0u);
  // Every path carried data.
  for (int p = 0; p < 4; ++p) EXPECT_GT(ConnA(loop).paths()[p].counters.Get(PathCounter::kTxPkts), 0u) << p;
}

TEST(Loopback, OnePercentLoss) {
  std::mt19937_64 rng(1);
  Loop loop(BaseConfig(), [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    out.drop = IsData(v) && rng() % 100 == 0;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 500 * kMillisecond);
}

TEST(Loopback, TenPercentLossAllFrames) {
  std::mt19937_64 rng(2);
  Loop loop(BaseConfig(), [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    out.drop = rng() % 10 == 0;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 2000 * kMillisecond);
  EXPECT_GT(ConnA(loop).counters().Get(ConnCounter::kRetransmits), 0u);
}

// Many connections at once under 10% loss of every frame: each connection's timers (RTO, ACK,
// CONNECT_REQ retry) fire from the endpoint's deadline index although the others are busy or idle.
TEST(Loopback, ManyConnectionsUnderLossAllComplete) {
  std::mt19937_64 rng(3);
  Loop loop(BaseConfig(), [&](int, const wire::FrameView&, TimeNs) {
    Verdict out;
    out.drop = rng() % 10 == 0;
    return out;
  });
  constexpr int kConns = 64;
  std::vector<ConnId> conns;
  for (int i = 0; i < kConns; ++i) {
    auto id = loop.a().Connect(PeerB(), {}, loop.now());
    ASSERT_TRUE(id.ok());
    conns.push_back(id.value());
  }
  int up = 0;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (const ConnEvent& e : loop.a().PollEvents()) up += e.kind == ConnEventKind::kEstablished;
    return up == kConns;
  }, loop.now() + 500 * kMillisecond)) << up << " of " << kConns << " connections established";
  std::vector<uint8_t> src(kConns * 8192, 7), dst(kConns * 8192, 0);
  auto mr = loop.b().RegisterMemory(dst.data(), dst.size(), kAccessRemoteWrite);
  ASSERT_TRUE(mr.ok());
  for (int i = 0; i < kConns; ++i) {
    const uint64_t off = static_cast<uint64_t>(i) * 8192;
    ASSERT_TRUE(loop.a().PostWrite(conns[static_cast<size_t>(i)], 0, src.data() + off, 8192, mr->va + off, mr->rkey,
                                   static_cast<uint64_t>(i + 1), std::nullopt, loop.now()).ok());
  }
  std::set<uint64_t> done;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (const Completion& c : loop.a().PollCompletions()) {
      EXPECT_EQ(c.status, CompletionStatus::kSuccess);
      EXPECT_TRUE(done.insert(c.wr_id).second);
    }
    return done.size() == kConns;
  }, loop.now() + 2000 * kMillisecond)) << done.size() << " of " << kConns << " writes completed";
  EXPECT_EQ(src, dst);
}

TEST(Loopback, CrossPathReorderingCausesNoRetransmission) {
  // Each path has its own fixed extra delay: packets overtake each other across paths, never within one.
  Loop loop(BaseConfig(), [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    if (v.is_meta()) out.extra_delay = v.meta_path_id() * 7 * kMicrosecond;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 50 * kMillisecond);
  EXPECT_EQ(ConnA(loop).counters().Get(ConnCounter::kRetransmits), 0u);
  EXPECT_EQ(loop.b().connection(loop.b().connections().at(0))->counters().Get(ConnCounter::kRetransmits), 0u);
}

TEST(Loopback, InPathReorderingIsRecovered) {
  std::mt19937_64 rng(3);
  Loop loop(BaseConfig(), [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    if (IsData(v) && rng() % 20 == 0) out.extra_delay = 5 * kMicrosecond;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 100 * kMillisecond);
}

TEST(Loopback, DuplicationIsSuppressed) {
  std::mt19937_64 rng(4);
  Loop loop(BaseConfig(), [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    out.duplicate = rng() % 10 == 0;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 100 * kMillisecond);
  const Connection& b = *loop.b().connection(loop.b().connections().at(0));
  uint64_t dup = 0;
  for (int p = 0; p < b.paths().size(); ++p) dup += b.paths()[p].rx_counters.Get(PathRxCounter::kDupRx);
  EXPECT_GT(dup, 0u);
}

// Choice resend-path (MROCE-PATH-014: any other ACTIVE path): the pristine reference spreads the
// re-sends of a failed path's packets by free window, the resend_highest_path variant puts each on
// the highest ACTIVE path with room. Both deliver everything.
TEST(Loopback, ResendHighestPathVariantResendsOnTheHighestActivePathWithRoom) {
  auto resends = [](const char* variants) {
    std::array<uint64_t, 4> resent{};
    EndpointConfig cfg = BaseConfig();
    cfg.variants = *Variants::Parse(variants);
    Loop loop(cfg, [&](int dir, const wire::FrameView& v, TimeNs now) {
      Verdict out;
      out.drop = dir == 0 && v.is_meta() && v.meta_path_id() == 1 && v.meta_opcode() != 0x20 && now < 20 * kMillisecond;
      if (dir == 0 && IsData(v) && v.meta_path_id() != 1 && (v.meta_flags() & wire::kFlagRtx) != 0) ++resent[v.meta_path_id()];
      return out;
    });
    const ConnId conn = Establish(loop);
    Workload w;
    w.Run(loop, conn);
    w.Check(loop, 100 * kMillisecond);
    return resent;
  };
  const auto spread = resends("");
  const auto highest = resends("resend_highest_path");
  EXPECT_GT(spread[0] + spread[2], spread[3]) << spread[0] << " " << spread[2] << " " << spread[3];
  EXPECT_GT(highest[3], 0u);
  EXPECT_GT(highest[3], highest[0] + highest[2]) << highest[0] << " " << highest[2] << " " << highest[3];
}

// Choice retransmit-order (MROCE-LOSS-004): PSNs 1 and 2 of path 0 are lost on their first
// transmission and one SACK shows both lost; the pristine reference retransmits them lowest first,
// retransmit_descending highest first. Both deliver everything.
TEST(Loopback, RetransmitDescendingVariantResendsTheHighestLostPsnFirst) {
  auto order = [](const char* variants) {
    std::vector<uint32_t> rtx;
    EndpointConfig cfg = BaseConfig();
    cfg.variants = *Variants::Parse(variants);
    Loop loop(cfg, [&](int dir, const wire::FrameView& v, TimeNs) {
      Verdict out;
      if (dir != 0 || !IsData(v) || v.meta_path_id() != 0) return out;
      const bool again = (v.meta_flags() & wire::kFlagRtx) != 0;
      const uint32_t psn = v.meta_psn();
      if (!again && (psn == 1 || psn == 2)) out.drop = true;
      if (again && (psn == 1 || psn == 2)) rtx.push_back(psn);
      return out;
    });
    const ConnId conn = Establish(loop);
    Workload w;
    w.Run(loop, conn);
    w.Check(loop, 100 * kMillisecond);
    return rtx;
  };
  const auto ascending = order("");
  const auto descending = order("retransmit_descending");
  ASSERT_GE(ascending.size(), 2u);
  ASSERT_GE(descending.size(), 2u);
  EXPECT_EQ(ascending[0], 1u);
  EXPECT_EQ(ascending[1], 2u);
  EXPECT_EQ(descending[0], 2u);
  EXPECT_EQ(descending[1], 1u);
}

// MROCE-PATH-013 (the fail_on_link_down variant) and table 7.6 rows 6, 7 and 12: when plane 1's
// link goes down, its paths (1 and 3 of 4 on 2 planes) fail at once, their content is re-sent on the
// others, and nothing (no PROBE either) leaves on them until the link is up; then they are probed
// and reintroduced. The pristine reference ignores the signal and finds out by its RTOs.
TEST(Loopback, FailOnLinkDownVariantFailsThePlanesPathsAtOnceAndProbesOnlyWhenUp) {
  auto run = [](const char* variants, bool* failed_at_once) {
    EndpointConfig cfg = BaseConfig();
    cfg.variants = *Variants::Parse(variants);
    bool down = false;
    Loop loop(cfg, [&](int, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.drop = down && v.is_meta() && v.meta_path_id() % 2 == 1;  // plane 1 carries paths 1 and 3
      return out;
    });
    const ConnId conn = Establish(loop);
    Workload w;
    w.Run(loop, conn);
    loop.RunUntil([] { return false; }, loop.now() + 5 * kMicrosecond);
    down = true;
    const TimeNs down_at = loop.now();
    loop.a().OnPlaneLink(1, false, down_at);
    *failed_at_once = ConnA(loop).paths()[1].state() == PathState::kFailed && ConnA(loop).paths()[3].state() == PathState::kFailed &&
                      ConnA(loop).paths()[0].state() == PathState::kActive;
    loop.RunUntil([] { return false; }, down_at + 3 * kMillisecond);
    const TimeNs up_at = loop.now();
    size_t sent_on_plane1_while_down = 0;
    for (const Loop::Sent& f : loop.log()) {  // data and PROBEs of path p leave on plane p mod 2
      auto v = wire::FrameView::Locate(f.bytes);
      const bool own_plane = v.ok() && (IsData(*v) || (v->is_meta() && v->meta_opcode() == static_cast<uint8_t>(wire::Opcode::kProbe)));
      if (f.from == 0 && f.at > down_at && own_plane && v->meta_path_id() % 2 == 1) ++sent_on_plane1_while_down;  // ENC-009
    }
    down = false;
    loop.a().OnPlaneLink(1, true, up_at);
    w.Check(loop, 100 * kMillisecond);
    EXPECT_TRUE(loop.RunUntil([&] { return ConnA(loop).paths()[1].state() == PathState::kActive &&
                                           ConnA(loop).paths()[3].state() == PathState::kActive; },
                              loop.now() + 20 * kMillisecond)) << variants;
    return sent_on_plane1_while_down;
  };
  bool at_once = false;
  EXPECT_EQ(run("fail_on_link_down", &at_once), 0u);  // neither data nor PROBEs into the dead plane
  EXPECT_TRUE(at_once);
  EXPECT_GT(run("", &at_once), 0u);  // the pristine reference keeps sending (and retransmitting) until its RTOs
  EXPECT_FALSE(at_once);
}

TEST(Loopback, PathBlackholeFailoverProbingReintroduction) {
  // A->B packets of path 1 vanish from 0 to 20 ms; afterwards the path works again.
  Loop loop(BaseConfig(), [&](int dir, const wire::FrameView& v, TimeNs now) {
    Verdict out;
    out.drop = dir == 0 && v.is_meta() && v.meta_path_id() == 1 && v.meta_opcode() != 0x20 && now < 20 * kMillisecond;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 100 * kMillisecond);
  const Path& p1 = ConnA(loop).paths()[1];
  EXPECT_GE(p1.counters.Get(PathCounter::kRtoEvents), 3u);
  EXPECT_GT(p1.counters.Get(PathCounter::kEntropyRerolls), 0u);
  EXPECT_GT(p1.counters.Get(PathCounter::kFailoverResends), 0u);
  EXPECT_GT(p1.counters.Get(PathCounter::kProbesTx), 0u);
  // Let probing finish after the blackhole ends.
  loop.RunUntil([&] { return ConnA(loop).paths()[1].state() == PathState::kActive; }, 40 * kMillisecond);
  EXPECT_EQ(ConnA(loop).paths()[1].state(), PathState::kActive);
  EXPECT_EQ(ConnA(loop).paths()[1].epoch, 1);
  // And the reintroduced path carries new data.
  const uint64_t before = ConnA(loop).paths()[1].counters.Get(PathCounter::kTxPkts);
  Workload w2;
  w2.Run(loop, conn);
  w2.Check(loop, 100 * kMillisecond);
  EXPECT_GT(ConnA(loop).paths()[1].counters.Get(PathCounter::kTxPkts), before);
}

TEST(Loopback, MemoryPerConnectionPathStream) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  const Connection& c = *loop.a().connection(conn);
  const size_t conn_bytes = c.StateBytes();
  std::printf("state bytes: connection %zu (4 paths, 8 streams), per path %zu, per idle stream %zu, "
              "per in-flight packet slot %zu\n",
              conn_bytes, c.paths()[0].StateBytes(), StreamState{}.StateBytes(), sizeof(SentPacket));
  EXPECT_LT(conn_bytes, 200000u);
}


TEST(Endpoint, VersionNegotiationRejects) {
  EndpointConfig cfg = BaseConfig();
  Loop loop(cfg);
  // B only speaks versions 2..3 (rebuild B with that range).
  EndpointConfig bcfg = cfg;
  bcfg.ver_min = 2;
  bcfg.ver_max = 3;
  bcfg.mac = {2, 0, 0, 0, 0, 2};
  bcfg.ip = {10, 0, 0, 2};
  Loop::Port sink(&loop, 1);
  Endpoint b(bcfg, &sink);
  std::vector<uint8_t> captured;
  CaptureSink a_out, b_out;
  EndpointConfig acfg = cfg;
  acfg.ip = {10, 0, 0, 1};
  Endpoint a(acfg, &a_out);
  Endpoint b2(bcfg, &b_out);
  ASSERT_TRUE(a.Connect(PeerB(), {}, 0).ok());
  ASSERT_EQ(a_out.frames.size(), 1u);
  b2.OnFrame(a_out.frames[0], 0, 1000);
  ASSERT_EQ(b_out.frames.size(), 1u);
  auto rej = wire::ParseFrame(b_out.frames[0]);
  ASSERT_TRUE(rej.ok());
  EXPECT_EQ(rej->meta()->ch.opcode, wire::Opcode::kConnectRej);
  EXPECT_EQ(rej->meta()->cmh()->reason, wire::ConnReason::kVersionUnsupported);
  EXPECT_EQ(rej->meta()->cmh()->ver_min, 2);
  a.OnFrame(b_out.frames[0], 0, 2000);
  bool rejected = false;
  for (const ConnEvent& e : a.PollEvents()) rejected |= e.kind == ConnEventKind::kRejected;
  EXPECT_TRUE(rejected);
  EXPECT_TRUE(b2.connections().empty());
}

TEST(Endpoint, BadCrcUnknownOpcodeBadVersionSpoofedAreCountedNotPlaced) {
  CaptureSink out;
  EndpointConfig cfg = BaseConfig();
  cfg.ip = {10, 0, 0, 2};
  Endpoint b(cfg, &out);
  wire::Frame f;
  wire::Ipv4Header ip;
  ip.src = {10, 0, 0, 1};
  ip.dst = {10, 0, 0, 2};
  f.ip = ip;
  wire::MetaPacket pkt;
  pkt.ch.opcode = wire::Opcode::kWrite;
  pkt.ch.dst_conn_id = 12345;
  pkt.ext = wire::MessageExt{};
  pkt.payload = {1, 2, 3};
  f.l4 = pkt;
  std::vector<uint8_t> good = wire::SerializeFrame(f);
  b.OnFrame(good, 0, 0);
  EXPECT_EQ(b.counters().Get(EndpointCounter::kInvalidConnRx), 1u);
  std::vector<uint8_t> bad = good;
  bad[bad.size() - 6] ^= 0xFF;  // payload byte: CRC no longer matches
  b.OnFrame(bad, 0, 0);
  EXPECT_EQ(b.counters().Get(EndpointCounter::kCrcErrors), 1u);
  wire::MetaPacket unk = pkt;
  unk.ch.opcode = static_cast<wire::Opcode>(0x7F);
  unk.ext = wire::UnknownExt{};
  unk.payload.clear();
  f.l4 = unk;
  b.OnFrame(wire::SerializeFrame(f), 0, 0);
  EXPECT_EQ(b.counters().Get(EndpointCounter::kUnknownOpcodeRx), 1u);
  wire::MetaPacket v2 = pkt;
  v2.ch.ver = 2;
  f.l4 = v2;
  b.OnFrame(wire::SerializeFrame(f), 0, 0);
  // Unknown connection first (MROCE-ENC-010): the version is checked per connection.
  EXPECT_EQ(b.counters().Get(EndpointCounter::kInvalidConnRx), 2u);
  EXPECT_TRUE(out.frames.empty());  // nothing answered
}

// MROCE-DUP-007 (the nack_invalid_conn variant): a data packet for an unknown connection may be
// answered with NACK INVALID_CONN naming it, at most once per 1 ms per source address; anything
// else for an unknown connection is still only counted.
TEST(Endpoint, NackInvalidConnVariantAnswersUnknownDataOncePerMillisecondPerSource) {
  CaptureSink out;
  EndpointConfig cfg = BaseConfig();
  cfg.ip = {10, 0, 0, 2};
  cfg.variants = *Variants::Parse("nack_invalid_conn");
  Endpoint b(cfg, &out);
  auto frame = [](std::array<uint8_t, 4> src, wire::Opcode op) {
    wire::Frame f;
    wire::Ipv4Header ip;
    ip.src = src;
    ip.dst = {10, 0, 0, 2};
    f.ip = ip;
    f.udp.dport = wire::kMetaUdpPort;
    wire::MetaPacket pkt;
    pkt.ch.opcode = op;
    pkt.ch.dst_conn_id = 12345;
    pkt.ch.path_id = 2;
    pkt.ch.path_epoch = 5;
    pkt.ch.psn = 77;
    pkt.ext = wire::DefaultExtFor(op);
    if (op == wire::Opcode::kWrite) {
      pkt.meh()->stream_id = 3;
      pkt.meh()->msn = 9;
      pkt.meh()->msg_len = 3;
      pkt.payload = {1, 2, 3};
    }
    f.l4 = pkt;
    return wire::SerializeFrame(f);
  };
  b.OnFrame(frame({10, 0, 0, 1}, wire::Opcode::kWrite), 0, 0);
  ASSERT_EQ(out.frames.size(), 1u);
  auto nack = wire::ParseFrame(out.frames[0]);
  ASSERT_TRUE(nack.ok());
  const wire::MetaPacket* m = nack->meta();
  ASSERT_TRUE(m != nullptr && m->nack() != nullptr);
  EXPECT_EQ(m->ch.opcode, wire::Opcode::kNack);
  EXPECT_EQ(m->ch.dst_conn_id, 12345u);  // the id it did not know (MROCE-ENC-010)
  EXPECT_EQ(m->ch.path_id, 2u);
  EXPECT_EQ(m->ch.path_epoch, 5);
  EXPECT_EQ(m->nack()->code, wire::NackCode::kInvalidConn);
  EXPECT_EQ(m->nack()->psn, 77u);
  EXPECT_EQ(m->nack()->stream_id, 0);  // 0 for INVALID_CONN (MROCE-ERR-001)
  EXPECT_EQ(m->nack()->msn, 0u);
  EXPECT_EQ(nack->ip4()->dst, (wire::Ipv4Address{10, 0, 0, 1}));
  EXPECT_EQ(b.counters().Get(EndpointCounter::kInvalidConnNackTx), 1u);
  b.OnFrame(frame({10, 0, 0, 1}, wire::Opcode::kWrite), 0, 999 * kMicrosecond);   // within 1 ms: counted only
  b.OnFrame(frame({10, 0, 0, 3}, wire::Opcode::kWrite), 0, 999 * kMicrosecond);   // another source: answered
  b.OnFrame(frame({10, 0, 0, 1}, wire::Opcode::kAck), 0, 1 * kMillisecond);      // not data: never answered
  b.OnFrame(frame({10, 0, 0, 1}, wire::Opcode::kWrite), 0, 1 * kMillisecond);     // 1 ms after the first: answered
  EXPECT_EQ(out.frames.size(), 3u);
  EXPECT_EQ(b.counters().Get(EndpointCounter::kInvalidConnNackTx), 3u);
  EXPECT_EQ(b.counters().Get(EndpointCounter::kInvalidConnRx), 5u);
}

TEST(Endpoint, AcceptBadCrcQuirkChangesBehaviour) {
  EndpointConfig cfg = BaseConfig();
  cfg.quirks = *Quirks::Parse("accept_bad_crc");
  Endpoint b(cfg, nullptr);
  wire::Frame f;
  f.ip = wire::Ipv4Header{};
  wire::MetaPacket pkt;
  pkt.ch.opcode = wire::Opcode::kWrite;
  pkt.ch.dst_conn_id = 1;
  pkt.ext = wire::MessageExt{};
  f.l4 = pkt;
  std::vector<uint8_t> bytes = wire::SerializeFrame(f);
  bytes[bytes.size() - 1] ^= 1;
  b.OnFrame(bytes, 0, 0);
  EXPECT_EQ(b.counters().Get(EndpointCounter::kCrcErrors), 0u);
  EXPECT_EQ(b.counters().Get(EndpointCounter::kInvalidConnRx), 1u);
}

TEST(Loopback, SendBeforeReceivePostedUsesRnr) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(5000, 0xAB), dst(5000);
  ASSERT_TRUE(loop.a().PostSend(conn, 2, src.data(), 5000, 77, std::nullopt, loop.now()).ok());
  loop.RunUntil([] { return false; }, loop.now() + 30 * kMicrosecond);
  const ConnId bconn = loop.b().connections().at(0);
  ASSERT_TRUE(loop.b().PostRecv(bconn, 2, dst.data(), 5000, 88).ok());
  std::vector<Completion> ca, cb;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (auto& c : loop.a().PollCompletions()) ca.push_back(c);
    for (auto& c : loop.b().PollCompletions()) cb.push_back(c);
    return !ca.empty() && !cb.empty();
  }, loop.now() + 10 * kMillisecond)) << "A completions " << ca.size() << " B " << cb.size() << " rnr_rx "
      << ConnA(loop).counters().Get(ConnCounter::kRnrNackRx) << " rnr_retries "
      << ConnA(loop).counters().Get(ConnCounter::kXRnrHoldsEnded) << " tx "
      << ConnA(loop).counters().Get(ConnCounter::kTxPkts);
  EXPECT_EQ(ca[0].status, CompletionStatus::kSuccess);
  EXPECT_EQ(cb[0].wr_id, 88u);
  EXPECT_EQ(src, dst);
  EXPECT_GT(loop.b().connection(bconn)->counters().Get(ConnCounter::kRnrNackTx), 0u);
}

TEST(Loopback, BadRkeyGivesRemoteAccessError) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> target(100), src(100, 1);
  auto mr = loop.b().RegisterMemory(target.data(), target.size(), kAccessRemoteWrite);
  ASSERT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 100, mr->va + 50, mr->rkey, 5, std::nullopt, loop.now()).ok());
  std::vector<Completion> ca;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (auto& c : loop.a().PollCompletions()) ca.push_back(c);
    return !ca.empty();
  }, loop.now() + 10 * kMillisecond));
  EXPECT_EQ(ca[0].status, CompletionStatus::kRemoteAccess);
  EXPECT_EQ(target, std::vector<uint8_t>(100));  // nothing placed
}

TEST(Loopback, GoBackNQuirkRetransmitsMoreThanSpec) {
  auto run = [](const char* quirks) {
    std::mt19937_64 rng(9);
    EndpointConfig cfg = BaseConfig();
    cfg.quirks = *Quirks::Parse(quirks);
    Loop loop(cfg, [&](int, const wire::FrameView& v, TimeNs) {
      Verdict out;
      out.drop = IsData(v) && rng() % 50 == 0;
      return out;
    });
    const ConnId conn = Establish(loop);
    Workload w;
    w.Run(loop, conn);
    w.Check(loop, 500 * kMillisecond);
    return ConnA(loop).counters().Get(ConnCounter::kRetransmits);
  };
  const uint64_t spec = run("");
  const uint64_t gbn = run("go_back_n");
  EXPECT_GT(gbn, spec);
}

TEST(Loopback, SinglePathQuirkUsesOnlyPathZero) {
  EndpointConfig cfg = BaseConfig();
  cfg.quirks = *Quirks::Parse("single_path");
  Loop loop(cfg);
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 100 * kMillisecond);
  EXPECT_EQ(ConnA(loop).paths()[1].counters.Get(PathCounter::kTxPkts), 0u);
}

TEST(Loopback, ReorderIsLossQuirkRetransmitsOnCrossPathReordering) {
  EndpointConfig cfg = BaseConfig();
  cfg.quirks = *Quirks::Parse("reorder_is_loss");
  Loop loop(cfg, [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    if (v.is_meta()) out.extra_delay = v.meta_path_id() * 7 * kMicrosecond;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  // The quirk retransmits packets that were only overtaken on another path (here until the retry
  // limit kills the connection): a spec endpoint retransmits nothing in this setup.
  loop.RunUntil([] { return false; }, loop.now() + 20 * kMillisecond);
  EXPECT_GT(ConnA(loop).counters().Get(ConnCounter::kRetransmits), 0u);
}


// --- Task: deterministic bytes on the wire (VA scheme, no host pointers, no hash order) -------

std::vector<std::vector<uint8_t>> RunForBytes(size_t pad) {
  // `pad` shifts every host buffer so host pointers differ between the two runs.
  std::vector<uint8_t> padding(pad);
  std::mt19937_64 rng(7);
  Loop loop(BaseConfig(), [&](int, const wire::FrameView& v, TimeNs) {
    Verdict out;
    out.drop = IsData(v) && rng() % 40 == 0;
    return out;
  });
  const ConnId conn = Establish(loop);
  auto w = std::make_unique<Workload>();
  w->Run(loop, conn);
  w->Check(loop, 500 * kMillisecond);
  std::vector<std::vector<uint8_t>> out;
  for (const Loop::Sent& s : loop.log()) out.push_back(s.bytes);
  (void)padding;
  return out;
}

TEST(Loopback, SameSeedGivesByteIdenticalFrames) {
  const auto first = RunForBytes(0);
  const auto second = RunForBytes(4096 + 24);
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) ASSERT_EQ(first[i], second[i]) << "frame " << i << " differs";
}

TEST(Endpoint, RegionVasAreDeterministicAndNotHostPointers) {
  Endpoint e(BaseConfig(), nullptr);
  std::vector<uint8_t> a(100), b(5000);
  auto ra = e.RegisterMemory(a.data(), a.size(), kAccessRemoteWrite);
  auto rb = e.RegisterMemory(b.data(), b.size(), kAccessRemoteWrite);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(ra->va, MemoryRegionTable::kFirstAutoVa);
  EXPECT_EQ(rb->va, MemoryRegionTable::kFirstAutoVa + 2 * 4096);  // 4 KiB-aligned, 4 KiB gap
  auto rc = e.RegisterMemory(a.data(), 10, kAccessRemoteRead, 0x7000000000);
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(rc->va, 0x7000000000u);
  EXPECT_FALSE(e.RegisterMemory(a.data(), 10, kAccessRemoteRead, 0x7000000004).ok());  // overlap
}

// --- chapter 8 / 12: a NACKed packet is not recorded ---------------------------------------------

TEST(Loopback, RnrRefusedPsnStaysMissingFromAcks) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(100, 7), dst(100);
  ASSERT_TRUE(loop.a().PostSend(conn, 1, src.data(), 100, 1, std::nullopt, loop.now()).ok());
  loop.RunUntil([] { return false; }, loop.now() + 10 * kMicrosecond);
  const auto nacks = Frames(loop, 1, wire::Opcode::kNack);
  ASSERT_EQ(nacks.size(), 1u);
  const wire::NackHeader& n = *nacks[0].meta()->nack();
  EXPECT_EQ(n.code, wire::NackCode::kRnr);
  EXPECT_EQ(n.info, 20u);  // MROCE-RNR-001 default
  // MROCE-ACK-001: the refused PSN is not recorded: the receiver's epsn did not move past it.
  const Path& p = ConnB(loop).paths()[nacks[0].meta()->ch.path_id];
  EXPECT_EQ(p.rx.epsn(), n.psn);
  EXPECT_TRUE(Frames(loop, 1, wire::Opcode::kAck).empty());
  // The sender holds the PSN: no retransmission within the hold, then the same PSN with RTX + AR.
  const size_t data_before = Frames(loop, 0, wire::Opcode::kSend).size();
  ASSERT_TRUE(loop.b().PostRecv(loop.b().connections().at(0), 1, dst.data(), 100, 9).ok());
  std::vector<Completion> ca;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (auto& c : loop.a().PollCompletions()) ca.push_back(c);
    return !ca.empty();
  }, loop.now() + 1 * kMillisecond));
  const auto sends = Frames(loop, 0, wire::Opcode::kSend);
  ASSERT_EQ(sends.size(), data_before + 1);
  EXPECT_EQ(sends.back().meta()->ch.psn, n.psn);
  EXPECT_EQ(sends.back().meta()->ch.path_id, nacks[0].meta()->ch.path_id);
  EXPECT_TRUE(sends.back().meta()->ch.Has(wire::kFlagRtx));
  EXPECT_TRUE(sends.back().meta()->ch.Has(wire::kFlagAr));
  EXPECT_EQ(ca[0].status, CompletionStatus::kSuccess);
  EXPECT_EQ(src, dst);
}

TEST(Loopback, RnrRetryLimitGivesRnrRetryExceeded) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(10, 1);
  ASSERT_TRUE(loop.a().PostSend(conn, 0, src.data(), 10, 5, std::nullopt, loop.now()).ok());
  std::vector<Completion> ca;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (auto& c : loop.a().PollCompletions()) ca.push_back(c);
    return !ca.empty();
  }, loop.now() + 5 * kMillisecond));
  EXPECT_EQ(ca[0].status, CompletionStatus::kRnrRetryExceeded);
  EXPECT_EQ(Frames(loop, 1, wire::Opcode::kNack).size(), 8u);  // MROCE-RNR-006: the eighth fails
  EXPECT_EQ(ConnA(loop).state(), ConnState::kError);
  EXPECT_EQ(loop.a().counters().Get(EndpointCounter::kConnErrors), 1u);
}

// --- chapter 8: ACK generation ------------------------------------------------------------------

TEST(Loopback, GapAndFillAreAckedImmediatelyAndDuplicatesEchoTrigger) {
  EndpointConfig cfg = BaseConfig();
  cfg.num_paths = 1;
  cfg.num_planes = 1;
  bool dropped = false;
  Loop loop(cfg, [&](int dir, const wire::FrameView& v, TimeNs) {
    Verdict out;
    if (dir == 0 && IsData(v) && v.meta_psn() == 1 && !dropped) out.drop = dropped = true;
    return out;
  });
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(3 * 1024, 3), region(3 * 1024);
  auto mr = loop.b().RegisterMemory(region.data(), region.size(), kAccessRemoteWrite);
  ASSERT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 3 * 1024, mr->va, mr->rkey, 1, std::nullopt, loop.now()).ok());
  std::vector<Completion> ca;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (auto& c : loop.a().PollCompletions()) ca.push_back(c);
    return !ca.empty();
  }, loop.now() + 2 * kMillisecond));
  const auto acks = Frames(loop, 1, wire::Opcode::kAck);
  ASSERT_GE(acks.size(), 2u);
  // PSN 2 arrived with PSN 1 missing: immediate ACK with epsn 1, SACK bit 0 (PSN 2).
  const wire::AckHeader& gap = *acks[0].meta()->ack();
  EXPECT_EQ(gap.epsn, 1u);
  EXPECT_EQ(gap.trigger_psn, 2u);
  EXPECT_TRUE(gap.SackBit(0));
  EXPECT_LE(gap.ack_delay, 15);
  // The retransmission of PSN 1 fills the gap: ACK epsn 3, TRTX echoed.
  const wire::MetaPacket& fill = *acks.back().meta();
  EXPECT_EQ(fill.ack()->epsn, 3u);
  EXPECT_EQ(fill.ack()->trigger_psn, 1u);
  EXPECT_TRUE(fill.ch.Has(wire::kFlagTrtx));
  EXPECT_EQ(ConnA(loop).paths()[0].counters.Get(PathCounter::kRetransmits), 1u);
  EXPECT_EQ(ConnA(loop).paths()[0].counters.Get(PathCounter::kLossInferred), 1u);
}

TEST(Loopback, AcksOfAFailedPathTravelOnAnActivePathOfThePlane) {
  // B's own sending path 1 is blackholed until it FAILs; A keeps sending on its path 1, so B's ACKs
  // for path 1 must use another ACTIVE path of plane 1 (MROCE-ACK-011).
  EndpointConfig cfg = BaseConfig();
  Loop loop(cfg, [&](int dir, const wire::FrameView& v, TimeNs) {
    Verdict out;
    out.drop = dir == 1 && IsData(v) && v.meta_path_id() == 1;
    return out;
  });
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);  // READs make B send data on its paths
  loop.RunUntil([&] { return ConnB(loop).paths()[1].state() == PathState::kFailed; }, loop.now() + 50 * kMillisecond);
  ASSERT_EQ(ConnB(loop).paths()[1].state(), PathState::kFailed);
  const size_t before = loop.log().size();
  Workload w2;
  w2.Run(loop, conn);
  loop.RunUntil([] { return false; }, loop.now() + 2 * kMillisecond);
  const uint16_t p3_entropy = ConnB(loop).paths()[3].entropy;
  int acks_path1 = 0;
  for (size_t i = before; i < loop.log().size(); ++i) {
    auto f = wire::ParseFrame(loop.log()[i].bytes);
    if (loop.log()[i].from != 1 || !f.ok() || f->meta()->ch.opcode != wire::Opcode::kAck) continue;
    if (f->meta()->ch.path_id != 1) continue;
    ++acks_path1;
    EXPECT_NE(f->udp.sport, ConnB(loop).paths()[1].entropy);
    EXPECT_EQ(f->udp.sport, p3_entropy);  // path 3 is the ACTIVE path of plane 1
  }
  EXPECT_GT(acks_path1, 0);
}

// --- chapters 11, 16: fatal errors --------------------------------------------------------------

TEST(Loopback, SendLongerThanReceiveIsFatalWithLocLenErr) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(200, 1), dst(100);
  ASSERT_TRUE(loop.b().PostRecv(loop.b().connections().at(0), 0, dst.data(), 100, 42).ok());
  ASSERT_TRUE(loop.a().PostSend(conn, 0, src.data(), 200, 1, std::nullopt, loop.now()).ok());
  std::vector<Completion> ca, cb;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (auto& c : loop.a().PollCompletions()) ca.push_back(c);
    for (auto& c : loop.b().PollCompletions()) cb.push_back(c);
    return !ca.empty() && !cb.empty();
  }, loop.now() + 5 * kMillisecond));
  EXPECT_EQ(ca[0].status, CompletionStatus::kRemoteInvalid);  // MROCE-ERR-007
  EXPECT_EQ(cb[0].status, CompletionStatus::kLocalLength);    // MROCE-PLACE-005 / MROCE-ERR-009
  EXPECT_EQ(cb[0].wr_id, 42u);
  EXPECT_EQ(dst, std::vector<uint8_t>(100));
  EXPECT_EQ(loop.b().counters().Get(EndpointCounter::kConnErrors), 1u);
}

TEST(Loopback, WorkPostedInErrorIsFlushedWithoutPackets) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  std::vector<uint8_t> src(10, 1);
  ASSERT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 10, 0x1234, 999, 1, std::nullopt, loop.now()).ok());
  loop.RunUntil([&] { return ConnA(loop).state() != ConnState::kEstablished; }, loop.now() + 5 * kMillisecond);
  // B refused with REMOTE_ACCESS and sent DISCONNECT ERROR with it: A is in ERROR or already
  // QUARANTINE (row 21 of table 5.5).
  ASSERT_TRUE(ConnA(loop).state() == ConnState::kError || ConnA(loop).state() == ConnState::kQuarantine);
  (void)loop.a().PollCompletions();
  const size_t frames = loop.log().size();
  ASSERT_TRUE(loop.a().PostWrite(conn, 0, src.data(), 10, 0x1234, 999, 2, std::nullopt, loop.now()).ok());
  auto c = loop.a().PollCompletions();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].status, CompletionStatus::kFlushed);  // MROCE-CMPL-011
  EXPECT_EQ(loop.log().size(), frames);
}

// --- chapter 17: names ------------------------------------------------------------------------

TEST(Loopback, TelemetryUsesChapter17Names) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  Workload w;
  w.Run(loop, conn);
  w.Check(loop, 50 * kMillisecond);
  std::map<std::string, uint64_t> t;
  loop.a().ForEachTelemetry([&](std::string_view n, uint64_t v) { t[std::string(n)] = v; });
  const std::string c = "conn." + std::to_string(conn) + ".";
  const std::string p = "path." + std::to_string(conn) + ".2.";
  for (const char* name : {"tx_pkts", "rx_bytes", "bad_path_rx", "nack_rx_rnr", "rate_hint_last_rx_mbps",
                           "active_senders", "cmpl_success", "state_bytes", "conn_state"}) {
    EXPECT_TRUE(t.contains(c + name)) << c + name;
  }
  for (const char* name : {"loss_inferred", "failover_resends", "reintroductions", "cwnd_bytes", "srtt_ns",
                           "rx.bad_epoch_rx", "rx.dup_rtx_rx", "rx.epsn", "rx.rx_pkts"}) {
    EXPECT_TRUE(t.contains(p + name)) << p + name;
  }
  EXPECT_TRUE(t.contains("endpoint.invalid_conn_rx"));
  EXPECT_EQ(t[c + "conn_state"], 3u);  // ESTABLISHED
  EXPECT_EQ(t[c + "cmpl_success"], w.posted.size());
  // MROCE-TEL-007: per-path tx counters sum to the connection's.
  uint64_t sum = 0;
  for (int i = 0; i < 4; ++i) sum += t["path." + std::to_string(conn) + "." + std::to_string(i) + ".tx_bytes"];
  EXPECT_EQ(sum, t[c + "tx_bytes"]);
}

TEST(Loopback, StateBytesWithinTable153Model) {
  Loop loop(BaseConfig());
  const ConnId conn = Establish(loop);
  const Connection& c = *loop.a().connection(conn);
  // P = 4, S = 8, nothing outstanding: 4096 + P * (512 + 128) + S * 2 * 256.
  EXPECT_LE(c.StateBytes(), 4096u + 4 * (512 + 128) + 8 * 2 * 256) << c.StateBytes();
  std::printf("state bytes: connection %zu (4 paths, 8 streams), per path %zu, per idle stream %zu\n",
              c.StateBytes(), c.paths()[0].StateBytes(), StreamState{}.StateBytes());
}

// --- IPv6 ------------------------------------------------------------------------------------

TEST(Loopback, Ipv6Transfer) {
  EndpointConfig cfg = BaseConfig();
  EndpointConfig a = cfg, b = cfg;
  a.ip6 = wire::Ipv6Address{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  b.ip6 = wire::Ipv6Address{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  Loop loop(a, b);
  PeerAddress peer = PeerB();
  peer.ip6 = b.ip6;
  auto id = loop.a().Connect(peer, {}, loop.now());
  ASSERT_TRUE(id.ok());
  bool up = false;
  ASSERT_TRUE(loop.RunUntil([&] {
    for (const ConnEvent& e : loop.a().PollEvents()) up |= e.kind == ConnEventKind::kEstablished;
    return up;
  }, 10 * kMillisecond));
  Workload w;
  w.Run(loop, id.value());
  w.Check(loop, 50 * kMillisecond);
  for (const Loop::Sent& s : loop.log()) {
    auto f = wire::ParseFrame(s.bytes);
    ASSERT_TRUE(f.ok());
    EXPECT_NE(f->ip6(), nullptr);
  }
}

}  // namespace
}  // namespace mroce::ref
