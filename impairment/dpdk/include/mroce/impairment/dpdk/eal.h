// DPDK plumbing for the live impairment bridge: EAL start, mbuf pool, ports by vdev spec or PCI
// address, and a TSC wall clock in nanoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mroce/sim/result.h"

struct rte_mempool;

namespace mroce::impairment::dpdk {

// Splits an EAL argument string on white space; single and double quotes group.
[[nodiscard]] std::vector<std::string> SplitArgs(const std::string& text);

// rte_eal_init with argv = {program, args...}. Once per process: a second call succeeds if the
// first did. Error "dpdk.eal" names the cause (rte_strerror).
[[nodiscard]] Status InitEal(const std::string& program, const std::vector<std::string>& args);
// rte_eal_cleanup (after every port is closed). Safe to call when InitEal was not.
void CleanupEal();

// A packet mbuf pool of `count` mbufs of RTE_MBUF_DEFAULT_BUF_SIZE (or `data_room` bytes of data
// room plus headroom, for jumbo frames in one segment). Error "dpdk.pool".
[[nodiscard]] Result<rte_mempool*> CreatePool(const std::string& name, unsigned count, unsigned data_room = 0);

// Finds or creates the port `spec` names and starts it with one RX and one TX queue (promiscuous):
//   an existing ethdev name (a --vdev of the EAL arguments, or a PCI address the EAL probed);
//   "net_<driver><n>[,key=value...]": a virtual device created now (rte_dev_probe on the vdev bus);
//   anything else: hot-plugged with rte_dev_probe (e.g. "0000:01:00.0").
// Returns the port id; error "dpdk.port" names the device and the step that failed.
[[nodiscard]] Result<uint16_t> OpenPort(const std::string& spec, rte_mempool* pool);
// Stops and closes the port (and removes a vdev this process created).
void ClosePort(uint16_t port);
// The ethdev name of a port ("net_ring0", "0000:01:00.0").
[[nodiscard]] std::string PortName(uint16_t port);

// Nanoseconds since construction, from the TSC.
class TscClock {
 public:
  TscClock();
  [[nodiscard]] int64_t NowNs() const;

 private:
  uint64_t start_;
  uint64_t hz_;
  uint64_t mult_;
};

}  // namespace mroce::impairment::dpdk
