// Checks judged on hand-made run records (each check is a pure function of the record).
#include "mroce/session/checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "mroce/wire/wire.h"

namespace mroce::session {
namespace {

harness::Case OneCheck(const std::string& name, nlohmann::json params = nlohmann::json::object()) {
  harness::Case c;
  c.id = "test.checks";
  c.clauses = {{"MROCE-LIM-007", harness::Level::kShould}};
  harness::CheckSpec s;
  s.name = name;
  s.params = std::move(params);
  c.checks.push_back(s);
  return c;
}

// Judges `rec` as a simulation would hand it over: its trace analyzed afresh (the tests edit frames).
harness::CheckResult Judge(const harness::Case& c, RunRecord rec) {
  rec.trace.facts.clear();
  rec.trace.Analyze();
  auto r = RunChecks(c, rec);
  std::erase_if(r, [](const harness::CheckResult& x) { return x.check == "clause-monitor"; });  // judged in its own tests
  EXPECT_EQ(r.size(), 1u);
  return r.empty() ? harness::CheckResult{} : r[0];
}

RunRecord Settled(uint64_t before, uint64_t after, int64_t delay_ns) {
  RunRecord rec;
  rec.all_completed = true;
  rec.state_before = before;
  rec.state_after = after;
  rec.state_after_delay_ns = delay_ns;
  return rec;
}

TEST(CompletionCheck, CountsTheDutsCompletionsOfOneKindExactly) {
  RunRecord rec;
  auto done = [&](uint64_t wr, dut::OpKind op, uint16_t stream, dut::OpStatus st, uint32_t bytes, int host = kDutHost) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kCompletion;
    r.host = host;
    r.wr_id = wr;
    r.op = op;
    r.stream = stream;
    r.status = st;
    r.bytes = bytes;
    rec.trace.control.push_back(r);
  };
  done(1, dut::OpKind::kWrite, 0, dut::OpStatus::kFlushed, 0);
  done(2, dut::OpKind::kWrite, 2, dut::OpStatus::kRemoteAccess, 0);
  done(3, dut::OpKind::kRecv, 1, dut::OpStatus::kSuccess, 64);
  done(4, dut::OpKind::kWrite, 2, dut::OpStatus::kRemoteAccess, 0, 1);  // a peer's: not the DUT's
  auto judge = [&](nlohmann::json p) { return Judge(OneCheck("completion", std::move(p)), rec); };
  EXPECT_EQ(judge({{"op", "write"}, {"stream", 2}, {"status", "remote_access"}, {"count", 1}}).verdict, harness::Verdict::kPass);
  EXPECT_EQ(judge({{"status", "remote_access"}}).verdict, harness::Verdict::kPass);
  EXPECT_EQ(judge({{"op", "recv"}, {"bytes", 64}}).verdict, harness::Verdict::kPass);  // status success by default
  const auto wrong_stream = judge({{"op", "write"}, {"stream", 1}, {"status", "remote_access"}});
  EXPECT_EQ(wrong_stream.verdict, harness::Verdict::kFail);
  EXPECT_NE(wrong_stream.reason.find("wr_id 2: write stream 2 remote_access"), std::string::npos) << wrong_stream.reason;
  ASSERT_TRUE(wrong_stream.mismatch.has_value());
  EXPECT_EQ(judge({{"op", "recv"}, {"bytes", 63}}).verdict, harness::Verdict::kFail);
  EXPECT_EQ(judge({{"op", "write"}, {"count", 1}}).verdict, harness::Verdict::kFail);  // no successful write
  EXPECT_EQ(judge({{"op", "write"}, {"count", 0}}).verdict, harness::Verdict::kPass);
  EXPECT_EQ(judge({{"status", "flushed"}, {"count", 2}}).verdict, harness::Verdict::kFail);  // one, not two
  EXPECT_FALSE(ValidateCheck("completion", {{"status", "REM_ACCESS_ERR"}}).ok());
  EXPECT_FALSE(ValidateCheck("completion", {{"op", "writ"}}).ok());
  EXPECT_FALSE(ValidateCheck("completion", {{"stream", -1}}).ok());
}

// completions on a scripted case: the work requests are the posts the DUT accepted (the script plans
// no workload); each must complete once, successfully; none posted is inconclusive.
TEST(CompletionsCheck, AScriptedCaseExpectsEveryAcceptedPostOnceSuccessfully) {
  harness::Case c = OneCheck("completions");
  c.style = harness::Style::kScripted;
  auto record = [](ControlRecord::Kind kind, uint64_t wr, dut::OpStatus st = dut::OpStatus::kSuccess) {
    ControlRecord r;
    r.kind = kind;
    r.host = kDutHost;
    r.wr_id = wr;
    r.status = st;
    return r;
  };
  auto judge = [&](std::vector<ControlRecord> control) {
    RunRecord rec;
    rec.trace.control = std::move(control);
    rec.trace.Analyze();
    for (const harness::CheckResult& r : RunChecks(c, rec)) {
      if (r.check == "completions") return r;
    }
    ADD_FAILURE() << "no completions result";
    return harness::CheckResult{};
  };
  using K = ControlRecord::Kind;
  EXPECT_EQ(judge({record(K::kPost, 1), record(K::kPost, 2), record(K::kCompletion, 2), record(K::kCompletion, 1)}).verdict,
            harness::Verdict::kPass);
  const auto missing = judge({record(K::kPost, 1), record(K::kPost, 2), record(K::kCompletion, 1)});
  EXPECT_EQ(missing.verdict, harness::Verdict::kFail);
  EXPECT_NE(missing.reason.find("work request 2 of DUT never completed"), std::string::npos) << missing.reason;
  EXPECT_EQ(judge({record(K::kPost, 1), record(K::kCompletion, 1), record(K::kCompletion, 1)}).verdict, harness::Verdict::kFail);
  EXPECT_EQ(judge({record(K::kPost, 1), record(K::kCompletion, 1, dut::OpStatus::kFlushed)}).verdict, harness::Verdict::kFail);
  // A refused post (recorded as an error) is no work request; a completion for it is unknown.
  EXPECT_EQ(judge({record(K::kPost, 1), record(K::kError, 2), record(K::kCompletion, 1)}).verdict, harness::Verdict::kPass);
  EXPECT_EQ(judge({record(K::kPost, 1), record(K::kCompletion, 1), record(K::kCompletion, 7)}).verdict, harness::Verdict::kFail);
  const auto none = judge({record(K::kError, 2)});
  EXPECT_EQ(none.verdict, harness::Verdict::kInconclusive);
  EXPECT_NE(none.reason.find("posted no work request"), std::string::npos) << none.reason;
}

// connection-event: the DUT's events of a kind (and reason), exactly `count` or at least one.
TEST(ConnectionEventCheck, CountsTheDutsEventsOfOneKind) {
  RunRecord rec;
  auto event = [&](const char* kind, uint32_t reason, int host = kDutHost) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kConnEvent;
    r.host = host;
    r.conn = 7;
    r.detail = kind;
    r.bytes = reason;
    rec.trace.control.push_back(r);
  };
  event("established", 0);
  event("closed", 0x11);
  event("error", 0, 1);  // a peer's: not the DUT's
  auto judge = [&](nlohmann::json p) { return Judge(OneCheck("connection-event", std::move(p)), rec); };
  EXPECT_EQ(judge({{"kind", "error"}, {"count", 0}}).verdict, harness::Verdict::kPass);
  const auto missing = judge({{"kind", "error"}, {"count", 1}});
  EXPECT_EQ(missing.verdict, harness::Verdict::kFail);
  EXPECT_NE(missing.reason.find("closed (conn 7, reason 17)"), std::string::npos) << missing.reason;
  EXPECT_EQ(judge({{"kind", "closed"}, {"reason", 0x11}}).verdict, harness::Verdict::kPass);
  EXPECT_EQ(judge({{"kind", "closed"}, {"reason", 0x10}}).verdict, harness::Verdict::kFail);
  event("error", 0);
  EXPECT_EQ(judge({}).verdict, harness::Verdict::kPass);  // kind error, at least one
  EXPECT_FALSE(ValidateCheck("connection-event", {{"kind", "ERROR"}}).ok());
  EXPECT_FALSE(ValidateCheck("connection-event", {{"reason", 256}}).ok());
}

// imm: the receive completion of a SEND_IMM/WRITE_IMM carries the message's imm (MROCE-CMPL-009);
// has_imm false: one that carries none.
TEST(CompletionCheck, MatchesTheImmediateData) {
  RunRecord rec;
  auto done = [&](uint64_t wr, std::optional<uint32_t> imm) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kCompletion;
    r.host = kDutHost;
    r.wr_id = wr;
    r.op = dut::OpKind::kRecv;
    r.bytes = 4;
    r.imm = imm;
    rec.trace.control.push_back(r);
  };
  done(1, 43981u);
  done(2, std::nullopt);
  auto judge = [&](nlohmann::json p) { return Judge(OneCheck("completion", std::move(p)), rec); };
  EXPECT_EQ(judge({{"imm", 43981}, {"bytes", 4}, {"count", 1}}).verdict, harness::Verdict::kPass);
  EXPECT_EQ(judge({{"has_imm", false}, {"count", 1}}).verdict, harness::Verdict::kPass);
  const auto wrong = judge({{"imm", 43982}, {"count", 1}});
  EXPECT_EQ(wrong.verdict, harness::Verdict::kFail);
  EXPECT_NE(wrong.reason.find("wr_id 1: recv stream 0 success 4 bytes imm 43981"), std::string::npos) << wrong.reason;
  EXPECT_NE(wrong.reason.find("immediate data 43982"), std::string::npos) << wrong.reason;
  rec.trace.control[1].imm = 0u;  // the SEND's completion now claims imm 0
  EXPECT_EQ(judge({{"has_imm", false}, {"count", 1}}).verdict, harness::Verdict::kFail);
  EXPECT_FALSE(ValidateCheck("completion", {{"imm", -1}}).ok());
  EXPECT_FALSE(ValidateCheck("completion", {{"imm", 4294967296.0}}).ok());
  EXPECT_FALSE(ValidateCheck("completion", {{"has_imm", 1}}).ok());
}

TEST(StateReleasedCheck, PassesWhenStateReturnsAndFailsOnALeak) {
  const auto c = OneCheck("state-released");
  EXPECT_EQ(Judge(c, Settled(8000, 8000, 1'000'000)).verdict, harness::Verdict::kPass);
  EXPECT_EQ(Judge(c, Settled(8000, 7000, 1'000'000)).verdict, harness::Verdict::kPass);
  auto leak = Judge(c, Settled(8000, 8160, 1'000'000));
  EXPECT_EQ(leak.verdict, harness::Verdict::kFail);
  ASSERT_TRUE(leak.mismatch.has_value());
  EXPECT_NE(leak.reason.find("160 bytes more"), std::string::npos) << leak.reason;
  EXPECT_EQ(Judge(OneCheck("state-released", {{"slack_bytes", 200}}), Settled(8000, 8160, 1'000'000)).verdict,
            harness::Verdict::kPass);
}

TEST(StateReleasedCheck, ShortQuiesceIsInconclusiveAndNoStateIsASkip) {
  const auto c = OneCheck("state-released");
  EXPECT_EQ(Judge(c, Settled(8000, 9000, 999'999)).verdict, harness::Verdict::kInconclusive);
  RunRecord none;
  none.all_completed = true;
  EXPECT_EQ(Judge(c, none).verdict, harness::Verdict::kSkip);
  RunRecord never_quiet = Settled(8000, 0, 0);
  never_quiet.state_after.reset();
  EXPECT_EQ(Judge(c, never_quiet).verdict, harness::Verdict::kInconclusive);
  RunRecord incomplete = Settled(1, 1, 1'000'000);
  incomplete.all_completed = false;
  EXPECT_EQ(Judge(c, incomplete).verdict, harness::Verdict::kInconclusive);
}

RunRecord Arrivals(std::vector<int64_t> rx, std::vector<int64_t> completions) {
  RunRecord rec;
  for (int64_t t : rx) {
    FrameRecord f;
    f.event = FrameRecord::Event::kRx;
    f.time_ns = t;
    f.src_host = 1;
    f.dst_host = kDutHost;
    rec.trace.frames.push_back(f);
  }
  uint64_t wr = 1;
  for (int64_t t : completions) {
    ControlRecord r;
    r.kind = ControlRecord::Kind::kCompletion;
    r.time_ns = t;
    r.host = kDutHost;
    r.wr_id = wr++;
    rec.trace.control.push_back(r);
  }
  rec.trace.Analyze();
  return rec;
}

TEST(CompletionLatencyCheck, BoundsTheDelayAfterTheLatestArrival) {
  const auto c = OneCheck("completion-latency");
  EXPECT_EQ(Judge(c, Arrivals({100, 5000}, {100, 5000, 5900})).verdict, harness::Verdict::kPass);
  auto late = Judge(c, Arrivals({100, 5000}, {100, 7000}));
  EXPECT_EQ(late.verdict, harness::Verdict::kFail);
  EXPECT_NE(late.reason.find("work request 2"), std::string::npos) << late.reason;
  EXPECT_NE(late.reason.find("2000 ns"), std::string::npos) << late.reason;
  EXPECT_EQ(Judge(OneCheck("completion-latency", {{"max_ns", 2000}}), Arrivals({100, 5000}, {7000})).verdict,
            harness::Verdict::kPass);
  EXPECT_EQ(Judge(c, Arrivals({}, {})).verdict, harness::Verdict::kInconclusive);
}

TEST(CompletionLatencyCheck, ErrorCompletionsAndPeerCompletionsAreNotJudged) {
  const auto c = OneCheck("completion-latency");
  RunRecord rec = Arrivals({100}, {100, 90'000});
  rec.trace.control[1].status = dut::OpStatus::kRetryExceeded;  // a timer, not an arrival, caused it
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kPass);
  rec.trace.control[1].status = dut::OpStatus::kSuccess;
  rec.trace.control[1].host = 1;
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kPass);
}

TEST(CheckRegistry, ParametersAreTypedAndRanged) {
  EXPECT_TRUE(ValidateCheck("counter", {{"name", "crc_errors"}, {"max", 0}}).ok());
  EXPECT_EQ(ValidateCheck("counter", {{"max", 0}}).error().message,
            "check 'counter': missing required parameter 'name' (a chapter-17 counter name such as crc_errors)");
  EXPECT_EQ(ValidateCheck("counter", {{"name", "x"}, {"max", "5"}}).error().message,
            "check 'counter': must be an integer, got the string \"5\"");
  EXPECT_FALSE(ValidateCheck("fair-share", {{"tolerance", 2.0}}).ok());
  EXPECT_FALSE(ValidateCheck("fair-share", {{"tolerance", -0.5}}).ok());
  EXPECT_FALSE(ValidateCheck("fair-share", {{"tolerance", std::nan("")}}).ok());
  EXPECT_FALSE(ValidateCheck("retransmissions-equal-losses", {{"require_loss", 1}}).ok());
  EXPECT_EQ(ValidateCheck("data-intakt", nlohmann::json::object()).error().code, "check.name");
}

TEST(CheckRegistry, AScriptedCaseIsJudgedByItsStepsAndTheReferenceAndAnEndToEndOneByItsDefaults) {
  harness::Case e2e;
  e2e.style = harness::Style::kEndToEnd;
  RunRecord rec;
  std::vector<std::string> names;
  for (const auto& r : RunChecks(e2e, rec)) names.push_back(r.check);
  EXPECT_EQ(names, (std::vector<std::string>{"completions", "completion-order", "data-intact", "clause-monitor"}));
  harness::Case scripted;
  scripted.style = harness::Style::kScripted;
  names.clear();
  for (const auto& r : RunChecks(scripted, rec)) names.push_back(r.check);
  // No steps: nothing to judge per step; the reference run is missing here (an ERROR, never a pass).
  EXPECT_EQ(names, (std::vector<std::string>{"reference-match", "clause-monitor"}));
  EXPECT_EQ(RunChecks(scripted, rec)[0].verdict, harness::Verdict::kError);
  // A trace without its facts is a harness bug, named as one.
  RunRecord raw = Arrivals({100}, {});
  raw.trace.facts.clear();
  const auto unanalyzed = RunChecks(e2e, raw);
  ASSERT_EQ(unanalyzed.size(), 1u);
  EXPECT_EQ(unanalyzed[0].verdict, harness::Verdict::kError);
  EXPECT_NE(unanalyzed[0].reason.find("Trace::Analyze"), std::string::npos) << unanalyzed[0].reason;
  // A check a case names with parameters a loader would reject is an ERROR at run time too.
  harness::CheckSpec bad;
  bad.name = "counter";
  bad.params = {{"name", "x"}, {"eq", -1}};
  e2e.checks = {bad};
  auto r = RunChecks(e2e, rec);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].verdict, harness::Verdict::kError);
  EXPECT_EQ(r[1].check, "clause-monitor");
  EXPECT_EQ(r[1].verdict, harness::Verdict::kSkip) << r[1].reason;  // an empty trace: nothing to judge
}

TEST(CounterCheck, EqualsATraceCountExactlyAndIsInconclusiveWhenTheEventNeverHappened) {
  auto c = OneCheck("counter", {{"name", "ecn_ce_rx"}, {"scope", "path-rx"}, {"equals", "dut.data_rx_ce"}});
  RunRecord rec;
  rec.dut_caps.features = {"telemetry"};
  rec.trace.telemetry.push_back({0, kDutHost, {{"path.1.0.rx.ecn_ce_rx", 0}, {"path.1.0.ecn_ce_rx", 5}}, std::nullopt, std::nullopt});
  // No CE-marked frame reached the DUT: the counter's event never happened.
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kInconclusive) << Judge(c, rec).reason;
  FrameRecord ce;
  ce.event = FrameRecord::Event::kRx;
  ce.src_host = 1;
  ce.dst_host = kDutHost;
  wire::Frame f;
  wire::Ipv4Header ip;
  ip.ecn = wire::kEcnCe;
  f.ip = ip;
  f.udp.dport = wire::kMetaUdpPort;
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kWrite;
  m.ext = wire::DefaultExtFor(m.ch.opcode);
  m.meh()->msg_len = 4;
  m.payload.assign(4, 1);
  f.l4 = m;
  ce.bytes = wire::SerializeFrame(f);
  rec.trace.frames = {ce, ce};
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
  EXPECT_EQ(Judge(c, rec).mismatch->expected, "2 (0x2)");
  rec.trace.telemetry[0].counters[0].second = 2;
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kPass) << Judge(c, rec).reason;
  rec.trace.telemetry[0].counters[0].second = 3;  // over-counting fails too
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
}

FrameRecord MetaFrame(FrameRecord::Event ev, int src, int dst, const wire::MetaPacket& m, bool ce = false) {
  FrameRecord r;
  r.event = ev;
  r.src_host = src;
  r.dst_host = dst;
  wire::Frame f;
  wire::Ipv4Header ip;
  ip.ecn = ce ? wire::kEcnCe : 0;
  f.ip = ip;
  f.udp.dport = wire::kMetaUdpPort;
  f.l4 = m;
  r.bytes = wire::SerializeFrame(f);
  return r;
}

wire::MetaPacket WriteOn(uint8_t path) {
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kWrite;
  m.ch.path_id = path;
  m.ext = wire::DefaultExtFor(m.ch.opcode);
  m.meh()->msg_len = 4;
  m.payload.assign(4, 1);
  return m;
}

wire::MetaPacket AckOf(uint8_t path, uint16_t ce_count) {
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kAck;
  m.ch.path_id = path;
  wire::AckHeader a;
  a.ce_count = ce_count;
  a.rate_hint = 1000;
  m.ext = a;
  return m;
}

// MROCE-ACK-004 whatever the DUT's ACK timing: each ACK counts the CE arrivals of its own path since
// the DUT's previous ACK of that path.
TEST(AckCeCountCheck, CountsSinceThePreviousAckOfThePathWhateverTheTiming) {
  auto c = OneCheck("ack-ce-count");
  RunRecord rec;
  const auto rx = FrameRecord::Event::kRx, tx = FrameRecord::Event::kTx;
  rec.trace.frames = {MetaFrame(rx, 1, kDutHost, WriteOn(0), true), MetaFrame(rx, 1, kDutHost, WriteOn(1), true),
                      MetaFrame(tx, kDutHost, 1, AckOf(0, 1)),      MetaFrame(rx, 1, kDutHost, WriteOn(0), true),
                      MetaFrame(rx, 1, kDutHost, WriteOn(0), false), MetaFrame(tx, kDutHost, 1, AckOf(0, 1)),
                      MetaFrame(tx, kDutHost, 1, AckOf(1, 1))};
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kPass) << Judge(c, rec).reason;
  rec.trace.frames[5] = MetaFrame(tx, kDutHost, 1, AckOf(0, 2));  // counted the first CE again (no restart)
  rec.trace.facts.clear();  // facts are a cache of the frames
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
  EXPECT_EQ(Judge(c, rec).mismatch->expected, "1 (0x1)");
  rec.trace.frames[5] = MetaFrame(tx, kDutHost, 1, AckOf(0, 1));
  rec.trace.frames[6] = MetaFrame(tx, kDutHost, 1, AckOf(1, 2));  // path 0's marks reported on path 1
  rec.trace.facts.clear();  // facts are a cache of the frames
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
  rec.trace.frames = {MetaFrame(rx, 1, kDutHost, WriteOn(0)), MetaFrame(tx, kDutHost, 1, AckOf(0, 0))};
  rec.trace.facts.clear();  // facts are a cache of the frames
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kInconclusive) << "no CE mark ever arrived";
}

// A counter above the trace while a counter that legitimately adds to it is non-zero is
// inconclusive (excess_if); a shortfall still fails. On a live DUT whose packet totals disagree
// with the tap, a mismatch is inconclusive too.
TEST(CounterCheck, ExcessExplainedByAnotherCounterOrALiveTapIsInconclusiveAShortfallFails) {
  auto c = OneCheck("counter", {{"name", "loss_inferred"}, {"scope", "path"}, {"equals", "dut.data_tx"}, {"excess_if", "rto_events"}});
  RunRecord rec;
  rec.dut_caps.features = {"telemetry"};
  rec.trace.frames = {MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, WriteOn(0)),
                      MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, WriteOn(0))};
  rec.trace.telemetry.push_back({0, kDutHost, {{"path.1.0.loss_inferred", 5}, {"path.1.0.rto_events", 0}}, std::nullopt, std::nullopt});
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
  rec.trace.telemetry[0].counters[1].second = 1;
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kInconclusive) << Judge(c, rec).reason;
  rec.trace.telemetry[0].counters[0].second = 1;  // below the trace: fails whatever rto_events says
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
  // Live: the DUT counts 3 data packets sent where the tap saw 2 (one still queued in the host).
  auto live = OneCheck("counter", {{"name", "retransmits"}, {"scope", "path"}, {"equals", "dut.data_tx"}});
  rec.dut_caps.simulated_time = false;
  rec.trace.telemetry[0].counters = {{"path.1.0.retransmits", 3}, {"path.1.0.tx_pkts", 3}};
  EXPECT_EQ(Judge(live, rec).verdict, harness::Verdict::kInconclusive) << Judge(live, rec).reason;
  rec.trace.telemetry[0].counters = {{"path.1.0.retransmits", 3}, {"path.1.0.tx_pkts", 2}};  // in step: judged
  EXPECT_EQ(Judge(live, rec).verdict, harness::Verdict::kFail);
}

// excess_if applies to the literal bounds too: loss_inferred eq 0 with an RTO on record (live, the
// retransmission's own timer fired before telemetry was read) is inconclusive; without one it fails.
TEST(CounterCheck, ALiteralBoundsExcessExplainedByAnotherCounterIsInconclusive) {
  auto c = OneCheck("counter", {{"name", "loss_inferred"}, {"scope", "path"}, {"eq", 0}, {"excess_if", "rto_events"}});
  RunRecord rec;
  rec.dut_caps.features = {"telemetry"};
  rec.trace.frames = {MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, WriteOn(0))};
  rec.trace.telemetry.push_back({0, kDutHost, {{"path.1.0.loss_inferred", 1}, {"path.1.0.rto_events", 0}}, std::nullopt, std::nullopt});
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
  rec.trace.telemetry[0].counters[1].second = 1;
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kInconclusive) << Judge(c, rec).reason;
  rec.trace.telemetry[0].counters[0].second = 0;
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kPass);
  auto mx = OneCheck("counter", {{"name", "loss_inferred"}, {"scope", "path"}, {"min", 1}, {"max", 2}, {"excess_if", "rto_events"}});
  rec.trace.telemetry[0].counters[0].second = 0;  // below the minimum: fails whatever rto_events says
  EXPECT_EQ(Judge(mx, rec).verdict, harness::Verdict::kFail);
  rec.trace.telemetry[0].counters[0].second = 3;
  EXPECT_EQ(Judge(mx, rec).verdict, harness::Verdict::kInconclusive);
}

// Live, loss_inferred above the losses the tap saw is undecidable when the DUT also retransmitted more
// than those losses (a wire that reorders a path's packets makes it infer losses, MROCE-LOSS-001);
// without such retransmissions, or above them, it fails; on the simulated clock it fails.
TEST(CounterCheck, LiveLossInferenceBeyondTheTapsLossesIsInconclusiveOnlyWithAsManyRetransmissions) {
  auto c = OneCheck("counter", {{"name", "loss_inferred"}, {"scope", "path"}, {"equals", "dut.data_lost"}});
  RunRecord rec;
  rec.dut_caps.features = {"telemetry"};
  wire::MetaPacket rtx = WriteOn(0);
  rtx.ch.Set(wire::kFlagRtx);
  FrameRecord lost = MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, WriteOn(0));
  FrameRecord dropped = lost;
  dropped.event = FrameRecord::Event::kDrop;
  rec.trace.frames = {lost, dropped, MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, rtx),
                      MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, rtx), MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, rtx)};
  rec.trace.Analyze();
  ASSERT_EQ(rec.trace.Count("dut.data_lost").value_or(0), 1u);
  ASSERT_EQ(rec.trace.Count("dut.data_rtx").value_or(0), 3u);
  rec.trace.telemetry.push_back({0, kDutHost, {{"path.1.0.loss_inferred", 3}}, std::nullopt, std::nullopt});
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);  // simulated: exact
  rec.dut_caps.simulated_time = false;
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kInconclusive) << Judge(c, rec).reason;
  rec.trace.telemetry[0].counters[0].second = 4;  // more than it retransmitted
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail) << Judge(c, rec).reason;
}

// simulated_only: a literal bound that follows from the simulated clock's timing fails a simulated
// DUT outside it and is inconclusive for a live one; within it, both pass.
TEST(CounterCheck, ASimulatedOnlyBoundFailsOnTheSimulatedClockAndIsInconclusiveLive) {
  auto c = OneCheck("counter", {{"name", "loss_inferred"}, {"scope", "path"}, {"eq", 3}, {"simulated_only", true}});
  RunRecord rec;
  rec.dut_caps.features = {"telemetry"};
  rec.trace.telemetry.push_back({0, kDutHost, {{"path.1.0.loss_inferred", 5}}, std::nullopt, std::nullopt});
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kFail);
  rec.dut_caps.simulated_time = false;
  const auto live = Judge(c, rec);
  EXPECT_EQ(live.verdict, harness::Verdict::kInconclusive) << live.reason;
  EXPECT_NE(live.reason.find("simulated clock only"), std::string::npos) << live.reason;
  rec.trace.telemetry[0].counters[0].second = 3;
  EXPECT_EQ(Judge(c, rec).verdict, harness::Verdict::kPass);
  auto plain = OneCheck("counter", {{"name", "loss_inferred"}, {"scope", "path"}, {"max", 2}});
  EXPECT_EQ(Judge(plain, rec).verdict, harness::Verdict::kFail) << "without simulated_only a live DUT is judged";
}

// docs/user-guide.md lists every check a case can name.
// The DUT gave up on a WRITE (retry_exceeded) and flushed the next: a failure, unless the trace
// shows a segment at the retry limit of MROCE-LOSS-008 (8 transmissions), where giving up is the
// spec's outcome and the case's aim was out of reach: inconclusive. The messages of errored work
// requests carry no placement promise (data-intact does not judge them).
TEST(CompletionsCheck, AnErrorAtTheRetryLimitIsInconclusiveAndItsDataNotJudged) {
  auto retry_limit = [](int transmissions) {
    RunRecord rec;
    for (uint64_t wr = 1; wr <= 2; ++wr) {
      PlannedMessage m;
      m.originator = kDutHost;
      m.responder = 1;
      m.wr_id = wr;
      m.size = 4;
      rec.messages.push_back(m);
      ControlRecord r;
      r.kind = ControlRecord::Kind::kCompletion;
      r.host = kDutHost;
      r.wr_id = wr;
      r.status = wr == 1 ? dut::OpStatus::kRetryExceeded : dut::OpStatus::kFlushed;
      rec.trace.control.push_back(r);
      DataCheck d;
      d.message = rec.messages.size() - 1;
      d.intact = false;  // nothing (or part) was placed
      rec.data.push_back(d);
    }
    for (int i = 0; i < transmissions; ++i) {
      wire::MetaPacket m = WriteOn(static_cast<uint8_t>(i % 2));
      if (i > 0) m.ch.flags |= wire::kFlagRtx;
      FrameRecord f = MetaFrame(FrameRecord::Event::kTx, kDutHost, 1, m);
      f.frame_no = static_cast<uint64_t>(i + 1);
      f.packet_id = f.origin_id = static_cast<uint64_t>(100 + i);
      f.time_ns = 1000 * i;
      rec.trace.frames.push_back(f);
      FrameRecord gone = f;  // the fabric drops every one of them
      gone.event = FrameRecord::Event::kDrop;
      gone.where = "blackhole#0";
      gone.frame_no = 0;
      rec.trace.frames.push_back(gone);
    }
    return rec;
  };
  const auto completions = OneCheck("completions");
  const auto data = OneCheck("data-intact");
  const harness::CheckResult at_limit = Judge(completions, retry_limit(8));
  EXPECT_EQ(at_limit.verdict, harness::Verdict::kInconclusive) << at_limit.reason;
  EXPECT_NE(at_limit.reason.find("went out 8 times"), std::string::npos) << at_limit.reason;
  EXPECT_NE(at_limit.reason.find("frames 1, 2, 3, 4, 5, 6, 7, 8,"), std::string::npos) << at_limit.reason;
  // Given up early (7 transmissions) or late (9: one more than LOSS-008 allows): a failure.
  EXPECT_EQ(Judge(completions, retry_limit(7)).verdict, harness::Verdict::kFail);
  EXPECT_EQ(Judge(completions, retry_limit(9)).verdict, harness::Verdict::kFail);
  // 8 transmissions the fabric delivered, with nothing dropped towards the DUT: the peer refused
  // them or the DUT ignored its ACKs; either way not the network's doing.
  RunRecord refused = retry_limit(8);
  std::erase_if(refused.trace.frames, [](const FrameRecord& f) { return f.event == FrameRecord::Event::kDrop; });
  for (size_t i = 0, n = refused.trace.frames.size(); i < n; ++i) {
    FrameRecord rx = refused.trace.frames[i];
    rx.event = FrameRecord::Event::kRx;
    rx.time_ns += 5;
    refused.trace.frames.push_back(rx);
  }
  EXPECT_EQ(Judge(completions, refused).verdict, harness::Verdict::kFail);
  // ... but with a frame towards the DUT dropped after each delivery (an ACK may be among them), the
  // network is the explanation again.
  for (int i = 0; i < 8; ++i) {
    FrameRecord ack_gone;
    ack_gone.event = FrameRecord::Event::kDrop;
    ack_gone.src_host = 1;
    ack_gone.dst_host = kDutHost;
    ack_gone.time_ns = 1000 * i + 10;
    refused.trace.frames.push_back(ack_gone);
  }
  EXPECT_EQ(Judge(completions, refused).verdict, harness::Verdict::kInconclusive);
  // Another error status beside it is not the retry limit's doing.
  RunRecord other = retry_limit(8);
  other.trace.control[1].status = dut::OpStatus::kRemoteAccess;
  EXPECT_EQ(Judge(completions, other).verdict, harness::Verdict::kFail);
  // data-intact: every message errored, none judged; a successful one is judged as ever.
  const harness::CheckResult unjudged = Judge(data, retry_limit(8));
  EXPECT_EQ(unjudged.verdict, harness::Verdict::kInconclusive) << unjudged.reason;
  EXPECT_NE(unjudged.reason.find("2 of 2 messages not judged"), std::string::npos) << unjudged.reason;
  RunRecord one_ok = retry_limit(8);
  one_ok.trace.control[1].status = dut::OpStatus::kSuccess;
  EXPECT_EQ(Judge(data, one_ok).verdict, harness::Verdict::kFail) << "a SUCCESS promises its bytes";
  one_ok.data[1].intact = true;
  EXPECT_EQ(Judge(data, one_ok).verdict, harness::Verdict::kPass) << Judge(data, one_ok).reason;
}

TEST(CheckRegistry, EveryCheckIsDocumentedInTheUserGuide) {
  std::ifstream f(std::string(MROCE_SOURCE_DIR) + "/docs/user-guide.md");
  ASSERT_TRUE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string guide = ss.str();
  for (const CheckInfo& c : AllChecks()) {
    EXPECT_NE(guide.find("| `" + c.name + "` |"), std::string::npos) << c.name << " is missing from the checks table";
    for (const harness::ParamSpec& p : c.params) {
      EXPECT_NE(guide.find("`" + p.name + "`"), std::string::npos) << c.name << "." << p.name;
    }
  }
}

}  // namespace
}  // namespace mroce::session
