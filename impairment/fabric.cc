#include "mroce/impairment/fabric.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "mroce/wire/crc.h"
#include "mroce/wire/frame_view.h"

namespace mroce::impairment {

namespace {

// Growable power-of-two FIFO ring (no allocation once grown to the working size).
template <class T>
class Ring {
 public:
  [[nodiscard]] bool empty() const { return head_ == tail_; }
  [[nodiscard]] size_t size() const { return tail_ - head_; }
  T& front() { return buf_[head_ & mask_]; }
  void push_back(const T& v) {
    if (size() == buf_.size()) Grow();
    buf_[tail_++ & mask_] = v;
  }
  void pop_front() { ++head_; }

 private:
  void Grow() {
    const size_t n = buf_.empty() ? 16 : buf_.size() * 2;
    std::vector<T> nb(n);
    for (size_t i = 0; i < size(); ++i) nb[i] = buf_[(head_ + i) & mask_];
    tail_ = size();
    head_ = 0;
    buf_ = std::move(nb);
    mask_ = n - 1;
  }
  std::vector<T> buf_;
  size_t head_ = 0, tail_ = 0, mask_ = 0;
};

constexpr uint64_t kDequeueBit = uint64_t{1} << 40;

uint64_t AddrKey(std::span<const uint8_t> addr) {
  uint64_t h = 0xcbf29ce484222325ULL ^ addr.size();
  for (uint8_t b : addr) h = (h ^ b) * 0x100000001b3ULL;
  return h;
}

}  // namespace

struct Fabric::Port {
  std::string name;
  sim::Bandwidth rate;
  Duration prop;
  sim::ByteCount capacity = 0;
  sim::ByteCount overhead = 0;
  EcnMarker marker;
  bool dequeue_marking = false;
  NodeKind to_kind = NodeKind::kHost;
  int to_index = 0;
  int plane = 0;
  bool plane_ingress = false;  // Frames arriving over this port enter the plane (host uplink).
  Pipeline* link = nullptr;
  int64_t busy_until_ns = 0;
  struct Backlog {
    int64_t end_ns;
    int64_t bytes;
  };
  Ring<Backlog> backlog;  // Packets not yet fully serialised, FIFO.
  sim::ByteCount backlog_bytes = 0;
  Ring<uint32_t> flight;   // Packets queued, on the wire or propagating, in arrival order.
  Ring<uint32_t> pending_dequeue;  // Dequeue-marking mode: packets whose start event is pending.
  PortStats stats;

  void Expire(int64_t now_ns) {
    while (!backlog.empty() && backlog.front().end_ns <= now_ns) {
      backlog_bytes -= backlog.front().bytes;
      backlog.pop_front();
    }
  }
};

Fabric::Fabric(sim::Simulator* sim, FabricConfig config) : sim_(sim), config_(std::move(config)) {
  const int H = config_.num_hosts, P = config_.num_planes, S = config_.num_spines;
  assert(H > 0 && P > 0 && S > 0 && config_.hosts_per_leaf > 0);
  num_leaves_ = (H + config_.hosts_per_leaf - 1) / config_.hosts_per_leaf;
  const int L = num_leaves_;
  if (config_.host_direction.empty()) {
    config_.host_direction.assign(static_cast<size_t>(H), Direction::kPeerToDut);
    config_.host_direction[0] = Direction::kDutToPeer;  // Host 0 is the DUT unless told otherwise.
  }
  config_.host_direction.resize(static_cast<size_t>(H), Direction::kPeerToDut);
  sinks_.resize(static_cast<size_t>(H));
  host_pipelines_.resize(static_cast<size_t>(H * P));
  plane_pipelines_.resize(static_cast<size_t>(P));
  ports_.resize(static_cast<size_t>(P * (2 * H + 2 * L * S)));
  link_pipelines_.resize(ports_.size());

  auto setup = [&](int idx, std::string name, bool host_port, NodeKind to, int to_index, int plane) {
    Port& pt = ports_[static_cast<size_t>(idx)];
    pt.name = std::move(name);
    pt.stats.name = pt.name;
    pt.rate = host_port ? config_.host_rate : config_.fabric_rate;
    pt.prop = config_.hop_delay;
    sim::ByteCount cap = host_port ? config_.host_queue_bytes : config_.fabric_queue_bytes;
    pt.capacity = cap > 0 ? cap : pt.rate.ScaleFrom100G(32 * 1000 * 1000);
    pt.overhead = config_.overhead_bytes;
    EcnConfig ecn = config_.default_ecn ? EcnConfig::DefaultStepFor(pt.rate)
                                        : (host_port ? config_.host_ecn : config_.fabric_ecn);
    pt.marker = EcnMarker(ecn, sim::Rng(config_.seed, sim::ComponentId("ecn@" + pt.name)));
    pt.dequeue_marking = ecn.mode != EcnConfig::Mode::kOff && ecn.where == EcnConfig::Where::kDequeue;
    pt.to_kind = to;
    pt.to_index = to_index;
    pt.plane = plane;
  };
  for (int p = 0; p < P; ++p) {
    const std::string ps = "p" + std::to_string(p);
    for (int h = 0; h < H; ++h) {
      setup(HostUplinkPort(h, p), ps + ".h" + std::to_string(h) + "->leaf" + std::to_string(LeafOf(h)), true,
            NodeKind::kLeaf, LeafOf(h), p);
      ports_[static_cast<size_t>(HostUplinkPort(h, p))].plane_ingress = true;
      setup(LeafDownlinkPort(h, p), ps + ".leaf" + std::to_string(LeafOf(h)) + "->h" + std::to_string(h), true,
            NodeKind::kHost, h, p);
    }
    for (int l = 0; l < L; ++l)
      for (int s = 0; s < S; ++s) {
        setup(LeafToSpinePort(l, s, p), ps + ".leaf" + std::to_string(l) + "->spine" + std::to_string(s), false,
              NodeKind::kSpine, s, p);
        setup(SpineToLeafPort(s, l, p), ps + ".spine" + std::to_string(s) + "->leaf" + std::to_string(l), false,
              NodeKind::kLeaf, l, p);
      }
  }
  for (int h = 0; h < H; ++h) {
    const auto ip = HostIpv4(h);
    AddAddress(h, ip);
  }
  pool_.reserve(4096);
}

Fabric::~Fabric() = default;

std::array<uint8_t, 4> Fabric::HostIpv4(int host) {
  const int n = host + 1;
  return {10, 0, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n & 0xff)};
}

std::array<uint8_t, 6> Fabric::HostMac(int host) {
  const int n = host + 1;
  return {0x02, 0, 0, 0, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n & 0xff)};
}

void Fabric::AddAddress(int host, std::span<const uint8_t> addr) { addr_to_host_[AddrKey(addr)] = host; }

void Fabric::SetSink(int host, FrameSink sink) { sinks_[static_cast<size_t>(host)] = std::move(sink); }

int Fabric::HostUplinkPort(int host, int plane) const {
  return plane * (2 * config_.num_hosts + 2 * num_leaves_ * config_.num_spines) + host;
}
int Fabric::LeafDownlinkPort(int host, int plane) const { return HostUplinkPort(host, plane) + config_.num_hosts; }
int Fabric::LeafToSpinePort(int leaf, int spine, int plane) const {
  return HostUplinkPort(0, plane) + 2 * config_.num_hosts + leaf * config_.num_spines + spine;
}
int Fabric::SpineToLeafPort(int spine, int leaf, int plane) const {
  return HostUplinkPort(0, plane) + 2 * config_.num_hosts + num_leaves_ * config_.num_spines + spine * num_leaves_ + leaf;
}

uint32_t Fabric::EcmpHash(std::span<const uint8_t> frame, uint32_t seed) {
  auto view = wire::FrameView::Locate(frame);
  if (!view.ok()) return 0;
  uint8_t buf[16 + 16 + 5];
  size_t n = 0;
  const auto src = view->src_addr(), dst = view->dst_addr();
  std::memcpy(buf + n, src.data(), src.size());
  n += src.size();
  std::memcpy(buf + n, dst.data(), dst.size());
  n += dst.size();
  buf[n++] = view->protocol();
  buf[n++] = static_cast<uint8_t>(view->sport() >> 8);
  buf[n++] = static_cast<uint8_t>(view->sport());
  buf[n++] = static_cast<uint8_t>(view->dport() >> 8);
  buf[n++] = static_cast<uint8_t>(view->dport());
  return wire::Crc32Update(seed, std::span<const uint8_t>(buf, n));
}

int Fabric::SpineFor(std::span<const uint8_t> frame) const {
  return static_cast<int>(EcmpHash(frame, config_.ecmp_seed) % static_cast<uint32_t>(config_.num_spines));
}

uint32_t Fabric::AllocPacket() {
  if (!free_.empty()) {
    const uint32_t i = free_.back();
    free_.pop_back();
    return i;
  }
  pool_.emplace_back();
  return static_cast<uint32_t>(pool_.size() - 1);
}

void Fabric::FreePacket(uint32_t idx) {
  pool_[idx].Reset();
  free_.push_back(idx);
}

uint32_t Fabric::Adopt(Packet&& p) {
  const uint32_t idx = AllocPacket();
  pool_[idx] = std::move(p);
  return idx;
}

Pipeline* Fabric::MakePipeline(const std::string& name, std::function<void(Packet&&, Time)> out) {
  auto* pl = new Pipeline(sim_, name);
  pl->set_output(std::move(out));
  pl->set_drop_observer([this](Packet&& p, const Stage& stage, Time now) {
    ++frames_dropped_;
    NotifyDrop(p, stage.name().c_str(), now);
  });
  pl->set_id_source([this] { return next_id_++; });
  return pl;
}

Pipeline& Fabric::HostEgress(int host, int plane) {
  auto& slot = host_pipelines_[static_cast<size_t>(host * config_.num_planes + plane)];
  if (!slot) {
    const int port = HostUplinkPort(host, plane);
    slot.reset(MakePipeline("h" + std::to_string(host) + ".p" + std::to_string(plane) + ".egress",
                            [this, port](Packet&& p, Time now) { Enqueue(port, Adopt(std::move(p)), now); }));
  }
  return *slot;
}

Pipeline& Fabric::PlaneIngress(int plane) {
  auto& slot = plane_pipelines_[static_cast<size_t>(plane)];
  if (!slot) {
    slot.reset(MakePipeline("p" + std::to_string(plane) + ".ingress", [this, plane](Packet&& p, Time now) {
      AtNode(NodeKind::kLeaf, LeafOf(p.src_host), plane, Adopt(std::move(p)), now);
    }));
  }
  return *slot;
}

Pipeline& Fabric::Link(int port) {
  auto& slot = link_pipelines_[static_cast<size_t>(port)];
  if (!slot) {
    Port& pt = ports_[static_cast<size_t>(port)];
    slot.reset(MakePipeline(pt.name, [this, port](Packet&& p, Time now) {
      const Port& pt = ports_[static_cast<size_t>(port)];
      const uint32_t idx = Adopt(std::move(p));
      if (pt.plane_ingress && plane_pipelines_[static_cast<size_t>(pt.plane)]) {
        Packet q = std::move(pool_[idx]);
        FreePacket(idx);
        plane_pipelines_[static_cast<size_t>(pt.plane)]->Push(std::move(q));
        return;
      }
      AtNode(pt.to_kind, pt.to_index, pt.plane, idx, now);
    }));
    pt.link = slot.get();
  }
  return *slot;
}

uint64_t Fabric::Send(int host, int plane, std::span<const uint8_t> frame) {
  assert(host >= 0 && host < config_.num_hosts && plane >= 0 && plane < config_.num_planes);
  const Time now = sim_->Now();
  const uint32_t idx = AllocPacket();
  Packet& p = pool_[idx];
  p.bytes.assign(frame.begin(), frame.end());
  p.id = p.origin_id = next_id_++;
  p.ingress = now;
  p.direction = config_.host_direction[static_cast<size_t>(host)];
  p.plane = static_cast<uint8_t>(plane);
  p.src_host = static_cast<uint16_t>(host);
  ++frames_sent_;
  // Route first so observers see the destination of every frame sent (kNoHost if unroutable).
  auto view = wire::FrameView::Locate(std::span<const uint8_t>(p.bytes.data(), p.bytes.size()));
  auto it = view.ok() ? addr_to_host_.find(AddrKey(view->dst_addr())) : addr_to_host_.end();
  p.dst_host = it == addr_to_host_.end() ? kNoHost : static_cast<uint16_t>(it->second);
  for (FabricObserver* o : observers_) o->OnSend(host, p, now);
  if (it == addr_to_host_.end()) {
    p.Note("fabric.route", FateKind::kDropped, 0, now);
    DropPacket(idx, "fabric.route", now);
    return 0;
  }
  p.ecmp_hash = EcmpHash(p.bytes, config_.ecmp_seed);
  const uint64_t id = p.id;
  Pipeline* egress = host_pipelines_[static_cast<size_t>(host * config_.num_planes + plane)].get();
  if (egress != nullptr) {
    Packet q = std::move(pool_[idx]);
    FreePacket(idx);
    egress->Push(std::move(q));
  } else {
    Enqueue(HostUplinkPort(host, plane), idx, now);
  }
  return id;
}

void Fabric::Enqueue(int port_index, uint32_t pkt, Time now) {
  Port& pt = ports_[static_cast<size_t>(port_index)];
  Packet& p = pool_[pkt];
  const int64_t now_ns = now.nanos();
  pt.Expire(now_ns);
  const auto bytes = static_cast<sim::ByteCount>(p.bytes.size());
  if (pt.backlog_bytes + bytes > pt.capacity) {
    ++pt.stats.drops;
    p.Note(pt.name.c_str(), FateKind::kDropped, 0, now);
    DropPacket(pkt, pt.name.c_str(), now);
    return;
  }
  if (!pt.dequeue_marking && pt.marker.config().mode != EcnConfig::Mode::kOff &&
      pt.marker.Apply(p, pt.backlog_bytes, pt.name.c_str(), now))
    ++pt.stats.marks;
  const int64_t start = std::max(now_ns, pt.busy_until_ns);
  const int64_t end = start + pt.rate.TransferTime(bytes + pt.overhead).nanos();
  pt.busy_until_ns = end;
  pt.backlog.push_back({end, bytes});
  pt.backlog_bytes += bytes;
  pt.stats.max_queue_bytes = std::max(pt.stats.max_queue_bytes, pt.backlog_bytes);
  ++pt.stats.tx_packets;
  pt.stats.tx_bytes += static_cast<uint64_t>(bytes);
  pt.flight.push_back(pkt);
  if (pt.dequeue_marking) {
    pt.pending_dequeue.push_back(pkt);
    sim_->Schedule(Time::FromNanos(start), this, kDequeueBit | static_cast<uint64_t>(port_index));
  }
  sim_->Schedule(Time::FromNanos(end) + pt.prop, this, static_cast<uint64_t>(port_index));
}

void Fabric::OnEvent(Time now, uint64_t arg) {
  if (arg & kDequeueBit) {
    Port& pt = ports_[static_cast<size_t>(arg & ~kDequeueBit)];
    const uint32_t pkt = pt.pending_dequeue.front();
    pt.pending_dequeue.pop_front();
    pt.Expire(now.nanos());
    Packet& p = pool_[pkt];
    // Bytes waiting behind this packet as it starts onto the wire.
    if (pt.marker.Apply(p, pt.backlog_bytes - static_cast<sim::ByteCount>(p.bytes.size()), pt.name.c_str(), now))
      ++pt.stats.marks;
    return;
  }
  const int port = static_cast<int>(arg);
  Port& pt = ports_[static_cast<size_t>(port)];
  const uint32_t pkt = pt.flight.front();
  pt.flight.pop_front();
  Arrive(port, pkt, now);
}

void Fabric::Arrive(int port, uint32_t pkt, Time now) {
  ++hops_;
  Port& pt = ports_[static_cast<size_t>(port)];
  if (pt.link != nullptr) {
    Packet q = std::move(pool_[pkt]);
    FreePacket(pkt);
    pt.link->Push(std::move(q));
    return;
  }
  if (pt.plane_ingress) {
    Pipeline* plane = plane_pipelines_[static_cast<size_t>(pt.plane)].get();
    if (plane != nullptr) {
      Packet q = std::move(pool_[pkt]);
      FreePacket(pkt);
      plane->Push(std::move(q));
      return;
    }
  }
  AtNode(pt.to_kind, pt.to_index, pt.plane, pkt, now);
}

void Fabric::AtNode(NodeKind kind, int index, int plane, uint32_t pkt, Time now) {
  const Packet& p = pool_[pkt];
  const int dst = p.dst_host;
  switch (kind) {
    case NodeKind::kHost:
      Deliver(index, pkt, now);
      return;
    case NodeKind::kLeaf:
      if (LeafOf(dst) == index) {
        Enqueue(LeafDownlinkPort(dst, plane), pkt, now);
      } else {
        const int spine = static_cast<int>(p.ecmp_hash % static_cast<uint32_t>(config_.num_spines));
        Enqueue(LeafToSpinePort(index, spine, plane), pkt, now);
      }
      return;
    case NodeKind::kSpine:
      Enqueue(SpineToLeafPort(index, LeafOf(dst), plane), pkt, now);
      return;
  }
}

void Fabric::Deliver(int host, uint32_t pkt, Time now) {
  ++frames_delivered_;
  const Packet& p = pool_[pkt];
  for (FabricObserver* o : observers_) o->OnDeliver(host, p, now);
  if (const FrameSink& sink = sinks_[static_cast<size_t>(host)]) sink(p, now);
  FreePacket(pkt);
}

void Fabric::NotifyDrop(const Packet& p, const char* where, Time now) {
  for (FabricObserver* o : observers_) o->OnDrop(p, where, now);
}

void Fabric::DropPacket(uint32_t pkt, const char* where, Time now) {
  ++frames_dropped_;
  NotifyDrop(pool_[pkt], where, now);
  FreePacket(pkt);
}

int Fabric::num_ports() const { return static_cast<int>(ports_.size()); }

PortStats Fabric::GetPortStats(int port) const {
  const Port& pt = ports_[static_cast<size_t>(port)];
  PortStats s = pt.stats;
  return s;
}

sim::ByteCount Fabric::QueueBytes(int port, Time now) {
  Port& pt = ports_[static_cast<size_t>(port)];
  pt.Expire(now.nanos());
  return pt.backlog_bytes;
}

std::string Fabric::StatsString() const {
  std::string s;
  auto add = [&s](const std::unique_ptr<Pipeline>& p) {
    if (p && !p->empty()) s += p->StatsString();
  };
  for (const auto& p : host_pipelines_) add(p);
  for (const auto& p : plane_pipelines_) add(p);
  for (const auto& p : link_pipelines_) add(p);
  return s;
}

}  // namespace mroce::impairment
