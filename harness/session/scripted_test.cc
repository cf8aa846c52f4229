// Scripted sessions: packetdrill-style scripts against the reference endpoint (and a quirk of it).
#include "mroce/session/scripted.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>

#include "mroce/dut/dut_spec.h"
#include "mroce/harness/case_loader.h"
#include "mroce/harness/catalog_loader.h"
#include "mroce/session/calibrate.h"
#include "mroce/session/session.h"
#ifdef MROCE_HAVE_SCAPY_EVAL
#include "mroce/session/scapy_eval.h"
#endif

namespace mroce::session {
namespace {

using harness::FieldPattern;
using K = FieldPattern::Kind;

FieldPattern Exact(uint64_t v) {
  FieldPattern p;
  p.kind = K::kExact;
  p.value = v;
  p.text = std::to_string(v);
  return p;
}
FieldPattern Var(const std::string& name, int64_t offset = 0) {
  FieldPattern p;
  p.kind = K::kVariable;
  p.variable = name;
  p.offset = offset;
  p.text = "$" + name + (offset > 0 ? "+" + std::to_string(offset) : offset < 0 ? std::to_string(offset) : "");
  return p;
}
FieldPattern Bytes(std::vector<uint8_t> b) {
  FieldPattern p;
  p.kind = K::kBytes;
  p.bytes = std::move(b);
  p.text = "hex:...";
  return p;
}

harness::SourceLocation Here(int line) { return {"scripted_test.cc", line, 0}; }

harness::DutStep Dut(harness::DutStep::Action a, int line) {
  harness::DutStep s;
  s.action = a;
  s.where = Here(line);
  return s;
}
harness::InjectStep Inject(harness::FieldPatterns f, int line, double at_rtt = 0) {
  harness::InjectStep s;
  s.at = harness::Duration::Rtts(at_rtt);
  s.frame = std::move(f);
  s.where = Here(line);
  return s;
}
harness::ExpectStep Expect(harness::FieldPatterns m, double within_rtt, int line, bool absent = false) {
  harness::ExpectStep s;
  s.within = harness::Duration::Rtts(within_rtt);
  s.match = std::move(m);
  s.absent = absent;
  s.where = Here(line);
  return s;
}

harness::FieldPatterns Write(uint32_t psn) {
  return {{"ch.opcode", Exact(0x01)},   {"ch.psn", Exact(psn)},        {"ch.flags.ar", Exact(1)},
          {"meh.va", Var("dut_va", psn * 4)}, {"meh.rkey", Var("dut_rkey")}, {"meh.msn", Exact(psn)},
          {"payload", Bytes({0xde, 0xad, 0xbe, 0xef})}};
}

// The DUT opens a connection to the script; the script accepts it.
harness::Case Handshake(const std::string& id) {
  harness::Case c;
  c.id = id;
  c.title = "scripted test";
  c.style = harness::Style::kScripted;
  c.clauses = {{"MROCE-CONN-007", harness::Level::kMust}};
  c.script.push_back(Dut(harness::DutStep::Action::kOpen, 1));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x20)},
                             {"ch.dst_conn_id", Exact(0)},
                             {"cmh.src_conn_id", Var("dut_conn")},
                             {"cmh.nonce", Var("nonce")},
                             {"cmh.num_paths", Var("paths")}},
                            1, 2));
  c.script.push_back(Inject({{"ch.opcode", Exact(0x21)},
                             {"cmh.src_conn_id", Var("peer_conn")},
                             {"cmh.nonce", Var("nonce")},
                             {"cmh.num_paths", Exact(1)},
                             {"cmh.mtu", Exact(4096)},
                             {"cmh.max_streams", Exact(16)},
                             {"cmh.num_planes", Exact(1)}},
                            3));
  return c;
}

// The spec's clause catalog: its degrees-of-freedom table drives the reference comparison.
const harness::Catalog* SpecCatalog() {
  static const harness::Catalog catalog = [] {
    auto loaded = harness::LoadCatalogFile(std::string(MROCE_SOURCE_DIR) + "/docs/spec/clauses.json");
    EXPECT_TRUE(loaded.ok()) << loaded.ErrorText();
    return loaded.value;
  }();
  return &catalog;
}

SessionOptions Options(const std::string& dut, uint64_t seed = 7, std::string run_dir = "") {
  SessionOptions o;
  o.catalog = SpecCatalog();
  o.seed = seed;
  o.dut_spec = dut;
  o.run_dir = std::move(run_dir);
  o.make_dut = [dut]() { return dut::MakeDut(dut::DutSpec::Parse(dut).value()); };
  return o;
}

std::string Explain(const harness::TestResult& t) {
  std::string s = std::string(harness::ToString(t.verdict)) + ": " + t.reason + "\n";
  for (const auto& c : t.checks) {
    s += "  " + c.check + ": " + std::string(harness::ToString(c.verdict)) + " " + c.reason + "\n";
    if (c.verdict != harness::Verdict::kPass) s += c.expected_packet + "\n" + c.actual_packet + "\n";
  }
  return s;
}

const harness::CheckResult* Find(const harness::TestResult& t, const std::string& name) {
  for (const auto& c : t.checks) {
    if (c.check == name) return &c;
  }
  return nullptr;
}

TEST(ScriptedTest, HandshakeThenWriteIsAcked) {
  harness::Case c = Handshake("test.scripted.handshake");
  c.script.push_back(Inject(Write(0), 10));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)},
                             {"ch.dst_conn_id", Var("peer_conn")},
                             {"ack.epsn", Exact(1)},
                             {"ack.trigger_psn", Exact(0)}},
                            1, 11));
  auto t = RunCase(c, Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);
  ASSERT_EQ(t.checks.size(), 4u) << Explain(t);
  EXPECT_EQ(t.checks[3].check, "clause-monitor");
  EXPECT_EQ(t.checks[0].check, "expect@scripted_test.cc:2");
  EXPECT_EQ(t.checks[1].check, "expect@scripted_test.cc:11");
  EXPECT_EQ(t.checks[2].check, "reference-match");
  EXPECT_EQ(t.checks[2].verdict, harness::Verdict::kPass) << Explain(t);
}

// Unordered steps match the frames of a group in any order (never one frame twice) and the script
// goes on after the group's latest frame; ordered steps keep their order.
harness::Case SegmentsCase(bool unordered) {
  const std::string u = unordered ? "unordered: true, " : "";
  const std::string yaml =
      "id: t.segments\ntitle: T\nclauses: [{id: MROCE-STRM-009, level: MAY}]\ntopology: {mtu: 256}\nstyle: scripted\n"
      "script:\n"
      "  - dut: {at: 0, op: open}\n"
      "  - expect: {within: 2rtt, match: {ch.opcode: 0x20, cmh.src_conn_id: $dut_conn, cmh.nonce: $nonce}}\n"
      "  - inject: {at: 0, frame: {ch.opcode: 0x21, ch.dst_conn_id: $dut_conn, cmh.src_conn_id: $peer_conn, cmh.nonce: $nonce,"
      " cmh.ver_min: 1, cmh.ver_max: 1, cmh.num_paths: 1, cmh.mtu: 256, cmh.max_streams: 16, cmh.num_planes: 1, cmh.max_rate: 0}}\n"
      "  - dut: {at: 0, op: write, size: 600}\n"
      "  - expect: {within: 1rtt, " + u + "match: {ch.opcode: 0x01, meh.msg_offset: 512}}\n"
      "  - expect: {within: 1rtt, " + u + "match: {ch.opcode: 0x01, meh.msg_offset: 256}}\n"
      "  - expect: {within: 1rtt, " + u + "match: {ch.opcode: 0x01, meh.msg_offset: 0}}\n"
      "  - expect: {within: 1rtt, match: {ch.opcode: 0x01}, absent: true}\n";
  auto c = harness::LoadCaseString(yaml, "segments.yaml");
  EXPECT_TRUE(c.ok()) << c.ErrorText();
  return c.value;
}

TEST(ScriptedTest, UnorderedStepsMatchAGroupInAnyOrder) {
  // In order the reference sends offset 0 first: listed last first, only the unordered group passes.
  EXPECT_EQ(RunCase(SegmentsCase(false), Options("reference")).verdict, harness::Verdict::kFail);
  auto t = RunCase(SegmentsCase(true), Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << t.reason;
  // A sender that sends the segments last first passes the same group.
  t = RunCase(SegmentsCase(true), Options("reference:variant=segments_reverse"));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << t.reason;
}

// A respond step ACKs each WRITE the DUT sends with its own PSN ("$p" binds per frame), at most
// `max` times: with max 3 nothing is retransmitted; with max 2 the third WRITE is, at its RTO.
harness::Case RespondCase(int max, const std::string& frame_psn = "$p+1") {
  const std::string yaml =
      "id: t.respond\ntitle: T\nclauses: [{id: MROCE-ACK-001, level: MUST}]\nstyle: scripted\n"
      "script:\n"
      "  - dut: {at: 0, op: open}\n"
      "  - expect: {within: 2rtt, match: {ch.opcode: 0x20, cmh.src_conn_id: $dut_conn, cmh.nonce: $nonce}}\n"
      "  - inject: {at: 0, frame: {ch.opcode: 0x21, ch.dst_conn_id: $dut_conn, cmh.src_conn_id: $peer_conn, cmh.nonce: $nonce,"
      " cmh.ver_min: 1, cmh.ver_max: 1, cmh.num_paths: 1, cmh.mtu: 4096, cmh.max_streams: 16, cmh.num_planes: 1, cmh.max_rate: 0}}\n"
      "  - respond: {match: {ch.opcode: 0x01, ch.psn: \"$p\"}, frame: {ch.opcode: 0x10, ack.epsn: \"" + frame_psn +
      "\", ack.trigger_psn: \"$p\", ack.rate_hint: 100000}, max: " + std::to_string(max) + "}\n"
      "  - dut: {at: 0, op: write, size: 64, count: 3}\n"
      "  - expect: {within: 1rtt, match: {ch.opcode: 0x01, ch.psn: 2}}\n"
      "  - expect: {within: 3ms, match: {ch.opcode: 0x01, ch.flags.rtx: 1}, absent: " + std::string(max >= 3 ? "true" : "false") +
      "}\n";
  auto c = harness::LoadCaseString(yaml, "respond.yaml");
  EXPECT_TRUE(c.ok()) << c.ErrorText();
  return c.value;
}

TEST(ScriptedTest, RespondAnswersEachMatchingFrameWithItsOwnBindings) {
  for (int max : {3, 2}) {
    SCOPED_TRACE("max " + std::to_string(max));
    const harness::Case c = RespondCase(max);
    auto o = Options("reference");
    RunRecord rec = SimulateScript(c, o, o.make_dut);
    ASSERT_TRUE(rec.harness_error.empty()) << rec.harness_error;
    ASSERT_EQ(rec.steps.size(), 7u);
    EXPECT_EQ(rec.steps[3].answered, max);
    EXPECT_FALSE(rec.vars.count("p")) << "a respond step's bindings stay with each answer";
    // Each answer carries the PSN of the WRITE it answers, sent at that WRITE's time.
    std::vector<uint64_t> acked;
    for (const FrameRecord& f : rec.trace.frames) {
      if (f.event != FrameRecord::Event::kTx || f.src_host != kScriptHost) continue;
      auto fr = Trace::Decode(f);
      if (fr.ok() && fr->meta() && fr->meta()->ch.opcode == wire::Opcode::kAck) acked.push_back(fr->meta()->ack()->epsn);
    }
    EXPECT_EQ(acked, (max == 3 ? std::vector<uint64_t>{1, 2, 3} : std::vector<uint64_t>{1, 2}));
    auto t = RunCase(c, o);
    EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);
    const harness::CheckResult* row = Find(t, "respond@respond.yaml:9");
    ASSERT_NE(row, nullptr) << Explain(t);
    EXPECT_EQ(row->verdict, harness::Verdict::kPass);
    EXPECT_EQ(row->reason, "answered " + std::to_string(max) + " DUT frame(s) (at most " + std::to_string(max) + ")");
  }
}

TEST(ScriptedTest, RespondWithAnUnboundVariableIsAnError) {
  auto t = RunCase(RespondCase(3, "$nope"), Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kError) << Explain(t);
  EXPECT_NE(t.reason.find("respond.yaml:9"), std::string::npos) << t.reason;
  EXPECT_NE(t.reason.find("$nope"), std::string::npos) << t.reason;
}

TEST(ScriptedTest, AnInjectedVariablePlusOffsetWrapsInTheFieldsWidth) {
  // conn_id_high gives the DUT connection id 0xFFFFFFFF: "$dut_conn+1" is 0, not a 33-bit value.
  auto c = harness::LoadCaseFile(std::string(MROCE_SOURCE_DIR) + "/testcases/framing/conn.spoofed-conn-id.yaml");
  ASSERT_TRUE(c.ok()) << c.ErrorText();
  auto t = RunCase(c.value, Options("reference:variant=conn_id_high"));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << t.reason;
}

TEST(ScriptedTest, ScriptIsDeterministic) {
  harness::Case c = Handshake("test.scripted.determinism");
  c.script.push_back(Inject(Write(0), 10));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}}, 1, 11));
  auto o = Options("reference", 42);
  RunRecord a = SimulateScript(c, o, o.make_dut);
  RunRecord b = SimulateScript(c, o, o.make_dut);
  ASSERT_TRUE(a.harness_error.empty()) << a.harness_error;
  ASSERT_EQ(a.trace.frames.size(), b.trace.frames.size());
  for (size_t i = 0; i < a.trace.frames.size(); ++i) {
    EXPECT_EQ(a.trace.frames[i].bytes, b.trace.frames[i].bytes) << i;
    EXPECT_EQ(a.trace.frames[i].time_ns, b.trace.frames[i].time_ns) << i;
  }
  EXPECT_EQ(a.vars, b.vars);
  EXPECT_NE(a.vars.at("nonce"), 0u);
}

harness::Case BadCrcCase() {
  harness::Case c = Handshake("test.scripted.bad-crc");
  c.clauses = {{"MROCE-CRC-002", harness::Level::kMust}};
  harness::FieldPatterns bad = Write(0);
  bad.push_back({"crc", Exact(0xdeadbeef)});
  c.script.push_back(Inject(bad, 20));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}}, 2, 21, /*absent=*/true));
  // The same packet with its CRC intact is placed and acknowledged.
  c.script.push_back(Inject(Write(0), 22));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(1)}}, 1, 23));
  return c;
}

TEST(ScriptedTest, BadCrcGetsNoAck) {
  auto t = RunCase(BadCrcCase(), Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);
}

TEST(ScriptedTest, AcceptBadCrcQuirkFailsTheBadCrcScript) {
  auto t = RunCase(BadCrcCase(), Options("reference:quirk=accept_bad_crc"));
  EXPECT_EQ(t.verdict, harness::Verdict::kFail) << Explain(t);
  const harness::CheckResult* e = Find(t, "expect@scripted_test.cc:21");
  ASSERT_NE(e, nullptr) << Explain(t);
  EXPECT_EQ(e->verdict, harness::Verdict::kFail);
  EXPECT_NE(e->reason.find("must be absent"), std::string::npos) << e->reason;
  EXPECT_NE(e->actual_packet.find("ack.epsn"), std::string::npos) << e->actual_packet;
  EXPECT_NE(e->expected_packet.find("script packet"), std::string::npos);
  EXPECT_GT(e->packet_index, 0u);
  EXPECT_EQ(t.reason.rfind("expect@scripted_test.cc:21", 0), 0u) << t.reason;
}

TEST(ScriptedTest, UnknownOpcodeGetsNoResponse) {
  harness::Case c = Handshake("test.scripted.unknown-opcode");
  c.clauses = {{"MROCE-HDR-009", harness::Level::kMust}};
  c.script.push_back(Inject({{"ch.opcode", Exact(0x7f)}, {"ch.psn", Exact(0)}}, 30));
  c.script.push_back(Expect({}, 2, 31, /*absent=*/true));  // no frame at all
  auto t = RunCase(c, Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);
}

TEST(ScriptedTest, FailedExpectationNamesFieldAndDumpsBothPackets) {
  const std::string dir = (std::filesystem::temp_directory_path() / "mroce_scripted_test").string();
  std::filesystem::remove_all(dir);
  harness::Case c = Handshake("test.scripted.fail");
  c.script.push_back(Inject(Write(0), 40));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(5)}}, 1, 41));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}}, 1, 42));  // never reached
  auto t = RunCase(c, Options("reference", 7, dir));
  EXPECT_EQ(t.verdict, harness::Verdict::kFail) << Explain(t);
  const harness::CheckResult* e = Find(t, "expect@scripted_test.cc:41");
  ASSERT_NE(e, nullptr) << Explain(t);
  EXPECT_EQ(e->verdict, harness::Verdict::kFail);
  EXPECT_EQ(e->where, "scripted_test.cc:41");
  ASSERT_TRUE(e->mismatch.has_value());
  EXPECT_EQ(e->mismatch->field, "ack.epsn");
  EXPECT_EQ(e->mismatch->expected, "5 (0x5)");
  EXPECT_EQ(e->mismatch->actual, "1 (0x1)");
  EXPECT_NE(e->expected_packet.find("ack.epsn"), std::string::npos) << e->expected_packet;
  EXPECT_NE(e->expected_packet.find("script packet"), std::string::npos);
  EXPECT_NE(e->actual_packet.find("ack.epsn"), std::string::npos) << e->actual_packet;
  EXPECT_EQ(e->pcap, "evidence/test.scripted.fail.pcap");
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / e->pcap));
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "evidence/test.scripted.fail.reference.pcap"));
  // CONNECT_REQ (1), CONNECT_ACK (2), WRITE (3) at the DUT tap: the ACK is frame 4.
  EXPECT_EQ(e->packet_index, 4u);
  EXPECT_NE(e->reason.find("ack.epsn expected 5 (0x5), actual 1 (0x1)"), std::string::npos) << e->reason;
  EXPECT_NE(e->reason.find("frame 4 of evidence/test.scripted.fail.pcap"), std::string::npos) << e->reason;
  EXPECT_NE(e->actual_packet.find("host 0->1"), std::string::npos) << e->actual_packet;
  const harness::CheckResult* later = Find(t, "expect@scripted_test.cc:42");
  ASSERT_NE(later, nullptr);
  EXPECT_EQ(later->verdict, harness::Verdict::kInconclusive);
  std::filesystem::remove_all(dir);
}

harness::Case GapCase() {
  // PSN 0 then PSN 2: the ACK for the gap has SACK bit 0 (PSN epsn + 1 = 2) set. The script does not
  // pin ack.sack: the reference comparison judges it.
  harness::Case c = Handshake("test.scripted.gap");
  c.clauses = {{"MROCE-ACK-003", harness::Level::kMust}};
  c.script.push_back(Inject(Write(0), 80));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(1)}}, 1, 81));
  c.script.push_back(Inject(Write(2), 82));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(1)}, {"ack.trigger_psn", Exact(2)}}, 1, 83));
  return c;
}

TEST(ScriptedTest, ReferenceComparisonCatchesUnpinnedField) {
  auto ok = RunCase(GapCase(), Options("reference"));
  EXPECT_EQ(ok.verdict, harness::Verdict::kPass) << Explain(ok);
  auto t = RunCase(GapCase(), Options("reference:quirk=sack_off_by_one"));
  EXPECT_EQ(t.verdict, harness::Verdict::kFail) << Explain(t);
  const harness::CheckResult* rm = Find(t, "reference-match");
  ASSERT_NE(rm, nullptr);
  EXPECT_EQ(rm->verdict, harness::Verdict::kFail) << Explain(t);
  EXPECT_EQ(rm->where, "scripted_test.cc:83");
  ASSERT_TRUE(rm->mismatch.has_value());
  EXPECT_EQ(rm->mismatch->field, "ack.sack");
  EXPECT_NE(rm->expected_packet.find("reference"), std::string::npos);
  EXPECT_NE(rm->actual_packet.find("ack.sack"), std::string::npos);
  // Every expect step itself passed: only the comparison fails.
  EXPECT_EQ(Find(t, "expect@scripted_test.cc:83")->verdict, harness::Verdict::kPass);
  // Freeing the field accepts the difference in the comparison; the clause monitor still sees the
  // quirk's real bug (its SACK bit names a PSN that never arrived).
  harness::Case freed = GapCase();
  std::get<harness::ExpectStep>(freed.script.back()).free = {"ack."};
  auto f = RunCase(freed, Options("reference:quirk=sack_off_by_one"));
  EXPECT_EQ(Find(f, "reference-match")->verdict, harness::Verdict::kPass) << Explain(f);
  const harness::CheckResult* mon = Find(f, "clause-monitor");
  ASSERT_NE(mon, nullptr);
  EXPECT_EQ(mon->verdict, harness::Verdict::kFail) << Explain(f);
  EXPECT_NE(mon->reason.find("[ack.only-arrived]"), std::string::npos) << mon->reason;
}

TEST(ScriptedTest, InjectedFrameHonoursExplicitComputedFields) {
  // A wrong ch.payload_len survives (and the frame is then malformed: no ACK).
  harness::Case c = Handshake("test.scripted.bad-len");
  harness::FieldPatterns bad = Write(0);
  bad.push_back({"ch.payload_len", Exact(3)});
  c.script.push_back(Inject(bad, 50));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}}, 2, 51, true));
  auto o = Options("reference");
  RunRecord r = SimulateScript(c, o, o.make_dut);
  ASSERT_TRUE(r.harness_error.empty()) << r.harness_error;
  const FrameRecord* injected = nullptr;
  for (const FrameRecord& f : r.trace.frames) {
    if (f.event == FrameRecord::Event::kTx && f.src_host == 1) injected = &f;
  }
  ASSERT_NE(injected, nullptr);
  // UDP payload starts at 14 + 20 + 8; payload_len is CH bytes 10..11.
  ASSERT_GT(injected->bytes.size(), 54u);
  EXPECT_EQ(injected->bytes[42 + 10], 0);
  EXPECT_EQ(injected->bytes[42 + 11], 3);
  EXPECT_EQ(r.steps.back().state, ScriptStepOutcome::State::kPassed) << r.steps.back().reason;
}

TEST(ScriptedTest, UnroutableInjectIsAnError) {
  harness::Case c = Handshake("test.scripted.unroutable");
  c.script.push_back(Inject({{"ch.opcode", Exact(0x01)}, {"ip4.dst", Bytes({192, 0, 2, 1})}}, 65));
  auto t = RunCase(c, Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kError) << Explain(t);
  EXPECT_NE(t.reason.find("scripted_test.cc:65"), std::string::npos) << t.reason;
}

TEST(ScriptedTest, UnboundVariableInInjectIsAnError) {
  harness::Case c = Handshake("test.scripted.unbound");
  c.script.push_back(Inject({{"ch.opcode", Exact(0x01)}, {"meh.va", Var("nope")}}, 60));
  auto t = RunCase(c, Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kError) << Explain(t);
  EXPECT_NE(t.reason.find("scripted_test.cc:60"), std::string::npos) << t.reason;
  EXPECT_NE(t.reason.find("$nope"), std::string::npos) << t.reason;
}

TEST(ScriptedTest, ScapyInjection) {
#ifndef MROCE_HAVE_SCAPY_EVAL
  GTEST_SKIP() << "built without mroce_session_scapy (needs Python3 Development.Embed and pybind11)";
#else
  InstallEmbeddedScapy();
  auto probe = EvalScapyExpression("bytes(Raw(b'x'))", {});
  if (!probe.ok()) GTEST_SKIP() << "embedded Scapy unavailable: " << probe.error().message;
  harness::Case c = Handshake("test.scripted.scapy");
  harness::InjectStep s;
  s.where = Here(70);
  s.scapy =
      "ipv4_frame(MetaRoCE(opcode='WRITE', dst_conn_id=dut_conn, psn=0, flags='AR+FIRST+LAST')"
      " / MetaMEH(va=dut_va, rkey=dut_rkey, msg_len=4) / Raw(b'\\x01\\x02\\x03\\x04'),"
      " src=peer_ip, dst=dut_ip, smac=peer_mac, dmac=dut_mac, sport=sport)";
  c.script.push_back(s);
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(1)}}, 1, 71));
  auto t = RunCase(c, Options("reference"));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);

  // A Python error is an ERROR naming the step and the exception.
  harness::Case bad = Handshake("test.scripted.scapy-bad");
  s.scapy = "no_such_function()";
  bad.script.push_back(s);
  auto tb = RunCase(bad, Options("reference"));
  EXPECT_EQ(tb.verdict, harness::Verdict::kError) << Explain(tb);
  EXPECT_NE(tb.reason.find("no_such_function"), std::string::npos) << tb.reason;
#endif
}

// --- live DUTs: a wall-clock path's latency widens expect windows, nothing else -------------------

// A device that answers like the one it wraps, `lag_ns` later (every frame it sends is held that
// long): a live DUT behind a slow path, on the simulated clock so the test is deterministic. It
// reports itself live unless `claims_simulated_time`.
class LaggingDut final : public dut::Dut {
 public:
  // lag_ns holds what the DUT sends, in_lag_ns what it receives (a live path's two directions).
  LaggingDut(std::unique_ptr<dut::Dut> inner, int64_t lag_ns, bool claims_simulated_time = false, int64_t stall_ns = 0,
             int64_t in_lag_ns = 0)
      : inner_(std::move(inner)), lag_ns_(lag_ns), sim_(claims_simulated_time), stall_ns_(stall_ns), in_lag_ns_(in_lag_ns),
        sink_(this) {}
  // What a live DUT's host would report having starved it for (Dut::LongestStall).
  dut::TimeNs LongestStall() const override { return stall_ns_; }
  std::string Identity() const override { return "lagging:" + inner_->Identity(); }
  dut::Capabilities Caps() const override {
    dut::Capabilities c = inner_->Caps();
    c.simulated_time = sim_;
    return c;
  }
  dut::Status Start(const dut::HostConfig& config, dut::FrameSink* sink) override {
    out_ = sink;
    return inner_->Start(config, &sink_);
  }
  dut::Result<dut::Buffer> AllocBuffer(uint64_t length, uint32_t access) override { return inner_->AllocBuffer(length, access); }
  dut::Status WriteBuffer(uint32_t id, uint64_t off, std::span<const uint8_t> b) override { return inner_->WriteBuffer(id, off, b); }
  dut::Result<std::vector<uint8_t>> ReadBuffer(uint32_t id, uint64_t off, uint64_t len) override {
    return inner_->ReadBuffer(id, off, len);
  }
  dut::Result<dut::ConnHandle> Connect(const dut::PeerInfo& peer, dut::TimeNs now) override {
    now_ = now;
    return inner_->Connect(peer, now);
  }
  dut::Status Disconnect(dut::ConnHandle c, dut::TimeNs now) override {
    now_ = now;
    return inner_->Disconnect(c, now);
  }
  std::vector<dut::ConnEvent> PollEvents() override { return inner_->PollEvents(); }
  dut::Status PostRecv(const dut::RecvRequest& wr) override { return inner_->PostRecv(wr); }
  dut::Status PostSend(const dut::SendRequest& wr, dut::TimeNs now) override { return now_ = now, inner_->PostSend(wr, now); }
  dut::Status PostWrite(const dut::WriteRequest& wr, dut::TimeNs now) override { return now_ = now, inner_->PostWrite(wr, now); }
  dut::Status PostRead(const dut::ReadRequest& wr, dut::TimeNs now) override { return now_ = now, inner_->PostRead(wr, now); }
  std::vector<dut::Completion> PollCompletions() override { return inner_->PollCompletions(); }
  void OnFrame(std::span<const uint8_t> frame, uint8_t plane, dut::TimeNs now) override {
    now_ = now;
    if (in_lag_ns_ > 0) {
      inbound_.push_back({now + in_lag_ns_, std::vector<uint8_t>(frame.begin(), frame.end()), plane});
      return;
    }
    inner_->OnFrame(frame, plane, now);
  }
  dut::TimeNs NextDeadline() const override {
    dut::TimeNs t = inner_->NextDeadline();
    if (!held_.empty()) t = std::min(t, held_.front().due);
    if (!inbound_.empty()) t = std::min(t, inbound_.front().due);
    return t;
  }
  void OnTimer(dut::TimeNs now) override {
    now_ = now;
    while (!held_.empty() && held_.front().due <= now) {
      out_->Send(held_.front().bytes, held_.front().plane);
      held_.pop_front();
    }
    while (!inbound_.empty() && inbound_.front().due <= now) {
      inner_->OnFrame(inbound_.front().bytes, inbound_.front().plane, now);
      inbound_.pop_front();
    }
    if (inner_->NextDeadline() <= now) inner_->OnTimer(now);
  }

 private:
  struct Held {
    dut::TimeNs due;
    std::vector<uint8_t> bytes;
    uint8_t plane;
  };
  struct Sink final : dut::FrameSink {
    explicit Sink(LaggingDut* d) : d_(d) {}
    void Send(std::span<const uint8_t> frame, uint8_t plane) override {
      d_->held_.push_back({d_->now_ + d_->lag_ns_, std::vector<uint8_t>(frame.begin(), frame.end()), plane});
    }
    LaggingDut* d_;
  };
  std::unique_ptr<dut::Dut> inner_;
  int64_t lag_ns_;
  bool sim_;
  int64_t stall_ns_;
  int64_t in_lag_ns_;
  Sink sink_;
  dut::FrameSink* out_ = nullptr;
  dut::TimeNs now_ = 0;
  std::deque<Held> held_;
  std::deque<Held> inbound_;
};

SessionOptions Lagging(int64_t lag_ns, bool claims_simulated_time = false, const std::string& inner = "reference",
                       int64_t stall_ns = 0, int64_t in_lag_ns = 0) {
  SessionOptions o = Options(inner);
  o.live_wall_bound = false;  // it runs on the simulated clock: the wall clock says nothing about it
  o.make_dut = [=]() -> dut::Result<std::unique_ptr<dut::Dut>> {
    auto d = dut::MakeDut(dut::DutSpec::Parse(inner).value());
    if (!d.ok()) return d.error();
    return std::unique_ptr<dut::Dut>(std::make_unique<LaggingDut>(std::move(d).value(), lag_ns, claims_simulated_time, stall_ns, in_lag_ns));
  };
  return o;
}

harness::Case AckedWrite() {
  harness::Case c = Handshake("test.scripted.live");
  c.script.push_back(Inject(Write(0), 50));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(1)}, {"ack.trigger_psn", Exact(0)}}, 1, 51));
  return c;
}

constexpr int64_t kLag = 300'000;  // 30 fabric RTTs of 10 us

TEST(LiveScripted, CalibrationMeasuresThePathsOwnLatency) {
  const LiveCalibration cal = CalibrateLive(Lagging(kLag), 8);
  ASSERT_TRUE(cal.ok) << cal.error;
  ASSERT_EQ(cal.samples_ns.size(), 8u);
  for (int64_t s : cal.samples_ns) {
    EXPECT_GE(s, kLag);
    EXPECT_LT(s, kLag + cal.fabric_rtt_ns) << "the reference ACKs an AR packet at once";
  }
  EXPECT_EQ(cal.rtt_extra_ns, *std::max_element(cal.samples_ns.begin(), cal.samples_ns.end()));
  EXPECT_NE(cal.Describe().find("8 AR exchanges"), std::string::npos) << cal.Describe();
  // A DUT that does not speak MetaRoCE cannot be calibrated, and the description says why.
  const LiveCalibration none = CalibrateLive(Lagging(kLag, false, "rocev2"), 2);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.Describe().find("not calibrated: "), std::string::npos) << none.Describe();
  EXPECT_GT(none.Describe().size(), std::string("not calibrated: ").size() + 10) << none.Describe();
}

TEST(LiveScripted, ALiveDutsLatencyWidensTheWindowItWouldFailOnTheSimulatedClock) {
  // The same slow device: judged as live it passes (its ACK is 30 RTTs late, within the widened
  // window); claiming the simulated clock, the 1-RTT window fails it.
  const harness::TestResult live = RunCase(AckedWrite(), Lagging(kLag));
  EXPECT_EQ(live.verdict, harness::Verdict::kPass) << Explain(live);
  const harness::CheckResult* cal = Find(live, "live-calibration");
  ASSERT_NE(cal, nullptr) << Explain(live);
  EXPECT_EQ(cal->verdict, harness::Verdict::kPass);
  EXPECT_NE(cal->reason.find("16 AR exchanges"), std::string::npos) << cal->reason;
  const harness::CheckResult* e = Find(live, "expect@scripted_test.cc:51");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->reason.find("live window 1rtt at a live RTT of"), std::string::npos) << e->reason;
  const harness::TestResult sim = RunCase(AckedWrite(), Lagging(kLag, /*claims_simulated_time=*/true));
  EXPECT_EQ(sim.verdict, harness::Verdict::kFail) << Explain(sim);
  EXPECT_EQ(Find(sim, "live-calibration"), nullptr);
}

TEST(LiveScripted, OnlyTimingWidensAWrongFrameStillFails) {
  harness::Case c = Handshake("test.scripted.live-wrong");
  c.script.push_back(Inject(Write(0), 60));
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(5)}}, 1, 61));
  const harness::TestResult t = RunCase(c, Lagging(kLag));
  EXPECT_EQ(t.verdict, harness::Verdict::kFail) << Explain(t);
  const harness::CheckResult* e = Find(t, "expect@scripted_test.cc:61");
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->mismatch.has_value()) << Explain(t);
  EXPECT_EQ(e->mismatch->field, "ack.epsn");
  EXPECT_NE(e->reason.find("(live window"), std::string::npos) << e->reason;
  // A quirk that acknowledges a corrupted packet is caught live as well: in a 400 us window (absolute
  // time: the spec's fixed timers) in which no ACK may come, its last 110 us (the live extra and the
  // fabric RTT) unjudged, the quirk's ACK comes about 105 us after the bad packet.
  harness::Case bad = BadCrcCase();
  std::get<harness::ExpectStep>(bad.script[4]).within = harness::Duration::Nanoseconds(400'000);
  const harness::TestResult q = RunCase(bad, Lagging(100'000, false, "reference:quirk=accept_bad_crc"));
  EXPECT_EQ(q.verdict, harness::Verdict::kFail) << Explain(q);
  // Written in RTTs (2 RTTs, stretched to the live RTT), the same ACK is not blamed: a timer of the
  // DUT running on the live RTT could have sent a frame there.
  const harness::TestResult stretched = RunCase(BadCrcCase(), Lagging(100'000, false, "reference:quirk=accept_bad_crc"));
  EXPECT_EQ(stretched.verdict, harness::Verdict::kInconclusive) << Explain(stretched);
  const harness::TestResult ok = RunCase(bad, Lagging(100'000));
  EXPECT_EQ(ok.verdict, harness::Verdict::kPass) << Explain(ok);
}

TEST(LiveScripted, ADutSilentWhereAFrameWasDueIsRunAgainThenFails) {
  // Nothing was injected: the DUT has nothing to ACK. Live, a starved DUT looks the same, so the
  // case runs again (3 runs in all) before the FAIL stands; on the simulated clock one run decides.
  harness::Case c = Handshake("test.scripted.live-silent");
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}}, 1, 70));
  const harness::TestResult live = RunCase(c, Lagging(kLag));
  EXPECT_EQ(live.verdict, harness::Verdict::kFail) << Explain(live);
  EXPECT_EQ(live.attempts, 3);
  const harness::TestResult sim = RunCase(c, Lagging(kLag, /*claims_simulated_time=*/true));
  EXPECT_EQ(sim.verdict, harness::Verdict::kFail) << Explain(sim);
  EXPECT_EQ(sim.attempts, 1);
}

TEST(LiveScripted, AnAbsentWindowShorterThanTheLatencyIsInconclusiveNotPassed) {
  // A window written in absolute time (200 us) in which no ACK may come: on a path 300 us long the
  // harness cannot tell whether an ACK seen then left the DUT inside the window or after it.
  harness::Case c = BadCrcCase();
  std::get<harness::ExpectStep>(c.script[4]).within = harness::Duration::Nanoseconds(200'000);
  const harness::TestResult t = RunCase(c, Lagging(kLag, false, "reference:quirk=accept_bad_crc"));
  EXPECT_EQ(t.verdict, harness::Verdict::kInconclusive) << Explain(t);
  const harness::CheckResult* e = Find(t, "expect@scripted_test.cc:21");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->verdict, harness::Verdict::kInconclusive);
  EXPECT_NE(e->reason.find("not judged live"), std::string::npos) << e->reason;
}

// `after` counts from the previous step (the cursor: here the CONNECT_ACK's injection), `at` from
// the script's start; against a live DUT an `after` in RTTs is measured in the live RTT.
TEST(LiveScripted, AfterCountsFromThePreviousStepInTheLiveRttWhenLive) {
  harness::Case c = Handshake("test.scripted.after");
  harness::InjectStep late = Inject(Write(0), 80);
  late.after = harness::Duration::Rtts(3);
  c.script.push_back(late);
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(1)}}, 1, 81));
  harness::InjectStep at = Inject(Write(1), 82, /*at_rtt=*/1);  // long past: runs at once
  c.script.push_back(at);
  SessionOptions o = Options("reference");
  const RunRecord sim = SimulateScript(c, o, o.make_dut);
  ASSERT_EQ(sim.steps.size(), 6u);
  EXPECT_EQ(sim.steps[3].time_ns - sim.steps[2].time_ns, 3 * sim.rtt_ns);
  EXPECT_EQ(sim.steps[5].time_ns, sim.steps[4].time_ns) << "an `at` already past runs at the cursor";
  // Live (a path 300 us slower than the fabric's RTT, given as calibrated): 3 live RTTs.
  SessionOptions live = Lagging(kLag);
  live.live_rtt_extra_ns = kLag;
  const RunRecord l = SimulateScript(c, live, live.make_dut);
  ASSERT_EQ(l.steps.size(), 6u);
  EXPECT_EQ(l.steps[3].time_ns - l.steps[2].time_ns, 3 * (l.rtt_ns + kLag));
}

// A live DUT that reaches a step 1 ms or more behind the script's own timeline (the spec's fixed
// timers are 1 ms) is not failed there: its RTO may have fired where the script expects none. A
// wrong frame reached 300 us late still fails (OnlyTimingWidensAWrongFrameStillFails).
TEST(LiveScripted, AFailureReachedAsLateAsTheSpecsFixedTimersIsNotJudged) {
  harness::Case c = Handshake("test.scripted.live-late");
  harness::InjectStep w = Inject(Write(0), 90);
  w.after = harness::Duration::Rtts(2);  // 2 live RTTs of about 610 us
  c.script.push_back(w);
  c.script.push_back(Expect({{"ch.opcode", Exact(0x10)}, {"ack.epsn", Exact(5)}}, 1, 91));
  const harness::TestResult t = RunCase(c, Lagging(600'000));
  EXPECT_EQ(t.verdict, harness::Verdict::kInconclusive) << Explain(t);
  const harness::CheckResult* e = Find(t, "expect@scripted_test.cc:91");
  ASSERT_NE(e, nullptr) << Explain(t);
  EXPECT_EQ(e->verdict, harness::Verdict::kInconclusive);
  EXPECT_NE(e->reason.find("not judged live: the live DUT reached this step"), std::string::npos) << e->reason;
  EXPECT_NE(e->reason.find("ack.epsn expected 5"), std::string::npos) << e->reason;
  // The same script on the simulated clock fails.
  const harness::TestResult sim = RunCase(c, Lagging(600'000, /*claims_simulated_time=*/true));
  EXPECT_EQ(sim.verdict, harness::Verdict::kFail) << Explain(sim);
}

TEST(LiveScripted, AFailureAfterTheDutsOwnTimerFiredIsJudgedOnlyIfNoStallExplainsTheTimer) {
  // The DUT sends PSN 0 and nothing acknowledges it: its RTO (1 ms at first, MROCE-RTO-003) re-sends
  // it; the script then wants a PSN 5 that never comes. Live, the re-sent PSN 0 is a frame of the
  // DUT's own timers that no step expected; a host that starved the DUT long enough could have fired
  // that timer spuriously, and a spurious RTO may legally change what a DUT sends next.
  const std::string yaml =
      "id: test.live.timer-fired\n"
      "title: t\n"
      "clauses: [{id: MROCE-LOSS-007, level: MUST}]\n"
      "requires: [write]\n"
      "topology: {mtu: 256}\n"
      "style: scripted\n"
      "script:\n"
      "  - dut: {at: 0, op: open}\n"
      "  - expect: {within: 2rtt, match: {ch.opcode: 0x20, cmh.src_conn_id: $dut_conn, cmh.nonce: $nonce}}\n"
      "  - inject: {at: 0, frame: {ch.opcode: 0x21, ch.dst_conn_id: $dut_conn, cmh.src_conn_id: $peer_conn, cmh.nonce: $nonce,"
      " cmh.ver_min: 1, cmh.ver_max: 1, cmh.num_paths: 1, cmh.mtu: 256, cmh.max_streams: 16, cmh.num_planes: 1, cmh.max_rate: 0}}\n"
      "  - dut: {at: 0, op: write, size: 256}\n"
      "  - expect: {within: 1rtt, match: {ch.opcode: 0x01, ch.psn: 0, ch.flags.rtx: 0}}\n"
      "  - expect: {within: 1rtt, match: {ch.opcode: 0x01, ch.psn: 5}}\n";
  auto c = harness::LoadCaseString(yaml, "timer-fired.yaml");
  ASSERT_TRUE(c.ok()) << c.ErrorText();
  // No stall: the FAIL stands at once.
  const harness::TestResult quiet = RunCase(c.value, Lagging(10'000));
  EXPECT_EQ(quiet.verdict, harness::Verdict::kFail) << Explain(quiet);
  EXPECT_EQ(quiet.attempts, 1);
  // A 100 us stall cannot have fired a timer that came about 1 ms after the transmission it repeats
  // (the harness stamps frames at most 100 us late): the FAIL stands.
  const harness::TestResult short_stall = RunCase(c.value, Lagging(10'000, false, "reference", 100'000));
  EXPECT_EQ(short_stall.verdict, harness::Verdict::kFail) << Explain(short_stall);
  EXPECT_EQ(short_stall.attempts, 1);
  // A 600 us stall can: every run is rerun, then the case is inconclusive, naming the frame.
  const harness::TestResult starved = RunCase(c.value, Lagging(10'000, false, "reference", 600'000));
  EXPECT_EQ(starved.verdict, harness::Verdict::kInconclusive) << Explain(starved);
  EXPECT_EQ(starved.attempts, 3);
  EXPECT_NE(starved.reason.find("the DUT's own timers fired where the script's did not"), std::string::npos) << starved.reason;
  EXPECT_NE(starved.reason.find("a retransmission"), std::string::npos) << starved.reason;
  EXPECT_NE(starved.reason.find("MROCE-RTO-004"), std::string::npos) << starved.reason;
  // On the simulated clock nothing starves: the same DUT fails.
  const harness::TestResult sim = RunCase(c.value, Lagging(10'000, true, "reference", 600'000));
  EXPECT_EQ(sim.verdict, harness::Verdict::kFail) << Explain(sim);
  // A CONNECT_REQ sent again (its 1 ms timer, MROCE-CONN-005) is such a frame too, and only a stall
  // of about 1 ms can have fired it: 600 us cannot, 2 ms can.
  auto cm = harness::LoadCaseString(
      "id: test.live.connect-timer-fired\ntitle: t\nclauses: [{id: MROCE-CONN-005, level: MUST}]\nstyle: scripted\n"
      "script:\n"
      "  - dut: {at: 0, op: open}\n"
      "  - expect: {within: 2rtt, match: {ch.opcode: 0x20, cmh.src_conn_id: $dut_conn, cmh.nonce: $nonce}}\n"
      "  - expect: {within: 1rtt, match: {ch.opcode: 0x21}}\n",
      "connect-timer-fired.yaml");
  ASSERT_TRUE(cm.ok()) << cm.ErrorText();
  const harness::TestResult cm_short = RunCase(cm.value, Lagging(10'000, false, "reference", 600'000));
  EXPECT_EQ(cm_short.verdict, harness::Verdict::kFail) << Explain(cm_short);
  const harness::TestResult cm_starved = RunCase(cm.value, Lagging(10'000, false, "reference", 2'000'000));
  EXPECT_EQ(cm_starved.verdict, harness::Verdict::kInconclusive) << Explain(cm_starved);
  EXPECT_NE(cm_starved.reason.find("MROCE-CONN-005"), std::string::npos) << cm_starved.reason;
}

// A live DUT's control channel is not its data plane: a close the script makes 1 RTT after it sent
// the CONNECT_ACK can reach a DUT whose inbound path is slower before the CONNECT_ACK does, and a
// conformant DUT refuses to close a connection it has not established. Live, the call is made
// again until the live path could no longer hold the frame; a refusal that lasts that long fails.
TEST(LiveScripted, AControlCallThatRacedTheScriptsFramesIsMadeAgainUntilTheyMustHaveArrived) {
  const std::string head =
      "title: t\n"
      "clauses: [{id: MROCE-CONN-012, level: MUST}]\n"
      "style: scripted\n"
      "script:\n"
      "  - dut: {at: 0, op: open}\n"
      "  - expect: {within: 2rtt, match: {ch.opcode: 0x20, cmh.src_conn_id: $dut_conn, cmh.nonce: $nonce}}\n";
  const std::string ack =
      "  - inject: {at: 0, frame: {ch.opcode: 0x21, ch.dst_conn_id: $dut_conn, cmh.src_conn_id: $peer_conn, cmh.nonce: $nonce,"
      " cmh.ver_min: 1, cmh.ver_max: 1, cmh.num_paths: 1, cmh.mtu: 4096, cmh.max_streams: 16, cmh.num_planes: 1, cmh.max_rate: 0}}\n";
  const std::string close =
      "  - dut: {after: 1rtt, op: close}\n"
      "  - expect: {within: 2rtt, match: {ch.opcode: 0x23, ch.dst_conn_id: $peer_conn, cmh.reason: 0x10}}\n";
  auto c = harness::LoadCaseString("id: test.live.close-raced\n" + head + ack + close, "close-raced.yaml");
  ASSERT_TRUE(c.ok()) << c.ErrorText();
  // Frames reach the DUT 300 us late, answers leave it at once (calibration sees 300 us).
  const harness::TestResult live = RunCase(c.value, Lagging(0, false, "reference", 0, kLag));
  EXPECT_EQ(live.verdict, harness::Verdict::kPass) << Explain(live);
  // On the simulated clock the CONNECT_ACK was due before the close: the refusal fails at once.
  const harness::TestResult sim = RunCase(c.value, Lagging(0, /*claims_simulated_time=*/true, "reference", 0, kLag));
  EXPECT_EQ(sim.verdict, harness::Verdict::kFail) << Explain(sim);
  EXPECT_NE(sim.reason.find("DUT refused close: connection not established"), std::string::npos) << sim.reason;
  EXPECT_EQ(sim.reason.find("live: refused by each of"), std::string::npos) << sim.reason;
  // Without a CONNECT_ACK the refusal is right and lasts: live, it fails after the live RTT plus
  // the tolerated stall (5 ms), naming how long and how often the DUT refused.
  auto never = harness::LoadCaseString("id: test.live.close-unestablished\n" + head + close, "close-unestablished.yaml");
  ASSERT_TRUE(never.ok()) << never.ErrorText();
  const harness::TestResult refused = RunCase(never.value, Lagging(0, false, "reference", 0, kLag));
  EXPECT_EQ(refused.verdict, harness::Verdict::kFail) << Explain(refused);
  const harness::CheckResult* d = Find(refused, "dut-control@close-unestablished.yaml:8");
  ASSERT_NE(d, nullptr) << Explain(refused);
  EXPECT_NE(d->reason.find("live: refused by each of"), std::string::npos) << d->reason;
}

}  // namespace
}  // namespace mroce::session
