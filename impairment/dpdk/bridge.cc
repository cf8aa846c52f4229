#include "mroce/impairment/dpdk/bridge.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <cstring>
#include <span>

namespace mroce::impairment::dpdk {
namespace {

constexpr uint16_t kPrefetchAhead = 4;  // Received mbufs prefetched ahead of the one being read.

// Prefetch in two steps ahead of frame i: the mbuf kPrefetchAhead frames on (to find its data), the
// data two frames on. Called with i = 0 it also prefetches the first mbufs.
inline void PrefetchAhead(rte_mbuf* const* pkts, uint16_t n, uint16_t i) {
  if (i == 0) {
    for (uint16_t k = 0; k < n && k < kPrefetchAhead; ++k) rte_prefetch0(pkts[k]);
  }
  if (i + kPrefetchAhead < n) rte_prefetch0(pkts[i + kPrefetchAhead]);
  if (i + 2 < n) rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 2], void*));
}

// Points `bytes` at the frame in `m` (a single segment: no copy; stages edit it in place) or
// copies a multi-segment frame into its own buffer.
inline void TakeFrame(rte_mbuf* m, FrameBytes* bytes) {
  if (m->nb_segs == 1) {
    bytes->Borrow(rte_pktmbuf_mtod(m, uint8_t*), m->data_len);
    return;
  }
  bytes->resize(m->pkt_len);
  const void* p = rte_pktmbuf_read(m, 0, m->pkt_len, bytes->data());
  if (p != bytes->data()) std::memcpy(bytes->data(), p, m->pkt_len);
}

// FrameBytes::Resolver of a packet's frame: TakeFrame on the mbuf, at the first access.
void ResolveMbufFrame(void* handle, FrameBytes* bytes) { TakeFrame(static_cast<rte_mbuf*>(handle), bytes); }

// A fresh single-segment mbuf holding `bytes`; nullptr when the pool is empty or it does not fit.
inline rte_mbuf* NewMbuf(rte_mempool* pool, std::span<const uint8_t> bytes) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return nullptr;
  char* dst = rte_pktmbuf_append(m, static_cast<uint16_t>(bytes.size()));
  if (dst == nullptr || bytes.size() > UINT16_MAX) {
    rte_pktmbuf_free(m);
    return nullptr;
  }
  std::memcpy(dst, bytes.data(), bytes.size());
  return m;
}

}  // namespace

Bridge::Bridge(sim::Simulator* sim, const Options& options) : sim_(sim), opt_(options) {
  opt_.burst = std::clamp<uint16_t>(opt_.burst, 1, kMaxBurst);
  tx_port_[0] = opt_.port1;  // dut->peer leaves on the peer side.
  tx_port_[1] = opt_.port0;
  for (int d = 0; d < 2; ++d) {
    pipelines_[d] = std::make_unique<Pipeline>(sim_, DirectionName(static_cast<Direction>(d)));
    pipelines_[d]->set_batch_parking(true);  // A burst parked by a delay stage: one event.
    pipelines_[d]->set_fate_log(false);      // Nothing reads a live packet's fate log.
    pipelines_[d]->set_burst_output([this, d](Packet* const* pkts, size_t n, Time) {
      OnOutput(d, pkts, n);
    });
    pipelines_[d]->set_drop_observer([this, d](Packet&& p, const Stage&, Time) { OnDrop(d, std::move(p)); });
  }
}

Bridge::~Bridge() {
  FlushTx(0);
  FlushTx(1);
  FlushFree();
}

void Bridge::FlushTx(int dir) {
  uint16_t n = tx_n_[dir];
  if (n == 0) return;
  const uint16_t sent = rte_eth_tx_burst(tx_port_[dir], 0, tx_buf_[dir].data(), n);
  PortCounters& pc = ports_[dir == 0 ? 1 : 0];
  pc.tx += sent;
  if (sent < n) {
    pc.tx_dropped += n - sent;
    rte_pktmbuf_free_bulk(tx_buf_[dir].data() + sent, n - sent);
  }
  tx_n_[dir] = 0;
}

void Bridge::FlushFree() {
  if (free_n_ == 0) return;
  rte_pktmbuf_free_bulk(free_buf_.data(), free_n_);
  free_n_ = 0;
}

void Bridge::OnOutput(int dir, Packet* const* pkts, size_t n) {
  DirectionCounters& dc = dirs_[dir];
  dc.out += n;
  std::array<rte_mbuf*, kMaxBurst>& tx = tx_buf_[dir];
  uint16_t tx_n = tx_n_[dir];  // In a register across the loop (written back before each flush).
  for (size_t i = 0; i < n; ++i) {
    const Packet& p = *pkts[i];
    rte_mbuf* m = static_cast<rte_mbuf*>(p.opaque);
    if (p.is_duplicate || m == nullptr || p.corrupted || p.ce_marked) m = OutputMbuf(dir, p);
    if (m == nullptr) continue;  // No mbuf for a copy (counted).
    tx[tx_n++] = m;
    if (tx_n == kMaxBurst) {
      tx_n_[dir] = tx_n;
      FlushTx(dir);
      tx_n = 0;
    }
  }
  tx_n_[dir] = tx_n;
}

rte_mbuf* Bridge::OutputMbuf(int dir, const Packet& p) {
  DirectionCounters& dc = dirs_[dir];
  rte_mbuf* m = nullptr;
  if (!p.is_duplicate && p.opaque != nullptr) {
    m = static_cast<rte_mbuf*>(p.opaque);
    ++dc.rewritten;  // Called for an original only when a stage edited it.
    if (!p.bytes.borrowed()) {
      // A stage edited a copy (a multi-segment frame): write it back. (Borrowed bytes were
      // edited in the mbuf itself.)
      if (m->nb_segs == 1 && m->data_len == p.bytes.size()) {
        std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), p.bytes.data(), p.bytes.size());
      } else {
        rte_pktmbuf_free(m);
        m = NewMbuf(opt_.pool, p.bytes);
      }
    }
  } else {
    ++dc.duplicates;
    m = NewMbuf(opt_.pool, p.bytes);
  }
  if (m == nullptr) ++ports_[dir == 0 ? 1 : 0].tx_dropped;
  return m;
}

void Bridge::OnDrop(int dir, Packet&& p) {
  ++dirs_[dir].dropped;
  if (!p.is_duplicate && p.opaque != nullptr) {
    free_buf_[free_n_++] = static_cast<rte_mbuf*>(p.opaque);
    if (free_n_ == kMaxBurst) FlushFree();
  }
}

void Bridge::Input(int port_index, rte_mbuf** pkts, uint16_t n) {
  const int dir = port_index;  // Port 0 -> dut->peer (0); port 1 -> peer->dut (1).
  ports_[port_index].rx += n;
  DirectionCounters& dc = dirs_[dir];
  dc.in += n;
  Pipeline& pl = *pipelines_[dir];
  if (pl.empty() && !opt_.force_packet_path) {
    // No stages: forward the mbufs as they are.
    dc.out += n;
    if (opt_.inspect_headers) {
      uint64_t meta = 0;
      for (uint16_t i = 0; i < n; ++i) {
        PrefetchAhead(pkts, n, i);
        const rte_mbuf* m = pkts[i];
        // The same parse a Packet gets (Packet::Info), straight from the mbuf's first segment.
        PacketInfo info;
        ParsePacketInfo(std::span<const uint8_t>(rte_pktmbuf_mtod(m, const uint8_t*), m->data_len), &info);
        meta += info.meta ? 1 : 0;
      }
      dc.inspected_meta += meta;
    }
    uint16_t i = 0;
    while (i < n) {
      const uint16_t room = static_cast<uint16_t>(kMaxBurst - tx_n_[dir]);
      const uint16_t k = std::min<uint16_t>(room, static_cast<uint16_t>(n - i));
      std::memcpy(tx_buf_[dir].data() + tx_n_[dir], pkts + i, k * sizeof(rte_mbuf*));
      tx_n_[dir] = static_cast<uint16_t>(tx_n_[dir] + k);
      i = static_cast<uint16_t>(i + k);
      if (tx_n_[dir] == kMaxBurst) FlushTx(dir);
    }
    return;
  }
  const Time now = sim_->Now();
  const auto direction = static_cast<Direction>(dir);
  Packet* burst[kMaxBurst];
  const uint16_t src_host = dir == 0 ? 0 : 1;
  const uint16_t dst_host = dir == 0 ? 1 : 0;
  // The mbufs are not read here: a packet's bytes are found in its mbuf when a stage first reads
  // them (FrameBytes::Defer), so frames that stages only count, drop, hold or pass on (and the
  // mbufs' cache lines) are never touched; an untouched original leaves in its own mbuf.
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    if (const Packet* next = pl.UpcomingPacket(kPrefetchAhead)) {  // Its first two lines get written.
      rte_prefetch0_write(next);
      rte_prefetch0_write(reinterpret_cast<const char*>(next) + 64);
    }
    // The pipeline's own object (its byte buffer keeps its capacity).
    Packet* p = pl.NewPacket(next_id_++, now, direction, src_host, dst_host, m);
    p->bytes.Defer(&ResolveMbufFrame, m);
    burst[i] = p;
  }
  pl.PushBurst(burst, n);  // Stage by stage over the whole burst (Pipeline's burst path).
}

size_t Bridge::Poll(int64_t now_ns) {
  if (now_ns > sim_->Now().nanos()) sim_->RunUntilTime(Time::FromNanos(now_ns));
  rte_mbuf* rx[kMaxBurst];
  size_t total = 0;
  const uint16_t rx_port[2] = {opt_.port0, opt_.port1};
  for (int i = 0; i < 2; ++i) {
    const uint16_t n = rte_eth_rx_burst(rx_port[i], 0, rx, opt_.burst);
    if (n == 0) continue;
    Input(i, rx, n);
    total += n;
  }
  FlushTx(0);
  FlushTx(1);
  FlushFree();
  return total;
}

size_t Bridge::Drain(sim::WallClockDriver& clock, sim::Duration max_wait) {
  const Time end = clock.Now() + max_wait;
  for (;;) {
    const Time t = clock.Now();
    if (t > sim_->Now()) sim_->RunUntilTime(t);
    FlushTx(0);
    FlushTx(1);
    FlushFree();
    const size_t left = parked(Direction::kDutToPeer) + parked(Direction::kPeerToDut);
    if (sim_->NextEventTime().IsInfinite() || t >= end) return left;
    // Nothing is received any more: only the next parked packet's release (or the end) matters.
    clock.WaitUntil(std::min(sim_->NextEventTime(), end), [](Time) { return sim::WallClockDriver::Service::kIdle; });
  }
}

}  // namespace mroce::impairment::dpdk
