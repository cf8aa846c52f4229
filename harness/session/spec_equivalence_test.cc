// Spec-equivalence: the degrees-of-freedom table of the spec's catalog decides what a DUT's packet
// may differ in from the reference's.
#include "mroce/session/spec_equivalence.h"

#include <gtest/gtest.h>

#include "mroce/harness/case_loader.h"
#include "mroce/harness/catalog_loader.h"
#include "mroce/wire/wire.h"

namespace mroce::session {
namespace {

const harness::Catalog& Spec() {
  static const harness::Catalog catalog = [] {
    auto loaded = harness::LoadCatalogFile(std::string(MROCE_SOURCE_DIR) + "/docs/spec/clauses.json");
    EXPECT_TRUE(loaded.ok()) << loaded.ErrorText();
    return loaded.value;
  }();
  return catalog;
}

wire::Frame Base(uint16_t sport = 49152) {
  wire::Frame f;
  f.eth.src = {0x02, 0, 0, 0, 0, 1};
  f.eth.dst = {0x02, 0, 0, 0, 0, 2};
  f.eth.ethertype = wire::kEtherTypeIpv4;
  wire::Ipv4Header ip;
  ip.src = {10, 0, 0, 1};
  ip.dst = {10, 0, 0, 2};
  ip.ttl = 64;
  ip.flags = 2;
  f.ip = ip;
  f.udp.sport = sport;
  f.udp.dport = wire::kMetaUdpPort;
  return f;
}

wire::Frame Data(wire::Opcode op, uint8_t path, uint32_t psn, uint16_t flags, uint32_t msg_len = 8192, uint32_t offset = 0) {
  wire::Frame f = Base();
  wire::MetaPacket m;
  m.ch.opcode = op;
  m.ch.path_id = path;
  m.ch.psn = psn;
  m.ch.flags = flags;
  m.ch.dst_conn_id = 0xc0ffee;
  m.ext = wire::DefaultExtFor(op);
  m.meh()->msn = 0;
  m.meh()->msg_len = msg_len;
  m.meh()->msg_offset = offset;
  m.payload.assign(std::min<uint32_t>(4096, msg_len - offset), 0x5a);
  f.l4 = m;
  return wire::WithComputedFields(f);
}

wire::Frame Ack(uint8_t path, uint32_t epsn, uint16_t ack_delay, uint32_t hint = 100000) {
  wire::Frame f = Base();
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kAck;
  m.ch.path_id = path;
  m.ch.dst_conn_id = 0xc0ffee;
  wire::AckHeader a;
  a.epsn = epsn;
  a.ack_delay = ack_delay;
  a.rate_hint = hint;
  m.ext = a;
  f.l4 = m;
  return wire::WithComputedFields(f);
}

std::vector<std::string> Fields(const std::vector<SpecDifference>& d) {
  std::vector<std::string> out;
  for (const auto& x : d) out.push_back(x.field);
  return out;
}

constexpr uint16_t kFirst = wire::kFlagFirst, kLast = wire::kFlagLast, kAr = wire::kFlagAr, kSe = wire::kFlagSe;

// A field the spec determines from the sender's own earlier choice (the data packet's dst_conn_id
// is the peer's id; here both runs bound it to their own value) is equal when it carries the same
// script binding in both runs, and different when it carries another value.
TEST(SpecEquivalence, DeterminedFromEachSidesOwnChoiceComparesByBinding) {
  wire::Frame dut = Data(wire::Opcode::kWrite, 0, 0, kFirst | kLast | kAr, 64);
  wire::Frame ref = dut;
  dut.meta()->ch.dst_conn_id = 7;
  ref.meta()->ch.dst_conn_id = 0xc0ffee;
  dut = wire::WithComputedFields(dut);
  ref = wire::WithComputedFields(ref);
  SpecContext ctx;
  EXPECT_EQ(Fields(CompareBySpec(dut, ref, Spec(), ctx)), std::vector<std::string>{"ch.dst_conn_id"});
  ctx.same_binding = {{7, 0xc0ffee}};
  EXPECT_TRUE(CompareBySpec(dut, ref, Spec(), ctx).empty());
  ctx.same_binding = {{8, 0xc0ffee}, {7, 0xc0ffef}};  // other variables' values: still a difference
  EXPECT_EQ(Fields(CompareBySpec(dut, ref, Spec(), ctx)), std::vector<std::string>{"ch.dst_conn_id"});
}

TEST(SpecEquivalence, IdenticalPacketsAreEquivalent) {
  SpecContext ctx;
  ctx.num_paths = 4;
  const wire::Frame f = Data(wire::Opcode::kWrite, 1, 7, kFirst);
  EXPECT_TRUE(CompareBySpec(f, f, Spec(), ctx).empty());
}

TEST(SpecEquivalence, MayFlagsAreTheSendersChoiceButForcedValuesAreNot) {
  SpecContext ctx;
  ctx.num_paths = 4;
  // AR on a packet that is not the last of its message: MROCE-ACK-015 MAY.
  EXPECT_TRUE(CompareBySpec(Data(wire::Opcode::kWrite, 0, 0, kFirst | kAr), Data(wire::Opcode::kWrite, 0, 0, kFirst), Spec(), ctx)
                  .empty());
  // No AR on the last packet: =1 if ch.flags.last=1 (MROCE-ACK-014).
  auto d = CompareBySpec(Data(wire::Opcode::kWrite, 0, 1, kLast, 8192, 4096),
                         Data(wire::Opcode::kWrite, 0, 1, kLast | kAr, 8192, 4096), Spec(), ctx);
  ASSERT_EQ(Fields(d), std::vector<std::string>{"ch.flags.ar"});
  EXPECT_EQ(d[0].rule, "=1 if ch.flags.last=1");
  EXPECT_FALSE(d[0].clauses.empty());
  // SE on a SEND is a choice (MROCE-HDR-008); on a WRITE it is 0.
  EXPECT_TRUE(CompareBySpec(Data(wire::Opcode::kSend, 0, 0, kFirst | kSe), Data(wire::Opcode::kSend, 0, 0, kFirst), Spec(), ctx)
                  .empty());
  EXPECT_EQ(Fields(CompareBySpec(Data(wire::Opcode::kWrite, 0, 0, kFirst | kSe), Data(wire::Opcode::kWrite, 0, 0, kFirst), Spec(), ctx)),
            std::vector<std::string>{"ch.flags.se"});
}

TEST(SpecEquivalence, RelativeFieldsAreComparedOnlyWhenTheChoicesTheyDependOnAgree) {
  SpecContext ctx;
  ctx.num_paths = 4;
  // Same segment on another path: the PSN is that path's, not the reference's.
  EXPECT_TRUE(CompareBySpec(Data(wire::Opcode::kWrite, 2, 0, kFirst), Data(wire::Opcode::kWrite, 0, 5, kFirst), Spec(), ctx).empty());
  // Same path and segment: the PSN still follows the order the sender chose for its segments and
  // paths (`order`, MROCE-STRM-009), so it is judged on the DUT's own sequence, not the reference's.
  EXPECT_TRUE(CompareBySpec(Data(wire::Opcode::kWrite, 0, 6, kFirst), Data(wire::Opcode::kWrite, 0, 5, kFirst), Spec(), ctx).empty());
  // RTX depends on the segment alone: the same segment, once sent before, carries the same flag.
  EXPECT_EQ(Fields(CompareBySpec(Data(wire::Opcode::kWrite, 0, 5, kFirst | wire::kFlagRtx | kAr),
                                 Data(wire::Opcode::kWrite, 0, 5, kFirst | kAr), Spec(), ctx)),
            std::vector<std::string>{"ch.flags.rtx"});
  // ... but a sender's retransmission is not compared with the other's first transmission of the
  // segment: when a sender retransmits is its timers' doing (`frame.sent_before`).
  ctx.dut_sent_before = true;
  EXPECT_TRUE(CompareBySpec(Data(wire::Opcode::kWrite, 0, 5, kFirst | wire::kFlagRtx | kAr),
                            Data(wire::Opcode::kWrite, 0, 5, kFirst | kAr), Spec(), ctx).empty());
  // Both retransmissions: the flag is compared again, and a missing RTX is a difference.
  ctx.ref_sent_before = true;
  EXPECT_EQ(Fields(CompareBySpec(Data(wire::Opcode::kWrite, 0, 5, kFirst | kAr),
                                 Data(wire::Opcode::kWrite, 0, 5, kFirst | wire::kFlagRtx | kAr), Spec(), ctx)),
            std::vector<std::string>{"ch.flags.rtx"});
  ctx.dut_sent_before = ctx.ref_sent_before = false;
  // A path beyond the connection's paths breaks its range.
  EXPECT_EQ(Fields(CompareBySpec(Data(wire::Opcode::kWrite, 4, 0, kFirst), Data(wire::Opcode::kWrite, 0, 0, kFirst), Spec(), ctx)),
            std::vector<std::string>{"ch.path_id"});
  // ACK contents depend on when it is sent: compared only at the same instant.
  ctx.dut_time_ns = 1000;
  ctx.ref_time_ns = 3000;
  EXPECT_TRUE(CompareBySpec(Ack(0, 2, 0), Ack(0, 4, 31), Spec(), ctx).empty());
  ctx.ref_time_ns = 1000;
  EXPECT_EQ(Fields(CompareBySpec(Ack(0, 2, 0), Ack(0, 4, 0), Spec(), ctx)), std::vector<std::string>{"ack.epsn"});
  // ack_delay has a bound whatever the timing (MROCE-ACK-009).
  ctx.dut_time_ns = 0;
  EXPECT_EQ(Fields(CompareBySpec(Ack(0, 4, 63), Ack(0, 4, 0), Spec(), ctx)), std::vector<std::string>{"ack.ack_delay"});
}

TEST(SpecEquivalence, ConstantsReservedFieldsAndRangesAreCheckedWithoutTheReference) {
  SpecContext ctx;
  wire::Frame dut = Ack(0, 1, 0, 0);  // rate_hint 0: a value a receiver MUST NOT send
  std::get<wire::Ipv4Header>(dut.ip).id = 7;
  std::get<wire::Ipv4Header>(dut.ip).checksum ^= 1;  // wrong checksum
  dut.meta()->ch.rsvd0 = 1;
  dut.udp.sport = 4000;
  auto d = CompareBySpec(dut, Ack(0, 1, 0), Spec(), ctx);
  std::vector<std::string> f = Fields(d);
  std::sort(f.begin(), f.end());
  // (the CRC, computed over the packet as sent, no longer matches the edited bytes either)
  EXPECT_EQ(f, (std::vector<std::string>{"ack.rate_hint", "ch.rsvd0", "crc", "ip4.checksum", "ip4.id", "udp.sport"}));
}

TEST(SpecEquivalence, LiteralsOnChoicesAreFoundAndForcedLiteralsAreNot) {
  wire::FieldMap last;
  last.Set("ch.flags.last", uint64_t{1});
  EXPECT_TRUE(LiteralAssertsAChoice(Spec(), "WRITE", "ch.flags.ar", 0, {}));
  EXPECT_TRUE(LiteralAssertsAChoice(Spec(), "WRITE", "ch.flags.ar", 1, {}));
  EXPECT_FALSE(LiteralAssertsAChoice(Spec(), "WRITE", "ch.flags.ar", 1, last));
  EXPECT_TRUE(LiteralAssertsAChoice(Spec(), "SEND", "ch.flags.se", 0, {}));
  EXPECT_FALSE(LiteralAssertsAChoice(Spec(), "WRITE", "ch.flags.se", 0, {}));
  EXPECT_TRUE(LiteralAssertsAChoice(Spec(), "CONNECT_REQ", "cmh.max_rate", 0, {}));
  EXPECT_FALSE(LiteralAssertsAChoice(Spec(), "ACK", "ack.epsn", 3, {}));
  EXPECT_FALSE(LiteralAssertsAChoice(Spec(), "ACK", "ch.opcode", 16, {}));
}

}  // namespace
}  // namespace mroce::session

namespace mroce::session {
namespace {

// MROCE-DOF-002 for the suite itself: no expect step of a bundled case asserts a literal value of
// a field whose value the spec leaves to the sender (free, or a MAY choice the step's other
// literals do not force). Such a step would fail a conformant device that chose otherwise.
TEST(SuiteAssertions, NoExpectStepAssertsALiteralOnAChoiceTheSpecLeavesOpen) {
  auto cases = harness::LoadCaseDir(std::string(MROCE_SOURCE_DIR) + "/testcases");
  ASSERT_TRUE(cases.ok()) << cases.ErrorText();
  std::vector<std::string> bad;
  size_t literals = 0;
  for (const harness::Case& c : cases.value) {
    for (const harness::ScriptStep& step : c.script) {
      const auto* e = std::get_if<harness::ExpectStep>(&step);
      if (e == nullptr || e->absent) continue;
      // Literal fields of the step, and the opcodes it can match.
      wire::FieldMap given;
      std::vector<std::string> opcodes;
      for (const auto& [name, p] : e->match) {
        if (p.kind == harness::FieldPattern::Kind::kExact) given.Set(name, p.value);
      }
      if (auto op = given.GetU64("ch.opcode")) {
        opcodes.emplace_back(wire::OpcodeName(static_cast<wire::Opcode>(*op)));
      } else {
        for (int op = 0; op < 256; ++op) {
          if (wire::IsKnownOpcode(static_cast<wire::Opcode>(op))) opcodes.emplace_back(wire::OpcodeName(static_cast<wire::Opcode>(op)));
        }
      }
      for (const auto& [name, p] : e->match) {
        if (p.kind != harness::FieldPattern::Kind::kExact || name == "ch.opcode") continue;
        ++literals;
        for (const std::string& op : opcodes) {
          if (auto why = LiteralAssertsAChoice(Spec(), op, name, p.value, given)) {
            bad.push_back(e->where.ToString() + " (" + c.id + "): " + name + " = " + std::to_string(p.value) + ": " + *why);
            break;
          }
        }
      }
    }
  }
  EXPECT_GT(literals, 100u);
  std::string all;
  for (const auto& b : bad) all += "  " + b + "\n";
  EXPECT_TRUE(bad.empty()) << bad.size() << " literal(s) on choices the spec leaves open:\n" << all;
}

}  // namespace
}  // namespace mroce::session
