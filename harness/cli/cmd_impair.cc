// `mroce-cts impair`: live impairment between two DPDK ports (a bump in the wire), the same stage
// code and statistics as the simulated fabric, driven by mbuf bursts (impairment/dpdk).
//
//   mroce-cts impair --eal "..." --port0 PORT --port1 PORT --profile FILE.yaml [--seed N]
//                    [--stats-interval 1s] [--duration T] [--burst N]
//   mroce-cts impair --bench [--quick] [--json FILE] [--eal "..."] [--testpmd PATH|none]
//
// Frames received on port0 travel dut->peer and leave on port1; frames received on port1 travel
// peer->dut and leave on port0. Live counters every --stats-interval; SIGINT/SIGTERM stop the loop,
// drain the pipelines, print the final statistics, close the ports and exit 0.
// Exit 2 on bad flags, profiles, EAL arguments or ports; 3 when built without DPDK.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "command.h"
#include "mroce/session/stall_log.h"
#include "mroce/harness/expectations.h"

#ifdef MROCE_HAVE_DPDK
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "mroce/impairment/dpdk/bench.h"
#include "mroce/impairment/dpdk/bridge.h"
#include "mroce/impairment/dpdk/eal.h"
#include "mroce/impairment/dpdk/profile.h"
#include "mroce/impairment/quantity.h"
#endif

namespace mroce::cli {
namespace {

#ifdef MROCE_HAVE_DPDK
volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

std::string Fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof(b), f, v);
  return b;
}
#endif

class ImpairCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    sub.add_option("--eal", eal_, "DPDK EAL arguments, one string (default: --no-huge --no-pci -m 512)");
    sub.add_option("--port0", port0_, "DUT-side port (vdev spec such as net_ring0 or net_af_packet0,iface=veth0, or a "
                                      "PCI address): frames received here travel dut->peer and leave on port1");
    sub.add_option("--port1", port1_, "Peer-side port: frames received here travel peer->dut and leave on port0");
    sub.add_option("--profile", profile_, "Impairment profile (YAML: impairments: [...] as in a case, optional rtt:)");
    sub.add_option("--seed", seed_, "Seed of the stages' random draws")->capture_default_str();
    sub.add_option("--stats-interval", interval_, "Print live counters this often (e.g. 1s, 500ms; 0 = never)")
        ->capture_default_str();
    sub.add_option("--duration", duration_, "Stop after this long (e.g. 10s; default: until SIGINT/SIGTERM)");
    sub.add_option("--burst", burst_, "RX burst size (1..256)")->capture_default_str();
    sub.add_option("--idle-sleep", idle_sleep_,
                   "After 64 polls that found no frame, sleep up to this long (never past a stage's next "
                   "release) instead of spinning, e.g. 50us; 0 = busy-poll (default). For hosts that share "
                   "the bridge's core; each idle period adds up to this much latency to its first frame")
        ->capture_default_str();
    sub.add_option("--stall-log", stall_log_,
                   "Append each gap longer than 1 ms (plus --idle-sleep) in which the bridge did not poll its ports "
                   "(its host kept it off the CPU) to this file, for `mroce-cts run --stall-log`: a case during "
                   "which the bridge stalled is rerun and then inconclusive, not failed");
    sub.add_option("--pool-size", pool_size_, "mbufs in the pool")->capture_default_str();
    sub.add_option("--mbuf-size", mbuf_size_, "Bytes of frame data per mbuf (0 = DPDK's default, 2048; e.g. 9216 for jumbo frames, "
                   "as net_af_packet with framesz=8192 needs)")->capture_default_str();
    sub.add_flag("--bench", bench_, "Measure Mpps on a net_ring loop (stages off / all on) beside dpdk-testpmd");
    sub.add_flag("--quick", quick_, "--bench: short runs (smoke test; figures are not the published ones)");
    sub.add_option("--json", json_, "--bench: write the figures as JSON to FILE");
    sub.add_option("--testpmd", testpmd_, "--bench: dpdk-testpmd binary, or 'none' to skip it")->capture_default_str();
    sub.add_option("--testpmd-lcores", testpmd_lcores_, "--bench: testpmd's -l (main + forwarding lcore)")
        ->capture_default_str();
    sub.add_option("--bench-seconds", bench_seconds_, "--bench: measured seconds per configuration")
        ->capture_default_str();
  }

#ifndef MROCE_HAVE_DPDK
  int Run(std::ostream& out, std::ostream& err) override {
    err << "mroce-cts: error: 'impair' was not built: DPDK (libdpdk, found through pkg-config) was not available "
           "when mroce-cts was configured, or MROCE_DPDK=OFF. Install libdpdk-dev and reconfigure with -DMROCE_DPDK=ON.\n";
    return harness::kExitHarnessError;
  }
#else
  int Run(std::ostream& out, std::ostream& err) override {
    auto usage = [&](const std::string& msg) {
      err << "mroce-cts impair: error: " << msg << "\n";
      return harness::kExitUsage;
    };
    if (burst_ < 1 || burst_ > impairment::dpdk::Bridge::kMaxBurst) return usage("--burst must be in 1..256");
    if (pool_size_ < 1024) return usage("--pool-size must be at least 1024");
    if (mbuf_size_ != 0 && (mbuf_size_ < 128 || mbuf_size_ > 65000)) return usage("--mbuf-size must be 0 or 128..65000");
    if (bench_) {
      if (!port0_.empty() || !port1_.empty() || !profile_.empty()) {
        return usage("--bench makes its own net_ring ports and profile: do not give --port0/--port1/--profile");
      }
      if (bench_seconds_ <= 0) return usage("--bench-seconds must be positive");
    } else {
      if (quick_ || !json_.empty()) return usage("--quick and --json go with --bench");
      if (port0_.empty()) return usage("--port0 is required (e.g. --port0 net_ring0)");
      if (port1_.empty()) return usage("--port1 is required (e.g. --port1 net_ring1)");
      if (port0_ == port1_) return usage("--port0 and --port1 must be different ports");
      if (profile_.empty()) return usage("--profile is required (a YAML file with impairments: [...])");
    }
    int64_t interval_ns = 0, duration_ns = 0;
    if (!ParseTime(interval_, "--stats-interval", &interval_ns, err)) return harness::kExitUsage;
    if (!duration_.empty() && !ParseTime(duration_, "--duration", &duration_ns, err)) return harness::kExitUsage;
    if (!duration_.empty() && duration_ns <= 0) return usage("--duration must be positive");
    int64_t idle_sleep_ns = 0;
    if (!ParseTime(idle_sleep_, "--idle-sleep", &idle_sleep_ns, err)) return harness::kExitUsage;
    if (idle_sleep_ns < 0 || idle_sleep_ns > 100'000'000) return usage("--idle-sleep must be in 0..100ms");
    if (bench_ && idle_sleep_ns > 0) return usage("--idle-sleep does not go with --bench (it measures a busy loop)");

    impairment::dpdk::ImpairmentProfile profile;
    if (!bench_) {
      // Every parameter is checked here, so that a bad profile is a usage error before the EAL starts.
      auto loaded = impairment::dpdk::LoadProfile(profile_);
      if (!loaded.ok()) {
        err << "mroce-cts impair: error: bad profile:\n" << loaded.error().message << "\n";
        return harness::kExitUsage;
      }
      profile = std::move(loaded).value();
    }

    std::vector<std::string> eal = impairment::dpdk::SplitArgs(eal_.empty() ? "--no-huge --no-pci -m 512" : eal_);
    bool has_prefix = false;
    for (const std::string& a : eal) has_prefix = has_prefix || a.rfind("--file-prefix", 0) == 0 || a == "--in-memory";
    if (!has_prefix) {
      eal.push_back("--file-prefix");
      eal.push_back("mroce-impair-" + std::to_string(getpid()));
    }
    if (const Status up = impairment::dpdk::InitEal("mroce-cts", eal); !up.ok()) return usage(up.error().message);
    auto made = impairment::dpdk::CreatePool("mroce_impair", pool_size_, mbuf_size_);
    if (!made.ok()) {
      impairment::dpdk::CleanupEal();
      return usage(made.error().message);
    }
    rte_mempool* pool = *made;
    int rc = bench_ ? RunBench(pool, out, err) : RunBridge(profile, pool, interval_ns, duration_ns, idle_sleep_ns, out, err);
    rte_mempool_free(pool);
    impairment::dpdk::CleanupEal();
    return rc;
  }

 private:
  static bool ParseTime(const std::string& text, const char* flag, int64_t* ns, std::ostream& err) {
    auto d = impairment::ParseDuration(text);
    if (!d.ok()) {
      err << "mroce-cts impair: error: " << flag << ": " << d.error().message << "\n";
      return false;
    }
    if (d->unit == impairment::DurationSpec::Unit::kRtt && d->value != 0) {
      err << "mroce-cts impair: error: " << flag << ": needs a time unit (e.g. 1s, 500ms), got '" << text << "'\n";
      return false;
    }
    *ns = d->ToNanoseconds(0);
    return true;
  }

  void PrintStats(std::ostream& out, const impairment::dpdk::Bridge& b, const uint16_t ports[2],
                  const std::string names[2], int64_t now_ns, const char* tag) {
    out << "[" << Fmt("%9.3f", static_cast<double>(now_ns) * 1e-9) << "s] " << tag << "\n";
    for (int i = 0; i < 2; ++i) {
      const auto& c = b.port_counters(i);
      rte_eth_stats st{};
      const bool have = rte_eth_stats_get(ports[i], &st) == 0;
      out << "  port" << i << " " << names[i] << ": rx " << c.rx << " tx " << c.tx << " tx-drops " << c.tx_dropped;
      if (have) out << " nic-missed " << (st.imissed + st.rx_nombuf) << " nic-errors " << (st.ierrors + st.oerrors);
      out << "\n";
    }
    for (auto d : {impairment::Direction::kDutToPeer, impairment::Direction::kPeerToDut}) {
      const auto& c = b.direction_counters(d);
      out << "  " << impairment::DirectionName(d) << ": in " << c.in << " out " << c.out << " dropped " << c.dropped
          << " duplicates " << c.duplicates << " rewritten " << c.rewritten << " in-pipeline " << b.parked(d) << "\n";
      for (const auto& s : b.pipeline(d).Stats()) out << "    " << s.ToString() << "\n";
    }
    out.flush();
  }

  int RunBridge(const impairment::dpdk::ImpairmentProfile& profile, rte_mempool* pool, int64_t interval_ns, int64_t duration_ns,
                int64_t idle_sleep_ns, std::ostream& out, std::ostream& err) {
    namespace dp = impairment::dpdk;
    auto port0 = dp::OpenPort(port0_, pool);
    if (!port0.ok()) {
      err << "mroce-cts impair: error: --port0: " << port0.error().message << "\n";
      return harness::kExitUsage;
    }
    auto port1 = dp::OpenPort(port1_, pool);
    if (!port1.ok()) {
      dp::ClosePort(*port0);
      err << "mroce-cts impair: error: --port1: " << port1.error().message << "\n";
      return harness::kExitUsage;
    }
    uint16_t ports[2] = {*port0, *port1};
    const std::string names[2] = {dp::PortName(ports[0]), dp::PortName(ports[1])};
    sim::Simulator sim;
    dp::Bridge::Options bo;
    bo.port0 = ports[0];
    bo.port1 = ports[1];
    bo.pool = pool;
    bo.burst = static_cast<uint16_t>(burst_);
    dp::Bridge bridge(&sim, bo);
    for (auto d : {impairment::Direction::kDutToPeer, impairment::Direction::kPeerToDut}) {
      dp::AddProfileStages(profile, d, seed_, &bridge.pipeline(d));
    }
    out << "mroce-cts impair: port0 " << names[0] << " (dut side) <-> port1 " << names[1] << " (peer side); profile "
        << profile_ << " (" << profile.impairments.size() << " item(s)), seed " << seed_ << "\n"
        << "  port0 -> port1: dut->peer, " << bridge.pipeline(impairment::Direction::kDutToPeer).stages().size()
        << " stage(s); port1 -> port0: peer->dut, "
        << bridge.pipeline(impairment::Direction::kPeerToDut).stages().size() << " stage(s)\n";
    out.flush();
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int {}, old_term {};
    g_stop = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    constexpr int kIdlePollsBeforeSleep = 64;
    session::StallLogWriter stalls(stall_log_);
    if (!stalls.ok()) {
      err << "mroce-cts impair: error: --stall-log " << stalls.error() << "\n";
      return harness::kExitUsage;
    }
    const int64_t stall_threshold_ns = 1'000'000 + idle_sleep_ns;
    // The pipelines' simulated time follows the wall clock (the TSC, from 0 at the start).
    dp::TscClock tsc;
    sim::WallClockDriver clock({.wall = [&tsc] { return tsc.NowNs(); },
                                .idle_sleep_ns = idle_sleep_ns,
                                .idle_services_before_sleep = kIdlePollsBeforeSleep});
    clock.Start(sim::Time::Zero());
    int64_t next_stats = interval_ns > 0 ? interval_ns : INT64_MAX;
    int64_t now = 0;
    const char* why = "interrupted";
    if (idle_sleep_ns > 0) out << "  idle: sleeps up to " << idle_sleep_ << " after " << kIdlePollsBeforeSleep << " empty polls\n";
    out.flush();
    while (!g_stop) {
      // Polls the ports until the pipelines' next event is due (Poll runs the events due by the
      // time it is given); frames that arrive may have scheduled a sooner one, and the statistics,
      // the duration and a signal need this loop: those end the wait at once.
      now = clock.WaitUntil(sim.NextEventTime(), [&](sim::Time t) {
        stalls.Serviced(session::MonotonicNs(), stall_threshold_ns);
        const size_t got = bridge.Poll(t.nanos());
        const bool loop = got > 0 || g_stop || t.nanos() >= next_stats || (duration_ns > 0 && t.nanos() >= duration_ns);
        return loop ? sim::WallClockDriver::Service::kReturn : sim::WallClockDriver::Service::kIdle;
      }).nanos();
      if (now >= next_stats) {
        PrintStats(out, bridge, ports, names, now, "live");
        next_stats += interval_ns;
        if (next_stats <= now) next_stats = now + interval_ns;
      }
      if (duration_ns > 0 && now >= duration_ns) {
        why = "duration reached";
        break;
      }
    }
    const size_t left = bridge.Drain(clock, sim::Duration::Millis(100));
    now = clock.Now().nanos();
    PrintStats(out, bridge, ports, names, now, (std::string("final (") + why + ")").c_str());
    if (idle_sleep_ns > 0) out << "  idle sleeps: " << clock.naps() << "\n";
    if (!stall_log_.empty()) out << "  stalls logged: " << stalls.noted() << " (" << stall_log_ << ")\n";
    if (left > 0) out << "  " << left << " packet(s) still held by stages after a 100 ms drain were discarded\n";
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    dp::ClosePort(ports[0]);
    dp::ClosePort(ports[1]);
    out << "mroce-cts impair: ports closed, exit 0\n";
    return harness::kExitOk;
  }

  int RunBench(rte_mempool* pool, std::ostream& out, std::ostream& err) {
    namespace dp = impairment::dpdk;
    dp::BenchOptions o;
    o.seconds = quick_ ? 0.5 : bench_seconds_;
    o.warmup = quick_ ? 0.1 : 0.3;
    o.burst = static_cast<uint16_t>(burst_);
    o.seed = seed_;
    o.testpmd = testpmd_ == "none" ? "" : testpmd_;
    o.testpmd_lcores = testpmd_lcores_;
    std::vector<dp::BenchRow> rows;
    std::string e;
    const unsigned tx_first_frames = 2u * o.burst;
    out << "mroce-cts impair --bench: net_ring loop (2 loopback ring ports, frames circulate port0 -> port1 -> port0), "
        << "1 core, burst " << o.burst << ", frames of " << dp::BenchFrameSize() << " B in flight: " << tx_first_frames
        << " without stages (testpmd --tx-first's loop), " << o.population << " with all stages on; " << o.seconds
        << " s per configuration" << (quick_ ? " (--quick: smoke test)" : "") << "\n";
    out.flush();
    auto ran = dp::RunBridgeBench(o, pool);
    if (!ran.ok()) {
      err << "mroce-cts impair: error: bench: " << ran.error().message << "\n";
      return harness::kExitHarnessError;
    }
    rows = std::move(*ran);
    for (const auto& r : rows) {
      out << "  " << r.name << ": " << Fmt("%.2f", r.mpps) << " Mpps (" << r.frames << " frames circulating; "
          << r.packets << " frames in " << Fmt("%.2f", r.seconds) << " s; " << r.description << ")\n";
      for (const auto& s : r.stage_stats) out << "      " << s << "\n";
    }
    out.flush();
    // testpmd twice: as it usually runs (--tx-first: one burst per port, the loop of our rows without
    // stages) and with as many frames as the all-stages loop (interactive start tx_first N). Each of
    // our rows is compared with the run whose loop has its number of frames: that alone changes a
    // forwarder's rate (the frames' cache lines and pages).
    const unsigned bursts = dp::TestpmdBurstsFor(o);
    const dp::TestpmdResult usual = dp::RunTestpmd(o, 0);
    const dp::TestpmdResult big = dp::RunTestpmd(o, bursts);
    nlohmann::ordered_json j;
    j["command"] = std::string("mroce-cts impair --bench") + (quick_ ? " --quick" : "");
    j["setup"] = {{"loop", "2 net_ring loopback ports"}, {"burst", o.burst}, {"population", o.population},
                  {"population_without_stages", tx_first_frames}, {"frame_bytes", dp::BenchFrameSize()},
                  {"seconds", o.seconds}, {"cores", 1}};
    j["ours"] = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      j["ours"].push_back({{"name", r.name}, {"description", r.description}, {"frames", r.frames}, {"mpps", r.mpps},
                           {"packets", r.packets}, {"seconds", r.seconds}, {"stage_stats", r.stage_stats}});
    }
    auto testpmd_json = [](const dp::TestpmdResult& t) {
      nlohmann::ordered_json tj = {{"ran", t.ran}, {"frames", t.frames}, {"command", t.command}, {"note", t.note},
                                   {"samples_pps", t.samples}};
      if (t.ran) tj["mpps"] = t.mpps;
      return tj;
    };
    j["testpmd_tx_first"] = testpmd_json(usual);
    j["testpmd_same_frames_as_all_stages"] = testpmd_json(big);
    auto describe = [&](const dp::TestpmdResult& t, const std::string& what) {
      if (!t.ran) {
        out << "  dpdk-testpmd, " << what << ": " << t.note << "\n";
        return;
      }
      out << "  dpdk-testpmd macswap, " << what << ": " << Fmt("%.2f", t.mpps) << " Mpps (" << t.frames
          << " frames circulating; " << t.note << ")\n    " << t.command << "\n";
    };
    describe(usual, "--tx-first");
    describe(big, "start tx_first " + std::to_string(bursts) + " (as many frames as the all-stages loop)");
    // The testpmd run with a row's number of frames (nullptr: none ran).
    auto baseline = [&](const dp::BenchRow& r) -> const dp::TestpmdResult* {
      for (const dp::TestpmdResult* t : {&usual, &big})
        if (t->ran && t->frames == r.frames) return t;
      return nullptr;
    };
    struct Compared {
      const char* key;
      const char* label;
      double goal;  // 0: none.
    };
    const Compared compared[4] = {{"stages_off", "stages off (headers parsed)", 0.8},
                                  {"stages_off_packet_path", "stages off (Packet path)", 0},
                                  {"all_stages_on", "all stages on", 0.5},
                                  {"pointer_forwarding_not_compared", "pointer forwarding", 0}};
    nlohmann::ordered_json ratios = nlohmann::ordered_json::object(), other = nlohmann::ordered_json::object();
    for (size_t i = 0; i < rows.size() && i < 4; ++i) {
      const dp::TestpmdResult* t = baseline(rows[i]);
      if (t == nullptr) {
        out << "  ratio " << compared[i].label << ": none (testpmd with " << rows[i].frames << " frames did not run)\n";
        continue;
      }
      const double ratio = rows[i].mpps / t->mpps;
      ratios[compared[i].key] = ratio;
      out << "  ratio " << compared[i].label << " / testpmd, both " << rows[i].frames << " frames: " << Fmt("%.2f", ratio);
      if (compared[i].goal > 0) {
        out << " (goal >= " << Fmt("%.1f", compared[i].goal) << ": " << (ratio >= compared[i].goal ? "met" : "MISSED") << ")";
      } else if (i == 3) {
        out << " (not compared with a goal: no frame is read)";
      }
      out << "\n";
      // For reference: against the other testpmd loop.
      const dp::TestpmdResult* o2 = t == &usual ? &big : &usual;
      if (o2->ran) other[compared[i].key] = {{"testpmd_frames", o2->frames}, {"ratio", rows[i].mpps / o2->mpps}};
    }
    j["ratios"] = ratios;
    j["ratios_against_the_other_testpmd_loop"] = other;
    if (!other.empty()) {
      out << "  for reference, against the testpmd loop of the other size:";
      bool first = true;
      for (const auto& [key, v] : other.items()) {
        out << (first ? " " : ", ") << key << " " << Fmt("%.2f", v["ratio"].get<double>()) << " ("
            << v["testpmd_frames"].get<unsigned>() << " frames)";
        first = false;
      }
      out << "\n";
    }
    if (!json_.empty()) {
      std::ofstream f(json_);
      f << j.dump(2) << "\n";
      if (!f) {
        err << "mroce-cts impair: error: cannot write " << json_ << "\n";
        return harness::kExitHarnessError;
      }
    }
    return harness::kExitOk;
  }
#endif

  std::string eal_, port0_, port1_, profile_, duration_, json_;
  std::string interval_ = "1s";
  std::string idle_sleep_ = "0";
  std::string stall_log_;
  uint64_t seed_ = 1;
  int burst_ = 32;
  unsigned pool_size_ = 16383;
  unsigned mbuf_size_ = 0;
  bool bench_ = false, quick_ = false;
  std::string testpmd_ = "/usr/bin/dpdk-testpmd";
  std::string testpmd_lcores_ = "0,1";
  double bench_seconds_ = 3.0;
};

}  // namespace

std::unique_ptr<Command> MakeImpairCommand() { return std::make_unique<ImpairCommand>(); }

}  // namespace mroce::cli
