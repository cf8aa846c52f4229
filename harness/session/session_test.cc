// End-to-end sessions: the reference endpoint as DUT against reference peers through the fabric.
#include "mroce/session/session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "mroce/pcap/pcap.h"

#include "mroce/dut/dut_spec.h"
#include "mroce/harness/case_loader.h"
#include "mroce/session/checks.h"
#include "mroce/wire/frame.h"
#include "mroce/wire/meta.h"

namespace mroce::session {
namespace {

harness::Case BaseCase() {
  harness::Case c;
  c.id = "test.session.base";
  c.title = "session test";
  c.clauses = {{"MROCE-LOSS-001", harness::Level::kMust}};
  c.topology.planes = 2;
  c.topology.spines = 2;
  c.topology.paths = 4;
  c.topology.rtt_ns = 10'000;
  c.workload.streams = 4;
  c.workload.ops = {{harness::OpKind::kWrite, 64 * 1024, 8, std::nullopt},
                    {harness::OpKind::kSend, 6000, 4, std::nullopt},
                    {harness::OpKind::kRead, 20000, 4, std::nullopt}};
  c.timeouts.total = harness::Duration::Rtts(20'000);
  c.timeouts.quiesce = harness::Duration::Rtts(20);
  for (const char* n : {"completions", "completion-order", "data-intact", "multipath"}) {
    harness::CheckSpec s;
    s.name = n;
    c.checks.push_back(s);
  }
  return c;
}

SessionOptions Options(const std::string& dut, uint64_t seed) {
  SessionOptions o;
  o.seed = seed;
  o.dut_spec = dut;
  o.make_dut = [dut]() { return dut::MakeDut(dut::DutSpec::Parse(dut).value()); };
  return o;
}

void AddLoss(harness::Case& c, double rate) {
  impairment::Match m;
  m.direction = impairment::Direction::kDutToPeer;
  m.opcode = static_cast<uint8_t>(wire::Opcode::kWrite);
  harness::ImpairmentSpec loss;
  loss.stage = impairment::MakeStageConfig("loss.bernoulli", "", m, {{"rate", rate}}).value();
  c.impairments.push_back(loss);
  harness::CheckSpec s;
  s.name = "retransmissions-equal-losses";
  c.checks.push_back(s);
}

std::string Explain(const harness::TestResult& t) {
  std::string s = t.reason + "\n";
  for (const auto& c : t.checks) s += "  " + c.check + ": " + std::string(harness::ToString(c.verdict)) + " " + c.reason + "\n";
  return s;
}

TEST(SessionTest, CleanRunPassesEveryCheck) {
  harness::Case c = BaseCase();
  auto t = RunCase(c, Options("reference", 1));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);
  EXPECT_EQ(t.checks.size(), 5u);  // the four it names and the clause monitor
  EXPECT_NE(t.reproduce.find("--seed 1"), std::string::npos);
  // The report's plots: goodput, wire rate beside the hint, per-path use, window.
  std::set<std::string> names;
  for (const auto& s : t.series) names.insert(s.name);
  for (const char* want : {"DUT goodput", "DUT data rate (wire)", "rate hint received by the DUT", "DUT data frames path 0"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
  for (const auto& s : t.series) {
    if (s.name != "rate hint received by the DUT") continue;
    for (const auto& [x, gbps] : s.points) EXPECT_DOUBLE_EQ(gbps, 190.0) << "C x U / N = 2 x 100 Gb/s x 0.95 / 1";
  }
}

TEST(SessionTest, LossIsRecoveredByExactRetransmission) {
  harness::Case c = BaseCase();
  AddLoss(c, 0.05);
  auto t = RunCase(c, Options("reference", 3));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);
}

TEST(SessionTest, GoBackNQuirkIsCaught) {
  harness::Case c = BaseCase();
  AddLoss(c, 0.05);
  auto t = RunCase(c, Options("reference:quirk=go_back_n", 3));
  EXPECT_EQ(t.verdict, harness::Verdict::kFail) << Explain(t);
  bool rtx_failed = false;
  for (const auto& ch : t.checks) {
    if (ch.check == "retransmissions-equal-losses") {
      rtx_failed = ch.verdict == harness::Verdict::kFail;
      EXPECT_FALSE(ch.actual_packet.empty()) << "a failure shows the live packet";
      EXPECT_TRUE(ch.mismatch.has_value());
    }
  }
  EXPECT_TRUE(rtx_failed) << Explain(t);
}

TEST(SessionTest, SinglePathQuirkFailsMultipath) {
  harness::Case c = BaseCase();
  auto t = RunCase(c, Options("reference:quirk=single_path", 1));
  ASSERT_EQ(t.verdict, harness::Verdict::kFail) << Explain(t);
  EXPECT_NE(t.reason.find("multipath"), std::string::npos) << Explain(t);
}

TEST(SessionTest, SameSeedSameBytesOtherSeedOtherBytes) {
  harness::Case c = BaseCase();
  AddLoss(c, 0.02);
  auto a = Simulate(c, Options("reference", 5));
  auto b = Simulate(c, Options("reference", 5));
  auto d = Simulate(c, Options("reference", 6));
  ASSERT_EQ(a.trace.frames.size(), b.trace.frames.size());
  for (size_t i = 0; i < a.trace.frames.size(); ++i) {
    ASSERT_EQ(a.trace.frames[i].bytes, b.trace.frames[i].bytes) << "frame " << i;
    ASSERT_EQ(a.trace.frames[i].time_ns, b.trace.frames[i].time_ns) << "frame " << i;
  }
  bool differs = a.trace.frames.size() != d.trace.frames.size();
  for (size_t i = 0; !differs && i < a.trace.frames.size(); ++i) differs = a.trace.frames[i].bytes != d.trace.frames[i].bytes;
  EXPECT_TRUE(differs);
}

TEST(SessionTest, PeerToDutDirectionAndIncast) {
  harness::Case c = BaseCase();
  c.workload.direction = harness::Direction::kPeerToDut;
  c.workload.senders = 4;
  c.workload.ops = {{harness::OpKind::kWrite, 256 * 1024, 8, std::nullopt}};
  c.checks.erase(c.checks.begin() + 3);  // multipath judges DUT-sent data; the DUT only receives here
  auto t = RunCase(c, Options("reference", 2));
  EXPECT_EQ(t.verdict, harness::Verdict::kPass) << Explain(t);
}

TEST(SessionTest, ConstantRateHintQuirkFailsHintShare) {
  harness::Case c = BaseCase();
  c.workload.direction = harness::Direction::kPeerToDut;
  c.workload.senders = 4;
  c.workload.ops = {{harness::OpKind::kWrite, 128 * 1024, 4, std::nullopt}};
  c.checks.clear();
  harness::CheckSpec s;
  s.name = "hint-share";
  c.checks.push_back(s);
  auto good = RunCase(c, Options("reference", 2));
  EXPECT_EQ(good.verdict, harness::Verdict::kPass) << Explain(good);
  auto bad = RunCase(c, Options("reference:quirk=constant_rate_hint", 2));
  ASSERT_EQ(bad.verdict, harness::Verdict::kFail) << Explain(bad);
  ASSERT_EQ(bad.checks.size(), 2u);
  EXPECT_EQ(bad.checks[1].check, "clause-monitor");
  const auto& r = bad.checks[0];
  ASSERT_TRUE(r.mismatch.has_value());
  EXPECT_NE(r.actual_packet.find("ack.rate_hint"), std::string::npos) << r.actual_packet;
  EXPECT_NE(r.expected_packet.find("ack.rate_hint"), std::string::npos) << "the expected ACK is shown too";
  EXPECT_NE(r.actual_packet, r.expected_packet);
}

// MROCE-HINT-003: a receiver sharing max-min (variant max_min_hints) gives senders hints above the
// equal share when others use less; hint-share accepts them within (a), and still fails a hint that
// breaks (a) or falls below every legal hint (the same trace with one ACK's hint rewritten).
TEST(SessionTest, HintShareJudgesMaxMinHintsByHint003) {
  harness::Case c = BaseCase();
  c.workload.direction = harness::Direction::kPeerToDut;
  c.workload.senders = 4;
  c.workload.ops = {{harness::OpKind::kWrite, 128 * 1024, 4, std::nullopt}};
  c.checks.clear();
  harness::CheckSpec s;
  s.name = "hint-share";
  c.checks.push_back(s);
  RunRecord equal = Simulate(c, Options("reference", 2));
  RunRecord maxmin = Simulate(c, Options("reference:variant=max_min_hints", 2));
  ASSERT_TRUE(maxmin.harness_error.empty()) << maxmin.harness_error;
  maxmin.trace.Analyze();
  equal.trace.Analyze();
  auto checked = RunChecks(c, maxmin);
  ASSERT_EQ(checked.size(), 2u);  // hint-share and the clause monitor
  EXPECT_EQ(checked[0].verdict, harness::Verdict::kPass) << checked[0].reason;
  // The variant really shared max-min: some hint above any the equal-share receiver gave.
  uint32_t max_equal = 0, max_maxmin = 0;
  size_t biggest = 0, middle = 0, acks = 0;
  for (size_t i = 0; i < equal.trace.frames.size(); ++i) {
    if (equal.trace.frames[i].from_dut() && equal.trace.facts[i].ack) max_equal = std::max(max_equal, equal.trace.facts[i].rate_hint);
  }
  for (size_t i = 0; i < maxmin.trace.frames.size(); ++i) {
    const auto& f = maxmin.trace.facts[i];
    if (!maxmin.trace.frames[i].from_dut() || maxmin.trace.frames[i].event != FrameRecord::Event::kTx || !f.ack) continue;
    if (f.rate_hint > max_maxmin) {
      max_maxmin = f.rate_hint;
      biggest = i;
    }
    if (++acks == 200) middle = i;
  }
  ASSERT_GT(acks, 200u);
  // The last senders get more while the others' arrival rates fall away (the equal share counts
  // every sender of the last 100 us whatever it sends).
  EXPECT_GT(max_maxmin, max_equal);

  auto rewrite = [](RunRecord rec, size_t i, uint32_t hint) {
    rec.trace.facts[i].rate_hint = hint;
    auto fr = Trace::Decode(rec.trace.frames[i], rec.trace.meta_port);
    EXPECT_TRUE(fr.ok());
    fr->meta()->ack()->rate_hint = hint;
    rec.trace.frames[i].bytes = wire::SerializeFrame(*fr);
    return rec;
  };
  auto over = RunChecks(c, rewrite(maxmin, biggest, 0xFFFFFFFEu));
  ASSERT_EQ(over[0].verdict, harness::Verdict::kFail);
  EXPECT_NE(over[0].reason.find("MROCE-HINT-003 (a)"), std::string::npos) << over[0].reason;
  auto under = RunChecks(c, rewrite(maxmin, middle, 1));
  ASSERT_EQ(under[0].verdict, harness::Verdict::kFail);
  EXPECT_NE(under[0].reason.find("below every legal hint"), std::string::npos) << under[0].reason;
}

// Parameters are checked when a configuration is made (impairment/stage_config.h); what only the
// fabric can judge, a plane it lacks, is an error naming where the impairment was written.
TEST(SessionTest, ImpairmentOnAMissingPlaneIsAnErrorNamingWhere) {
  harness::Case c = BaseCase();
  impairment::Match m;
  m.plane = 5;
  harness::ImpairmentSpec bad;
  bad.stage = impairment::MakeStageConfig("loss.bernoulli", "", m, {{"rate", 0.5}}).value();
  bad.where = {"cases/x.yaml", 7, 5};
  c.impairments.push_back(bad);
  auto t = RunCase(c, Options("reference", 1));
  EXPECT_EQ(t.verdict, harness::Verdict::kError);
  EXPECT_NE(t.reason.find("cases/x.yaml:7:5"), std::string::npos) << t.reason;
  EXPECT_NE(t.reason.find("matches plane 5"), std::string::npos) << t.reason;
}

// A blackhole with link_down: the devices are told at its `at` and `until` (MROCE-PATH-013), the
// trace records both, and a device that fails the plane's paths at once passes like one that waits
// for its RTOs. Only a match on the plane alone is a plane's link.
TEST(SessionTest, PlaneLinkDownIsSignalledAtTheBlackholesWindowAndRecorded) {
  using impairment::DurationSpec;
  harness::Case c = BaseCase();
  impairment::Match m;
  m.plane = 1;
  const impairment::StageSchedule window{DurationSpec{20'000, DurationSpec::Unit::kNanoseconds},
                                         DurationSpec{200'000, DurationSpec::Unit::kNanoseconds}};
  harness::ImpairmentSpec link;
  link.stage = impairment::MakeStageConfig("blackhole", "", m, {{"link_down", true}}, window).value();
  c.impairments.push_back(link);
  for (const char* dut : {"reference", "reference:variant=fail_on_link_down"}) {
    RunRecord r = Simulate(c, Options(dut, 1));
    ASSERT_TRUE(r.harness_error.empty()) << r.harness_error;
    ASSERT_EQ(r.trace.links.size(), 2u) << dut;
    EXPECT_EQ(r.trace.links[0].time_ns, 20'000);
    EXPECT_FALSE(r.trace.links[0].up);
    EXPECT_EQ(r.trace.links[1].time_ns, 200'000);
    EXPECT_TRUE(r.trace.links[1].up);
    EXPECT_EQ(r.trace.links[1].plane, 1);
    auto t = RunCase(c, Options(dut, 1));
    EXPECT_EQ(t.verdict, harness::Verdict::kPass) << dut << "\n" << Explain(t);
  }
  m.direction = impairment::Direction::kDutToPeer;  // one direction of a plane is no link
  c.impairments[0].stage = impairment::MakeStageConfig("blackhole", "", m, {{"link_down", true}}, window).value();
  c.impairments[0].where = {"cases/x.yaml", 9, 5};
  auto t = RunCase(c, Options("reference", 1));
  EXPECT_EQ(t.verdict, harness::Verdict::kError);
  EXPECT_NE(t.reason.find("cases/x.yaml:9:5: link_down needs a match on the plane alone"), std::string::npos) << t.reason;
}

TEST(SessionTest, MissingCapabilityIsASkip) {
  harness::Case c = BaseCase();
  c.requires_caps = {"teleportation"};
  auto t = RunCase(c, Options("reference", 1));
  EXPECT_EQ(t.verdict, harness::Verdict::kSkip);
}

TEST(SessionTest, EvidenceHasOneRecordPerDutEvent) {
  harness::Case c = BaseCase();
  AddLoss(c, 0.02);
  const auto dir = std::filesystem::temp_directory_path() / "mroce_session_evidence_test";
  std::filesystem::remove_all(dir);
  SessionOptions o = Options("reference", 4);
  o.run_dir = dir.string();
  RunRecord r = Simulate(c, o);
  ASSERT_TRUE(r.harness_error.empty()) << r.harness_error;
  size_t tx_rx = 0;
  for (const auto& f : r.trace.frames) tx_rx += f.frame_no != 0 ? 1 : 0;
  auto read = pcap::ReadAll((dir / "evidence" / (c.id + ".pcap")).string());
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  const std::vector<pcap::Record>& recs = *read;
  std::ifstream in(dir / "evidence" / (c.id + ".trace.jsonl"));
  size_t lines = 0, drops = 0;
  for (std::string l; std::getline(in, l);) {
    ++lines;
    drops += l.find("\"event\":\"drop\"") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(drops, 0u);
  EXPECT_EQ(recs.size(), lines - drops) << "the pcap holds every delivered or sent DUT frame once";
  EXPECT_EQ(recs.size(), tx_rx);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mroce::session

namespace mroce::session {
namespace {

// hint-share on a live DUT: the tap's instants are not the DUT's, so N is bounded by a margin (250 us
// plus the DUT's longest stall). The trace of ack.rate-hint-sender-goes-idle: A writes, B writes at
// once (N = 2), B again 800 us later (N = 1, judged exactly).
TEST(SessionTest, HintShareBoundsNOnALiveTapAndJudgesExactOnlyWhereCertain) {
  auto c = harness::LoadCaseFile(std::string(MROCE_SOURCE_DIR) + "/testcases/ack/rate-hint-sender-goes-idle.yaml");
  ASSERT_TRUE(c.ok()) << c.ErrorText();
  RunRecord rec = Simulate(c.value, Options("reference", 1));
  ASSERT_TRUE(rec.harness_error.empty()) << rec.harness_error;
  std::vector<size_t> acks;  // the DUT's ACKs: A's, B's first, B's second
  for (size_t i = 0; i < rec.trace.frames.size(); ++i) {
    if (rec.trace.frames[i].event == FrameRecord::Event::kTx && rec.trace.frames[i].from_dut() && rec.trace.facts[i].ack) acks.push_back(i);
  }
  ASSERT_EQ(acks.size(), 3u);
  auto hint_share = [&](const RunRecord& r) {
    for (const auto& res : RunChecks(c.value, r)) {
      if (res.check == "hint-share") return res;
    }
    ADD_FAILURE() << "no hint-share result";
    return harness::CheckResult{};
  };
  auto with_hint = [&](RunRecord r, size_t ack, uint32_t hint) {
    auto fr = Trace::Decode(r.trace.frames[ack], r.trace.meta_port);
    EXPECT_TRUE(fr.ok());
    fr->meta()->ack()->rate_hint = hint;
    r.trace.frames[ack].bytes = wire::SerializeFrame(*fr);
    r.trace.facts.clear();
    r.trace.Analyze();
    return r;
  };
  EXPECT_EQ(hint_share(rec).verdict, harness::Verdict::kPass) << hint_share(rec).reason;
  // B's first ACK with the whole share while A's packet is 10 us old: a FAIL on the simulated clock ...
  const RunRecord whole = with_hint(rec, acks[1], 95000);
  EXPECT_EQ(hint_share(whole).verdict, harness::Verdict::kFail);
  // ... but live the DUT may have counted A out already: not blamed.
  RunRecord live = rec;
  live.dut_caps.simulated_time = false;
  RunRecord live_whole = with_hint(live, acks[1], 95000);
  live_whole.dut_caps.simulated_time = false;
  EXPECT_EQ(hint_share(live_whole).verdict, harness::Verdict::kPass) << hint_share(live_whole).reason;
  // The last ACK, 800 us on, is judged exactly live too: half the share fails.
  RunRecord live_half = with_hint(live, acks[2], 47500);
  live_half.dut_caps.simulated_time = false;
  EXPECT_EQ(hint_share(live_half).verdict, harness::Verdict::kFail) << hint_share(live_half).reason;
  // With a 1 ms stall the margin covers A's packet too: the last ACK is no longer judged exactly
  // (only A's own, sent before B wrote, is), and half the share is within the bound for N = 2.
  live_half.stall_ns = 1'000'000;
  const auto stalled = hint_share(live_half);
  EXPECT_EQ(stalled.verdict, harness::Verdict::kPass) << stalled.reason;
}

}  // namespace
}  // namespace mroce::session
