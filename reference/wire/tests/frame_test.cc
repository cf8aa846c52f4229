// Whole-frame parse and build: encapsulation rules, rejections, computed fields, random round trips.
#include "mroce/wire/frame.h"

#include <gtest/gtest.h>

#include "mroce/wire/wire.h"
#include "test_util.h"

namespace mroce::wire {
namespace {

Frame MetaFrame(bool v6) {
  Frame f;
  f.eth.dst = {2, 0, 0, 0, 0, 2};
  f.eth.src = {2, 0, 0, 0, 0, 1};
  if (v6) {
    Ipv6Header ip;
    ip.src[0] = 0xfd;
    ip.src[15] = 1;
    ip.dst[0] = 0xfd;
    ip.dst[15] = 2;
    f.ip = ip;
    f.eth.ethertype = kEtherTypeIpv6;
  } else {
    f.ip = Ipv4Header{.src = {10, 0, 0, 1}, .dst = {10, 0, 0, 2}};
  }
  f.udp.sport = 49153;
  MetaPacket p;
  p.ch.opcode = Opcode::kSend;
  p.ch.Set(kFlagFirst);
  p.ch.Set(kFlagLast);
  p.ch.dst_conn_id = 5;
  p.ch.psn = 1;
  p.ext = MessageExt{.stream_id = 1, .msg_len = 3};
  p.payload = {'a', 'b', 'c'};
  f.l4 = p;
  return f;
}

TEST(FrameKnownAnswer, MetaOverIpv4) {
  const auto bytes = SerializeFrame(MetaFrame(false));
  // Eth 14 + IPv4 20 + UDP 8 + CH 16 + MEH 40 + 3 + CRC 4.
  ASSERT_EQ(bytes.size(), 105u);
  const std::string hex = ToHex(bytes);
  EXPECT_EQ(hex.substr(0, 28), "0200000000020200000000010800");
  // IPv4: 45, TOS 0x02 (ECT(0)), len 91, id 0, DF, TTL 64, UDP.
  EXPECT_EQ(hex.substr(28, 40 - 8 - 8 - 4), "4502005b000040004011");
  EXPECT_EQ(hex.substr(28 + 24, 16), "0a0000010a000002");
  // UDP 49153 -> 4797, length 71, checksum 0.
  EXPECT_EQ(hex.substr(68, 16), "c00112bd00470000");
  EXPECT_EQ(Ipv4HeaderChecksum(std::span(bytes).subspan(14, 20)), bytes[24] << 8 | bytes[25]);
  auto f = ParseFrame(bytes);
  ASSERT_TRUE(f) << f.error().ToString();
  EXPECT_EQ(f->ip4()->total_len, 91);
  EXPECT_EQ(f->udp.length, 71);
  EXPECT_EQ(f->udp.checksum, 0);
  EXPECT_EQ(f->meta()->ch.payload_len, 3);
  EXPECT_EQ(*f, WithComputedFields(MetaFrame(false)));
}

TEST(FrameKnownAnswer, MetaOverIpv6HasUdpChecksum) {
  const auto bytes = SerializeFrame(MetaFrame(true));
  auto f = ParseFrame(bytes, ParseOptions{.verify_udp_checksum = true});
  ASSERT_TRUE(f) << f.error().ToString();
  EXPECT_NE(f->udp.checksum, 0);
  EXPECT_EQ(f->ip6()->payload_len, 8 + 16 + 40 + 3 + 4);
  EXPECT_EQ(f->ip6()->hop_limit, 64);
  EXPECT_EQ(f->ip6()->ecn, kEcnEct0);
  auto bad = bytes;
  bad[bad.size() - 10] ^= 1;  // payload byte: CRC fails first unless CRC checking is off
  auto r = ParseFrame(bad, ParseOptions{.verify_crc = false, .verify_udp_checksum = true});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "udp.checksum");
  EXPECT_EQ(ParseFrame(bad).error().code, "crc");
}

TEST(FrameErrors, Rejections) {
  const auto good = SerializeFrame(MetaFrame(false));
  auto expect_field = [](std::vector<uint8_t> b, const std::string& field, const ParseOptions& o = {}) {
    auto r = ParseFrame(b, o);
    ASSERT_FALSE(r) << field;
    EXPECT_EQ(r.error().code, field) << r.error().ToString();
  };
  auto b = good;
  b[12] = 0x88;
  b[13] = 0x47;  // MPLS
  expect_field(b, "eth.type");
  b = good;
  b[14] = 0x46;  // IHL 6
  expect_field(b, "ip4.ihl");
  b = good;
  b[14 + 10] ^= 0xFF;
  expect_field(b, "ip4.checksum");
  b = good;
  b[14 + 8] = 1;  // TTL change without checksum update
  expect_field(b, "ip4.checksum");
  EXPECT_TRUE(ParseFrame(b, ParseOptions{.verify_ip_checksum = false}));
  // IP length larger than the buffer.
  Frame f = MetaFrame(false);
  f.ip4()->total_len = 200;
  expect_field(SerializeFrame(f, {.fill_lengths = false, .fill_checksums = true, .fill_crc = true}),
               "ip4.total_len");
  // UDP length inconsistent with IP.
  f = WithComputedFields(MetaFrame(false));
  f.udp.length = static_cast<uint16_t>(f.udp.length - 1);
  expect_field(SerializeFrame(f, SerializeOptions::Exact()), "udp.length");
  // Not UDP.
  f = MetaFrame(false);
  f.ip4()->protocol = 6;
  expect_field(SerializeFrame(f), "ip4.protocol");
  f = MetaFrame(true);
  f.ip6()->next_header = 0;  // hop-by-hop extension header
  expect_field(SerializeFrame(f), "ip6.next_header");
  // Fragments.
  f = MetaFrame(false);
  f.ip4()->flags = kIpv4FlagMf;
  expect_field(SerializeFrame(f), "ip4.frag_offset");
  // Wrong CRC kept for a negative test.
  f = MetaFrame(false);
  f.meta()->crc = 0xBADC0FFE;
  expect_field(SerializeFrame(f, {.fill_crc = false}), "crc");
  EXPECT_TRUE(ParseFrame(SerializeFrame(f, {.fill_crc = false}), ParseOptions{.verify_crc = false}));
}

TEST(FrameErrors, TruncationAtEveryLengthNamesAField) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  for (int n = 0; n < 200; ++n) {
    Frame f = gen.AnyFrame();
    f.padding.clear();
    const auto bytes = SerializeFrame(f);
    for (size_t len = 0; len < bytes.size(); ++len) {
      auto r = ParseFrame(std::span(bytes).first(len));
      ASSERT_FALSE(r) << "seed " << seed << " n " << n << " len " << len;
      EXPECT_FALSE(r.error().code.empty());
      EXPECT_LE(r.error().offset, bytes.size());
    }
  }
}

TEST(FrameErrors, UnknownMetaOpcodeIsError) {
  Frame f = MetaFrame(false);
  f.meta()->ch.opcode = static_cast<Opcode>(0x7f);
  f.meta()->ext = UnknownExt{};
  auto r = ParseFrame(SerializeFrame(f));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "ch.opcode");
  EXPECT_EQ(r.error().offset, 14u + 20 + 8 + 1);
}

TEST(FrameParse, PaddingAndVlanRoundTrip) {
  Frame f = MetaFrame(false);
  f.eth.vlan_tci = 0x0123;
  f.padding = {0, 0, 0, 0, 0};
  const auto bytes = SerializeFrame(f);
  auto r = ParseFrame(bytes);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->padding.size(), 5u);
  EXPECT_EQ(r->eth.vlan_tci, 0x0123);
  EXPECT_EQ(SerializeFrame(*r, SerializeOptions::Exact()), bytes);
}

TEST(FrameParse, PortsSelectDecoder) {
  Frame f = MetaFrame(false);
  f.udp.dport = 9999;
  const auto bytes = SerializeFrame(f);
  auto raw = ParseFrame(bytes);
  ASSERT_TRUE(raw);
  EXPECT_TRUE(std::holds_alternative<RawPayload>(raw->l4));
  auto meta = ParseFrame(bytes, ParseOptions{.meta_port = 9999});
  ASSERT_TRUE(meta) << meta.error().ToString();
  EXPECT_NE(meta->meta(), nullptr);
}

TEST(FrameRoundTrip, RandomFramesOfEveryType) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  int counts[3] = {0, 0, 0};
  for (int n = 0; n < 20000; ++n) {
    const Frame f = gen.AnyFrame();
    ++counts[f.l4.index()];
    const auto bytes = SerializeFrame(f);
    auto r = ParseFrame(bytes, ParseOptions{.verify_udp_checksum = true});
    ASSERT_TRUE(r) << "seed " << seed << " n " << n << ": " << r.error().ToString() << "\n"
                   << DumpFrame(f) << HexDump(bytes);
    ASSERT_EQ(*r, f) << "seed " << seed << " n " << n << "\n" << DumpFrame(f) << DumpFrame(*r);
    ASSERT_EQ(SerializeFrame(*r, SerializeOptions::Exact()), bytes) << "seed " << seed << " n " << n;
    ASSERT_EQ(SerializeFrame(*r), bytes) << "seed " << seed << " n " << n;
  }
  EXPECT_GT(counts[0], 1000);
  EXPECT_GT(counts[1], 1000);
  EXPECT_GT(counts[2], 1000);
}

}  // namespace
}  // namespace mroce::wire
