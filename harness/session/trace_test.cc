// Trace: transport facts of MetaRoCE and RoCEv2 frames, dumps, telemetry lookups.
#include "mroce/session/trace.h"

#include <gtest/gtest.h>

#include "mroce/wire/wire.h"

namespace mroce::session {
namespace {

wire::Frame Ipv4Udp(uint16_t sport, uint16_t dport, uint8_t ecn = wire::kEcnEct0) {
  wire::Frame f;
  f.eth.src = {0x02, 0, 0, 0, 0, 1};
  f.eth.dst = {0x02, 0, 0, 0, 0, 2};
  f.eth.ethertype = wire::kEtherTypeIpv4;
  wire::Ipv4Header ip;
  ip.src = {10, 0, 0, 1};
  ip.dst = {10, 0, 0, 2};
  ip.ecn = ecn;
  f.ip = ip;
  f.udp.sport = sport;
  f.udp.dport = dport;
  return f;
}

std::vector<uint8_t> MetaWrite(uint8_t path, uint32_t psn, uint16_t flags, size_t payload, uint8_t ecn = wire::kEcnEct0) {
  wire::Frame f = Ipv4Udp(49152 + path, wire::kMetaUdpPort, ecn);
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kWrite;
  m.ch.path_id = path;
  m.ch.path_epoch = 3;
  m.ch.psn = psn;
  m.ch.flags = flags;
  m.ch.dst_conn_id = 0x1234;
  m.ext = wire::DefaultExtFor(m.ch.opcode);
  m.meh()->stream_id = 5;
  m.meh()->msn = 9;
  m.meh()->msg_len = static_cast<uint32_t>(payload) + 4096;
  m.meh()->msg_offset = 4096;
  m.payload.assign(payload, 0xab);
  f.l4 = m;
  return wire::SerializeFrame(f);
}

std::vector<uint8_t> MetaAck(uint32_t rate_hint, uint16_t ce_count) {
  wire::Frame f = Ipv4Udp(49153, wire::kMetaUdpPort);
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kAck;
  m.ch.path_id = 1;
  wire::AckHeader ack;
  ack.epsn = 7;
  ack.rate_hint = rate_hint;
  ack.ce_count = ce_count;
  m.ext = ack;
  f.l4 = m;
  return wire::SerializeFrame(f);
}

std::vector<uint8_t> RoceWrite(uint32_t qp, uint32_t psn) {
  wire::Frame f = Ipv4Udp(49152, wire::kRoceUdpPort);
  wire::RocePacket r;
  r.bth.opcode = wire::RoceOpcode::kWriteOnly;
  r.bth.dest_qp = qp;
  r.bth.psn = psn;
  r.reth = wire::Reth{0x1000, 7, 16};
  r.payload.assign(16, 1);
  f.l4 = r;
  return wire::SerializeFrame(f);
}

std::vector<uint8_t> RoceAck(uint8_t syndrome) {
  wire::Frame f = Ipv4Udp(49152, wire::kRoceUdpPort);
  wire::RocePacket r;
  r.bth.opcode = wire::RoceOpcode::kAck;
  r.aeth = wire::Aeth{syndrome, 1};
  f.l4 = r;
  return wire::SerializeFrame(f);
}

FrameRecord Rec(FrameRecord::Event e, std::vector<uint8_t> bytes, uint64_t origin, int src = kDutHost, int dst = 1) {
  FrameRecord r;
  r.event = e;
  r.bytes = std::move(bytes);
  r.packet_id = r.origin_id = origin;
  r.src_host = src;
  r.dst_host = dst;
  return r;
}

TEST(TraceTest, MetaRoceFactsComeFromTheHeaders) {
  Trace t;
  t.frames.push_back(Rec(FrameRecord::Event::kTx, MetaWrite(2, 41, wire::kFlagRtx, 100, wire::kEcnCe), 1));
  t.frames.push_back(Rec(FrameRecord::Event::kRx, MetaAck(25000, 3), 2, 1, kDutHost));
  t.frames.push_back(Rec(FrameRecord::Event::kTx, {0x01, 0x02, 0x03}, 3));
  t.Analyze();
  ASSERT_EQ(t.facts.size(), 3u);
  const FrameFacts& d = t.facts[0];
  EXPECT_TRUE(d.parsed && d.meta && d.data && d.rtx && d.ce);
  EXPECT_FALSE(d.ack || d.nack || d.roce);
  EXPECT_EQ(d.path, 2u);
  EXPECT_EQ(d.epoch, 3);
  EXPECT_EQ(d.psn, 41u);
  EXPECT_EQ(d.conn, 0x1234u);
  EXPECT_EQ(d.sport, 49154);
  EXPECT_EQ(d.payload_bytes, 100u);
  EXPECT_EQ(d.stream, 5);
  EXPECT_EQ(d.msn, 9u);
  EXPECT_EQ(d.msg_offset, 4096u);
  EXPECT_TRUE(d.segment);
  EXPECT_EQ(d.SegmentKey(), std::make_tuple(0x1234u, uint16_t{5}, 9u, 4096u));
  const FrameFacts& a = t.facts[1];
  EXPECT_TRUE(a.ack && a.meta);
  EXPECT_FALSE(a.data || a.rtx || a.ce || a.segment);
  EXPECT_EQ(a.rate_hint, 25000u);
  EXPECT_EQ(a.ce_count, 3);
  EXPECT_FALSE(t.facts[2].parsed);
}

TEST(TraceTest, RoceRetransmissionIsASecondSendOfAPsnAndItsDropInheritsIt) {
  Trace t;
  t.frames.push_back(Rec(FrameRecord::Event::kTx, RoceWrite(17, 5), 1));
  t.frames.push_back(Rec(FrameRecord::Event::kDrop, RoceWrite(17, 5), 1));
  t.frames.push_back(Rec(FrameRecord::Event::kTx, RoceWrite(17, 5), 2));  // same PSN again: a retransmission
  t.frames.push_back(Rec(FrameRecord::Event::kRx, RoceWrite(17, 5), 2));
  t.frames.push_back(Rec(FrameRecord::Event::kTx, RoceWrite(18, 5), 3));  // another QP: new
  t.frames.push_back(Rec(FrameRecord::Event::kTx, RoceAck(0x00), 4, 1, kDutHost));
  t.frames.push_back(Rec(FrameRecord::Event::kTx, RoceAck(0x60), 5, 1, kDutHost));
  t.frames.push_back(Rec(FrameRecord::Event::kTx, RoceAck(0x20), 6, 1, kDutHost));
  t.Analyze();
  EXPECT_TRUE(t.facts[0].roce && t.facts[0].data);
  EXPECT_FALSE(t.facts[0].rtx);
  EXPECT_FALSE(t.facts[1].rtx);
  EXPECT_TRUE(t.facts[2].rtx);
  EXPECT_TRUE(t.facts[3].rtx);
  EXPECT_FALSE(t.facts[4].rtx);
  EXPECT_EQ(t.facts[4].conn, 18u);
  EXPECT_TRUE(t.facts[5].ack && !t.facts[5].nack);  // AETH ACK
  EXPECT_TRUE(t.facts[6].nack && !t.facts[6].ack);  // NAK PSN sequence error
  EXPECT_TRUE(t.facts[7].nack && !t.facts[7].ack);  // RNR NAK
}

TEST(TraceTest, FactsDecodeMetaRoceOnTheTracesPort) {
  // A MetaRoCE frame to another UDP port is MetaRoCE only in a trace whose meta_port says so.
  wire::Frame f = wire::ParseFrame(MetaWrite(1, 7, 0, 8)).value();
  f.udp.dport = 5000;
  Trace other;
  other.frames.push_back(Rec(FrameRecord::Event::kTx, wire::SerializeFrame(f), 1));
  other.Analyze();
  EXPECT_FALSE(other.facts[0].meta || other.facts[0].segment);
  Trace t;
  t.meta_port = 5000;
  t.frames = other.frames;
  t.Analyze();
  EXPECT_TRUE(t.facts[0].meta && t.facts[0].segment);
  EXPECT_EQ(t.facts[0].psn, 7u);
}

TEST(TraceTest, AnalyzeIsIdempotent) {
  Trace t;
  t.frames.push_back(Rec(FrameRecord::Event::kTx, MetaWrite(0, 1, 0, 8), 1));
  t.Analyze();
  t.facts[0].psn = 999;  // a second call keeps the facts it has
  t.Analyze();
  EXPECT_EQ(t.facts[0].psn, 999u);
}

TEST(TraceTest, DumpNamesEventHostsFrameNumberAndDropper) {
  FrameRecord r = Rec(FrameRecord::Event::kDrop, MetaWrite(1, 7, 0, 4), 1);
  r.time_ns = 1234;
  r.frame_no = 0;
  r.where = "loss.bernoulli#0";
  const std::string d = Trace::Dump(r);
  EXPECT_EQ(d.rfind("drop t=1234ns host 0->1 plane 0 dropped by loss.bernoulli#0\n", 0), 0u) << d;
  EXPECT_NE(d.find("psn"), std::string::npos) << d;
  r.event = FrameRecord::Event::kTx;
  r.frame_no = 12;
  r.where.clear();
  EXPECT_NE(Trace::Dump(r).find("(pcap frame 12)"), std::string::npos);
  EXPECT_FALSE(Trace::Decode(Rec(FrameRecord::Event::kTx, {1, 2, 3}, 1)).ok());
}

TEST(TraceTest, CounterSumAddsEveryScopeOfTheLastSampleOfAHost) {
  Trace t;
  t.telemetry.push_back({10, kDutHost, {{"endpoint.crc_errors", 100}}, std::nullopt, std::nullopt});
  t.telemetry.push_back({20, kDutHost, {{"endpoint.crc_errors", 2}, {"conn.1.crc_errors", 3}, {"conn.1.x_crc_errors", 50},
                                        {"crc_errors", 1}, {"conn.1.retransmits", 9}}, 4096, std::nullopt});
  t.telemetry.push_back({30, 1, {{"endpoint.crc_errors", 70}}, std::nullopt, std::nullopt});
  ASSERT_NE(t.LastTelemetry(kDutHost), nullptr);
  EXPECT_EQ(t.LastTelemetry(kDutHost)->time_ns, 20);
  EXPECT_EQ(t.CounterSum(kDutHost, "crc_errors"), 6u);  // not x_crc_errors, not the older sample
  EXPECT_EQ(t.CounterSum(kDutHost, "retransmits"), 9u);
  EXPECT_EQ(t.CounterSum(kDutHost, "rnr_naks"), std::nullopt);
  EXPECT_EQ(t.CounterSum(1, "crc_errors"), 70u);
  EXPECT_EQ(t.CounterSum(2, "crc_errors"), std::nullopt);
  EXPECT_EQ(t.LastTelemetry(2), nullptr);
}

TEST(TraceTest, CounterScopesFollowTheChapter17Names) {
  Trace t;
  t.telemetry.push_back({10, kDutHost, {{"endpoint.rx_pkts", 1}, {"conn.7.rx_pkts", 10}, {"path.7.0.rx_pkts", 100},
                                        {"path.7.0.rx.rx_pkts", 1000}, {"path.7.1.rx.rx_pkts", 2000}}, std::nullopt, std::nullopt});
  EXPECT_EQ(t.CounterSum(kDutHost, "rx_pkts"), 3111u);
  EXPECT_EQ(t.CounterSum(kDutHost, "rx_pkts", CounterScope::kEndpoint), 1u);
  EXPECT_EQ(t.CounterSum(kDutHost, "rx_pkts", CounterScope::kConnection), 10u);
  EXPECT_EQ(t.CounterSum(kDutHost, "rx_pkts", CounterScope::kPath), 100u);
  EXPECT_EQ(t.CounterSum(kDutHost, "rx_pkts", CounterScope::kPathRx), 3000u);
  EXPECT_EQ(ParseCounterScope("path-rx"), CounterScope::kPathRx);
  EXPECT_EQ(ParseCounterScope("paths"), std::nullopt);
}

TEST(TraceTest, EventCountsComeFromTheDutTap) {
  Trace t;
  auto deliver = [&](std::vector<uint8_t> b, uint64_t id, bool corrupted = false, bool dup = false) {
    FrameRecord r = Rec(FrameRecord::Event::kRx, std::move(b), id, 1, kDutHost);
    r.corrupted = corrupted;
    r.duplicate = dup;
    t.frames.push_back(r);
  };
  deliver(MetaWrite(0, 1, 0, 8), 1);
  deliver(MetaWrite(0, 1, 0, 8), 2, false, true);              // a fabric duplicate: dup
  deliver(MetaWrite(0, 2, 0, 8, wire::kEcnCe), 3);             // CE
  deliver(MetaWrite(0, 3, 0, 8, wire::kEcnCe), 4, true);       // corrupted: not received
  deliver(MetaWrite(1, 1, 0, 8), 5);                           // same PSN, other path: new
  deliver(MetaWrite(0, 2, wire::kFlagRtx, 8), 6);              // retransmission of a received PSN: dup
  deliver(MetaAck(100, 0), 7);
  t.frames.push_back(Rec(FrameRecord::Event::kTx, MetaWrite(2, 9, 0, 8), 8));
  t.frames.push_back(Rec(FrameRecord::Event::kDrop, MetaWrite(2, 9, 0, 8), 8));
  t.frames.push_back(Rec(FrameRecord::Event::kTx, MetaWrite(2, 9, wire::kFlagRtx, 8), 9));
  t.frames.push_back(Rec(FrameRecord::Event::kTx, MetaAck(100, 0), 10));
  t.Analyze();
  EXPECT_EQ(t.Count("dut.data_rx"), 5u);
  EXPECT_EQ(t.Count("dut.data_rx_ce"), 1u);
  EXPECT_EQ(t.Count("dut.data_rx_dup"), 2u);
  EXPECT_EQ(t.Count("dut.acks_rx"), 1u);
  EXPECT_EQ(t.Count("dut.data_tx"), 2u);
  EXPECT_EQ(t.Count("dut.data_rtx"), 1u);
  EXPECT_EQ(t.Count("dut.data_lost"), 1u);
  EXPECT_EQ(t.Count("dut.acks_tx"), 1u);
  EXPECT_EQ(t.Count("dut.nacks_tx"), 0u);
  EXPECT_EQ(t.Count("dut.bogus"), std::nullopt);
  for (const TraceCountInfo& i : TraceCounts()) EXPECT_TRUE(t.Count(i.name).has_value()) << i.name;
}

}  // namespace
}  // namespace mroce::session
