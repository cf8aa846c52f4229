// DataPlane: how a ProcessDut's MetaRoCE frames reach the DUT and come back.
//
// The process adapter works in on-wire addresses (process_dut.h: plane p of fabric host h is
// net + 256 p + (h + 1)); a data plane carries frames between the harness's side of each peer and
// the DUT. Two exist: UdpDataPlane (kernel UDP sockets, `--dut process:`) and the DPDK ethdev data
// plane (raw Ethernet frames on a port, `--dut dpdk:`, dut-adapters/dpdk).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/dut/udp_io.h"

namespace mroce::dut {

// One MetaRoCE datagram the DUT sent to one of the harness's peer addresses.
struct WireDatagram {
  uint8_t plane = 0;
  wire::Ipv4Address src{};  // the DUT's on-wire address
  wire::Ipv4Address dst{};  // the harness's on-wire peer address
  uint16_t sport = 0;
  uint16_t dport = 0;
  uint8_t tos = 0;
  std::span<const uint8_t> payload;  // valid during the callback only
};

// What a data plane is told when the process adapter starts.
struct DataPlaneConfig {
  uint16_t udp_port = 4797;
  uint8_t num_planes = 1;
  std::vector<wire::Ipv4Address> dut_ips;  // the DUT's on-wire address on each plane
};

class DataPlane {
 public:
  virtual ~DataPlane() = default;
  // The harness speaks for the peer at on-wire address `ip` on `plane` from now on (bind its
  // sockets, answer ARP for it). Idempotent. Errors name the address and the reason.
  virtual Status AddPeer(uint8_t plane, const wire::Ipv4Address& ip) = 0;
  // Sends an Ethernet/IPv4/UDP frame whose IP addresses are already the on-wire ones (source: a
  // peer added before; destination: the DUT) towards the DUT on `plane`.
  virtual Status Send(uint8_t plane, std::span<const uint8_t> frame) = 0;
  // Hands every datagram received for a peer address since the last call to `fn`; returns how many.
  virtual size_t Poll(const std::function<void(const WireDatagram&)>& fn) = 0;
  // File descriptors that become readable when Poll() has something: the process adapter sleeps on
  // them between ticks. Empty (a polled ethdev): it keeps polling instead.
  [[nodiscard]] virtual std::vector<int> ReadFds() const { return {}; }
  // The longest a received frame waited on the host before Poll() handed it over (kernel arrival
  // stamps); 0 where the data plane has no stamps (the ethdev). Part of ProcessDut::LongestStall:
  // a harness its host kept off the CPU while a frame waited is a stall its own clock did not see.
  [[nodiscard]] virtual int64_t LongestReceiveWait() const { return 0; }
};

// Builds the data plane of one case (called from ProcessDut::Start).
using DataPlaneFactory = std::function<Result<std::unique_ptr<DataPlane>>(const DataPlaneConfig&)>;

// Kernel UDP sockets: one UdpIo per peer address and plane (its source ports, DSCP and ECN kept).
class UdpDataPlane final : public DataPlane {
 public:
  explicit UdpDataPlane(const DataPlaneConfig& config) : config_(config) {}
  Status AddPeer(uint8_t plane, const wire::Ipv4Address& ip) override;
  Status Send(uint8_t plane, std::span<const uint8_t> frame) override;
  size_t Poll(const std::function<void(const WireDatagram&)>& fn) override;
  [[nodiscard]] std::vector<int> ReadFds() const override;
  [[nodiscard]] int64_t LongestReceiveWait() const override;

 private:
  struct Peer {
    uint8_t plane = 0;
    std::unique_ptr<UdpIo> io;
  };
  DataPlaneConfig config_;
  std::map<wire::Ipv4Address, Peer> peers_;  // by on-wire address
};

}  // namespace mroce::dut
