// RoCEv2 packet codec: known answers, extension header selection, round trips.
#include "mroce/wire/roce.h"

#include <gtest/gtest.h>

#include "mroce/wire/wire.h"
#include "test_util.h"

namespace mroce::wire {
namespace {

std::vector<uint8_t> Hex(std::string_view h) { return ParseHex(h).value(); }

TEST(RoceKnownAnswer, WriteOnlyWithReth) {
  // BTH WRITE_ONLY dqp 0x12 psn 0xabcdef; RETH va 0xdeadbeef rkey 0x1234 len 4; "DATA"; ICRC LE.
  const auto b = Hex("0a00ffff 00000012 00abcdef 00000000deadbeef 00001234 00000004 44415441 f0e52eb9");
  auto r = ParseRoce(b);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->bth.opcode, RoceOpcode::kWriteOnly);
  EXPECT_EQ(r->bth.pkey, 0xFFFF);
  EXPECT_EQ(r->bth.dest_qp, 0x12u);
  EXPECT_EQ(r->bth.psn, 0xabcdefu);
  ASSERT_TRUE(r->reth);
  EXPECT_EQ(r->reth->va, 0xdeadbeefu);
  EXPECT_EQ(r->reth->rkey, 0x1234u);
  EXPECT_EQ(r->reth->dma_len, 4u);
  EXPECT_FALSE(r->aeth);
  EXPECT_EQ(r->payload, Hex("44415441"));
  EXPECT_EQ(r->icrc, 0xb92ee5f0u);
  EXPECT_EQ(SerializeRoce(*r), b);
}

TEST(RoceKnownAnswer, AckWithAethAndBthBits) {
  // SE, MigReq, pad 3, tver 0; FECN, BECN; AckReq; AETH syndrome 0x1f msn 3.
  const auto b = Hex("11f0ffff c0000034 80000007 1f000003 517cafbd");
  auto r = ParseRoce(b);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->bth.se);
  EXPECT_TRUE(r->bth.migreq);
  EXPECT_EQ(r->bth.pad_count, 3);
  EXPECT_TRUE(r->bth.fecn);
  EXPECT_TRUE(r->bth.becn);
  EXPECT_TRUE(r->bth.ack_req);
  EXPECT_EQ(r->bth.dest_qp, 0x34u);
  ASSERT_TRUE(r->aeth);
  EXPECT_EQ(r->aeth->syndrome, 0x1f);
  EXPECT_EQ(r->aeth->msn, 3u);
  EXPECT_TRUE(r->payload.empty());
  EXPECT_EQ(SerializeRoce(*r), b);
}

TEST(RoceKnownAnswer, SendOnlyImm) {
  const auto b = Hex("0500ffff 00000001 00000002 cafebabe 41 00000000");
  auto r = ParseRoce(b);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->imm, 0xcafebabeu);
  EXPECT_EQ(r->payload, Hex("41"));
}

TEST(RoceErrors, TruncationNamesField) {
  testing::RandomPackets gen(testing::TestSeed());
  for (int n = 0; n < 500; ++n) {
    RocePacket p = gen.Roce();
    const auto b = SerializeRoce(p);
    const size_t min = b.size() - p.payload.size();
    for (size_t len = 0; len < min; ++len) {
      auto r = ParseRoce(std::span(b).first(len));
      ASSERT_FALSE(r) << len;
      EXPECT_FALSE(r.error().code.empty());
    }
  }
  EXPECT_EQ(ParseRoce(Hex("0a00ffff 00000012 00abcdef 00000000")).error().code, "reth.va");
  EXPECT_EQ(ParseRoce(Hex("1100ffff 00000012 00abcdef")).error().code, "aeth.syndrome");
  EXPECT_EQ(ParseRoce(Hex("0400ffff 00000012 00abcdef 0102")).error().code, "icrc");
}

TEST(RoceRoundTrip, RandomPackets) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  for (int n = 0; n < 20000; ++n) {
    const RocePacket p = gen.Roce();
    const auto b = SerializeRoce(p);
    ASSERT_EQ(b.size(), p.size());
    auto r = ParseRoce(b);
    ASSERT_TRUE(r) << "seed " << seed << " n " << n << ": " << r.error().ToString();
    ASSERT_EQ(*r, p) << "seed " << seed << " n " << n;
  }
}

TEST(RoceOpcodes, ExtensionHeaders) {
  EXPECT_TRUE(RoceHasReth(RoceOpcode::kReadRequest));
  EXPECT_FALSE(RoceHasReth(RoceOpcode::kWriteMiddle));
  EXPECT_TRUE(RoceHasAeth(RoceOpcode::kReadResponseOnly));
  EXPECT_FALSE(RoceHasAeth(RoceOpcode::kReadResponseMiddle));
  EXPECT_TRUE(RoceHasImm(RoceOpcode::kWriteOnlyImm));
  EXPECT_TRUE(RoceHasReth(RoceOpcode::kWriteOnlyImm));
  EXPECT_EQ(RoceOpcodeName(RoceOpcode::kAck), "RC_ACKNOWLEDGE");
}

}  // namespace
}  // namespace mroce::wire
