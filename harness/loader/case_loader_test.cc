#include "mroce/harness/case_loader.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "mroce/harness/catalog_loader.h"

namespace mroce::harness {
namespace {

const std::string kData = MROCE_LOADER_TESTDATA;

// A valid minimal case; tests splice mistakes into it.
constexpr char kMinimal[] =
    "id: a.b\n"
    "title: T\n"
    "clauses: [{id: MR-SACK-1, level: MUST}]\n"
    "style: end-to-end\n"
    "workload: {ops: [{op: write, size: 1}]}\n"
    "checks: [data-intact]\n";

std::vector<Diagnostic> Errors(const std::string& yaml, const LoaderOptions& options = {}) {
  return LoadCaseString(yaml, "c.yaml", options).errors;
}

// Exactly one error, at line:col, for key, whose message contains `text`.
void ExpectOneError(const std::string& yaml, int line, int col, const std::string& key, const std::string& text,
                    const LoaderOptions& options = {}) {
  auto errs = Errors(yaml, options);
  ASSERT_EQ(errs.size(), 1u) << [&] {
    std::string all;
    for (auto& e : errs) all += e.ToString() + "\n";
    return all;
  }();
  EXPECT_EQ(errs[0].where.file, "c.yaml");
  EXPECT_EQ(errs[0].where.line, line) << errs[0].ToString();
  EXPECT_EQ(errs[0].where.column, col) << errs[0].ToString();
  EXPECT_EQ(errs[0].key, key) << errs[0].ToString();
  EXPECT_NE(errs[0].message.find(text), std::string::npos) << errs[0].ToString();
}

TEST(CaseLoader, MinimalCaseLoadsWithDefaults) {
  auto r = LoadCaseString(kMinimal, "c.yaml");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const Case& c = r.value;
  EXPECT_EQ(c.id, "a.b");
  EXPECT_EQ(c.style, Style::kEndToEnd);
  EXPECT_EQ(c.level(), Level::kMust);
  EXPECT_EQ(c.topology, Topology{});
  ASSERT_EQ(c.workload.ops.size(), 1u);
  EXPECT_EQ(c.workload.ops[0].size_bytes, 1);
  ASSERT_EQ(c.checks.size(), 1u);
  EXPECT_EQ(c.checks[0].name, "data-intact");
  EXPECT_EQ(c.checks[0].where.line, 6);
  EXPECT_EQ(c.timeouts.total, Duration::Rtts(10000));
}

TEST(CaseLoader, EndToEndFileLoadsEveryField) {
  auto r = LoadCaseFile(kData + "/suite/loss/sack.yaml");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const Case& c = r.value;
  EXPECT_EQ(c.id, "loss.sack.exact-retransmit");
  EXPECT_EQ(c.category(), "loss.sack");
  ASSERT_EQ(c.clauses.size(), 2u);
  EXPECT_EQ(c.clauses[0], (ClauseRef{"MR-SACK-3", Level::kMust}));
  EXPECT_EQ(c.requires_caps, (std::vector<std::string>{"multipath", "write"}));
  EXPECT_EQ(c.topology.planes, 2);
  EXPECT_EQ(c.topology.spines, 2);
  EXPECT_EQ(c.topology.paths, 4);
  EXPECT_EQ(c.topology.link_rate_bps, 100'000'000'000);
  EXPECT_EQ(c.topology.rtt_ns, 10'000);
  ASSERT_EQ(c.impairments.size(), 2u);
  const impairment::StageConfig& loss = c.impairments[0].stage;
  EXPECT_EQ(loss.kind->name, "loss.bernoulli");
  EXPECT_EQ(loss.name, "loss.bernoulli#0");
  EXPECT_EQ(loss.match.direction, impairment::Direction::kDutToPeer);
  EXPECT_EQ(loss.match.plane, 0);
  EXPECT_DOUBLE_EQ(loss.params.Real("rate"), 0.01);
  ASSERT_TRUE(loss.schedule.has_value());
  EXPECT_EQ(loss.schedule->at, Duration::Rtts(2));
  EXPECT_EQ(loss.schedule->until, Duration::Rtts(200));
  EXPECT_EQ(c.impairments[0].where.line, 16);
  EXPECT_EQ(c.impairments[1].stage.name, "jitter");
  EXPECT_EQ(c.impairments[1].stage.params.Time("base"), Duration::Nanoseconds(2'000));
  EXPECT_FALSE(c.impairments[1].stage.schedule.has_value());
  EXPECT_EQ(c.workload.direction, Direction::kDutToPeer);
  EXPECT_EQ(c.workload.streams, 4);
  ASSERT_EQ(c.workload.ops.size(), 2u);
  EXPECT_EQ(c.workload.ops[0].size_bytes, 65536);
  EXPECT_EQ(c.workload.ops[0].count, 100);
  EXPECT_EQ(c.workload.ops[1].kind, OpKind::kSend);
  EXPECT_EQ(c.workload.ops[1].stream, 1);
  ASSERT_EQ(c.checks.size(), 3u);
  EXPECT_EQ(c.checks[1].params["tolerance"], 0);
  ASSERT_EQ(c.checks[2].clauses.size(), 1u);
  EXPECT_EQ(c.checks[2].clauses[0].level, Level::kShould);
  EXPECT_EQ(c.timeouts.total, Duration::Rtts(5000));
  EXPECT_EQ(c.timeouts.quiesce, Duration::Rtts(20));
}

TEST(CaseLoader, ScriptedFileLoadsSteps) {
  auto r = LoadCaseFile(kData + "/suite/conn/bad-crc.yaml");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const Case& c = r.value;
  EXPECT_EQ(c.style, Style::kScripted);
  ASSERT_EQ(c.script.size(), 7u);
  const auto& open = std::get<DutStep>(c.script[0]);
  EXPECT_EQ(open.action, DutStep::Action::kOpen);
  const auto& post = std::get<DutStep>(c.script[1]);
  EXPECT_EQ(post.action, DutStep::Action::kPostRecv);
  EXPECT_EQ(post.count, 2);
  const auto& inject = std::get<InjectStep>(c.script[2]);
  EXPECT_EQ(inject.at, Duration::Rtts(1));
  EXPECT_EQ(inject.path, 0);
  ASSERT_EQ(inject.frame.size(), 6u);
  EXPECT_EQ(inject.frame[0].first, "ip6.src");
  EXPECT_EQ(inject.frame[0].second.kind, FieldPattern::Kind::kBytes);
  EXPECT_EQ(inject.frame[0].second.bytes.size(), 16u);
  EXPECT_EQ(inject.frame[1].second.bytes, (std::vector<uint8_t>{2, 0, 0, 0, 0, 1}));
  EXPECT_EQ(inject.frame[2].second.value, 1u);
  EXPECT_EQ(inject.frame[4].second.kind, FieldPattern::Kind::kVariable);
  EXPECT_EQ(inject.frame[4].second.variable, "dut_conn");
  EXPECT_EQ(inject.frame[5].second.bytes, (std::vector<uint8_t>{0x00, 0x11, 0x22, 0x33}));
  EXPECT_EQ(inject.where.line, 12);
  const auto& expect = std::get<ExpectStep>(c.script[3]);
  EXPECT_EQ(expect.within, Duration::Rtts(2));
  ASSERT_EQ(expect.match.size(), 5u);
  EXPECT_EQ(expect.match[2].second.kind, FieldPattern::Kind::kRange);
  EXPECT_EQ(expect.match[2].second.lo, 1u);
  EXPECT_EQ(expect.match[3].second.kind, FieldPattern::Kind::kOneOf);
  EXPECT_EQ(expect.free, (std::vector<std::string>{"ack.rate_hint", "ch.psn"}));
  const auto& scapy = std::get<InjectStep>(c.script[4]);
  EXPECT_EQ(scapy.scapy, "corrupt_crc(data(psn=1))");
  EXPECT_TRUE(std::get<ExpectStep>(c.script[5]).absent);
  const auto& last = std::get<ExpectStep>(c.script[6]);
  EXPECT_EQ(last.match[0].second.offset, 1);
  EXPECT_EQ(last.match[1].second.kind, FieldPattern::Kind::kMask);
  EXPECT_EQ(last.match[1].second.mask, 0xf0u);
  EXPECT_EQ(last.match[2].second.hi, 3u);
  EXPECT_EQ(last.match[3].second.kind, FieldPattern::Kind::kAny);
}

TEST(CaseLoader, RespondStepLoads) {
  const std::string yaml =
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n"
      "  - respond:\n"
      "      match: {ch.opcode: 0x30, prh.probe_seq: \"$seq\"}\n"
      "      frame: {ch.opcode: 0x31, prh.probe_seq: \"$seq\"}\n"
      "      max: 24\n"
      "      path: 1\n"
      "  - respond: {match: {ch.opcode: 0x30}, frame: {ch.opcode: 0x31}}\n";
  auto r = LoadCaseString(yaml, "c.yaml");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  ASSERT_EQ(r.value.script.size(), 2u);
  const auto& s = std::get<RespondStep>(r.value.script[0]);
  ASSERT_EQ(s.match.size(), 2u);
  EXPECT_EQ(s.match[1].second.kind, FieldPattern::Kind::kVariable);
  EXPECT_EQ(s.frame[1].second.variable, "seq");
  EXPECT_EQ(s.max, 24);
  EXPECT_EQ(s.path, 1);
  EXPECT_EQ(s.where.line, 6);
  const auto& d = std::get<RespondStep>(r.value.script[1]);
  EXPECT_EQ(d.max, 64);
  EXPECT_FALSE(d.path.has_value());
}

TEST(CaseLoader, AStepRunsAtATimeOrAfterThePreviousStep) {
  auto r = LoadCaseString(
      "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n"
      "  - dut: {at: 2rtt, op: open}\n  - expect: {match: {ch.opcode: 0x20}}\n"
      "  - inject: {after: 3rtt, frame: {ch.opcode: 0x21}}\n  - dut: {after: 50us, op: close}\n",
      "c.yaml");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const auto& open = std::get<harness::DutStep>(r.value.script[0]);
  EXPECT_EQ(open.at, harness::Duration::Rtts(2));
  EXPECT_FALSE(open.after.has_value());
  const auto& inject = std::get<harness::InjectStep>(r.value.script[2]);
  ASSERT_TRUE(inject.after.has_value());
  EXPECT_EQ(*inject.after, harness::Duration::Rtts(3));
  const auto& close = std::get<harness::DutStep>(r.value.script[3]);
  ASSERT_TRUE(close.after.has_value());
  EXPECT_EQ(close.after->ToNanoseconds(10'000), 50'000);
}

// --- one test per kind of mistake: file:line:column and key path ----------------------------

TEST(CaseLoaderErrors, RespondStepMistakes) {
  const std::string head = "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n";
  ExpectOneError(head + "  - respond: {match: {ch.opcode: 0x30}}\n", 6, 14, "script[0].respond.frame",
                 "missing required key 'frame'");
  ExpectOneError(head + "  - respond: {match: {ch.opcode: 0x30}, frame: {ch.psn: \">5\"}}\n", 6, 57,
                 "script[0].respond.frame.ch.psn", "literal values");
  ExpectOneError(head + "  - respond: {match: {ch.opcode: 0x30}, frame: {ch.psn: 1}, max: 0}\n", 6, 66,
                 "script[0].respond.max", "");
  ExpectOneError(head + "  - respond: {match: {ch.opcode: 0x30}, frame: {ch.psn: 1}, max: 1001}\n", 6, 66,
                 "script[0].respond.max", "");
  ExpectOneError(head + "  - respond: {match: {}, frame: {ch.psn: 1}}\n", 6, 22, "script[0].respond.match",
                 "at least one field");
  ExpectOneError(head + "  - respond: {match: {ch.opcode: 0x30}, frame: {ch.psn: 1}, within: 1rtt}\n", 6, 61,
                 "script[0].respond.within", "");
}

TEST(CaseLoaderErrors, AStepHasExactlyOneOfAtAndAfter) {
  const std::string head = "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n";
  ExpectOneError(head + "  - dut: {op: open}\n", 6, 10, "script[0].dut", "exactly one of 'at'");
  ExpectOneError(head + "  - dut: {at: 0, after: 1rtt, op: open}\n", 6, 10, "script[0].dut", "exactly one of 'at'");
  ExpectOneError(head + "  - inject: {frame: {ch.opcode: 0x21}}\n", 6, 13, "script[0].inject", "or 'after' (from the previous step)");
  ExpectOneError(head + "  - inject: {after: soon, frame: {ch.opcode: 0x21}}\n", 6, 21, "script[0].inject.after", "");
}

TEST(CaseLoaderErrors, YamlSyntax) {
  auto errs = Errors("id: a.b\ntitle: [unclosed\n");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].where.file, "c.yaml");
  EXPECT_GT(errs[0].where.line, 0);
  EXPECT_NE(errs[0].message.find("YAML syntax error"), std::string::npos);
}

TEST(CaseLoaderErrors, UnknownTopLevelKey) {
  ExpectOneError(std::string(kMinimal) + "timeout: 5\n", 7, 1, "timeout", "unknown key 'timeout'");
}

TEST(CaseLoaderErrors, UnknownNestedKey) {
  ExpectOneError(std::string(kMinimal) + "topology:\n  planes: 2\n  plains: 3\n", 9, 3, "topology.plains",
                 "unknown key 'plains'");
}

TEST(CaseLoaderErrors, DuplicateKey) {
  ExpectOneError(std::string(kMinimal) + "title: again\n", 7, 1, "title", "duplicate key");
}

TEST(CaseLoaderErrors, MissingRequiredKey) {
  ExpectOneError("id: a.b\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\nchecks: [c]\n",
                 1, 1, "title", "missing required key 'title'");
}

TEST(CaseLoaderErrors, MissingNestedRequiredKey) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X}]\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\nchecks: [c]\n",
                 3, 11, "clauses[0].level", "missing required key 'level'");
}

TEST(CaseLoaderErrors, BadLevel) {
  ExpectOneError("id: a.b\ntitle: T\nclauses:\n  - {id: X, level: must}\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\nchecks: [c]\n",
                 4, 20, "clauses[0].level", "bad level 'must'");
}

TEST(CaseLoaderErrors, WrongTypeInteger) {
  ExpectOneError(std::string(kMinimal) + "topology:\n  planes: two\n", 8, 11, "topology.planes", "expected an integer");
}

TEST(CaseLoaderErrors, WrongTypeQuotedInteger) {
  ExpectOneError(std::string(kMinimal) + "topology: {paths: \"4\"}\n", 7, 19, "topology.paths", "expected an integer, got a string");
}

TEST(CaseLoaderErrors, WrongTypeMappingForList) {
  ExpectOneError(std::string(kMinimal) + "requires: {sack: true}\n", 7, 11, "requires", "expected a list");
}

TEST(CaseLoaderErrors, OutOfRange) {
  ExpectOneError(std::string(kMinimal) + "topology: {planes: 0}\n", 7, 20, "topology.planes", "out of range");
}

TEST(CaseLoaderErrors, BadDuration) {
  ExpectOneError(std::string(kMinimal) + "timeouts: {total: 5 fortnights}\n", 7, 19, "timeouts.total", "unknown time unit");
}

TEST(CaseLoaderErrors, RttNeedsUnit) {
  ExpectOneError(std::string(kMinimal) + "topology: {rtt: 10}\n", 7, 17, "topology.rtt", "needs a time unit");
}

TEST(CaseLoaderErrors, BadRate) {
  ExpectOneError(std::string(kMinimal) + "topology: {link_rate: fast}\n", 7, 23, "topology.link_rate", "expected a rate");
}

TEST(CaseLoaderErrors, BadSize) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload:\n  ops:\n    - {op: write, size: 4 KiBB}\nchecks: [c]\n",
                 7, 25, "workload.ops[0].size", "unknown size unit");
}

TEST(CaseLoaderErrors, BadOpKind) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload:\n  ops:\n    - {op: atomic, size: 8}\nchecks: [c]\n",
                 7, 12, "workload.ops[0].op", "expected write, read or send");
}

TEST(CaseLoaderErrors, StreamOutOfWorkload) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload:\n  streams: 2\n  ops:\n    - {op: write, size: 8, stream: 2}\nchecks: [c]\n",
                 8, 36, "workload.ops[0].stream", "the workload has 2 stream(s)");
}

TEST(CaseLoaderErrors, BadDirection) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload:\n  direction: up\n  ops: [{op: write, size: 8}]\nchecks: [c]\n",
                 6, 14, "workload.direction", "expected dut->peer or peer->dut");
}

TEST(CaseLoaderErrors, AbsentStepCannotBeUnordered) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n"
                 "  - expect: {within: 1rtt, match: {ch.opcode: 1}, absent: true, unordered: true}\n",
                 6, 76, "script[0].expect.unordered", "an absent step cannot be unordered");
}

TEST(CaseLoaderErrors, UnknownRequirement) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nrequires: [write, multipth]\nstyle: end-to-end\n"
                 "workload: {ops: [{op: write, size: 8}]}\nchecks: [c]\n",
                 4, 19, "requires", "unknown requirement 'multipth' (known: write, write_imm");
}

// A case that cannot be judged live says why: the reason is what a live DUT's report shows.
TEST(CaseLoaderErrors, SimulatedTimeNeedsItsReason) {
  const std::string head = "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\n";
  const std::string tail = "style: end-to-end\nworkload: {ops: [{op: write, size: 8}]}\nchecks: [c]\n";
  ExpectOneError(head + "requires: [write, simulated_time]\n" + tail, 4, 11, "requires",
                 "simulated_time needs a 'simulated_time_reason'");
  ExpectOneError(head + "requires: [write]\nsimulated_time_reason: \"x\"\n" + tail, 5, 24, "simulated_time_reason",
                 "given, but 'requires' does not list simulated_time");
  ExpectOneError(head + "requires: [write, simulated_time]\nsimulated_time_reason: \"  \"\n" + tail, 5, 24,
                 "simulated_time_reason", "must not be empty");
  auto ok = LoadCaseString(head + "requires: [write, simulated_time]\nsimulated_time_reason: \"sub-us timer\"\n" + tail,
                               "x.yaml");
  ASSERT_TRUE(ok.ok()) << ok.ErrorText();
  EXPECT_EQ(ok.value.simulated_time_reason, "sub-us timer");
}

// Every bundled case lists in `requires` each optional feature its content uses, so a DUT without
// one gets SKIP naming it (not a FAIL for a feature it never claimed), and the list is visible.
TEST(BundledSuite, EveryCaseDeclaresTheFeaturesItUses) {
  auto cases = LoadCaseDir(MROCE_TESTCASES_DIR);
  ASSERT_TRUE(cases.ok()) << cases.ErrorText();
  ASSERT_GT(cases.value.size(), 200u);
  std::string missing;
  for (const Case& c : cases.value) {
    for (const std::string& f : c.FeaturesUsed()) {
      if (std::find(c.requires_caps.begin(), c.requires_caps.end(), f) == c.requires_caps.end()) {
        missing += "  " + c.where.ToString() + " (" + c.id + ") uses " + f + " but does not require it\n";
      }
    }
  }
  EXPECT_TRUE(missing.empty()) << missing;
}

TEST(CaseFeatures, ReadFromWorkloadScriptAndTopology) {
  auto c = LoadCaseString("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\ntopology: {paths: 4, planes: 1}\n"
                          "style: end-to-end\nworkload: {ops: [{op: read, size: 8}, {op: send, size: 8}]}\nchecks: [c]\n",
                          "c.yaml");
  ASSERT_TRUE(c.ok()) << c.ErrorText();
  EXPECT_EQ(c.value.FeaturesUsed(), (std::vector<std::string>{"multipath", "read", "send"}));
  auto one = LoadCaseString("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\ntopology: {paths: 1, planes: 1}\n"
                            "style: end-to-end\nworkload: {ops: [{op: write, size: 8}]}\nchecks: [c]\n",
                            "c.yaml");
  ASSERT_TRUE(one.ok()) << one.ErrorText();
  EXPECT_EQ(one.value.FeaturesUsed(), (std::vector<std::string>{"write"}));
}

// A script that injects a header field a kernel UDP socket rewrites needs a data plane carrying
// whole frames; addresses, ports and ECN travel per datagram and need none.
TEST(CaseFeatures, RawFramesFromInjectedHeaderFields) {
  const std::string head = "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n";
  const std::string wait = "  - expect: {within: 2rtt, match: {}, absent: true}\n";
  auto raw = LoadCaseString(head + "  - inject: {at: 0, frame: {ch.opcode: 0x7f, udp.checksum: 4660}}\n" + wait, "c.yaml");
  ASSERT_TRUE(raw.ok()) << raw.ErrorText();
  EXPECT_EQ(raw.value.FeaturesUsed(), (std::vector<std::string>{"raw_frames"}));
  auto carried = LoadCaseString(head + "  - inject: {at: 0, frame: {ch.opcode: 0x7f, ip4.ecn: 3, udp.sport: 50000}}\n" + wait, "c.yaml");
  ASSERT_TRUE(carried.ok()) << carried.ErrorText();
  EXPECT_TRUE(carried.value.FeaturesUsed().empty());
  for (const char* f : {"eth.dst", "eth.type", "ip4.ttl", "ip4.flags", "ip4.total_len", "udp.length", "vlan.vid"}) {
    EXPECT_TRUE(NeedsRawFrames(f)) << f;
  }
  for (const char* f : {"ip4.src", "ip4.ecn", "udp.sport", "ch.opcode", "crc", "payload"}) EXPECT_FALSE(NeedsRawFrames(f)) << f;
}

TEST(CaseLoaderErrors, BadId) {
  ExpectOneError("id: Loss\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\nchecks: [c]\n",
                 1, 5, "id", "not a stable dotted id");
}

TEST(CaseLoaderErrors, BadStyle) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: manual\n", 4, 8, "style", "expected end-to-end or scripted");
}

TEST(CaseLoaderErrors, StyleMismatch) {
  ExpectOneError(std::string(kMinimal) + "script: [{dut: {at: 0, op: open}}]\n", 7, 9, "script", "belongs to style scripted");
}

TEST(CaseLoaderErrors, ScheduleUntilBeforeAt) {
  ExpectOneError(std::string(kMinimal) + "impairments:\n  - stage: blackhole\n    schedule: {at: 5rtt, until: 2rtt}\n",
                 9, 33, "impairments[0].schedule.until", "must be after 'at'");
}

TEST(CaseLoaderErrors, ImpairmentMatchUnknownKey) {
  ExpectOneError(std::string(kMinimal) + "impairments:\n  - stage: loss.bernoulli\n    match: {plain: 1}\n",
                 9, 13, "impairments[0].match.plain", "unknown key 'plain'");
}

// Impairments are validated against impairment/'s stage kinds at load (impairment/stage_yaml_test.cc
// covers every kind of mistake); here: that the loader reports them with the file's positions, and
// what only the case knows (its topology's planes).
TEST(CaseLoaderErrors, ImpairmentParameters) {
  ExpectOneError(std::string(kMinimal) + "impairments:\n  - stage: loss.bernoulli\n    params: {rate: 2.0}\n",
                 9, 20, "impairments[0].params.rate", "must be in [0, 1], got 2.0");
  ExpectOneError(std::string(kMinimal) + "impairments:\n  - stage: reorder\n    params: {max_hold: 100}\n",
                 9, 24, "impairments[0].params.max_hold", "'100' needs a unit");
  ExpectOneError(std::string(kMinimal) + "impairments: [{stage: los}]\n", 7, 23, "impairments[0].stage",
                 "unknown impairment stage 'los'");
}

TEST(CaseLoaderErrors, ImpairmentPlaneOutsideTheTopology) {
  ExpectOneError(std::string(kMinimal) + "topology: {planes: 2}\nimpairments:\n  - stage: blackhole\n    match: {plane: 2}\n",
                 10, 20, "impairments[0].match.plane", "plane 2 but the topology has 2 plane(s) (0..1)");
}

TEST(CaseLoaderErrors, DurationsNeedAUnit) {
  ExpectOneError(std::string(kMinimal) + "timeouts: {total: 100}\n", 7, 19, "timeouts.total",
                 "'100' needs a unit (rtt, ns, us, ms or s)");
  ExpectOneError(std::string(kMinimal) + "topology: {rtt: 10}\n", 7, 17, "topology.rtt",
                 "the base RTT needs a time unit, e.g. 10us");
  ExpectOneError(std::string(kMinimal) + "topology: {link_rate: 100}\n", 7, 23, "topology.link_rate",
                 "'100' needs a unit (bps, Kbps, Mbps, Gbps or Tbps)");
}

TEST(CaseLoaderErrors, InjectNeedsExactlyOneOfFrameOrScapy) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n  - inject: {at: 0}\n",
                 6, 13, "script[0].inject", "exactly one of 'frame' or 'scapy'");
}

TEST(CaseLoaderErrors, InjectRejectsPatterns) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n  - inject: {at: 0, frame: {ch.psn: \">5\"}}\n",
                 6, 37, "script[0].inject.frame.ch.psn", "literal values");
}

TEST(CaseLoaderErrors, BadPattern) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n  - expect:\n      match: {ack.epsn: \"9..3\"}\n",
                 7, 25, "script[0].expect.match.ack.epsn", "lo..hi");
}

TEST(CaseLoaderErrors, StepWithTwoKinds) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n  - {inject: {at: 0, scapy: x}, expect: {match: {a: 1}}}\n",
                 6, 5, "script[0]", "exactly one of inject, expect, dut");
}

TEST(CaseLoaderErrors, DutStepNeedsSize) {
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n  - dut: {at: 0, op: send}\n",
                 6, 10, "script[0].dut.size", "missing required key 'size'");
}

TEST(CaseLoaderErrors, ReportsEveryMistakeInOnePass) {
  auto errs = Errors("id: a.b\ntitle: T\nclauses: [{id: X, level: may}]\nstyle: end-to-end\nbogus: 1\n"
                     "workload: {ops: [{op: write, size: -1}]}\nchecks: [c]\n");
  ASSERT_EQ(errs.size(), 3u);
  EXPECT_EQ(errs[0].key, "bogus");
  EXPECT_EQ(errs[1].key, "clauses[0].level");
  EXPECT_EQ(errs[2].key, "workload.ops[0].size");
}

TEST(CaseLoaderErrors, DiagnosticFormat) {
  auto errs = Errors(std::string(kMinimal) + "timeout: 5\n");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].ToString().rfind("c.yaml:7:1: timeout: unknown key 'timeout'", 0), 0u) << errs[0].ToString();
}

// --- catalog ------------------------------------------------------------------------------------

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = LoadCatalogFile(kData + "/catalog.json");
    ASSERT_TRUE(c.ok()) << c.ErrorText();
    catalog_ = std::move(c.value);
    options_.catalog = &catalog_;
  }
  Catalog catalog_;
  LoaderOptions options_;
};

TEST_F(CatalogTest, ClauseNotInCatalog) {
  ExpectOneError("id: a.b\ntitle: T\nclauses:\n  - {id: MR-NOPE-9, level: MUST}\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\nchecks: [c]\n",
                 4, 10, "clauses[0].id", "'MR-NOPE-9' is not in the clause catalog", options_);
}

TEST_F(CatalogTest, LevelDisagreesWithCatalog) {
  ExpectOneError("id: a.b\ntitle: T\nclauses:\n  - {id: MR-CC-2, level: MUST}\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\nchecks: [c]\n",
                 4, 26, "clauses[0].level", "is SHOULD in the catalog", options_);
}

TEST_F(CatalogTest, SuiteValidatesAgainstCatalog) {
  auto r = LoadCaseDir(kData + "/suite", options_);
  ASSERT_TRUE(r.ok()) << r.ErrorText();
}

TEST(CaseLoaderOptions, UnknownCheckAndField) {
  LoaderOptions o;
  o.known_checks = {"data-intact"};
  o.known_fields = {"ack.epsn"};
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\nchecks: [data-intakt]\n",
                 6, 10, "checks[0]", "unknown check 'data-intakt'", o);
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n  - expect: {match: {ack.epsm: 1}}\n",
                 6, 22, "script[0].expect.match.ack.epsm", "unknown field 'ack.epsm'", o);
}

TEST(CaseLoaderOptions, AWorkloadCheckInAScriptedCaseIsAnErrorWhereItStands) {
  LoaderOptions o;
  o.known_checks = {"data-intact", "completions"};
  o.workload_checks = {"data-intact"};
  const std::string head = "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n"
                           "  - expect: {match: {ch.opcode: 1}}\n";
  ExpectOneError(head + "checks:\n  - completions\n  - {name: data-intact}\n", 9, 12, "checks[1].name",
                 "check 'data-intact' judges an end-to-end workload, which a scripted case has none of", o);
  ASSERT_TRUE(LoadCaseString(head + "checks: [completions]\n", "t.yaml", o).ok());
  ASSERT_TRUE(LoadCaseString("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\n"
                             "workload: {ops: [{op: read, size: 8}]}\nchecks: [data-intact]\n", "t.yaml", o).ok());
}

TEST(CaseLoaderOptions, CheckParametersAreValidatedAgainstTheirSchemaWhereTheyStand) {
  LoaderOptions o;
  o.known_checks = {"counter", "no-spurious-retransmissions"};
  o.check_params["counter"] = {{"name", ParamSpec::Type::kString, 0, 0, true, "a counter name"},
                               {"min", ParamSpec::Type::kInteger, 0}};
  o.check_params["no-spurious-retransmissions"] = {{"max_fraction", ParamSpec::Type::kNumber, 0, 1}};
  const std::string head = "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: end-to-end\nworkload: {ops: [{op: read, size: 8}]}\n";
  ExpectOneError(head + "checks:\n  - {name: counter, params: {name: crc_errors, mni: 1}}\n", 7, 53, "checks[0].params.mni",
                 "check 'counter': unknown parameter 'mni' (known: name, min)", o);
  ExpectOneError(head + "checks:\n  - {name: counter, params: {min: 1}}\n", 7, 5, "checks[0]",
                 "check 'counter': missing required parameter 'name' (a counter name)", o);
  ExpectOneError(head + "checks:\n  - {name: counter, params: {name: crc_errors, min: \"1\"}}\n", 7, 53,
                 "checks[0].params.min", "check 'counter': must be an integer, got the string \"1\"", o);
  for (const char* bad : {"2.0", "-0.5", ".nan"}) {
    auto r = LoadCaseString(head + "checks:\n  - {name: no-spurious-retransmissions, params: {max_fraction: " + bad + "}}\n",
                            "case.yaml", o);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.ErrorText().find("case.yaml:7:"), std::string::npos) << r.ErrorText();
    EXPECT_NE(r.ErrorText().find("max_fraction"), std::string::npos) << r.ErrorText();
  }
  EXPECT_TRUE(LoadCaseString(head + "checks:\n  - {name: no-spurious-retransmissions, params: {max_fraction: 0.25}}\n",
                             "case.yaml", o).ok());
}

TEST(CaseLoaderOptions, FreeFieldsOfAnExpectStepMustBeKnownFields) {
  LoaderOptions o;
  o.known_fields = {"ack.epsn", "ack.ack_delay"};
  ExpectOneError("id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n"
                 "  - expect: {match: {ack.epsn: 1}, free: [ack.ack_delay, ack.ack_dleay]}\n",
                 6, 58, "script[0].expect.free[1]", "unknown field 'ack.ack_dleay'", o);
}

// --- directories -------------------------------------------------------------------------------

TEST(CaseDir, SortedById) {
  auto r = LoadCaseDir(kData + "/suite");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  ASSERT_EQ(r.value.size(), 3u);
  EXPECT_EQ(r.value[0].id, "conn.crc.bad-crc-dropped");
  EXPECT_EQ(r.value[1].id, "loss.incast.fair-share");
  EXPECT_EQ(r.value[2].id, "loss.sack.exact-retransmit");
  EXPECT_EQ(r.value[1].topology.link_rate_bps, 25'000'000'000);
  EXPECT_EQ(r.value[1].topology.spine_link_rate_bps, 100'000'000'000);
  EXPECT_EQ(r.value[1].topology.rtt_ns, 8'000);
  EXPECT_EQ(r.value[1].topology.mtu_bytes, 4096);
  EXPECT_EQ(r.value[1].workload.senders, 8);
  EXPECT_EQ(r.value[1].level(), Level::kShould);
}

TEST(CaseDir, DuplicateIdNamesBothFiles) {
  auto r = LoadCaseDir(kData + "/dup");
  ASSERT_EQ(r.errors.size(), 1u);
  const Diagnostic& d = r.errors[0];
  EXPECT_EQ(d.where.file, kData + "/dup/b.yaml");
  EXPECT_NE(d.message.find("duplicate case id 'dup.same-id'"), std::string::npos);
  EXPECT_NE(d.message.find(kData + "/dup/a.yaml"), std::string::npos);
}

TEST(CaseDir, MissingPath) {
  auto r = LoadCases(kData + "/nope");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("no such file"), std::string::npos);
}

// --- patterns (durations, sizes and rates: impairment/quantity_test.cc) -------------------------

TEST(ValueParsers, Patterns) {
  auto p = ParsePattern(">=10");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->MatchesScalar(10));
  EXPECT_FALSE(p->MatchesScalar(9));
  p = ParsePattern("<3");
  EXPECT_TRUE(p->MatchesScalar(2));
  EXPECT_FALSE(p->MatchesScalar(3));
  p = ParsePattern("!=0");
  EXPECT_TRUE(p->MatchesScalar(1));
  EXPECT_FALSE(p->MatchesScalar(0));
  p = ParsePattern("0x20/0xf0");
  EXPECT_TRUE(p->MatchesScalar(0x2a));
  EXPECT_FALSE(p->MatchesScalar(0x3a));
  p = ParsePattern("$psn-2");
  EXPECT_EQ(p->variable, "psn");
  EXPECT_EQ(p->offset, -2);
  p = ParsePattern("10.0.0.1");
  EXPECT_EQ(p->bytes, (std::vector<uint8_t>{10, 0, 0, 1}));
  EXPECT_TRUE(ParsePattern("true")->MatchesScalar(1));
  EXPECT_FALSE(ParsePattern("0x30/0x0f").ok());
  EXPECT_FALSE(ParsePattern("hex:abc").ok());
  p = ParsePattern("hex:a5b6*3");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->bytes, (std::vector<uint8_t>{0xa5, 0xb6, 0xa5, 0xb6, 0xa5, 0xb6}));
  EXPECT_EQ(ParsePattern("hex:00*4096")->bytes.size(), 4096u);
  EXPECT_FALSE(ParsePattern("hex:00*0").ok());
  EXPECT_FALSE(ParsePattern("hex:0000*40000").ok());
  EXPECT_FALSE(ParsePattern("hex:00*x").ok());
  EXPECT_FALSE(ParsePattern("banana").ok());
  EXPECT_FALSE(ParsePattern("<0").ok());
  auto bad = ParsePattern("banana");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "case.pattern");
  EXPECT_EQ(bad.error().message.rfind("bad field value 'banana': ", 0), 0u) << bad.error().message;
}

// The head of a scripted case whose script the test appends.
constexpr char kScriptedHead[] = "id: a.b\ntitle: T\nclauses: [{id: X, level: MUST}]\nstyle: scripted\nscript:\n";

TEST(CaseLoaderErrors, RefusedOnlyOnAPost) {
  const std::string head = kScriptedHead;
  ExpectOneError(head + "  - dut: {at: 0, op: open, refused: true}\n", 6, 37, "script[0].dut.refused",
                 "'refused' applies to a post (write, read, send, post-recv), not to op open");
  auto ok = LoadCaseString(head + "  - dut: {at: 0, op: open}\n  - dut: {at: 0, op: write, size: 8, stream: 9, refused: true}\n",
                         "c.yaml");
  ASSERT_TRUE(ok.ok()) << ok.ErrorText();
  EXPECT_TRUE(std::get<DutStep>(ok.value.script[1]).refused);
  EXPECT_FALSE(std::get<DutStep>(ok.value.script[0]).refused);
}

TEST(CaseLoaderErrors, ImmOnlyOnWriteOrSendAndItNeedsTheImmFeature) {
  const std::string head = kScriptedHead;
  ExpectOneError(head + "  - dut: {at: 0, op: read, size: 8, imm: 1}\n", 6, 42, "script[0].dut.imm",
                 "'imm' (immediate data) applies to op write (WRITE_IMM) or send (SEND_IMM), not to op read");
  auto big = LoadCaseString(head + "  - dut: {at: 0, op: send, size: 8, imm: 4294967296}\n", "c.yaml");
  EXPECT_FALSE(big.ok());
  auto ok = LoadCaseString(head + "  - dut: {at: 0, op: write, size: 8, imm: 4294967295}\n  - dut: {at: 0, op: send, size: 8, imm: 0}\n",
                           "c.yaml");
  ASSERT_TRUE(ok.ok()) << ok.ErrorText();
  EXPECT_EQ(std::get<DutStep>(ok.value.script[0]).imm, 4294967295u);
  EXPECT_EQ(std::get<DutStep>(ok.value.script[1]).imm, 0u);
  EXPECT_EQ(ok.value.FeaturesUsed(), (std::vector<std::string>{"send_imm", "write_imm"}));
}

TEST(CaseLoaderErrors, TheScriptMayNotEndWithAnInject) {
  const std::string head = kScriptedHead;
  ExpectOneError(head + "  - dut: {at: 0, op: open}\n  - inject: {at: 0, frame: {ch.opcode: 0x10}}\n", 7, 5, "script[1]",
                 "the script's last step injects a frame, but the case ends with the script");
  auto ok = LoadCaseString(head + "  - inject: {at: 0, frame: {ch.opcode: 0x10}}\n  - expect: {within: 2rtt, match: {}, absent: true}\n",
                           "c.yaml");
  EXPECT_TRUE(ok.ok()) << ok.ErrorText();
}

// A dut step may post an empty message (msg_len 0, MROCE-PLACE-007); a workload op may not.
TEST(CaseLoaderErrors, ADutStepMayPostAnEmptyMessage) {
  const std::string head = kScriptedHead;
  auto ok = LoadCaseString(head + "  - dut: {at: 0, op: read, size: 0}\n", "c.yaml");
  ASSERT_TRUE(ok.ok()) << ok.ErrorText();
  EXPECT_EQ(std::get<DutStep>(ok.value.script[0]).size_bytes, 0);
  ExpectOneError(head + "  - dut: {at: 0, op: read, size: -1}\n", 6, 34, "script[0].dut.size", "a size must not be negative");
}


}  // namespace
}  // namespace mroce::harness
