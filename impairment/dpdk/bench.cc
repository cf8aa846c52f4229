#include "mroce/impairment/dpdk/bench.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstring>
#include <regex>
#include <sstream>

#include "mroce/impairment/dpdk/bridge.h"
#include "mroce/impairment/dpdk/eal.h"
#include "mroce/impairment/dpdk/profile.h"
#include "mroce/wire/wire.h"

namespace mroce::impairment::dpdk {
namespace {

// A MetaRoCE WRITE frame with a 16-byte payload (the codec's serialisation).
std::vector<uint8_t> BenchFrame() {
  wire::Frame f;
  f.eth.src = {0x02, 0, 0, 0, 0, 1};
  f.eth.dst = {0x02, 0, 0, 0, 0, 2};
  f.eth.ethertype = wire::kEtherTypeIpv4;
  wire::Ipv4Header ip;
  ip.src = {10, 0, 0, 1};
  ip.dst = {10, 0, 0, 2};
  ip.ecn = wire::kEcnEct0;
  f.ip = ip;
  f.udp.sport = 49152;
  f.udp.dport = wire::kMetaUdpPort;
  wire::MetaPacket m;
  m.ch.opcode = wire::Opcode::kWrite;
  m.ch.dst_conn_id = 7;
  m.ext = wire::DefaultExtFor(wire::Opcode::kWrite);
  if (auto* meh = m.meh()) meh->msg_len = 16;
  m.payload.assign(16, 0xab);
  f.l4 = m;
  return wire::SerializeFrame(f);
}

// Sends `n` copies of `frame` on `port`; returns how many the port took.
unsigned Inject(uint16_t port, rte_mempool* pool, const std::vector<uint8_t>& frame, unsigned n) {
  unsigned done = 0;
  rte_mbuf* m[64];
  while (done < n) {
    const unsigned k = std::min(64u, n - done);
    if (rte_pktmbuf_alloc_bulk(pool, m, k) != 0) break;
    for (unsigned i = 0; i < k; ++i) {
      char* d = rte_pktmbuf_append(m[i], static_cast<uint16_t>(frame.size()));
      std::memcpy(d, frame.data(), frame.size());
    }
    const uint16_t sent = rte_eth_tx_burst(port, 0, m, static_cast<uint16_t>(k));
    if (sent < k) rte_pktmbuf_free_bulk(m + sent, k - sent);
    done += sent;
    if (sent < k) break;
  }
  return done;
}

void DrainPort(uint16_t port) {
  rte_mbuf* m[64];
  for (int idle = 0; idle < 4;) {
    const uint16_t n = rte_eth_rx_burst(port, 0, m, 64);
    if (n == 0) ++idle;
    else rte_pktmbuf_free_bulk(m, n);
  }
}

BenchRow RunOne(const std::string& name, const std::string& description, const ImpairmentProfile* profile,
                bool force_packet_path, bool inspect_headers, unsigned frames, const BenchOptions& o, rte_mempool* pool,
                uint16_t p0, uint16_t p1) {
  BenchRow row;
  row.name = name;
  row.description = description;
  row.frames = frames;
  sim::Simulator sim;
  Bridge::Options bo;
  bo.port0 = p0;
  bo.port1 = p1;
  bo.pool = pool;
  bo.burst = o.burst;
  bo.force_packet_path = force_packet_path;
  bo.inspect_headers = inspect_headers;
  Bridge bridge(&sim, bo);
  if (profile != nullptr) {
    for (Direction d : {Direction::kDutToPeer, Direction::kPeerToDut}) AddProfileStages(*profile, d, o.seed, &bridge.pipeline(d));
  }
  const std::vector<uint8_t> frame = BenchFrame();
  row.injected = Inject(p0, pool, frame, frames);
  TscClock clock;
  const int64_t warm_ns = static_cast<int64_t>(o.warmup * 1e9);
  const int64_t end_ns = warm_ns + static_cast<int64_t>(o.seconds * 1e9);
  uint64_t tx_at_start = 0;
  int64_t t_start = 0;
  bool measuring = false;
  int64_t now = 0;
  auto lost = [&]() {
    const auto& a = bridge.direction_counters(Direction::kDutToPeer);
    const auto& b = bridge.direction_counters(Direction::kPeerToDut);
    return static_cast<int64_t>(a.dropped + b.dropped + bridge.port_counters(0).tx_dropped +
                                bridge.port_counters(1).tx_dropped) -
           static_cast<int64_t>(a.duplicates + b.duplicates);
  };
  for (;;) {
    now = clock.NowNs();
    bridge.Poll(now);
    const int64_t in_flight = static_cast<int64_t>(row.injected) - lost();
    if (in_flight < static_cast<int64_t>(frames)) {
      row.injected += Inject(p0, pool, frame, static_cast<unsigned>(frames - in_flight));
    }
    if (!measuring && now >= warm_ns) {
      measuring = true;
      t_start = now;
      tx_at_start = bridge.port_counters(0).tx + bridge.port_counters(1).tx;
    }
    if (now >= end_ns) break;
  }
  row.packets = bridge.port_counters(0).tx + bridge.port_counters(1).tx - tx_at_start;
  row.seconds = static_cast<double>(now - t_start) * 1e-9;
  row.mpps = row.seconds > 0 ? static_cast<double>(row.packets) / row.seconds / 1e6 : 0;
  for (Direction d : {Direction::kDutToPeer, Direction::kPeerToDut}) {
    for (const StageStats& s : bridge.pipeline(d).Stats()) row.stage_stats.push_back(s.ToString());
  }
  // Stop circulating: drain the pipelines into the rings, then empty the rings.
  const int64_t drain_start = clock.NowNs();
  for (;;) {
    const int64_t t = clock.NowNs();
    sim.RunUntilTime(Time::FromNanos(std::max(t, sim.Now().nanos())));
    DrainPort(p0);
    DrainPort(p1);
    if (sim.NextEventTime().IsInfinite() || t - drain_start > 200'000'000) break;
  }
  return row;
}

}  // namespace

size_t BenchFrameSize() { return BenchFrame().size(); }

ImpairmentProfile BenchAllStagesProfile() {
  ImpairmentProfile prof;
  auto add = [&](const char* kind, std::vector<std::pair<std::string_view, ParamScalar>> params) {
    auto c = MakeStageConfig(kind, kind, {}, std::move(params));
    assert(c.ok() && "the bench's profile is valid");
    prof.impairments.push_back(std::move(c).value());
  };
  add("loss.bernoulli", {{"rate", 0.01}});
  add("duplicate", {{"probability", 0.01}});
  add("delay", {{"base", DurationSpec::Nanoseconds(2'000)}});
  add("reorder", {{"k", 3}, {"probability", 0.01}, {"max_hold", DurationSpec::Nanoseconds(100'000)}});
  return prof;
}

Result<std::vector<BenchRow>> RunBridgeBench(const BenchOptions& o, rte_mempool* pool) {
  auto opened0 = OpenPort("net_ring_mb0", pool);
  if (!opened0.ok()) return opened0.error();
  auto opened1 = OpenPort("net_ring_mb1", pool);
  if (!opened1.ok()) {
    ClosePort(*opened0);
    return opened1.error();
  }
  const uint16_t p0 = *opened0, p1 = *opened1;
  std::vector<BenchRow> rows;
  const ImpairmentProfile all = BenchAllStagesProfile();
  const unsigned tx_first_frames = 2u * o.burst;  // testpmd --tx-first's loop: one burst per port.
  // Row order is part of the interface (BenchRow comment): compared rows first.
  rows.push_back(RunOne("stages off",
                         "empty profile; every frame's Ethernet/IP/UDP/MetaRoCE headers parsed from the mbuf "
                         "(the PacketInfo stages match on), then forwarded",
                         nullptr, false, true, tx_first_frames, o, pool, p0, p1));
  rows.push_back(RunOne("stages off (Packet path)",
                         "empty pipelines, but every frame converted to a Packet and back", nullptr, true, false,
                         tx_first_frames, o, pool, p0, p1));
  rows.push_back(RunOne("all stages on",
                         "loss.bernoulli 1%, duplicate 1%, delay 2us, reorder k=3 p=1% (per direction)", &all, false,
                         false, o.population, o, pool, p0, p1));
  rows.push_back(RunOne("pointer forwarding (not compared)",
                         "empty profile, mbuf pointers moved between the rings, frame data never read: "
                         "no per-frame work comparable to macswap",
                         nullptr, false, false, tx_first_frames, o, pool, p0, p1));
  ClosePort(p0);
  ClosePort(p1);
  return rows;
}

std::vector<double> ParseTestpmdTxPps(const std::string& output) {
  static const std::regex kPort(R"(NIC statistics for port\s+(\d+))");
  static const std::regex kPps(R"(Tx-pps:\s+(\d+))");
  std::vector<double> samples;
  std::istringstream in(output);
  std::string line;
  int port = -1, last_port = -1, ports_in_group = 0, max_ports = 0;
  double sum = 0;
  std::vector<std::pair<double, int>> groups;  // (sum, ports)
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kPort)) {
      port = std::stoi(m[1]);
      if (port <= last_port && ports_in_group > 0) {
        groups.emplace_back(sum, ports_in_group);
        sum = 0;
        ports_in_group = 0;
      }
      last_port = port;
    } else if (port >= 0 && std::regex_search(line, m, kPps)) {
      sum += std::stod(m[1]);
      ++ports_in_group;
      max_ports = std::max(max_ports, ports_in_group);
      port = -1;
    }
  }
  if (ports_in_group > 0) groups.emplace_back(sum, ports_in_group);
  for (const auto& [s, n] : groups) {
    if (n == max_ports) samples.push_back(s);
  }
  return samples;
}

unsigned TestpmdBurstsFor(const BenchOptions& o) {
  const unsigned per_round = 2u * std::max<unsigned>(o.burst, 1);
  return std::max(1u, (o.population + per_round / 2) / per_round);
}

TestpmdResult RunTestpmd(const BenchOptions& o, unsigned tx_first_bursts) {
  TestpmdResult r;
  if (o.testpmd.empty()) {
    r.note = "not run (disabled)";
    return r;
  }
  if (access(o.testpmd.c_str(), X_OK) != 0) {
    r.note = "not run: " + o.testpmd + " is not an executable (apt-get install dpdk)";
    return r;
  }
  // Classic (tx_first_bursts 0): --tx-first, one burst per port, statistics every second.
  // Otherwise interactive: `start tx_first N` sends N bursts per port, and the statistics come
  // from a `show port stats all` every second (each one's Tx-pps covers the time since the last).
  const bool interactive = tx_first_bursts > 0;
  r.frames = 2u * o.burst * (interactive ? tx_first_bursts : 1u);
  const std::string prefix = "mroce-testpmd-" + std::to_string(getpid()) + (interactive ? "-i" : "");
  std::vector<std::string> args = {o.testpmd, "-l", o.testpmd_lcores, "--no-huge", "--no-pci", "-m", "512",
                                   "--file-prefix", prefix, "--vdev", "net_ring0", "--vdev", "net_ring1",
                                   "--log-level", "*:error", "--", "--forward-mode=macswap"};
  if (interactive) {
    args.push_back("-i");
  } else {
    args.insert(args.end(), {"--tx-first", "--stats-period", "1"});
  }
  args.insert(args.end(), {"--total-num-mbufs=16384", "--burst=" + std::to_string(o.burst)});
  for (const std::string& a : args) r.command += (r.command.empty() ? "" : " ") + a;
  if (interactive) r.command += " (stdin: start tx_first " + std::to_string(tx_first_bursts) + "; show port stats all, every second)";
  int out_pipe[2];
  int in_pipe[2];
  if (pipe(out_pipe) != 0) {
    r.note = "not run: pipe failed";
    return r;
  }
  if (pipe(in_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    r.note = "not run: pipe failed";
    return r;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], in_pipe[0], in_pipe[1]}) close(fd);
    r.note = "not run: fork failed";
    return r;
  }
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    if (interactive) {
      dup2(in_pipe[0], 0);
    } else {
      const int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, 0);
    }
    for (int fd : {out_pipe[0], out_pipe[1], in_pipe[0], in_pipe[1]}) close(fd);
    setpgid(0, 0);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(in_pipe[0]);
  signal(SIGPIPE, SIG_IGN);  // testpmd may exit before reading what we write.
  auto say = [&](const std::string& line) {
    if (!interactive) return;
    const ssize_t n = write(in_pipe[1], line.data(), line.size());
    (void)n;
  };
  std::string output;
  const auto start = std::chrono::steady_clock::now();
  // Long enough for EAL start plus the warm-up sample plus `seconds` samples.
  const auto limit = std::chrono::milliseconds(static_cast<int64_t>((o.seconds + 4.0) * 1000));
  say("start tx_first " + std::to_string(tx_first_bursts) + "\n");
  auto next_show = start + std::chrono::milliseconds(1000);
  bool eof = false;
  // A slow EAL start (a loaded host) can leave the limit with only the first sample, which has no
  // earlier one to compare with (0): wait up to 10 s more for a second one.
  const auto hard_limit = limit + std::chrono::seconds(10);
  auto want_more = [&] {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    return elapsed < limit || (elapsed < hard_limit && ParseTestpmdTxPps(output).size() < 2);
  };
  while (!eof && want_more()) {
    pollfd p{out_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char buf[4096];
      const ssize_t n = read(out_pipe[0], buf, sizeof(buf));
      if (n <= 0) eof = true;
      else output.append(buf, static_cast<size_t>(n));
    }
    if (interactive && std::chrono::steady_clock::now() >= next_show) {
      say("show port stats all\n");
      next_show += std::chrono::milliseconds(1000);
    }
  }
  say("stop\nquit\n");
  if (!interactive) kill(pid, SIGINT);
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 50 && !exited; ++i) {  // Up to 5 s to shut down cleanly.
    pollfd p{out_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char buf[4096];
      const ssize_t n = read(out_pipe[0], buf, sizeof(buf));
      if (n > 0) output.append(buf, static_cast<size_t>(n));
    }
    exited = waitpid(pid, &status, WNOHANG) == pid;
    if (!exited && interactive && i == 20) kill(pid, SIGINT);
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  close(out_pipe[0]);
  close(in_pipe[1]);
  r.samples = ParseTestpmdTxPps(output);
  // The first sample includes start-up (classic) or has no earlier one to compare with
  // (interactive: 0); use the rest (or the only one there is).
  std::vector<double> use(r.samples.size() > 1 ? r.samples.begin() + 1 : r.samples.begin(), r.samples.end());
  use.erase(std::remove_if(use.begin(), use.end(), [](double v) { return v <= 0; }), use.end());
  if (use.empty()) {
    std::string tail = output.size() > 600 ? output.substr(output.size() - 600) : output;
    r.note = "testpmd gave no Tx-pps figure (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
             "); last output: " + tail;
    return r;
  }
  std::sort(use.begin(), use.end());
  const double med = use[use.size() / 2];
  r.ran = true;
  r.mpps = med / 1e6;
  r.note = "median of " + std::to_string(use.size()) + " one-second samples (sum of both ports' Tx-pps)";
  return r;
}

}  // namespace mroce::impairment::dpdk
