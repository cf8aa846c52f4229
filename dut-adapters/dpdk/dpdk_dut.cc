// The `dpdk` adapter: ProcessDut with its frames on DPDK ethdev ports (see dpdk_dut.h).
#include "mroce/dut/dpdk_dut.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <time.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>

#include "mroce/dut/live_clock.h"
#include "mroce/dut/process_protocol.h"
#include "mroce/impairment/dpdk/eal.h"

namespace mroce::dut::dpdk {

namespace eal = mroce::impairment::dpdk;

namespace {

constexpr unsigned kDataRoom = 9216 + 64;  // one segment holds a 9000-byte-MTU frame
constexpr size_t kMaxPending = 256;
constexpr int64_t kArpRetryNs = 100'000'000;
constexpr uint16_t kBurst = 32;

void PutBe16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

Result<wire::MacAddress> ParseMac(std::string_view s) {
  wire::MacAddress m{};
  if (s.size() != 17) return MakeError("dut.spec", "expected xx:xx:xx:xx:xx:xx");
  for (size_t i = 0; i < 6; ++i) {
    if (i > 0 && s[i * 3 - 1] != ':') return MakeError("dut.spec", "expected xx:xx:xx:xx:xx:xx");
    unsigned v = 0;
    for (size_t k = 0; k < 2; ++k) {
      const char c = s[i * 3 + k];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return MakeError("dut.spec", "expected xx:xx:xx:xx:xx:xx");
      v = v * 16 + static_cast<unsigned>(d);
    }
    m[i] = static_cast<uint8_t>(v);
  }
  return m;
}

bool ParseInt(std::string_view s, int64_t lo, int64_t hi, int64_t* out) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const int64_t v = std::stoll(std::string(s));
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

// portN -> N (port = port0); -1 if `key` is not a port key.
int PortIndex(std::string_view key) {
  if (key == "port") return 0;
  if (key.size() == 5 && key.substr(0, 4) == "port" && key[4] >= '0' && key[4] <= '7') return key[4] - '0';
  return -1;
}

bool IsKey(std::string_view key) {
  return PortIndex(key) >= 0 || key == "net" || key == "eal" || key == "dut_mac" || key == "timeout_ms" ||
         key == "tick_us" || key == "control";
}

constexpr const char* kSyntax =
    "dpdk:port=PORT[,port1=PORT...],net=A.B.C.D[,eal=EAL ARGS][,dut_mac=xx:xx:xx:xx:xx:xx][,timeout_ms=N][,tick_us=N],control=COMMAND";

// --- the ports of this process: opened once, each used by one case at a time ---
struct PortSlot {
  uint16_t id = 0;
  bool busy = false;
};
std::mutex g_mu;
std::condition_variable g_cv;
std::map<std::string, PortSlot> g_ports;  // by spec
rte_mempool* g_pool = nullptr;

Status OpenPorts(const Options& o) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (Status up = eal::InitEal("mroce-cts", eal::SplitArgs(o.eal)); !up.ok()) {
    return MakeError("dut.dpdk", up.error().message);
  }
  if (g_pool == nullptr) {
    auto pool = eal::CreatePool("mroce_dut_dpdk", 8191, kDataRoom);
    if (!pool.ok()) return MakeError("dut.dpdk", pool.error().message);
    g_pool = *pool;
  }
  for (const std::string& spec : o.ports) {
    if (g_ports.count(spec) != 0) continue;
    auto id = eal::OpenPort(spec, g_pool);
    if (!id.ok()) return MakeError("dut.dpdk", id.error().message);
    g_ports[spec].id = *id;
  }
  return OkStatus();
}

// Takes the ports for one case, waiting while another case (--jobs > 1) holds them.
std::vector<uint16_t> Lease(const std::vector<std::string>& specs) {
  std::unique_lock<std::mutex> lock(g_mu);
  g_cv.wait(lock, [&] {
    for (const auto& s : specs) {
      if (g_ports[s].busy) return false;
    }
    return true;
  });
  std::vector<uint16_t> ids;
  for (const auto& s : specs) {
    g_ports[s].busy = true;
    ids.push_back(g_ports[s].id);
  }
  return ids;
}

void Release(const std::vector<uint16_t>& ids) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (auto& [spec, slot] : g_ports) {
      for (uint16_t id : ids) {
        if (slot.id == id) slot.busy = false;
      }
    }
  }
  g_cv.notify_all();
}

}  // namespace

Result<Options> ParseSpec(std::string_view text) {
  Options o;
  std::map<int, std::string> ports;
  std::string* last = nullptr;  // the value an item without a key of ours continues
  std::string_view rest = text;
  bool have_control = false;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const size_t eq = item.find('=');
    const std::string_view key = eq == std::string_view::npos ? std::string_view() : item.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (key == "control") {
      o.process.command = std::string(rest.substr(eq + 1));
      have_control = true;
      break;
    }
    if (!IsKey(key)) {
      if (last == nullptr) {
        return MakeError("dut.spec", "dpdk: '" + std::string(item) + "' is not an option (" + kSyntax + ")");
      }
      *last += "," + std::string(item);
    } else if (const int i = PortIndex(key); i >= 0) {
      if (ports.count(i) != 0) return MakeError("dut.spec", "dpdk: port" + std::to_string(i) + " given twice");
      last = &(ports[i] = std::string(value));
    } else if (key == "eal") {
      o.eal = std::string(value);
      last = &o.eal;
    } else {
      last = nullptr;
      if (key == "net") {
        auto ip = jsonl::ParseIpv4(value);
        if (!ip.ok()) return MakeError("dut.spec", "dpdk: net=" + std::string(value) + ": " + ip.error().message);
        o.process.net = ip.value();
      } else if (key == "dut_mac") {
        auto m = ParseMac(value);
        if (!m.ok()) return MakeError("dut.spec", "dpdk: dut_mac=" + std::string(value) + ": " + m.error().message);
        o.dut_mac = m.value();
      } else if (key == "timeout_ms") {
        int64_t v = 0;
        if (!ParseInt(value, 10, 3'600'000, &v)) return MakeError("dut.spec", "dpdk: timeout_ms=" + std::string(value) + ": expected milliseconds 10..3600000");
        o.process.timeout_ms = static_cast<int>(v);
      } else if (key == "tick_us") {
        int64_t v = 0;
        if (!ParseInt(value, 1, 10'000, &v)) return MakeError("dut.spec", "dpdk: tick_us=" + std::string(value) + ": expected microseconds 1..10000");
        o.process.tick_ns = v * 1000;
      }
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (!have_control || o.process.command.find_first_not_of(" \t") == std::string::npos) {
    return MakeError("dut.spec", std::string("dpdk: no control command (control=COMMAND comes last: ") + kSyntax + ")");
  }
  if (ports.empty()) return MakeError("dut.spec", std::string("dpdk: no port (") + kSyntax + ")");
  for (int i = 0; i < static_cast<int>(ports.size()); ++i) {
    if (ports.count(i) == 0) return MakeError("dut.spec", "dpdk: port" + std::to_string(i) + " missing (planes are numbered from 0 without gaps)");
    if (ports[i].empty()) return MakeError("dut.spec", "dpdk: port" + std::to_string(i) + " is empty");
    o.ports.push_back(ports[i]);
  }
  if (!o.process.net) {
    return MakeError("dut.spec", "dpdk: net=A.B.C.D is required: the on-wire subnet of the DUT's port (plane p of host h is net + 256 p + h + 1)");
  }
  o.process.max_planes = static_cast<uint8_t>(o.ports.size());
  return o;
}

Result<std::unique_ptr<Dut>> MakeDpdkDut(const DutSpec& spec) {
  const std::vector<std::string> text = spec.Values("spec");
  if (text.empty()) return MakeError("dut.spec", "--dut '" + spec.text + "': " + kSyntax);
  auto o = ParseSpec(text.front());
  if (!o.ok()) return MakeError("dut.spec", "--dut '" + spec.text + "': " + o.error().message);
  Options options = std::move(o).value();
  if (auto s = OpenPorts(options); !s.ok()) return MakeError(s.error().code, "--dut '" + spec.text + "': " + s.error().message);
  const std::vector<std::string> ports = options.ports;
  const std::optional<wire::MacAddress> dut_mac = options.dut_mac;
  options.process.data_plane = [ports, dut_mac](const DataPlaneConfig& config) -> Result<std::unique_ptr<DataPlane>> {
    if (config.num_planes > ports.size()) {
      return MakeError("dut.dpdk", std::to_string(config.num_planes) + " planes asked for, " + std::to_string(ports.size()) + " port(s) given");
    }
    return std::unique_ptr<DataPlane>(std::make_unique<EthdevDataPlane>(config, Lease(ports), g_pool, dut_mac));
  };
  auto d = ProcessDut::Create(options.process);
  if (!d.ok()) return d.error();
  return std::unique_ptr<Dut>(std::move(d).value());
}

void RegisterDpdkDut() { RegisterDutKind("dpdk", &MakeDpdkDut); }

// --- EthdevDataPlane ---

EthdevDataPlane::EthdevDataPlane(const DataPlaneConfig& config, std::vector<uint16_t> ports, rte_mempool* pool,
                                 std::optional<wire::MacAddress> dut_mac)
    : config_(config), pool_(pool), fixed_mac_(dut_mac.has_value()) {
  for (size_t i = 0; i < ports.size(); ++i) {
    Plane p;
    p.port = ports[i];
    rte_ether_addr a{};
    rte_eth_macaddr_get(p.port, &a);
    std::memcpy(p.mac.data(), a.addr_bytes, 6);
    p.dut_mac = dut_mac;
    if (i < config.dut_ips.size()) p.dut_ip = config.dut_ips[i];
    // Whatever the previous case left on the port is not this case's.
    rte_mbuf* stale[kBurst];
    for (uint16_t n; (n = rte_eth_rx_burst(p.port, 0, stale, kBurst)) > 0;) rte_pktmbuf_free_bulk(stale, n);
    planes_.push_back(std::move(p));
  }
  scratch_.resize(kDataRoom);
}

EthdevDataPlane::~EthdevDataPlane() {
  std::vector<uint16_t> ids;
  for (const Plane& p : planes_) ids.push_back(p.port);
  Release(ids);
}

Status EthdevDataPlane::AddPeer(uint8_t plane, const wire::Ipv4Address& ip) {
  if (plane >= planes_.size()) return MakeError("dut.dpdk", "plane " + std::to_string(plane) + " has no port");
  peers_[ip] = plane;
  return OkStatus();
}

Status EthdevDataPlane::Transmit(Plane& p, std::span<const uint8_t> frame) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  if (m == nullptr) {
    ++tx_drops_;
    return MakeError("dut.dpdk", "mbuf pool exhausted");
  }
  char* data = rte_pktmbuf_append(m, static_cast<uint16_t>(frame.size()));
  if (data == nullptr || frame.size() > kDataRoom) {
    rte_pktmbuf_free(m);
    ++tx_drops_;
    return MakeError("dut.dpdk", "frame of " + std::to_string(frame.size()) + " bytes does not fit an mbuf");
  }
  std::memcpy(data, frame.data(), frame.size());
  if (rte_eth_tx_burst(p.port, 0, &m, 1) != 1) {
    rte_pktmbuf_free(m);
    ++tx_drops_;
    return MakeError("dut.dpdk", "port " + eal::PortName(p.port) + ": TX queue full");
  }
  ++sent_;
  return OkStatus();
}

void EthdevDataPlane::Arp(Plane& p, uint16_t op, const wire::MacAddress& tha, const wire::Ipv4Address& spa,
                          const wire::Ipv4Address& tpa) {
  uint8_t f[60] = {};
  const wire::MacAddress bcast{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  std::memcpy(f, op == 1 ? bcast.data() : tha.data(), 6);
  std::memcpy(f + 6, p.mac.data(), 6);
  PutBe16(f + 12, 0x0806);
  uint8_t* a = f + 14;
  PutBe16(a, 1);       // Ethernet
  PutBe16(a + 2, 0x0800);
  a[4] = 6;
  a[5] = 4;
  PutBe16(a + 6, op);
  std::memcpy(a + 8, p.mac.data(), 6);
  std::memcpy(a + 14, spa.data(), 4);
  std::memcpy(a + 18, op == 1 ? wire::MacAddress{}.data() : tha.data(), 6);
  std::memcpy(a + 24, tpa.data(), 4);
  if (Transmit(p, f).ok() && op == 2) ++arp_replies_;
}

void EthdevDataPlane::Learn(Plane& p, const wire::MacAddress& mac) {
  if (fixed_mac_ || (mac[0] & 1) != 0) return;
  p.dut_mac = mac;
  for (auto& frame : std::exchange(p.pending, {})) {
    std::memcpy(frame.data(), mac.data(), 6);
    (void)Transmit(p, frame);
  }
}

Status EthdevDataPlane::Send(uint8_t plane, std::span<const uint8_t> frame) {
  if (plane >= planes_.size()) return MakeError("dut.dpdk", "plane " + std::to_string(plane) + " has no port");
  if (frame.size() < 34) return MakeError("dut.dpdk", "frame of " + std::to_string(frame.size()) + " bytes is not Ethernet/IPv4");
  Plane& p = planes_[plane];
  std::vector<uint8_t> out(frame.begin(), frame.end());
  std::memcpy(out.data() + 6, p.mac.data(), 6);
  if (p.dut_mac) {
    std::memcpy(out.data(), p.dut_mac->data(), 6);
    return Transmit(p, out);
  }
  // The DUT's MAC is not known yet: ask for it (from the frame's source, a peer address).
  wire::Ipv4Address spa{};
  std::memcpy(spa.data(), out.data() + 14 + 12, 4);
  if (p.pending.size() < kMaxPending) p.pending.push_back(std::move(out));
  else ++tx_drops_;
  const int64_t now = MonotonicNs();
  if (now - p.last_arp_ns >= kArpRetryNs) {
    p.last_arp_ns = now;
    Arp(p, 1, wire::MacAddress{}, spa, p.dut_ip);
  }
  return OkStatus();
}

size_t EthdevDataPlane::Poll(const std::function<void(const WireDatagram&)>& fn) {
  size_t delivered = 0;
  for (uint8_t plane = 0; plane < planes_.size(); ++plane) {
    Plane& p = planes_[plane];
    rte_mbuf* burst[kBurst];
    // Bursts until one is not full (what arrives meanwhile, e.g. our own ARP replies on a looped
    // port, waits for the next call).
    for (uint16_t n = kBurst; n == kBurst;) {
      n = rte_eth_rx_burst(p.port, 0, burst, kBurst);
      for (uint16_t i = 0; i < n; ++i) {
        rte_mbuf* m = burst[i];
        const uint32_t len = std::min<uint32_t>(rte_pktmbuf_pkt_len(m), static_cast<uint32_t>(scratch_.size()));
        const uint8_t* f = static_cast<const uint8_t*>(rte_pktmbuf_read(m, 0, len, scratch_.data()));
        if (f == nullptr || len < 42) continue;
        const WireFrame w = ClassifyWireFrame(std::span<const uint8_t>(f, len));
        if (w.kind == WireFrame::Kind::kArp) {
          if (w.arp_spa == p.dut_ip) Learn(p, w.arp_sha);
          const auto peer = peers_.find(w.arp_tpa);
          if (w.arp_op == 1 && peer != peers_.end() && peer->second == plane) Arp(p, 2, w.arp_sha, w.arp_tpa, w.arp_spa);
          continue;
        }
        if (w.kind != WireFrame::Kind::kUdp || w.dport != config_.udp_port) continue;
        const auto peer = peers_.find(w.dst);
        if (peer == peers_.end() || peer->second != plane) continue;
        WireDatagram d;
        d.plane = plane;
        d.src = w.src;
        d.dst = w.dst;
        d.sport = w.sport;
        d.dport = w.dport;
        d.tos = w.tos;
        d.payload = w.payload;
        if (d.src == p.dut_ip && !p.dut_mac) Learn(p, w.src_mac);
        fn(d);
        ++delivered;
      }
      rte_pktmbuf_free_bulk(burst, n);
    }
  }
  return delivered;
}

}  // namespace mroce::dut::dpdk
