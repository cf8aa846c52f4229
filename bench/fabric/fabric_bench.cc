// mroce-fabric-bench: floods the simulated fabric with all-to-all constant-rate UDP frames and
// prints simulated frame-hops per CPU second.
//
// Usage: mroce-fabric-bench [--hosts 16] [--planes 2] [--spines 4] [--hosts-per-leaf 4]
//                           [--load 0.4] [--payload 1024] [--duration-us 10000] [--seed 1]
// Each host sends, on every plane, frames round-robin to every other host at `load` x host rate,
// 16 UDP source ports per destination (ECMP entropy). The ns-3 twin is ns3_flood.cc.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "mroce/impairment/fabric.h"
#include "mroce/wire/wire.h"

namespace {

using mroce::impairment::Fabric;
using mroce::impairment::FabricConfig;
namespace sim = mroce::sim;
namespace wire = mroce::wire;

struct Options {
  int hosts = 16, planes = 2, spines = 4, hosts_per_leaf = 4;
  double load = 0.4;
  int payload = 1024;
  int64_t duration_us = 10000;
  uint64_t seed = 1;
};

std::vector<uint8_t> MakeFrame(int src, int dst, uint16_t sport, int payload) {
  wire::Frame f;
  f.eth.src = Fabric::HostMac(src);
  f.eth.dst = Fabric::HostMac(dst);
  wire::Ipv4Header ip;
  ip.src = Fabric::HostIpv4(src);
  ip.dst = Fabric::HostIpv4(dst);
  f.ip = ip;
  f.udp.sport = sport;
  f.udp.dport = 9;  // Plain UDP like the ns-3 twin (MetaRoCE framing is irrelevant to forwarding).
  f.l4 = wire::RawPayload{std::vector<uint8_t>(static_cast<size_t>(payload), 0x5a)};
  return wire::SerializeFrame(f);
}

// One constant-rate sender per (host, plane), driven by simulator events (no allocation).
class Sender : public sim::EventHandler {
 public:
  Sender(sim::Simulator* s, Fabric* fabric, int host, int plane, sim::Duration gap, sim::Time stop,
         const std::vector<std::vector<std::vector<uint8_t>>>* frames)
      : sim_(s), fabric_(fabric), host_(host), plane_(plane), gap_(gap), stop_(stop), frames_(frames) {}
  void Start(sim::Time at) { sim_->Schedule(at, this, 0); }
  void OnEvent(sim::Time now, uint64_t) override {
    const auto& per_dst = (*frames_)[static_cast<size_t>(host_)];
    const int n = static_cast<int>(per_dst.size());
    const auto& f = per_dst[static_cast<size_t>(next_ % n)];
    ++next_;
    fabric_->Send(host_, plane_, f);
    if (now + gap_ < stop_) sim_->Schedule(now + gap_, this, 0);
  }

 private:
  sim::Simulator* sim_;
  Fabric* fabric_;
  int host_, plane_;
  sim::Duration gap_;
  sim::Time stop_;
  const std::vector<std::vector<std::vector<uint8_t>>>* frames_;
  uint64_t next_ = 0;
};

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--hosts") o.hosts = std::atoi(v);
    else if (k == "--planes") o.planes = std::atoi(v);
    else if (k == "--spines") o.spines = std::atoi(v);
    else if (k == "--hosts-per-leaf") o.hosts_per_leaf = std::atoi(v);
    else if (k == "--load") o.load = std::atof(v);
    else if (k == "--payload") o.payload = std::atoi(v);
    else if (k == "--duration-us") o.duration_us = std::atoll(v);
    else if (k == "--seed") o.seed = std::strtoull(v, nullptr, 10);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  sim::Simulator s;
  FabricConfig cfg;
  cfg.num_hosts = o.hosts;
  cfg.num_planes = o.planes;
  cfg.num_spines = o.spines;
  cfg.hosts_per_leaf = o.hosts_per_leaf;
  cfg.seed = o.seed;
  Fabric fabric(&s, cfg);

  // frames[src] = one frame per (dst, sport) in round-robin order over destinations.
  std::vector<std::vector<std::vector<uint8_t>>> frames(static_cast<size_t>(o.hosts));
  for (int src = 0; src < o.hosts; ++src)
    for (int port = 0; port < 16; ++port)
      for (int dst = 0; dst < o.hosts; ++dst)
        if (dst != src) frames[static_cast<size_t>(src)].push_back(MakeFrame(src, dst, static_cast<uint16_t>(49152 + port), o.payload));
  const int64_t frame_bytes = static_cast<int64_t>(frames[0][0].size());
  const sim::Duration gap = sim::Duration::Nanos(static_cast<int64_t>(
      static_cast<double>(cfg.host_rate.TransferTime(frame_bytes + cfg.overhead_bytes).nanos()) / o.load));
  const sim::Time stop = sim::Time::Zero() + sim::Duration::Micros(o.duration_us);
  std::vector<std::unique_ptr<Sender>> senders;
  for (int h = 0; h < o.hosts; ++h)
    for (int p = 0; p < o.planes; ++p) {
      senders.push_back(std::make_unique<Sender>(&s, &fabric, h, p, gap, stop, &frames));
      // Stagger starts so hosts do not send in lockstep.
      senders.back()->Start(sim::Time::FromNanos((h * o.planes + p) * 37 % gap.nanos()));
    }
  const double c0 = CpuSeconds();
  s.RunUntilTime(stop + sim::Duration::Millis(1));
  const double cpu = CpuSeconds() - c0;
  const double hops = static_cast<double>(fabric.hops());
  std::printf("mroce-fabric-bench: hosts=%d planes=%d spines=%d leaves=%d load=%.2f frame=%lldB sim=%lldus\n", o.hosts,
              o.planes, o.spines, fabric.num_leaves(), o.load, static_cast<long long>(frame_bytes),
              static_cast<long long>(o.duration_us));
  std::printf("frames sent %llu delivered %llu dropped %llu, events %llu\n",
              static_cast<unsigned long long>(fabric.frames_sent()), static_cast<unsigned long long>(fabric.frames_delivered()),
              static_cast<unsigned long long>(fabric.frames_dropped()), static_cast<unsigned long long>(s.events_run()));
  std::printf("frame-hops %.0f cpu %.3f s\n", hops, cpu);
  std::printf("RESULT mroce frame_hops_per_cpu_second %.0f\n", cpu > 0 ? hops / cpu : 0.0);
  return 0;
}
