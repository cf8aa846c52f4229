// `mroce-cts impair --bench`: forwarding rate of the bridge on one core over a net_ring loop, with
// stages off and with loss + duplicate + delay + reorder on, beside dpdk-testpmd (macswap) on the
// same net_ring setup run as a subprocess: with as many frames circulating as our loop (what the
// goals compare with) and as it usually runs (--tx-first: one burst per port).
//
// The loop: two net_ring ports (each a loopback: what is sent on it is received on it). A fixed
// population of MetaRoCE frames is injected into port 0; the bridge forwards port 0 -> port 1
// (dut->peer) and port 1 -> port 0 (peer->dut), so frames circulate. Frames the stages drop are
// replaced (and duplicates counted) so the population stays constant. The figure is frames
// transmitted by both ports per second of the loop core, the same quantity as the sum of
// testpmd's per-port Tx-pps.
//
// Each row is compared with testpmd running a loop of the same size, since the number of frames
// circulating alone changes a forwarder's rate (their cache lines and pages): the rows without
// stages circulate 2 x burst frames, exactly testpmd --tx-first's loop (one burst per port); the
// all-stages row needs `population` (its 2 us delay holds ~130 frames at ~65 Mpps) and is compared
// with testpmd given as many (interactive `start tx_first N`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mroce/impairment/dpdk/profile.h"

struct rte_mempool;

namespace mroce::impairment::dpdk {

struct BenchOptions {
  double seconds = 3.0;          // Measured time per configuration.
  double warmup = 0.3;           // Not measured.
  uint16_t burst = 32;
  unsigned population = 512;     // Frames circulating in the all-stages loop (the others: 2 x burst).
  uint64_t seed = 1;
  std::string testpmd = "/usr/bin/dpdk-testpmd";  // Empty: do not run it.
  std::string testpmd_lcores = "0,1";             // Main lcore + one forwarding lcore.
};

struct BenchRow {
  // Rows, in this order: "stages off" (headers parsed, compared with the 0.8x goal), "stages off
  // (Packet path)", "all stages on" (compared with the 0.5x goal), "pointer forwarding (not
  // compared)" (mbufs moved untouched; no per-frame work).
  std::string name;
  std::string description;
  double mpps = 0;
  uint64_t packets = 0;     // Frames transmitted in the measured window.
  double seconds = 0;
  unsigned frames = 0;      // Frames circulating in this row's loop.
  uint64_t injected = 0;    // Frames injected (population + replacements).
  std::vector<std::string> stage_stats;  // StageStats::ToString of every stage.
};

struct TestpmdResult {
  bool ran = false;         // It started and gave at least one usable sample.
  unsigned frames = 0;      // Frames circulating in its loop (2 ports x bursts x burst size).
  double mpps = 0;          // Median of the sums of per-port Tx-pps after the first sample.
  std::vector<double> samples;
  std::string command;
  std::string note;         // Why it did not run / how the figure was read.
};

// Bytes of the frame the bench circulates (a MetaRoCE WRITE with a 16-byte payload).
[[nodiscard]] size_t BenchFrameSize();
// The "all stages on" profile of the bench.
[[nodiscard]] ImpairmentProfile BenchAllStagesProfile();

// Runs the four configurations (EAL must be up); an error when a port cannot be made.
[[nodiscard]] Result<std::vector<BenchRow>> RunBridgeBench(const BenchOptions& options, rte_mempool* pool);
// Runs dpdk-testpmd (macswap on the same two net_ring ports) for about options.seconds + 2 s and
// reads its rate. tx_first_bursts 0: `--tx-first` as usual (one burst per port: 2 x burst frames
// circulate); N > 0: interactive `start tx_first N` (N bursts per port), e.g. so that as many
// frames circulate as in the bridge's loop (TestpmdBurstsFor).
[[nodiscard]] TestpmdResult RunTestpmd(const BenchOptions& options, unsigned tx_first_bursts = 0);
// The tx_first bursts per port that put options.population frames (the all-stages loop's) in
// testpmd's loop (rounded to whole bursts, at least 1).
[[nodiscard]] unsigned TestpmdBurstsFor(const BenchOptions& options);
// Parses testpmd's periodic "NIC statistics for port N" blocks: one sample per period = the sum of
// the ports' Tx-pps. Returns the samples in order.
[[nodiscard]] std::vector<double> ParseTestpmdTxPps(const std::string& output);

}  // namespace mroce::impairment::dpdk
