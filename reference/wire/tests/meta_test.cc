// MetaRoCE packet codec: hand-written known answers from the spec layout, errors, round trips.
#include "mroce/wire/meta.h"

#include <gtest/gtest.h>

#include "mroce/wire/wire.h"
#include "test_util.h"

namespace mroce::wire {
namespace {

std::vector<uint8_t> Hex(std::string_view h) { return ParseHex(h).value(); }

// Appends the big-endian CRC-32 of `b`.
std::vector<uint8_t> WithCrc(std::vector<uint8_t> b) {
  const uint32_t c = Crc32(b);
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(c >> s));
  return b;
}

TEST(MetaKnownAnswer, WriteFirstLast) {
  // CH: ver 1, opcode WRITE, flags AR|FIRST|LAST, conn 0x01020304, path 3 epoch 1, len 4, psn 0x10
  // MEH: stream 7, msn 9, msg_len 4, offset 0, recv_seq 0, imm 0, rkey 0xaabbccdd, va 0x1122334455667788
  const auto bytes = WithCrc(Hex(
      "10 01 b0 00  01 02 03 04  03 01 00 04  00 00 00 10"
      "00 07 00 00  00 00 00 09  00 00 00 04  00 00 00 00  00 00 00 00  00 00 00 00  aa bb cc dd  00 00 00 00"
      "11 22 33 44 55 66 77 88"
      "de ad be ef"));
  auto r = ParseMeta(bytes);
  ASSERT_TRUE(r) << r.error().ToString();
  const MetaPacket& p = *r;
  EXPECT_EQ(p.ch.ver, 1);
  EXPECT_EQ(p.ch.opcode, Opcode::kWrite);
  EXPECT_TRUE(p.ch.Has(kFlagAr));
  EXPECT_FALSE(p.ch.Has(kFlagRtx));
  EXPECT_TRUE(p.ch.Has(kFlagFirst | kFlagLast));
  EXPECT_EQ(p.ch.dst_conn_id, 0x01020304u);
  EXPECT_EQ(p.ch.path_id, 3);
  EXPECT_EQ(p.ch.path_epoch, 1);
  EXPECT_EQ(p.ch.payload_len, 4);
  EXPECT_EQ(p.ch.psn, 0x10u);
  ASSERT_NE(p.meh(), nullptr);
  EXPECT_EQ(p.meh()->stream_id, 7);
  EXPECT_EQ(p.meh()->msn, 9u);
  EXPECT_EQ(p.meh()->msg_len, 4u);
  EXPECT_EQ(p.meh()->rkey, 0xaabbccddu);
  EXPECT_EQ(p.meh()->va, 0x1122334455667788u);
  EXPECT_EQ(p.payload, Hex("deadbeef"));
  EXPECT_EQ(SerializeMeta(p), bytes);

  // Built from scratch gives the same bytes.
  MetaPacket b;
  b.ch.opcode = Opcode::kWrite;
  b.ch.Set(kFlagAr);
  b.ch.Set(kFlagFirst);
  b.ch.Set(kFlagLast);
  b.ch.dst_conn_id = 0x01020304;
  b.ch.path_id = 3;
  b.ch.path_epoch = 1;
  b.ch.psn = 0x10;
  b.ext = MessageExt{.stream_id = 7, .msn = 9, .msg_len = 4, .rkey = 0xaabbccdd, .va = 0x1122334455667788};
  b.payload = Hex("deadbeef");
  EXPECT_EQ(SerializeMeta(b), bytes);
}

TEST(MetaKnownAnswer, AckWithSack) {
  // ACK path 2, flags ECE|TRTX; epsn 100, trigger 105, rate 25000 Mb/s, ce 3, delay 10; SACK bits 0, 4, 255.
  const auto bytes = WithCrc(Hex(
      "10 10 03 00  00 00 00 2a  02 00 00 00  00 00 00 00"
      "00 00 00 64  00 00 00 69  00 00 61 a8  00 03 00 0a"
      "88 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 01"));
  auto r = ParseMeta(bytes);
  ASSERT_TRUE(r) << r.error().ToString();
  const AckHeader* a = r->ack();
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(r->ch.Has(kFlagEce));
  EXPECT_TRUE(r->ch.Has(kFlagTrtx));
  EXPECT_EQ(a->epsn, 100u);
  EXPECT_EQ(a->trigger_psn, 105u);
  EXPECT_EQ(a->rate_hint, 25000u);
  EXPECT_EQ(a->ce_count, 3);
  EXPECT_EQ(a->ack_delay, 10);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(a->SackBit(i), i == 0 || i == 4 || i == 255) << i;
  AckHeader b{.epsn = 100, .trigger_psn = 105, .rate_hint = 25000, .ce_count = 3, .ack_delay = 10};
  b.SetSackBit(0);
  b.SetSackBit(4);
  b.SetSackBit(255);
  b.SetSackBit(7);
  b.SetSackBit(7, false);
  EXPECT_EQ(b, *a);
  EXPECT_EQ(SerializeMeta(*r), bytes);
}

TEST(MetaKnownAnswer, NackCmhProbe) {
  const auto nack = WithCrc(Hex("10 11 00 00  00 00 00 05  00 00 00 00  00 00 00 00"
                                "03 00 00 02  00 00 01 00  00 00 00 07  00 00 03 e8"));
  auto n = ParseMeta(nack);
  ASSERT_TRUE(n) << n.error().ToString();
  EXPECT_EQ(n->nack()->code, NackCode::kRnr);
  EXPECT_EQ(n->nack()->stream_id, 2);
  EXPECT_EQ(n->nack()->psn, 256u);
  EXPECT_EQ(n->nack()->msn, 7u);
  EXPECT_EQ(n->nack()->info, 1000u);

  const auto req = WithCrc(Hex("10 20 00 00  00 00 00 00  00 00 00 00  00 00 00 00"
                               "01 02 00 08  00 00 be ef  10 00 00 10  02 00 00 00"
                               "00 01 86 a0  00 00 00 00  01 23 45 67 89 ab cd ef"));
  auto c = ParseMeta(req);
  ASSERT_TRUE(c) << c.error().ToString();
  const ConnMgmtHeader* h = c->cmh();
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->ver_min, 1);
  EXPECT_EQ(h->ver_max, 2);
  EXPECT_EQ(h->reason, ConnReason::kNone);
  EXPECT_EQ(h->num_paths, 8);
  EXPECT_EQ(h->src_conn_id, 0xbeefu);
  EXPECT_EQ(h->mtu, 4096);
  EXPECT_EQ(h->max_streams, 16);
  EXPECT_EQ(h->num_planes, 2);
  EXPECT_EQ(h->max_rate, 100000u);
  EXPECT_EQ(h->nonce, 0x0123456789abcdefu);

  const auto probe = WithCrc(Hex("10 30 80 00  00 00 00 09  05 03 00 00  00 00 10 00"
                                 "00 00 00 2a  00 00 00 00  00 00 00 00 3b 9a ca 00"));
  auto pr = ParseMeta(probe);
  ASSERT_TRUE(pr) << pr.error().ToString();
  EXPECT_EQ(pr->ch.psn, 0x1000u);
  EXPECT_EQ(pr->ch.path_epoch, 3);
  EXPECT_EQ(pr->prh()->probe_seq, 42u);
  EXPECT_EQ(pr->prh()->tx_time, 1000000000u);
  for (const auto* b : {&nack, &req, &probe}) {
    auto p = ParseMeta(*b);
    EXPECT_EQ(SerializeMeta(*p), *b);
  }
}

TEST(MetaErrors, UnknownOpcodeNamesChOpcode) {
  auto bytes = WithCrc(Hex("10 7f 00 00 00 00 00 00 00 00 00 00 00 00 00 00"));
  auto r = ParseMeta(bytes);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "ch.opcode");
  EXPECT_EQ(r.error().offset, 1u);
  EXPECT_NE(r.error().message.find("unknown opcode 0x7f"), std::string::npos) << r.error().message;
  auto ch = ParseCommonHeader(bytes);
  ASSERT_TRUE(ch);
  EXPECT_EQ(static_cast<int>(ch->opcode), 0x7f);
  EXPECT_FALSE(IsKnownOpcode(ch->opcode));
}

TEST(MetaErrors, PayloadOnControlOpcodeIsRefused) {
  // MROCE-HDR-017: every opcode but the data opcodes carries payload_len 0; a serializer may still
  // write one (negative tests inject it).
  for (Opcode op : {Opcode::kAck, Opcode::kNack, Opcode::kConnectReq, Opcode::kProbe, Opcode::kProbeAck}) {
    MetaPacket m;
    m.ch.opcode = op;
    m.ext = DefaultExtFor(op);
    m.payload = {1, 2, 3, 4};
    const auto bytes = SerializeMeta(m);
    auto r = ParseMeta(bytes);
    ASSERT_FALSE(r) << OpcodeName(op);
    EXPECT_EQ(r.error().code, "ch.payload_len");
    EXPECT_EQ(r.error().offset, 10u);
    EXPECT_NE(r.error().message.find("MROCE-HDR-017"), std::string::npos) << r.error().message;
    m.payload.clear();
    EXPECT_TRUE(ParseMeta(SerializeMeta(m))) << OpcodeName(op);
  }
  MetaPacket w;
  w.ch.opcode = Opcode::kWrite;
  w.ext = DefaultExtFor(Opcode::kWrite);
  w.payload = {1, 2, 3, 4};
  w.meh()->msg_len = 4;
  EXPECT_TRUE(ParseMeta(SerializeMeta(w)));
}

TEST(MetaErrors, UnknownVersionParses) {
  auto bytes = WithCrc(Hex("f5 30 00 00  00 00 00 00  00 00 00 00  00 00 00 00"
                           "00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00"));
  auto r = ParseMeta(bytes);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->ch.ver, 15);
  EXPECT_EQ(r->ch.rsvd0, 5);
  EXPECT_EQ(SerializeMeta(*r), bytes);
}

TEST(MetaErrors, ReservedFieldsPreserved) {
  MetaPacket p;
  p.ch.rsvd0 = 0xA;
  p.ch.flags = 0x00FF;
  p.ext = MessageExt{.rsvd1 = 1, .rsvd2 = 2, .rsvd3 = 3};
  const auto bytes = SerializeMeta(p);
  auto r = ParseMeta(bytes);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->ch.rsvd0, 0xA);
  EXPECT_EQ(r->ch.flags, 0x00FF);
  EXPECT_EQ(r->meh()->rsvd1, 1);
  EXPECT_EQ(r->meh()->rsvd3, 3u);
  EXPECT_EQ(SerializeMeta(*r), bytes);
}

TEST(MetaErrors, CrcMismatchGivesExpectedAndActual) {
  MetaPacket p;
  p.ch.opcode = Opcode::kProbe;
  p.ext = ProbeHeader{.probe_seq = 1};
  p.crc = 0x12345678;
  const auto bytes = SerializeMeta(p, {.fill_crc = false});
  auto r = ParseMeta(bytes, 42);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "crc");
  EXPECT_EQ(r.error().offset, 42u + 32);
  EXPECT_NE(r.error().message.find("actual 0x12345678"), std::string::npos) << r.error().message;
  auto good = SerializeMeta(p);
  char want[16];
  std::snprintf(want, sizeof want, "0x%08x", Crc32(std::span(good).first(32)));
  EXPECT_NE(r.error().message.find(std::string("expected ") + want), std::string::npos);
  auto skip = ParseMeta(bytes, 0, /*verify_crc=*/false);
  ASSERT_TRUE(skip);
  EXPECT_EQ(skip->crc, 0x12345678u);
}

TEST(MetaErrors, PayloadLenInconsistent) {
  MetaPacket p;
  p.payload = {1, 2, 3};
  auto bytes = SerializeMeta(p);
  bytes.insert(bytes.end() - 4, 0x00);  // one byte more than payload_len says
  auto r = ParseMeta(bytes);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "ch.payload_len");
  EXPECT_EQ(r.error().offset, 10u);
}

TEST(MetaErrors, AckOverflowMessageMatchesSpecExample) {
  MetaPacket p;
  p.ch.opcode = Opcode::kAck;
  p.ext = AckHeader{};
  const auto bytes = SerializeMeta(p);
  // 16 CH + 20 bytes of ACK header: the first field that does not fit is the SACK.
  auto r = ParseMeta(std::span(bytes).first(36), 30);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "ack.sack");
  EXPECT_EQ(r.error().offset, 62u);
  EXPECT_EQ(r.error().message, "ACK header overflows packet: need 48 bytes at offset 46, have 20");
}

TEST(MetaErrors, TruncationAtEveryLengthNamesAField) {
  testing::RandomPackets gen(testing::TestSeed());
  for (int n = 0; n < 300; ++n) {
    const MetaPacket p = gen.Meta(n % 2);
    const auto bytes = SerializeMeta(p);
    for (size_t len = 0; len < bytes.size(); ++len) {
      auto r = ParseMeta(std::span(bytes).first(len));
      ASSERT_FALSE(r) << "len " << len << " of " << bytes.size() << " seed " << testing::TestSeed();
      EXPECT_FALSE(r.error().code.empty());
      EXPECT_LE(r.error().offset, bytes.size());
    }
  }
}

TEST(MetaRoundTrip, RandomPackets) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  for (int n = 0; n < 30000; ++n) {
    const MetaPacket p = gen.Meta(n % 3 == 0);
    const auto bytes = SerializeMeta(p);
    ASSERT_EQ(bytes.size(), p.size());
    auto r = ParseMeta(bytes);
    ASSERT_TRUE(r) << "seed " << seed << " n " << n << ": " << r.error().ToString() << "\n" << DumpMeta(p);
    ASSERT_EQ(*r, p) << "seed " << seed << " n " << n << "\n" << DumpMeta(p) << DumpMeta(*r);
    ASSERT_EQ(SerializeMeta(*r, {.fill_payload_len = false, .fill_crc = false}), bytes) << "seed " << seed;
    // Flipping any byte of a protected region must fail the CRC or another check.
    auto bad = bytes;
    const size_t at = gen.Bits(32) % bytes.size();
    bad[at] ^= static_cast<uint8_t>(1 + gen.Bits(7));
    EXPECT_FALSE(ParseMeta(bad)) << "seed " << seed << " n " << n << " byte " << at;
  }
}

TEST(MetaOpcodes, Tables) {
  EXPECT_EQ(ExtKindOf(Opcode::kReadReq), ExtKind::kMessage);
  EXPECT_EQ(ExtKindOf(Opcode::kDisconnectAck), ExtKind::kConnMgmt);
  EXPECT_EQ(ExtKindOf(static_cast<Opcode>(0x07)), ExtKind::kUnknown);
  EXPECT_EQ(OpcodeName(Opcode::kProbeAck), "PROBE_ACK");
  EXPECT_EQ(OpcodeName(static_cast<Opcode>(0x99)), "UNKNOWN");
  int known = 0;
  for (int i = 0; i < 256; ++i) known += IsKnownOpcode(static_cast<Opcode>(i));
  EXPECT_EQ(known, 15);
  EXPECT_TRUE(std::holds_alternative<UnknownExt>(DefaultExtFor(static_cast<Opcode>(0x7f))));
}

TEST(MetaUnknownExt, BuildsUnknownOpcodePackets) {
  MetaPacket p;
  p.ch.opcode = static_cast<Opcode>(0x7f);
  p.ext = UnknownExt{};
  p.payload = {9, 9};
  const auto bytes = SerializeMeta(p);
  EXPECT_EQ(bytes.size(), 16u + 2 + 4);
  EXPECT_EQ(ParseMeta(bytes).error().code, "ch.opcode");
}

}  // namespace
}  // namespace mroce::wire
