// EndpointConfig and the seams between the endpoint and the outside world (frame sink, addresses).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "mroce/endpoint/quirks.h"
#include "mroce/endpoint/spec_constants.h"
#include "mroce/endpoint/types.h"
#include "mroce/endpoint/variants.h"
#include "mroce/wire/eth.h"
#include "mroce/wire/ip.h"

namespace mroce::ref {

// Where frames leave. `plane` is the attachment (0..num_planes-1) the frame must use. The span is
// valid only during the call: the sink copies what it keeps.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void Send(std::span<const uint8_t> frame, uint8_t plane) = 0;
};

struct PeerAddress {
  wire::MacAddress mac{};
  wire::Ipv4Address ip{};
  std::optional<wire::Ipv6Address> ip6;  // set: reach the peer over IPv6 (EndpointConfig::ip6 too)
  uint16_t udp_port = 4797;
};

struct EndpointConfig {
  wire::MacAddress mac{};
  wire::Ipv4Address ip{};
  std::optional<wire::Ipv6Address> ip6;  // set: this endpoint also has an IPv6 address and uses it
                                         // towards peers given by IPv6 (MROCE-ENC-001)
  uint16_t udp_port = 4797;         // MetaRoCE UDP destination port
  uint8_t num_paths = 8;            // 1..64
  uint8_t num_planes = 1;           // 1..8
  uint16_t mtu = 4096;              // payload bytes, 256..9000
  uint16_t max_streams = 16;        // 1..1024
  uint8_t ver_min = 1;
  uint8_t ver_max = 1;
  uint64_t link_capacity_mbps = 100000;  // inbound and outbound link, Mb/s (C of 10.3)
  // U of MROCE-HINT-001 x 1000, configurable 500..1000 (table 15.1).
  uint32_t hint_utilisation_permille = spec::kHintUtilisationDefaultPermille;
  uint64_t seed = 1;                // connection ids, nonces, entropy: deterministic per seed
  bool auto_accept = true;          // accept valid CONNECT_REQs without an Accept() call
  size_t max_connections = 65536;  // connection table (spec 15.3: beyond it CONNECT_REJ NO_RESOURCES)
  uint32_t rnr_delay_us = spec::kRnrDelayDefaultUs;  // NACK RNR info, 1..10000 us (MROCE-RNR-001)
  Quirks quirks;
  Variants variants;  // legal alternatives to the reference's own choices (self-test precision half)
};

}  // namespace mroce::ref
