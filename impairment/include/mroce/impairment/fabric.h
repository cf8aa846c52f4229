// The simulated fabric: hosts with one NIC port per plane, a two-tier Clos per plane, ECMP on the
// 5-tuple, links with bandwidth and propagation delay, output queues with drop-tail and ECN.
//
//              plane p (one of P identical, independent planes)
//
//        spine 0     spine 1    ...   spine S-1        fabric links: fabric_rate, hop_delay
//          |  \  ____/   \  ____ ... /   |
//          |   \/         \/            |             leaf -> spine: ECMP, spine = CRC-32(5-tuple) mod S
//        leaf 0          leaf 1   ...  leaf L-1        (one leaf/ToR per group of hosts_per_leaf hosts)
//        / | \            / | \     (per-host NIC port per plane)
//      h0 h1 h2 h3      h4 h5 h6 h7                   host links: host_rate, hop_delay
//
// Every link direction has an output queue at its sending end (NIC egress, leaf up/down, spine down)
// with a byte capacity (drop-tail) and an ECN marker. A frame h_a -> h_b on plane p crosses
// NIC(a,p) -> leaf(a) [-> spine -> leaf(b)] -> h_b: 2 hops within a leaf, 4 across leaves.
// ECMP: spine = CRC-32 (IEEE 802.3, as zlib crc32, seeded with ecmp_seed as the initial CRC) over
// src addr | dst addr | IP protocol (1 B) | UDP sport (2 B, BE) | UDP dport (2 B, BE), mod S. Only
// the UDP source port varies between the paths of a connection, so it is the ECMP entropy.
//
// Impairment attach points (Pipelines, see pipeline.h): host egress (per host and plane, before the
// NIC queue), plane ingress (per plane, frames arriving at their first leaf), and per link (frames
// arriving at the far end of one link direction, before the next node forwards them).
//
// Hot path: packets live in a pool (no allocation per frame once warm); with ECN at enqueue (the
// default) a hop costs one simulator event: departure times of a FIFO queue are computed at enqueue.
#ifndef MROCE_IMPAIRMENT_FABRIC_H_
#define MROCE_IMPAIRMENT_FABRIC_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mroce/impairment/ecn.h"
#include "mroce/impairment/packet.h"
#include "mroce/impairment/pipeline.h"
#include "mroce/sim/simulator.h"

namespace mroce::impairment {

struct FabricConfig {
  int num_hosts = 16;
  int num_planes = 2;
  int hosts_per_leaf = 4;
  int num_spines = 4;
  sim::Bandwidth host_rate = sim::Bandwidth::Gbps(100);    // Host <-> leaf links.
  sim::Bandwidth fabric_rate = sim::Bandwidth::Gbps(400);  // Leaf <-> spine links.
  Duration hop_delay = Duration::Micros(1);                // Propagation per link.
  sim::ByteCount overhead_bytes = 24;                      // Preamble+SFD+IFG+FCS per frame.
  // Output queue capacity in bytes; 0 = default 32 MB per 100 Gb/s of port rate (shared-buffer
  // switch where one congested port may take most of the buffer): 32 MB host, 128 MB fabric ports.
  sim::ByteCount host_queue_bytes = 0;
  sim::ByteCount fabric_queue_bytes = 0;
  // ECN; default_ecn = true uses DCTCP step K = 30 KB per 10 Gb/s (300 KB at 100G, 1.2 MB at 400G).
  bool default_ecn = true;
  EcnConfig host_ecn;    // Used when default_ecn is false (NIC egress and leaf->host ports).
  EcnConfig fabric_ecn;  // Used when default_ecn is false (leaf->spine and spine->leaf ports).
  uint32_t ecmp_seed = 0;
  uint64_t seed = 1;     // Run seed for every random draw in the fabric.
  // Direction stamped on frames a host sends: host 0 is the DUT by default (kDutToPeer).
  std::vector<Direction> host_direction;
};

// Receives frames delivered to a host (the endpoint/DUT attaches here). `p.plane` is the NIC port.
using FrameSink = std::function<void(const Packet& p, Time now)>;

// Observers must not change fabric state; all methods default to no-ops.
class FabricObserver {
 public:
  virtual ~FabricObserver() = default;
  virtual void OnSend(int host, const Packet& p, Time now) {}
  virtual void OnDeliver(int host, const Packet& p, Time now) {}
  // `where`: the stage or queue that dropped it (also the last kDropped note in the fate log).
  virtual void OnDrop(const Packet& p, const char* where, Time now) {}
};

struct PortStats {
  std::string name;
  uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;
  uint64_t drops = 0;
  uint64_t marks = 0;
  sim::ByteCount max_queue_bytes = 0;
};

class Fabric : public sim::EventHandler {
 public:
  Fabric(sim::Simulator* sim, FabricConfig config);
  ~Fabric() override;

  [[nodiscard]] const FabricConfig& config() const { return config_; }
  [[nodiscard]] int num_leaves() const { return num_leaves_; }
  [[nodiscard]] int LeafOf(int host) const { return host / config_.hosts_per_leaf; }
  // Default addresses: host i is IPv4 10.0.(i+1)/256.(i+1)%256, MAC 02:00:00:00:(i+1)/256:(i+1)%256.
  [[nodiscard]] static std::array<uint8_t, 4> HostIpv4(int host);
  [[nodiscard]] static std::array<uint8_t, 6> HostMac(int host);
  // Routes frames whose IP destination is `addr` (4 or 16 bytes) to `host`.
  void AddAddress(int host, std::span<const uint8_t> addr);

  void SetSink(int host, FrameSink sink);
  void AddObserver(FabricObserver* obs) { observers_.push_back(obs); }
  // A frame leaves `host` on NIC port `plane` now. Returns the packet id (0 if not routable:
  // not IP/UDP or unknown destination; reported to observers as a drop by "fabric.route").
  uint64_t Send(int host, int plane, std::span<const uint8_t> frame);

  // Impairment attach points (created empty on first use).
  Pipeline& HostEgress(int host, int plane);
  Pipeline& PlaneIngress(int plane);
  Pipeline& Link(int port);
  // Port (= link direction) ids.
  [[nodiscard]] int HostUplinkPort(int host, int plane) const;
  [[nodiscard]] int LeafDownlinkPort(int host, int plane) const;
  [[nodiscard]] int LeafToSpinePort(int leaf, int spine, int plane) const;
  [[nodiscard]] int SpineToLeafPort(int spine, int leaf, int plane) const;
  [[nodiscard]] int num_ports() const;
  [[nodiscard]] PortStats GetPortStats(int port) const;
  [[nodiscard]] sim::ByteCount QueueBytes(int port, Time now);

  // ECMP hash of a frame's 5-tuple (see the header comment) and the spine it selects.
  [[nodiscard]] static uint32_t EcmpHash(std::span<const uint8_t> frame, uint32_t seed = 0);
  [[nodiscard]] int SpineFor(std::span<const uint8_t> frame) const;

  [[nodiscard]] uint64_t frames_sent() const { return frames_sent_; }
  [[nodiscard]] uint64_t frames_delivered() const { return frames_delivered_; }
  [[nodiscard]] uint64_t frames_dropped() const { return frames_dropped_; }
  // Frame-hops completed (a frame arriving at the far end of a link).
  [[nodiscard]] uint64_t hops() const { return hops_; }
  // Every pipeline's statistics, one line per stage.
  [[nodiscard]] std::string StatsString() const;

  void OnEvent(Time now, uint64_t arg) override;

 private:
  enum class NodeKind : uint8_t { kHost, kLeaf, kSpine };
  struct Port;
  uint32_t AllocPacket();
  void FreePacket(uint32_t idx);
  uint32_t Adopt(Packet&& p);
  void Enqueue(int port, uint32_t pkt, Time now);
  void Arrive(int port, uint32_t pkt, Time now);
  void AtNode(NodeKind kind, int index, int plane, uint32_t pkt, Time now);
  void Deliver(int host, uint32_t pkt, Time now);
  void DropPacket(uint32_t pkt, const char* where, Time now);
  void NotifyDrop(const Packet& p, const char* where, Time now);
  Pipeline* MakePipeline(const std::string& name, std::function<void(Packet&&, Time)> out);

  sim::Simulator* sim_;
  FabricConfig config_;
  int num_leaves_;
  std::vector<Port> ports_;
  std::vector<Packet> pool_;
  std::vector<uint32_t> free_;
  std::vector<FrameSink> sinks_;
  std::vector<FabricObserver*> observers_;
  std::unordered_map<uint64_t, int> addr_to_host_;
  std::vector<std::unique_ptr<Pipeline>> host_pipelines_;   // [host * planes + plane]
  std::vector<std::unique_ptr<Pipeline>> plane_pipelines_;  // [plane]
  std::vector<std::unique_ptr<Pipeline>> link_pipelines_;   // [port]
  uint64_t next_id_ = 1;
  uint64_t frames_sent_ = 0;
  uint64_t frames_delivered_ = 0;
  uint64_t frames_dropped_ = 0;
  uint64_t hops_ = 0;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_FABRIC_H_
