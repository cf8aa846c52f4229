// Bridge: the impairment pipelines driven by DPDK mbuf bursts (a bump in the wire between two
// ports). Frames received on port 0 travel dut->peer and leave on port 1; frames received on port 1
// travel peer->dut and leave on port 0.
//
// Each Poll() advances the Simulator to the time it is given (sim.RunUntilTime; mroce-cts impair
// gives the wall clock's, through sim::WallClockDriver), so delayed/held packets come due, then
// receives one burst per port, turns each mbuf into one of the
// pipeline's reused Packets (Pipeline::NewPacket; the mbuf rides along in Packet::opaque) and
// pushes the burst into that direction's Pipeline (Pipeline::PushBurst: the very stage code the
// simulated fabric runs, one stage at a time over the burst). The mbuf is not read on receipt: a
// packet's bytes are found in it when a stage first reads them (FrameBytes::Defer; then they
// borrow the mbuf's data, so a stage's CE mark or flipped bit lands in the mbuf; a multi-segment
// frame is copied and written back), so a frame that stages only count, drop, hold, delay or pass
// on is never touched. Whatever the pipeline outputs is transmitted as bursts: an original packet
// leaves in its own mbuf; a duplicate gets a fresh mbuf from the pool. Dropped packets' mbufs are
// freed in bulk. The pipelines use batched parking (Pipeline::set_batch_parking: same decisions,
// one simulator event per delayed burst instead of per packet) and keep no fate log
// (Pipeline::set_fate_log: nothing reads a live packet's notes). A direction with no stages
// forwards its mbufs untouched (no Packet at all) unless Options::force_packet_path (with
// Options::inspect_headers it reads every frame's headers first).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mroce/impairment/pipeline.h"
#include "mroce/sim/simulator.h"
#include "mroce/sim/wall_clock_driver.h"

struct rte_mbuf;
struct rte_mempool;

namespace mroce::impairment::dpdk {

struct PortCounters {
  uint64_t rx = 0;          // Frames received from the port.
  uint64_t tx = 0;          // Frames the port accepted for transmission.
  uint64_t tx_dropped = 0;  // Frames the port did not accept (TX queue full) or no mbuf for a copy.
};

struct DirectionCounters {
  uint64_t in = 0;          // Frames pushed into the pipeline (or forwarded, without stages).
  uint64_t out = 0;         // Frames out of the pipeline (duplicates included).
  uint64_t dropped = 0;     // Frames a stage dropped.
  uint64_t duplicates = 0;  // Output frames that are duplicates (sent in a fresh mbuf).
  uint64_t rewritten = 0;   // Output original frames whose bytes a stage changed (in the mbuf, or written back to it).
  uint64_t inspected_meta = 0;  // Options::inspect_headers: forwarded frames whose headers parsed as MetaRoCE.
};

class Bridge {
 public:
  static constexpr uint16_t kMaxBurst = 256;
  struct Options {
    uint16_t port0 = 0;             // dut side: its frames travel dut->peer.
    uint16_t port1 = 1;             // peer side: its frames travel peer->dut.
    rte_mempool* pool = nullptr;    // For duplicates' copies.
    uint16_t burst = 32;            // RX burst size (<= kMaxBurst).
    bool force_packet_path = false; // Convert to Packets even when a direction has no stages.
    // A direction with no stages still locates and reads every frame's Ethernet/IP/UDP/MetaRoCE
    // headers in the mbuf (wire::FrameView: the fields stages match on) before forwarding it, and
    // counts the MetaRoCE ones (DirectionCounters::inspected_meta). Without it (and without
    // force_packet_path) such a direction only moves mbuf pointers.
    bool inspect_headers = false;
  };

  // `sim` is the clock the pipelines run on; time 0 is the start of the run.
  Bridge(sim::Simulator* sim, const Options& options);
  ~Bridge();
  Bridge(const Bridge&) = delete;
  Bridge& operator=(const Bridge&) = delete;

  // Pipeline of a direction (add stages before the first Poll).
  [[nodiscard]] Pipeline& pipeline(Direction d) { return *pipelines_[static_cast<int>(d)]; }
  [[nodiscard]] const Pipeline& pipeline(Direction d) const { return *pipelines_[static_cast<int>(d)]; }

  // One poll-loop iteration at wall time `now_ns` (ns since the start): runs the events due by
  // then, receives one burst from each port, pushes it through the pipelines, transmits the
  // output. Returns the number of frames received.
  size_t Poll(int64_t now_ns);
  // After the loop stopped (no more receiving): runs the pipelines' pending events as the wall
  // clock reaches them (`clock`: the driver the loop ran on) and transmits their output until
  // nothing is parked or `max_wait` passed. Returns the number of packets still inside the
  // pipelines (0 when fully drained).
  size_t Drain(sim::WallClockDriver& clock, sim::Duration max_wait);

  [[nodiscard]] const PortCounters& port_counters(int index) const { return ports_[index]; }
  [[nodiscard]] const DirectionCounters& direction_counters(Direction d) const { return dirs_[static_cast<int>(d)]; }
  // Packets inside a direction's pipeline (parked in delay slots).
  [[nodiscard]] size_t parked(Direction d) const { return pipeline(d).parked(); }

 private:
  void Input(int port_index, rte_mbuf** pkts, uint16_t n);
  // Queues a pipeline's output for transmission.
  void OnOutput(int dir, Packet* const* pkts, size_t n);
  // The mbuf to transmit for a packet that is not an unedited original (a duplicate, an edited
  // frame); nullptr (counted as a TX drop) when the pool is out of mbufs.
  rte_mbuf* OutputMbuf(int dir, const Packet& p);
  void OnDrop(int dir, Packet&& p);
  void FlushTx(int dir);
  void FlushFree();

  sim::Simulator* sim_;
  Options opt_;
  uint16_t tx_port_[2];
  std::array<std::unique_ptr<Pipeline>, 2> pipelines_;
  std::array<PortCounters, 2> ports_{};
  std::array<DirectionCounters, 2> dirs_{};
  // TX staging per direction and mbufs to free in bulk.
  std::array<std::array<rte_mbuf*, kMaxBurst>, 2> tx_buf_{};
  std::array<uint16_t, 2> tx_n_{};
  std::array<rte_mbuf*, kMaxBurst> free_buf_{};
  uint16_t free_n_ = 0;
  uint64_t next_id_ = 1;
};

}  // namespace mroce::impairment::dpdk
