// FieldMap: names, Frame <-> FieldMap round trip, sparse maps, errors, diffs and dumps.
#include "mroce/wire/field_map.h"

#include <gtest/gtest.h>

#include <set>

#include "mroce/wire/wire.h"
#include "test_util.h"

namespace mroce::wire {
namespace {

TEST(FieldMapTest, NamesOfAMetaAckFrame) {
  Frame f;
  f.ip = Ipv4Header{};
  MetaPacket p;
  p.ch.opcode = Opcode::kAck;
  AckHeader a{.epsn = 7};
  a.SetSackBit(3);
  p.ext = a;
  f.l4 = p;
  const FieldMap m = ToFieldMap(WithComputedFields(f));
  EXPECT_EQ(m.GetU64("ch.opcode"), 0x10u);
  EXPECT_EQ(m.GetU64("ch.flags.ar"), 0u);
  EXPECT_EQ(m.GetU64("ack.epsn"), 7u);
  EXPECT_EQ(m.GetU64("ip4.ecn"), kEcnEct0);
  EXPECT_EQ(m.GetU64("udp.dport"), kMetaUdpPort);
  auto sack = m.GetBytes("ack.sack");
  ASSERT_TRUE(sack);
  ASSERT_EQ(sack->size(), 32u);
  EXPECT_EQ((*sack)[0], 0x10);
  EXPECT_TRUE(m.GetU64("crc"));
  EXPECT_FALSE(m.Contains("ip4.version"));  // fixed fields are not in maps
  EXPECT_FALSE(m.Contains("meh.va"));
  EXPECT_FALSE(m.Contains("eth.vlan_tci"));
  EXPECT_EQ(m.entries().front().name, "eth.dst");
}

TEST(FieldMapTest, RandomRoundTrip) {
  const uint64_t seed = testing::TestSeed();
  testing::RandomPackets gen(seed);
  for (int n = 0; n < 10000; ++n) {
    const Frame f = gen.AnyFrame();
    const FieldMap m = ToFieldMap(f);
    auto back = FromFieldMap(m);
    ASSERT_TRUE(back) << "seed " << seed << " n " << n << ": " << back.error().ToString() << "\n"
                      << DumpFieldMap(m);
    ASSERT_EQ(*back, f) << "seed " << seed << " n " << n << "\n" << DumpFrame(f) << DumpFrame(*back);
    EXPECT_TRUE(DiffFieldMaps(m, ToFieldMap(*back)).empty());
    if (const MetaPacket* p = f.meta()) {
      auto mp = MetaFromFieldMap(ToFieldMap(*p));
      ASSERT_TRUE(mp) << mp.error().ToString();
      EXPECT_EQ(*mp, *p);
    }
  }
}

TEST(FieldMapTest, SparseMapsTakeDefaults) {
  FieldMap m{{"ip6.src", Bytes(16, 0xfd)}, {"ch.opcode", uint64_t{0x10}}, {"ack.epsn", uint64_t{5}}};
  auto f = FromFieldMap(m);
  ASSERT_TRUE(f) << f.error().ToString();
  ASSERT_NE(f->ip6(), nullptr);
  EXPECT_EQ(f->eth.ethertype, kEtherTypeIpv6);
  EXPECT_EQ(f->ip6()->hop_limit, 64);
  EXPECT_EQ(f->udp.dport, kMetaUdpPort);
  ASSERT_NE(f->meta(), nullptr);
  ASSERT_NE(f->meta()->ack(), nullptr);
  EXPECT_EQ(f->meta()->ack()->epsn, 5u);
  auto parsed = ParseFrame(SerializeFrame(*f), ParseOptions{.verify_udp_checksum = true});
  ASSERT_TRUE(parsed) << parsed.error().ToString();

  FieldMap r{{"bth.opcode", uint64_t{0x0a}}, {"reth.rkey", uint64_t{9}}, {"payload", Bytes{1, 2}}};
  auto rf = FromFieldMap(r);
  ASSERT_TRUE(rf) << rf.error().ToString();
  EXPECT_EQ(rf->udp.dport, kRoceUdpPort);
  ASSERT_NE(rf->roce(), nullptr);
  ASSERT_TRUE(rf->roce()->reth);
  EXPECT_EQ(rf->roce()->reth->rkey, 9u);
  EXPECT_TRUE(ParseFrame(SerializeFrame(*rf)));
}

TEST(FieldMapTest, Errors) {
  auto e1 = FromFieldMap(FieldMap{{"ch.opcode", uint64_t{1}}, {"ack.epsn", uint64_t{1}}});
  ASSERT_FALSE(e1);
  EXPECT_EQ(e1.error().code, "ack.epsn");
  EXPECT_NE(e1.error().message.find("unknown field"), std::string::npos);
  auto e2 = FromFieldMap(FieldMap{{"ip4.ecn", uint64_t{4}}});
  ASSERT_FALSE(e2);
  EXPECT_EQ(e2.error().code, "ip4.ecn");
  auto e3 = FromFieldMap(FieldMap{{"ip4.src", uint64_t{1}}});
  ASSERT_FALSE(e3);
  EXPECT_EQ(e3.error().code, "ip4.src");
  auto e4 = FromFieldMap(FieldMap{{"ip4.src", Bytes{1, 2, 3}}});
  ASSERT_FALSE(e4);
  EXPECT_EQ(e4.error().code, "ip4.src");
  auto e5 = FromFieldMap(FieldMap{{"bogus", uint64_t{1}}});
  ASSERT_FALSE(e5);
  EXPECT_EQ(e5.error().code, "bogus");
  EXPECT_EQ(e5.error().offset, 0u);
}

TEST(FieldMapTest, DiffAndIgnore) {
  FieldMap a{{"ch.psn", uint64_t{1}}, {"ack.epsn", uint64_t{2}}, {"crc", uint64_t{3}}};
  FieldMap b{{"ch.psn", uint64_t{1}}, {"ack.epsn", uint64_t{4}}, {"x", uint64_t{0}}};
  auto d = DiffFieldMaps(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(ToString(d[0]), "ack.epsn: expected 2 (0x2), actual 4 (0x4)");
  EXPECT_EQ(ToString(d[1]), "crc: expected 3 (0x3), actual (absent)");
  const std::string ignore[] = {"ack.", "crc", "x"};
  EXPECT_TRUE(DiffFieldMaps(a, b, ignore).empty());
}

TEST(FieldMapTest, FieldInfosAreUniqueAndInsideHeaders) {
  std::set<std::string_view> names;
  for (const auto& fi : AllFieldInfos()) {
    EXPECT_TRUE(names.insert(fi.name).second) << fi.name;
    EXPECT_EQ(fi.name.substr(0, fi.header.size()), fi.header);
  }
  EXPECT_TRUE(names.count("ch.flags.ar"));
  EXPECT_TRUE(names.count("ack.sack"));
  EXPECT_TRUE(names.count("bth.psn"));
}

TEST(DumpTest, NamesEveryFieldInDecimalAndHex) {
  Frame f;
  f.ip = Ipv4Header{.src = {10, 0, 0, 1}};
  MetaPacket p;
  p.ch.opcode = Opcode::kAck;
  AckHeader a{.epsn = 255};
  a.SetSackBit(9);
  p.ext = a;
  f.l4 = p;
  const std::string d = DumpFrame(WithComputedFields(f));
  for (const auto& e : ToFieldMap(f)) EXPECT_NE(d.find(e.name), std::string::npos) << e.name;
  EXPECT_NE(d.find("ack.epsn             = 255 (0xff)"), std::string::npos) << d;
  EXPECT_NE(d.find("ACK"), std::string::npos);
  EXPECT_NE(d.find("10.0.0.1"), std::string::npos);
  EXPECT_NE(d.find("bits set: 9"), std::string::npos);
  EXPECT_NE(d.find("ECT(0)"), std::string::npos);
  const std::string h = HexDump(std::vector<uint8_t>{0x41, 0x42, 0x00});
  EXPECT_EQ(h, "    0000  41 42 00                                          AB.\n");
  EXPECT_NE(DescribeBytes(std::vector<uint8_t>{1, 2, 3}).find("unparseable"), std::string::npos);
}

TEST(HexTest, ParseAndFormat) {
  EXPECT_EQ(ParseHex("0x0a 0B\n1c").value(), (std::vector<uint8_t>{0x0a, 0x0b, 0x1c}));
  EXPECT_EQ(ToHex(std::vector<uint8_t>{0xde, 0xad}), "dead");
  EXPECT_FALSE(ParseHex("abc"));
  EXPECT_EQ(ParseHex("zz").error().code, "hex");
}

TEST(ResultTest, ValueAndError) {
  Result<int> ok(3);
  EXPECT_TRUE(ok);
  EXPECT_EQ(*ok, 3);
  Result<int> bad(FieldError("ch.opcode", 1, "unknown opcode 0x7f"));
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error().ToString(), "ch.opcode @1: unknown opcode 0x7f");
  Status s;
  EXPECT_TRUE(s);
  EXPECT_DEATH((void)bad.value(), "unknown opcode");
}

}  // namespace
}  // namespace mroce::wire
