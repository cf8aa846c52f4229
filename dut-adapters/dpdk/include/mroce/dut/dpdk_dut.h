// The `dpdk` adapter: a process-controlled DUT (ProcessDut, JSON lines on the control command's
// stdin/stdout) whose MetaRoCE frames travel as raw Ethernet frames through a DPDK ethdev, for a DUT
// that is a NIC or a host on a wire (docs/adapter-guide.md, "The dpdk adapter").
//
//   --dut 'dpdk:port=PORT[,port1=PORT...],net=A.B.C.D[,eal=EAL ARGS][,dut_mac=xx:xx:xx:xx:xx:xx]
//          [,timeout_ms=N][,tick_us=N],control=COMMAND'
//
// PORT is an ethdev name, a PCI address or a vdev spec with its devargs ("net_af_packet0,iface=veth0"):
// an item whose key is not one of the adapter's (port, portN, net, eal, dut_mac, timeout_ms, tick_us,
// control) continues the previous value, so devargs and EAL arguments may hold ','. control= comes
// last: the rest of the text is the command, run as `process:` runs it. port (= port0) carries
// plane 0, portN plane N.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mroce/dut/data_plane.h"
#include "mroce/dut/dut_spec.h"
#include "mroce/dut/process_dut.h"

struct rte_mempool;

namespace mroce::dut::dpdk {

struct Options {
  std::vector<std::string> ports;  // by plane
  std::string eal = "--in-memory";
  std::optional<wire::MacAddress> dut_mac;  // absent: learned by ARP
  ProcessDut::Options process;              // net (required), timeout_ms, tick_us, command
};

// Parses the text after "dpdk:". Errors name the part.
[[nodiscard]] Result<Options> ParseSpec(std::string_view text);

// The factory of `--dut dpdk:...` (starts the EAL and opens the ports on first use).
[[nodiscard]] Result<std::unique_ptr<Dut>> MakeDpdkDut(const DutSpec& spec);
// Registers MakeDpdkDut as the kind "dpdk" (dut_spec.h).
void RegisterDpdkDut();

// Raw Ethernet frames on one ethdev port per plane: frames towards the DUT get the port's MAC as
// source and the DUT's MAC as destination; frames to a peer address and the MetaRoCE UDP port are
// handed back; ARP requests for peer addresses are answered with the port's MAC. Without a dut_mac
// the DUT's MAC is learned from its ARP and frames, or asked for with an ARP request (frames wait
// for the answer, up to 256 per plane).
class EthdevDataPlane final : public DataPlane {
 public:
  EthdevDataPlane(const DataPlaneConfig& config, std::vector<uint16_t> ports, rte_mempool* pool,
                  std::optional<wire::MacAddress> dut_mac);
  ~EthdevDataPlane() override;
  Status AddPeer(uint8_t plane, const wire::Ipv4Address& ip) override;
  Status Send(uint8_t plane, std::span<const uint8_t> frame) override;
  size_t Poll(const std::function<void(const WireDatagram&)>& fn) override;

  [[nodiscard]] uint64_t sent() const { return sent_; }
  [[nodiscard]] uint64_t tx_drops() const { return tx_drops_; }
  [[nodiscard]] uint64_t arp_replies() const { return arp_replies_; }

 private:
  struct Plane {
    uint16_t port = 0;
    wire::MacAddress mac{};                 // the port's
    std::optional<wire::MacAddress> dut_mac;
    wire::Ipv4Address dut_ip{};
    std::vector<std::vector<uint8_t>> pending;  // frames waiting for the DUT's MAC
    int64_t last_arp_ns = 0;
  };
  Status Transmit(Plane& p, std::span<const uint8_t> frame);
  void Learn(Plane& p, const wire::MacAddress& mac);
  void Arp(Plane& p, uint16_t op, const wire::MacAddress& tha, const wire::Ipv4Address& spa, const wire::Ipv4Address& tpa);

  DataPlaneConfig config_;
  std::vector<Plane> planes_;
  rte_mempool* pool_ = nullptr;
  bool fixed_mac_ = false;
  std::map<wire::Ipv4Address, uint8_t> peers_;  // on-wire peer address -> plane
  std::vector<uint8_t> scratch_;
  uint64_t sent_ = 0, tx_drops_ = 0, arp_replies_ = 0;
};

}  // namespace mroce::dut::dpdk
