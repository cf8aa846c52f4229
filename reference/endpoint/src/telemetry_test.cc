// Telemetry (telemetry.cc and the ForEachTelemetry visitors): the names of chapter 17 as the spec
// text states them, the counter sets, and, through a scripted peer on the simulator
// (scripted_peer.h), that counters move with the wire exactly and that reading them changes nothing.
#include "mroce/endpoint/telemetry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "scripted_peer.h"

namespace mroce::ref {
namespace {

using namespace testing_peer;  // NOLINT
using wire::Opcode;

constexpr TimeNs kUs = kMicrosecond;
constexpr TimeNs kMs = kMillisecond;

// --- the names of tables 17.2, 17.3 and 17.4, read from the spec --------------------------------

struct SpecName {
  std::string scope;  // "endpoint", "connection", "path" (17.3), "path.rx" (17.4)
  std::string name;
  std::string kind;   // "counter" or "gauge"
};

std::string Trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream in(row.substr(1));
  std::string cell;
  while (std::getline(in, cell, '|')) out.push_back(Trim(cell));
  return out;
}

// Every (scope, name, kind) of the tables of docs/spec/17-telemetry.md; a cell may list several
// names separated by commas.
std::vector<SpecName> SpecNames() {
  std::ifstream in(std::string(MROCE_SPEC_DIR) + "/17-telemetry.md");
  EXPECT_TRUE(in.good()) << "cannot read " << MROCE_SPEC_DIR << "/17-telemetry.md";
  std::vector<SpecName> out;
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section = line.substr(3, 4);
    if (line.empty() || line[0] != '|' || line.find("---") != std::string::npos) continue;
    const std::vector<std::string> c = Cells(line);
    std::string scope, names, kind;
    if (section == "17.2" && c.size() >= 3 && c[0] != "scope") {
      scope = c[0];
      names = c[1];
      kind = c[2];
    } else if ((section == "17.3" || section == "17.4") && c.size() >= 2 && c[0] != "name") {
      scope = section == "17.3" ? "path" : "path.rx";
      names = c[0];
      kind = c[1];
    } else {
      continue;
    }
    std::stringstream list(names);
    std::string name;
    while (std::getline(list, name, ',')) out.push_back({scope, Trim(name), kind});
  }
  return out;
}

// MROCE-TEL-001 (every name of the tables, in its scope, for every path), MROCE-TEL-008 (17.4 under
// ".rx."), MROCE-TEL-005 (anything else starts with x_), each name exactly once.
TEST(EndpointTelemetryTest, EveryNameOfTables172To174IsExposedInItsScopeOnce) {
  const std::vector<SpecName> spec = SpecNames();
  std::set<std::string> parsed;
  for (const SpecName& s : spec) parsed.insert(s.scope + ":" + s.name);
  // The parse found the tables (a few names from each).
  for (const char* n : {"endpoint:connections_open", "connection:nack_rx_remote_op_error", "connection:state_bytes",
                        "path:srtt_ns", "path:reintroductions", "path.rx:rx_epoch", "path.rx:dup_rtx_rx"}) {
    EXPECT_TRUE(parsed.contains(n)) << n << " not parsed from the spec";
  }
  EXPECT_EQ(parsed.size(), spec.size()) << "a name listed twice in one scope";

  EndpointConfig cfg = OnePathConfig();
  cfg.num_paths = 2;
  cfg.num_planes = 2;
  ScriptedPeer peer(cfg);
  peer.Establish();
  std::map<std::string, int> seen;
  peer.ep().ForEachTelemetry([&](std::string_view n, uint64_t) { ++seen[std::string(n)]; }, peer.now());

  const std::string conn = std::to_string(peer.conn());
  std::set<std::string> expected;
  for (const SpecName& s : spec) {
    if (s.scope == "endpoint") expected.insert("endpoint." + s.name);
    if (s.scope == "connection") expected.insert("conn." + conn + "." + s.name);
    for (int p = 0; p < 2; ++p) {
      const std::string path = "path." + conn + "." + std::to_string(p) + ".";
      if (s.scope == "path") expected.insert(path + s.name);
      if (s.scope == "path.rx") expected.insert(path + "rx." + s.name);
    }
  }
  for (const std::string& n : expected) EXPECT_EQ(seen[n], 1) << n;
  for (const auto& [n, times] : seen) {
    EXPECT_EQ(times, 1) << n << " visited " << times << " times";
    const std::string last = n.substr(n.rfind('.') + 1);
    EXPECT_TRUE(expected.contains(n) || last.rfind("x_", 0) == 0) << n << " is in no table and has no x_ prefix";
  }
}

// --- the counter sets ----------------------------------------------------------------------------

template <typename Set, typename Enum>
void CheckNameTable(std::string_view (*name_of)(Enum), const char* what) {
  SCOPED_TRACE(what);
  Set set;
  for (size_t i = 0; i < Set::kSize; ++i) set.Add(static_cast<Enum>(i), i + 1);  // value = index + 1
  std::vector<std::pair<std::string, uint64_t>> visited;
  ForEachCounter(set, [&](std::string_view n, uint64_t v) { visited.emplace_back(n, v); });
  ASSERT_EQ(visited.size(), Set::kSize);
  std::set<std::string> unique;
  for (size_t i = 0; i < Set::kSize; ++i) {
    const std::string n(name_of(static_cast<Enum>(i)));
    EXPECT_EQ(visited[i].first, n) << "visit order is enum order";
    EXPECT_EQ(visited[i].second, i + 1) << n << ": the value of another counter";
    EXPECT_FALSE(n.empty());
    EXPECT_TRUE(std::all_of(n.begin(), n.end(), [](char c) { return std::islower(c) || std::isdigit(c) || c == '_'; }))
        << n;
    EXPECT_TRUE(unique.insert(n).second) << n << " twice";
  }
}

// Every enum value has one name of its own, ForEachCounter visits them in enum order with their
// own values (an index slip shows up as another counter's value).
TEST(EndpointTelemetryTest, NameTablesCoverEveryCounterOnceInEnumOrder) {
  CheckNameTable<EndpointCounters, EndpointCounter>(&EndpointCounterName, "endpoint");
  CheckNameTable<ConnCounters, ConnCounter>(&ConnCounterName, "connection");
  CheckNameTable<PathCounters, PathCounter>(&PathCounterName, "path");
  CheckNameTable<PathRxCounters, PathRxCounter>(&PathRxCounterName, "path rx");
}

// MROCE-ERR-004: the per-code NACK counters of table 17.2 follow the wire code of table 16.1.
TEST(EndpointTelemetryTest, PerCodeNackCountersFollowTheWireCode) {
  for (uint8_t code = 0x01; code <= 0x07; ++code) {
    std::string lower(wire::NackCodeName(static_cast<wire::NackCode>(code)));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    EXPECT_EQ(ConnCounterName(NackTxCounter(code)), "nack_tx_" + lower) << int{code};
    EXPECT_EQ(ConnCounterName(NackRxCounter(code)), "nack_rx_" + lower) << int{code};
  }
}

// MROCE-TEL-002: counters start at 0 and grow by what is added; Set is for the stored gauges.
TEST(EndpointTelemetryTest, CounterSetStartsAtZeroAndAddsExactly) {
  ConnCounters c;
  for (uint64_t v : c.values()) EXPECT_EQ(v, 0u);
  c.Add(ConnCounter::kTxPkts);
  c.Add(ConnCounter::kTxBytes, 1112);
  c.Add(ConnCounter::kTxBytes, 88);
  c.Set(ConnCounter::kRateHintLastTxMbps, 95000);
  c.Set(ConnCounter::kRateHintLastTxMbps, 47500);
  EXPECT_EQ(c.Get(ConnCounter::kTxPkts), 1u);
  EXPECT_EQ(c.Get(ConnCounter::kTxBytes), 1200u);
  EXPECT_EQ(c.Get(ConnCounter::kRateHintLastTxMbps), 47500u);
  uint64_t sum = 0;
  for (uint64_t v : c.values()) sum += v;
  EXPECT_EQ(sum, 1u + 1200u + 47500u) << "nothing else moved";
}

// --- counters against the wire --------------------------------------------------------------------

// A fixed exchange on two paths: outbound WRITEs with a gap on path 0 and nothing acknowledged on
// path 1 (RTOs), inbound WRITEs on both paths with a duplicate and an out-of-window PSN, PROBEs.
// `read` reads telemetry after every step. Returns the data frames the peer delivered.
std::vector<wire::Frame> Exchange(ScriptedPeer& peer, bool read) {
  std::vector<wire::Frame> delivered;
  auto look = [&] {
    if (!read) return;
    const TimeNs deadline = peer.ep().NextDeadline();
    const size_t frames = peer.out().size();
    (void)peer.Counters();
    peer.ep().ForEachTelemetry([](std::string_view, uint64_t) {});
    peer.ep().ForEachTelemetry([](std::string_view, uint64_t) {}, peer.now() + 1 * kMs);
    EXPECT_EQ(peer.ep().NextDeadline(), deadline) << "reading telemetry moved a timer";
    EXPECT_EQ(peer.out().size(), frames) << "reading telemetry sent a frame";
  };
  auto data = [&](DataArgs d) {
    const wire::Frame f = peer.Data(d);
    delivered.push_back(f);
    peer.Deliver(f);
    look();
  };
  static std::vector<uint8_t> src(16 * 1024, 9);
  for (uint64_t wr = 0; wr < 8; ++wr) {
    EXPECT_TRUE(peer.Call([&](Endpoint& ep) {
      return ep.PostWrite(peer.conn(), static_cast<uint16_t>(wr % 2), src.data(), 1000, 0x1000, 7, wr, std::nullopt,
                          peer.now());
    }).ok());
    look();
  }
  peer.RunFor(20 * kUs);
  look();
  peer.Deliver(peer.Ack({.path = 0, .epsn = 1, .sacked = {3}}));  // PSN 1, 2 of path 0 lost
  look();
  DataArgs d = peer.Write(0, 0);
  data(d);
  d = peer.Write(2, 1);
  data(d);
  d = peer.Write(1, 2);
  d.rtx = true;
  data(d);
  data(d);  // a duplicate
  d = peer.Write(0, 3);
  d.path = 1;
  d.ar = true;
  data(d);
  d = peer.Write(300, 4);
  d.path = 1;
  data(d);  // out of window
  peer.Deliver(peer.Probe(1, 0, 0, 1, 77));
  look();
  peer.RunFor(3 * kMs);  // RTOs of path 1 at 1 and 3 ms
  look();
  return delivered;
}

CounterMap ReadAll(const ScriptedPeer& peer) {
  CounterMap out;
  peer.ep().ForEachTelemetry([&](std::string_view n, uint64_t v) { out[ShortName(n)] = v; }, peer.now());
  return out;
}

// MROCE-TEL-003: reading telemetry changes no timer, sends nothing, and a run that reads at every
// step emits exactly the frames, at exactly the times, of a run that never reads, with the same
// counters and gauges at the end.
TEST(EndpointTelemetryTest, ReadingTelemetryChangesNothing) {
  EndpointConfig cfg = OnePathConfig();
  cfg.num_paths = 2;
  cfg.num_planes = 2;
  ScriptedPeer reading(cfg), quiet(cfg);
  reading.Establish();
  quiet.Establish();
  Exchange(reading, true);
  Exchange(quiet, false);
  ASSERT_EQ(reading.out().size(), quiet.out().size());
  for (size_t i = 0; i < quiet.out().size(); ++i) {
    EXPECT_EQ(reading.out()[i].at, quiet.out()[i].at) << "frame " << i;
    EXPECT_EQ(reading.out()[i].frame, quiet.out()[i].frame) << "frame " << i << ": " << Brief(quiet.out()[i]);
  }
  EXPECT_EQ(ReadAll(reading), ReadAll(quiet));
}

// MROCE-TEL-003 (each counter moves by one per event, bytes by the IP total length on the wire, so
// counters and the packet trace agree exactly), MROCE-TEL-007 (per-path tx_pkts, tx_bytes, rx_pkts,
// rx_bytes and retransmits sum to the connection's), MROCE-ERR-004 (nack_tx / nack_rx = the sums of
// their per-code counters).
TEST(EndpointTelemetryTest, CountersAgreeWithTheWireAndPathsSumToTheConnection) {
  EndpointConfig cfg = OnePathConfig();
  cfg.num_paths = 2;
  cfg.num_planes = 2;
  ScriptedPeer peer(cfg);
  peer.Establish();
  const std::vector<wire::Frame> delivered = Exchange(peer, false);
  const CounterMap t = ReadAll(peer);

  std::map<std::string, uint64_t> wire;  // the same names, tallied from the frames
  for (const Emitted& e : peer.out()) {
    const std::string p = "path" + std::to_string(e.ch().path_id) + ".";
    const uint64_t ip_len = e.frame.ip4()->total_len;
    if (wire::IsDataOpcode(e.op())) {
      for (const std::string& scope : {std::string("conn."), p}) {
        ++wire[scope + "tx_pkts"];
        wire[scope + "tx_bytes"] += ip_len;
        if (e.ch().Has(wire::kFlagRtx)) ++wire[scope + "retransmits"];
      }
    }
    if (e.op() == Opcode::kAck) ++wire[p + "rx.acks_tx"];
    if (e.op() == Opcode::kNack) ++wire["conn.nack_tx"];
    if (e.op() == Opcode::kProbe) ++wire[p + "probes_tx"];
  }
  for (const wire::Frame& f : delivered) {
    auto parsed = wire::ParseFrame(wire::SerializeFrame(f));
    ASSERT_TRUE(parsed.ok());
    const std::string p = "path" + std::to_string(f.meta()->ch.path_id) + ".rx.";
    ++wire["conn.rx_pkts"];
    wire["conn.rx_bytes"] += parsed->ip4()->total_len;
    ++wire[p + "rx_pkts"];
    wire[p + "rx_bytes"] += parsed->ip4()->total_len;
  }
  ASSERT_GT(wire["conn.retransmits"], 3u) << "the exchange lost nothing: it tests too little";
  for (const auto& [name, v] : wire) EXPECT_EQ(t.at(name), v) << name;

  for (const auto& [path_name, conn_name] : std::vector<std::pair<std::string, std::string>>{
           {"tx_pkts", "tx_pkts"}, {"tx_bytes", "tx_bytes"}, {"retransmits", "retransmits"},
           {"rx.rx_pkts", "rx_pkts"}, {"rx.rx_bytes", "rx_bytes"}}) {
    EXPECT_EQ(t.at("path0." + path_name) + t.at("path1." + path_name), t.at("conn." + conn_name)) << path_name;
  }
  uint64_t tx_codes = 0, rx_codes = 0;
  for (uint8_t code = 1; code <= 7; ++code) {
    tx_codes += t.at("conn." + std::string(ConnCounterName(NackTxCounter(code))));
    rx_codes += t.at("conn." + std::string(ConnCounterName(NackRxCounter(code))));
  }
  EXPECT_EQ(t.at("conn.nack_tx"), tx_codes);
  EXPECT_EQ(t.at("conn.nack_rx"), rx_codes + t.at("conn.unknown_nack_rx"));
}

// MROCE-TEL-009: the gauges state, entropy, epoch, cwnd_bytes, srtt_ns and rto_ns are the values
// the next packet on the path uses; conn_state, the hint gauges and the receiver's epsn / rx_epoch
// follow the connection (tables 17.2, 17.4).
TEST(EndpointTelemetryTest, GaugesDescribeWhatTheNextPacketUses) {
  ScriptedPeer peer;
  peer.Establish();
  static std::vector<uint8_t> src(100, 1);
  auto write = [&](uint64_t wr) {
    EXPECT_TRUE(peer.Call([&](Endpoint& ep) {
      return ep.PostWrite(peer.conn(), 0, src.data(), 100, 0x1000, 7, wr, std::nullopt, peer.now());
    }).ok());
  };
  CounterMap g = ReadAll(peer);
  EXPECT_EQ(g["conn.conn_state"], 3u);  // ESTABLISHED
  EXPECT_EQ(g["path0.state"], 0u);      // ACTIVE
  EXPECT_EQ(g["path0.cwnd_bytes"], 4 * 1024u);
  EXPECT_EQ(g["path0.rto_ns"], static_cast<uint64_t>(1 * kMs));
  EXPECT_EQ(g["path0.srtt_ns"], 0u);
  EXPECT_EQ(g["conn.rate_hint_last_rx_mbps"], 0xFFFFFFFFu) << "no max_rate, no ACK: unlimited (10.4)";
  write(1);
  std::vector<Emitted> out = peer.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].frame.udp.sport, g["path0.entropy"]);
  EXPECT_EQ(out[0].ch().path_epoch, g["path0.epoch"]);
  EXPECT_EQ(ReadAll(peer)["path0.inflight_bytes"], 100u);

  peer.RunUntil(1 * kMs);  // RTO: re-roll, SUSPECT, cwnd 1 MTU, RTO doubled
  g = ReadAll(peer);
  out = peer.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].frame.udp.sport, g["path0.entropy"]) << "the retransmission uses the re-rolled entropy";
  EXPECT_EQ(g["path0.state"], 1u);  // SUSPECT
  EXPECT_EQ(g["path0.cwnd_bytes"], 1024u);
  EXPECT_EQ(g["path0.rto_ns"], static_cast<uint64_t>(2 * kMs));

  peer.RunUntil(1 * kMs + 40 * kUs);
  peer.Deliver(peer.Ack({.epsn = 1, .rate_hint = 0, .trtx = true}));
  g = ReadAll(peer);
  EXPECT_EQ(g["path0.state"], 0u);
  EXPECT_EQ(g["path0.srtt_ns"], static_cast<uint64_t>(40 * kUs));
  EXPECT_EQ(g["path0.rto_ns"], static_cast<uint64_t>(120 * kUs));  // 40 us + 4 x 20 us
  EXPECT_EQ(g["path0.inflight_bytes"], 0u);
  EXPECT_EQ(g["conn.rate_hint_last_rx_mbps"], 1u) << "a hint of 0 is taken as 1 Mb/s (10.4)";

  peer.Deliver(peer.Probe(0, 1, 40, 1, 0));  // the next epoch (MROCE-PATH-019 window)
  DataArgs d = peer.Write(40, 0);
  d.epoch = 1;
  d.ar = true;
  peer.Deliver(peer.Data(d));
  g = ReadAll(peer);
  EXPECT_EQ(g["path0.rx.rx_epoch"], 1u);
  EXPECT_EQ(g["path0.rx.epsn"], 41u);
  EXPECT_EQ(g["conn.rate_hint_last_tx_mbps"], 95000u);
  EXPECT_EQ(g["conn.active_senders"], 1u);
}

}  // namespace
}  // namespace mroce::ref
