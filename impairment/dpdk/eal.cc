#include "mroce/impairment/dpdk/eal.h"

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <cstring>
#include <set>

namespace mroce::impairment::dpdk {
namespace {

int g_eal_state = 0;  // 0 not tried, 1 up, -1 failed.
std::string g_eal_error;
std::set<std::string> g_vdevs;  // Virtual devices this process created (removed on close).

std::string Errno(int rc) {
  const int e = rc < 0 ? -rc : rte_errno;
  return std::string(rte_strerror(e)) + " (" + std::to_string(e) + ")";
}

}  // namespace

std::vector<std::string> SplitArgs(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

Status InitEal(const std::string& program, const std::vector<std::string>& args) {
  if (g_eal_state == 1) return OkStatus();
  if (g_eal_state == -1) return MakeError("dpdk.eal", g_eal_error);  // rte_eal_init cannot be retried in one process.
  std::vector<std::string> storage;
  storage.push_back(program);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int rc = rte_eal_init(static_cast<int>(storage.size()), argv.data());
  if (rc < 0) {
    g_eal_state = -1;
    std::string joined;
    for (const std::string& a : args) joined += (joined.empty() ? "" : " ") + a;
    // rte_eal_init returns -1 and says why in rte_errno (EINVAL: a bad argument; EALREADY,
    // EACCES, ENOMEM...); its own log line above names the argument.
    const int e = rte_errno;
    g_eal_error = "DPDK EAL initialisation failed with arguments '" + joined + "': " + rte_strerror(e) + " (" +
                  std::to_string(e) + ")" + (e == EINVAL ? "; an argument is not valid (the EAL's message above names it)" : "");
    return MakeError("dpdk.eal", g_eal_error);
  }
  g_eal_state = 1;
  return OkStatus();
}

void CleanupEal() {
  if (g_eal_state == 1) rte_eal_cleanup();
  g_eal_state = 0;
}

Result<rte_mempool*> CreatePool(const std::string& name, unsigned count, unsigned data_room) {
  const unsigned room = data_room == 0 ? RTE_MBUF_DEFAULT_BUF_SIZE : data_room + RTE_PKTMBUF_HEADROOM;
  rte_mempool* pool = rte_pktmbuf_pool_create(name.c_str(), count, 256, 0, static_cast<uint16_t>(room),
                                              static_cast<int>(rte_socket_id()));
  if (pool == nullptr) {
    return MakeError("dpdk.pool", "cannot create mbuf pool '" + name + "' of " + std::to_string(count) +
                                      " mbufs: " + Errno(0) + " (give the EAL more memory: -m)");
  }
  return pool;
}

Result<uint16_t> OpenPort(const std::string& spec, rte_mempool* pool) {
  uint16_t id = 0;
  const std::string name = spec.substr(0, spec.find(','));
  if (name.empty()) {
    return MakeError("dpdk.port", "empty port name");
  }
  if (rte_eth_dev_get_port_by_name(name.c_str(), &id) != 0) {
    if (name.rfind("net_", 0) == 0) {
      const int rc = rte_dev_probe(spec.c_str());  // The vdev bus takes "net_<driver><n>[,args]".
      if (rc != 0) {
        return MakeError("dpdk.port", "cannot create virtual device '" + spec + "': " + Errno(rc) +
                 " (is the driver available? e.g. net_ring0, net_null0, net_memif0, net_af_packet0,iface=veth0)");
      }
      g_vdevs.insert(name);
    } else {
      const int rc = rte_dev_probe(spec.c_str());
      if (rc != 0) {
        return MakeError("dpdk.port", "cannot probe device '" + spec + "': " + Errno(rc) +
                 " (a PCI address needs the device bound to vfio-pci/uio and no --no-pci in --eal)");
      }
    }
    if (rte_eth_dev_get_port_by_name(name.c_str(), &id) != 0) {
      return MakeError("dpdk.port", "device '" + spec + "' was created but is not an Ethernet port");
    }
  }
  rte_eth_conf conf;
  std::memset(&conf, 0, sizeof(conf));
  int rc = rte_eth_dev_configure(id, 1, 1, &conf);
  if (rc != 0) {
    return MakeError("dpdk.port", "port " + name + ": configure failed: " + Errno(rc));
  }
  uint16_t nb_rx = 1024, nb_tx = 1024;
  rte_eth_dev_adjust_nb_rx_tx_desc(id, &nb_rx, &nb_tx);
  const int socket = rte_eth_dev_socket_id(id);
  const unsigned sock = socket < 0 ? rte_socket_id() : static_cast<unsigned>(socket);
  rc = rte_eth_rx_queue_setup(id, 0, nb_rx, sock, nullptr, pool);
  if (rc != 0) {
    return MakeError("dpdk.port", "port " + name + ": RX queue setup failed: " + Errno(rc));
  }
  rc = rte_eth_tx_queue_setup(id, 0, nb_tx, sock, nullptr);
  if (rc != 0) {
    return MakeError("dpdk.port", "port " + name + ": TX queue setup failed: " + Errno(rc));
  }
  rc = rte_eth_dev_start(id);
  if (rc != 0) {
    return MakeError("dpdk.port", "port " + name + ": start failed: " + Errno(rc));
  }
  rte_eth_promiscuous_enable(id);  // Not every driver supports it; a bump in the wire wants it.
  rte_eth_stats_reset(id);
  return id;
}

std::string PortName(uint16_t port) {
  char name[RTE_ETH_NAME_MAX_LEN] = {0};
  if (rte_eth_dev_get_name_by_port(port, name) != 0) return "port" + std::to_string(port);
  return name;
}

void ClosePort(uint16_t port) {
  const std::string name = PortName(port);
  rte_eth_dev_stop(port);
  rte_eth_dev_close(port);
  if (g_vdevs.erase(name) > 0) rte_eal_hotplug_remove("vdev", name.c_str());
}

TscClock::TscClock() : start_(rte_rdtsc()), hz_(rte_get_tsc_hz()) {
  // ns = ticks * 1e9 / hz as a 32.32 fixed-point multiply (no division per call).
  mult_ = static_cast<uint64_t>((static_cast<unsigned __int128>(1'000'000'000u) << 32) / hz_);
}

int64_t TscClock::NowNs() const {
  const unsigned __int128 d = rte_rdtsc() - start_;
  return static_cast<int64_t>((d * mult_) >> 32);
}

}  // namespace mroce::impairment::dpdk
