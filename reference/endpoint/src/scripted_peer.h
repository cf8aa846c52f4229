// Test harness for the sender, receiver and telemetry tests: one reference endpoint on
// sim::Simulator's clock, facing a peer the test plays by hand. The endpoint's NextDeadline() is
// one simulator event (sim::DeadlineTimer); every frame it emits is parsed and logged with its
// time; the test builds the peer's frames (CONNECT_ACK, data, ACK, NACK, PROBE, PROBE_ACK) with
// the builders below and hands them in at the current simulated time.
//
//   test = peer 02:..:02 10.0.0.2, conn id kPeerConn  <==[ frames by hand ]==>  endpoint 10.0.0.1
//
// Sender and Receiver are reachable only through Connection, and a Connection only through the
// Endpoint that establishes it: the Endpoint's verbs and OnFrame are the narrowest public seam, and
// the wire and the chapter 17 counters are what the tests observe.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "mroce/endpoint/endpoint.h"
#include "mroce/sim/deadline_timer.h"
#include "mroce/sim/simulator.h"
#include "mroce/wire/frame.h"

namespace mroce::ref::testing_peer {

inline constexpr ConnId kPeerConn = 0x0BEEF001;  // the peer's connection id (dst of our frames)
inline constexpr wire::MacAddress kEndpointMac = {2, 0, 0, 0, 0, 1};
inline constexpr wire::MacAddress kPeerMac = {2, 0, 0, 0, 0, 2};
inline constexpr wire::Ipv4Address kEndpointIp = {10, 0, 0, 1};
inline constexpr wire::Ipv4Address kPeerIp = {10, 0, 0, 2};
inline constexpr uint32_t kPeerHintMbps = 95000;  // what a 100G peer with one sender hints (10.3)

// One path, one plane, MTU 1024, 8 streams: every packet of a test lands where the test says.
inline EndpointConfig OnePathConfig() {
  EndpointConfig c;
  c.num_paths = 1;
  c.num_planes = 1;
  c.mtu = 1024;
  c.max_streams = 8;
  return c;
}

// IP total length of a data packet with `payload` bytes over IPv4 (tx_bytes / rx_bytes, 17.2).
inline uint64_t IpLen(uint32_t payload) { return spec::DataIpLength(payload, false); }

// A data packet from the peer. FIRST and LAST follow MROCE-HDR-006 from offset and lengths (a
// READ_REQ, which carries no payload, is FIRST and LAST).
struct DataArgs {
  uint8_t path = 0;
  uint8_t epoch = 0;
  Psn psn = 0;
  wire::Opcode op = wire::Opcode::kWrite;
  uint16_t stream = 0;
  Msn msn = 0;
  uint32_t offset = 0;                   // bytes into the message
  std::optional<uint32_t> msg_len = {};  // default: offset + payload size
  std::vector<uint8_t> payload = std::vector<uint8_t>(4, 0x5A);
  uint32_t recv_seq = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  bool ar = false;
  bool rtx = false;
  bool ce = false;  // IP ECN = CE
};

// An ACK from the peer for the endpoint's path `path`.
struct AckArgs {
  uint8_t path = 0;
  uint8_t epoch = 0;
  Psn epsn = 0;
  std::vector<Psn> sacked = {};     // PSNs above epsn acknowledged selectively (bit psn - epsn - 1)
  std::optional<Psn> trigger = {};  // default: the highest PSN acknowledged
  uint32_t rate_hint = kPeerHintMbps;
  uint16_t ce_count = 0;
  uint16_t ack_delay = 0;  // 64 ns units
  bool ece = false;
  bool trtx = false;
};

struct NackArgs {
  ConnId dst_conn = 0;  // 0: the endpoint's connection id (INVALID_CONN names the peer's own id)
  uint8_t path = 0;
  uint8_t epoch = 0;
  wire::NackCode code = wire::NackCode::kRnr;
  Psn psn = 0;
  uint16_t stream = 0;
  Msn msn = 0;
  uint32_t info = 0;
};

// A frame the endpoint emitted.
struct Emitted {
  TimeNs at;      // ns
  uint8_t plane;
  wire::Frame frame;
  [[nodiscard]] const wire::MetaPacket& meta() const { return *frame.meta(); }
  [[nodiscard]] const wire::CommonHeader& ch() const { return frame.meta()->ch; }
  [[nodiscard]] wire::Opcode op() const { return frame.meta()->ch.opcode; }
};

// One line per frame, for readable expectations: "WRITE p0 e0 #3 F L AR RTX", "ACK p1 e0 epsn=5
// trig=4 ECE TRTX", "NACK p0 e0 RNR #7 info=20", "PROBE p2 e1 #917 seq=41", "PROBE_ACK p2 e1 seq=41",
// "DISCONNECT ERROR". Fields not shown (SACK map, MEH, counts) are asserted apart.
[[nodiscard]] inline std::string Brief(const Emitted& e) {
  const wire::MetaPacket& m = e.meta();
  std::string s(wire::OpcodeName(m.ch.opcode));
  auto add = [&s](const std::string& x) { s += " " + x; };
  if (wire::ExtKindOf(m.ch.opcode) == wire::ExtKind::kConnMgmt) {
    add(std::string(wire::ConnReasonName(m.cmh()->reason)));
    return s;
  }
  add("p" + std::to_string(m.ch.path_id) + " e" + std::to_string(m.ch.path_epoch));
  if (const wire::AckHeader* a = m.ack()) {
    add("epsn=" + std::to_string(a->epsn) + " trig=" + std::to_string(a->trigger_psn));
    if (m.ch.Has(wire::kFlagEce)) add("ECE");
    if (m.ch.Has(wire::kFlagTrtx)) add("TRTX");
  } else if (const wire::NackHeader* n = m.nack()) {
    add(std::string(wire::NackCodeName(n->code)) + " #" + std::to_string(n->psn) + " info=" + std::to_string(n->info));
  } else if (const wire::ProbeHeader* p = m.prh()) {
    if (m.ch.opcode == wire::Opcode::kProbe) add("#" + std::to_string(m.ch.psn));
    add("seq=" + std::to_string(p->probe_seq));
  } else {
    add("#" + std::to_string(m.ch.psn));
    if (m.ch.Has(wire::kFlagFirst)) add("F");
    if (m.ch.Has(wire::kFlagLast)) add("L");
    if (m.ch.Has(wire::kFlagAr)) add("AR");
    if (m.ch.Has(wire::kFlagRtx)) add("RTX");
  }
  return s;
}
[[nodiscard]] inline std::vector<std::string> Briefs(const std::vector<Emitted>& frames) {
  std::vector<std::string> out;
  for (const Emitted& e : frames) out.push_back(Brief(e));
  return out;
}

// Counters (no gauges) of Endpoint::ForEachTelemetry with the connection id left out of the
// names: "endpoint.<name>", "conn.<name>", "path<p>.<name>", "path<p>.rx.<name>".
using CounterMap = std::map<std::string, uint64_t>;
// What moved between two readings, name -> increase.
using Moved = std::map<std::string, uint64_t>;

[[nodiscard]] inline bool IsGauge(const std::string& short_name) {
  static const std::set<std::string> kGauges = {
      // table 17.2
      "endpoint.connections_open", "conn.conn_state", "conn.active_senders", "conn.state_bytes",
      "conn.rate_hint_last_tx_mbps", "conn.rate_hint_last_rx_mbps", "conn.x_pacing_rate_mbps",
      // tables 17.3, 17.4
      "state", "entropy", "epoch", "cwnd_bytes", "inflight_bytes", "srtt_ns", "rttvar_ns", "rto_ns",
      "rx.rx_epoch", "rx.epsn"};
  if (kGauges.contains(short_name)) return true;
  if (short_name.rfind("path", 0) == 0) return kGauges.contains(short_name.substr(short_name.find('.') + 1));
  return false;
}

// "conn.<id>.x" -> "conn.x", "path.<id>.<p>.x" -> "path<p>.x", "endpoint.x" unchanged.
[[nodiscard]] inline std::string ShortName(std::string_view name) {
  auto after = [&](size_t from) { return name.find('.', from); };
  if (name.rfind("conn.", 0) == 0) return "conn." + std::string(name.substr(after(5) + 1));
  if (name.rfind("path.", 0) == 0) {
    const size_t p = after(5) + 1;
    const size_t rest = after(p);
    return "path" + std::string(name.substr(p, rest - p)) + "." + std::string(name.substr(rest + 1));
  }
  return std::string(name);
}

[[nodiscard]] inline CounterMap ReadCounters(const Endpoint& ep, TimeNs now) {
  CounterMap out;
  ep.ForEachTelemetry([&](std::string_view name, uint64_t v) {
    const std::string s = ShortName(name);
    if (!IsGauge(s)) out[s] = v;
  }, now);
  return out;
}

// Counters that increased from `before` to `after`, by how much; a counter that decreased is a
// test failure (MROCE-TEL-002).
[[nodiscard]] inline Moved Diff(const CounterMap& before, const CounterMap& after) {
  Moved out;
  for (const auto& [name, v] : after) {
    const auto it = before.find(name);
    const uint64_t was = it == before.end() ? 0 : it->second;
    if (v < was) ADD_FAILURE() << name << " decreased from " << was << " to " << v;
    if (v > was) out[name] = v - was;
  }
  return out;
}

class ScriptedPeer : public FrameSink {
 public:
  explicit ScriptedPeer(EndpointConfig cfg = OnePathConfig()) {
    cfg.mac = kEndpointMac;
    cfg.ip = kEndpointIp;
    ep_ = std::make_unique<Endpoint>(cfg, this);
    timer_.emplace(&sim_, ep_.get());
    region_.assign(64 * 1024, 0);
    auto mr = ep_->RegisterMemory(region_.data(), region_.size(), kAccessRemoteWrite | kAccessRemoteRead);
    EXPECT_TRUE(mr.ok());
    mr_ = mr.value();
  }

  ScriptedPeer(const ScriptedPeer&) = delete;
  ScriptedPeer& operator=(const ScriptedPeer&) = delete;

  Endpoint& ep() { return *ep_; }
  [[nodiscard]] const Endpoint& ep() const { return *ep_; }
  [[nodiscard]] ConnId conn() const { return conn_; }
  [[nodiscard]] const Connection& c() const { return *ep_->connection(conn_); }
  [[nodiscard]] const Path& path(int p) const { return c().paths()[p]; }
  [[nodiscard]] TimeNs now() const { return sim_.Now().nanos(); }
  sim::Simulator& sim() { return sim_; }
  // A region of the endpoint (64 KiB, remote read and write) that WRITEs from the peer target.
  [[nodiscard]] const MemoryRegion& region() const { return mr_; }
  [[nodiscard]] const std::vector<uint8_t>& region_bytes() const { return region_; }

  // The endpoint connects; the peer answers CONNECT_ACK accepting every requested parameter with
  // CMH max_rate `max_rate_mbps` (0: unspecified, the sender starts unlimited, 10.4).
  void Establish(uint32_t max_rate_mbps = 0) {
    PeerAddress peer;
    peer.mac = kPeerMac;
    peer.ip = kPeerIp;
    auto id = timer_->Call([&](Endpoint& ep) { return ep.Connect(peer, {}, now()); });
    ASSERT_TRUE(id.ok()) << id.error().message;
    conn_ = id.value();
    std::vector<Emitted> out = Take();
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].op(), wire::Opcode::kConnectReq);
    const wire::ConnMgmtHeader& req = *out[0].meta().cmh();
    wire::ConnMgmtHeader ack;
    ack.ver_min = ack.ver_max = 1;
    ack.num_paths = req.num_paths;
    ack.num_planes = req.num_planes;
    ack.mtu = req.mtu;
    ack.max_streams = req.max_streams;
    ack.src_conn_id = kPeerConn;
    ack.max_rate = max_rate_mbps;
    ack.nonce = req.nonce;
    wire::MetaPacket pkt;
    pkt.ch.opcode = wire::Opcode::kConnectAck;
    pkt.ch.dst_conn_id = conn_;
    pkt.ext = ack;
    Deliver(FromPeer(std::move(pkt)));
    bool up = false;
    for (const ConnEvent& e : ep_->PollEvents()) up |= e.kind == ConnEventKind::kEstablished;
    ASSERT_TRUE(up) << "CONNECT_ACK did not establish the connection";
    ASSERT_TRUE(Take().empty()) << "the endpoint sent something on establishment";
  }

  // --- frames in -------------------------------------------------------------------------------
  void Deliver(const wire::Frame& f) {
    const std::vector<uint8_t> bytes = wire::SerializeFrame(f);
    timer_->Call([&](Endpoint& ep) { ep.OnFrame(bytes, 0, now()); });
  }
  // Runs the endpoint's timers for `d` ns / until `t` (the clock then stands there).
  void RunFor(TimeNs d) { RunUntil(now() + d); }
  void RunUntil(TimeNs t) {
    EXPECT_GE(t, now()) << "RunUntil into the past: the clock never goes back";
    timer_->Rearm();  // the test may have called into the endpoint directly (verbs)
    sim_.RunUntilTime(sim::Time::FromNanos(std::max(t, now())));
  }
  // Calls `fn(endpoint)` now (a verb) and re-arms the endpoint's timer.
  template <typename Fn>
  decltype(auto) Call(Fn&& fn) {
    return timer_->Call(std::forward<Fn>(fn));
  }

  // --- frames out ------------------------------------------------------------------------------
  [[nodiscard]] const std::vector<Emitted>& out() const { return out_; }
  // Frames emitted since the previous Take.
  std::vector<Emitted> Take() {
    std::vector<Emitted> r(out_.begin() + static_cast<std::ptrdiff_t>(taken_), out_.end());
    taken_ = out_.size();
    return r;
  }
  static std::vector<Emitted> Only(const std::vector<Emitted>& frames, wire::Opcode op) {
    std::vector<Emitted> r;
    for (const Emitted& e : frames) {
      if (e.op() == op) r.push_back(e);
    }
    return r;
  }

  // --- counters --------------------------------------------------------------------------------
  [[nodiscard]] CounterMap Counters() const { return ReadCounters(*ep_, now()); }
  [[nodiscard]] Moved MovedSince(const CounterMap& before) const { return Diff(before, Counters()); }

  // --- builders (peer -> endpoint) -------------------------------------------------------------
  // A 4-byte WRITE of msn `msn` on stream 0 into the region (64 bytes per msn), PSN `psn`.
  [[nodiscard]] DataArgs Write(Psn psn, Msn msn) const {
    DataArgs d;
    d.psn = psn;
    d.msn = msn;
    d.rkey = mr_.rkey;
    d.va = mr_.va + uint64_t{msn % 1024} * 64;
    d.payload = {static_cast<uint8_t>(msn + 1), 0xA5, 0x5A, static_cast<uint8_t>(psn)};
    return d;
  }

  [[nodiscard]] wire::Frame Data(const DataArgs& d) const {
    wire::MetaPacket pkt;
    pkt.ch.opcode = d.op;
    pkt.ch.dst_conn_id = conn_;
    pkt.ch.path_id = d.path;
    pkt.ch.path_epoch = d.epoch;
    pkt.ch.psn = d.psn;
    const uint32_t len = d.msg_len.value_or(d.offset + static_cast<uint32_t>(d.payload.size()));
    pkt.ch.Set(wire::kFlagFirst, d.offset == 0);
    pkt.ch.Set(wire::kFlagLast, d.op == wire::Opcode::kReadReq || d.offset + d.payload.size() == len);
    pkt.ch.Set(wire::kFlagAr, d.ar);
    pkt.ch.Set(wire::kFlagRtx, d.rtx);
    wire::MessageExt meh;
    meh.stream_id = d.stream;
    meh.msn = d.msn;
    meh.msg_len = len;
    meh.msg_offset = d.offset;
    meh.recv_seq = d.recv_seq;
    meh.rkey = d.rkey;
    meh.va = d.va;
    pkt.ext = meh;
    pkt.payload = d.payload;
    return FromPeer(std::move(pkt), d.path, d.ce);
  }

  [[nodiscard]] wire::Frame Ack(const AckArgs& a) const {
    wire::MetaPacket pkt;
    pkt.ch.opcode = wire::Opcode::kAck;
    pkt.ch.dst_conn_id = conn_;
    pkt.ch.path_id = a.path;
    pkt.ch.path_epoch = a.epoch;
    pkt.ch.Set(wire::kFlagEce, a.ece);
    pkt.ch.Set(wire::kFlagTrtx, a.trtx);
    wire::AckHeader h;
    h.epsn = a.epsn;
    Psn highest = a.epsn - 1;
    for (Psn psn : a.sacked) {
      const int bit = static_cast<int>(psn - a.epsn - 1);
      EXPECT_TRUE(bit >= 0 && bit < 256) << "PSN " << psn << " not in the SACK range of epsn " << a.epsn;
      h.SetSackBit(bit);
      if (PsnGt(psn, highest)) highest = psn;
    }
    h.trigger_psn = a.trigger.value_or(highest);
    h.rate_hint = a.rate_hint;
    h.ce_count = a.ce_count;
    h.ack_delay = a.ack_delay;
    pkt.ext = h;
    return FromPeer(std::move(pkt), a.path);
  }

  [[nodiscard]] wire::Frame Nack(const NackArgs& n) const {
    wire::MetaPacket pkt;
    pkt.ch.opcode = wire::Opcode::kNack;
    pkt.ch.dst_conn_id = n.dst_conn != 0 ? n.dst_conn : conn_;
    pkt.ch.path_id = n.path;
    pkt.ch.path_epoch = n.epoch;
    wire::NackHeader h;
    h.code = n.code;
    h.psn = n.psn;
    h.stream_id = n.stream;
    h.msn = n.msn;
    h.info = n.info;
    pkt.ext = h;
    return FromPeer(std::move(pkt), n.path);
  }

  [[nodiscard]] wire::Frame Probe(uint8_t path, uint8_t epoch, Psn psn, uint32_t seq, uint64_t tx_time) const {
    return ProbeFrame(wire::Opcode::kProbe, path, epoch, psn, seq, tx_time);
  }
  [[nodiscard]] wire::Frame ProbeAck(uint8_t path, uint8_t epoch, uint32_t seq, uint64_t tx_time) const {
    return ProbeFrame(wire::Opcode::kProbeAck, path, epoch, 0, seq, tx_time);
  }

  // FrameSink: the endpoint's output.
  void Send(std::span<const uint8_t> frame, uint8_t plane) override {
    auto f = wire::ParseFrame(frame);
    if (!f.ok() || f->meta() == nullptr) {
      ADD_FAILURE() << "the endpoint emitted a frame that does not parse as MetaRoCE"
                    << (f.ok() ? std::string() : ": " + f.error().ToString());
      return;
    }
    out_.push_back(Emitted{now(), plane, std::move(f).value()});
  }

 private:
  [[nodiscard]] wire::Frame FromPeer(wire::MetaPacket pkt, uint8_t path = 0, bool ce = false) const {
    wire::Frame f;
    f.eth.src = kPeerMac;
    f.eth.dst = kEndpointMac;
    wire::Ipv4Header ip;
    ip.src = kPeerIp;
    ip.dst = kEndpointIp;
    if (ce) ip.ecn = wire::kEcnCe;
    f.ip = ip;
    f.udp.sport = static_cast<uint16_t>(wire::kEntropyPortMin + 100 + path);
    f.udp.dport = wire::kMetaUdpPort;
    f.l4 = std::move(pkt);
    return f;
  }
  [[nodiscard]] wire::Frame ProbeFrame(wire::Opcode op, uint8_t path, uint8_t epoch, Psn psn, uint32_t seq,
                                       uint64_t tx_time) const {
    wire::MetaPacket pkt;
    pkt.ch.opcode = op;
    pkt.ch.dst_conn_id = conn_;
    pkt.ch.path_id = path;
    pkt.ch.path_epoch = epoch;
    pkt.ch.psn = psn;
    wire::ProbeHeader h;
    h.probe_seq = seq;
    h.tx_time = tx_time;
    pkt.ext = h;
    return FromPeer(std::move(pkt), path);
  }

  sim::Simulator sim_;  // first: outlives the timer
  std::unique_ptr<Endpoint> ep_;
  std::optional<sim::DeadlineTimer<Endpoint>> timer_;
  std::vector<uint8_t> region_;
  MemoryRegion mr_{};
  ConnId conn_ = 0;
  std::vector<Emitted> out_;
  size_t taken_ = 0;
};

}  // namespace mroce::ref::testing_peer
