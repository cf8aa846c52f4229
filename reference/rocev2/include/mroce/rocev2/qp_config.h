// Configuration of one RoCEv2 RC queue pair and the out-of-band connection data its peer supplies.
#pragma once

#include <cstdint>

#include "mroce/rocev2/aeth_syndrome.h"
#include "mroce/rocev2/psn.h"
#include "mroce/rocev2/types.h"
#include "mroce/wire/constants.h"
#include "mroce/wire/eth.h"
#include "mroce/wire/ip.h"

namespace mroce::rocev2 {

// Ethernet + IPv4 address of one side. The baseline speaks RoCEv2 over IPv4 only.
struct RoceAddress {
  wire::MacAddress mac{};
  wire::Ipv4Address ip{};
};

struct QpConfig {
  uint32_t path_mtu = 1024;          // Payload bytes per packet (IB MTU: 256, 512, 1024, 2048, 4096).
  // Max PSNs sent and not yet acknowledged. The default is about one BDP: 100 Gb/s x 10 us RTT =
  // 125 KB = 122 packets of 1 KB.
  uint32_t window_pkts = 128;
  uint64_t line_rate_bps = 100'000'000'000;  // Fixed sending rate (bits/s); 0 = unpaced.
  // Local ACK timeout (ns). IB encodes it as 4.096 us * 2^code (LocalAckTimeoutNs); the default is
  // code 8 (1.05 ms), shorter than a driver's usual code 14 so simulated runs stay short. Fixed:
  // IB does not back off between retries.
  TimeNs ack_timeout_ns = LocalAckTimeoutNs(8);
  uint8_t retry_cnt = 7;      // Retries after a timeout or sequence-error NAK (0..7).
  uint8_t rnr_retry = 7;      // Retries after an RNR NAK (0..7); 7 means infinite, as in IB.
  uint8_t min_rnr_timer = 1;  // RNR timer code this QP advertises in its RNR NAKs (1 = 10 us).
  // Responder: acknowledge after this many in-order request packets even without AckReq. The
  // requester sets AckReq on the last packet of every message and on a packet that fills the window.
  uint32_t ack_every = 16;
  uint32_t max_send_wr = 1024;  // Send queue depth (work requests posted and not completed).
  uint32_t max_recv_wr = 1024;  // Receive queue depth.
  Psn initial_psn = 0;          // First PSN this QP sends (24 bits).
  uint16_t udp_sport = 0xC000;  // Fixed UDP source port of the QP (single path, no entropy).
  uint8_t dscp = 0;
  uint8_t ecn = wire::kEcnEct0;  // ECN field sent (ECT(0) so the fabric may mark CE).
  uint16_t pkey = 0xFFFF;
  bool send_cnp = false;                    // Answer CE-marked packets with a CNP (opcode 0x81).
  TimeNs cnp_interval_ns = 50 * kMicrosecond;  // At most one CNP per interval per QP.
};

// What a QP must be told about its peer before it can send (exchanged out of band, as an RDMA CM
// or a socket exchange would): the peer's QPN, the first PSN the peer sends, and its addresses.
struct RemoteQp {
  Qpn qpn = 0;
  Psn initial_psn = 0;
  RoceAddress address;
};

}  // namespace mroce::rocev2
