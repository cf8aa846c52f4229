// Spec constants: every timer, threshold and limit of docs/spec table 15.1 the endpoint uses, in
// one place, with the clause that fixes it. Only the values table 15.1 marks configurable have a
// field in EndpointConfig; the rest are fixed for protocol version 1 (MROCE-GEN-003).
#pragma once

#include <cstdint>

#include "mroce/endpoint/types.h"

namespace mroce::ref::spec {

// Chapter 7: paths.
inline constexpr uint32_t kPathWindow = 256;                       // PSNs per path (MROCE-PATH-007)
inline constexpr TimeNs kProbeTimeout = 1 * kMillisecond;          // MROCE-PATH-016
inline constexpr TimeNs kProbeSpacing = 100 * kMicrosecond;        // MROCE-PATH-016
inline constexpr int kFailAfterRtos = 3;                           // MROCE-PATH-012
inline constexpr int kReintroduceAfterProbeAcks = 3;               // MROCE-PATH-017
inline constexpr int kReintroduceAfterProbeAcksMax = 24;           // MROCE-PATH-022
inline constexpr TimeNs kReintroduceDampingWindow = 100 * kMillisecond;  // MROCE-PATH-022
inline constexpr TimeNs kConnDeadTimeout = 100 * kMillisecond;     // MROCE-CONN-017

// Chapter 8: ACKs.
inline constexpr uint32_t kAckEveryPackets = 4;                    // MROCE-ACK-009
inline constexpr TimeNs kAckMaxDelay = 4 * kMicrosecond;           // MROCE-ACK-009
inline constexpr TimeNs kAckDelayUnit = 64;                        // ns per ack_delay unit (MROCE-ACK-004)

// Chapter 9: loss and RTO.
inline constexpr uint8_t kRetryLimit = 7;                          // MROCE-LOSS-008
inline constexpr TimeNs kRtoInitial = 1 * kMillisecond;            // MROCE-RTO-004
inline constexpr TimeNs kRtoMin = 50 * kMicrosecond;               // MROCE-RTO-004
inline constexpr TimeNs kRtoMax = 64 * kMillisecond;               // MROCE-RTO-004
inline constexpr TimeNs kRttGranularity = 1 * kMicrosecond;        // G of MROCE-RTO-004
inline constexpr TimeNs kMinRttSample = 1 * kMicrosecond;          // MROCE-RTO-001

// Chapter 10: congestion control and rate hint.
inline constexpr uint32_t kCwndInitMtus = 4;                       // MROCE-CC-002
inline constexpr uint32_t kCwndMinMtus = 1;                        // MROCE-CC-002
inline constexpr uint32_t kCwndMaxMtus = 256;                      // MROCE-CC-002
inline constexpr TimeNs kActiveSenderWindow = 100 * kMicrosecond;  // MROCE-HINT-002
inline constexpr uint32_t kHintUtilisationDefaultPermille = 950;   // U of MROCE-HINT-001
inline constexpr uint64_t kMinBurstBytes = 16384;                  // B of MROCE-HINT-005
inline constexpr TimeNs kHintReaction = 1 * kMicrosecond;          // MROCE-HINT-005
inline constexpr uint32_t kRateUnlimited = 0xFFFFFFFFu;            // rate_hint sentinel (3.5)

// Chapters 11, 12, 16: placement, RNR, NACKs.
inline constexpr uint32_t kMaxOutstandingReads = 64;               // MROCE-PLACE-013
inline constexpr uint32_t kRnrDelayDefaultUs = 20;                 // MROCE-RNR-001
inline constexpr uint32_t kRnrDelayMinUs = 1;
inline constexpr uint32_t kRnrDelayMaxUs = 10000;
inline constexpr uint8_t kRnrRetryLimit = 7;                       // MROCE-RNR-006
inline constexpr uint8_t kResourceRetryLimit = 7;                  // MROCE-ERR-006

// Chapter 6 and 15: streams and messages.
inline constexpr uint32_t kStreamWindow = 1024;                    // MROCE-STRM-011/012
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 31;    // MROCE-STRM-008, MROCE-LIM-002

// Chapter 2: sizes of a data packet around its payload (for IP total length accounting).
inline constexpr uint32_t kIpv4HeaderBytes = 20;
inline constexpr uint32_t kIpv6HeaderBytes = 40;
inline constexpr uint32_t kUdpCh = 8 + 16;                         // UDP + CH
inline constexpr uint32_t kMehBytes = 40;
inline constexpr uint32_t kCrcBytes = 4;
// IP total length of a data packet with `payload` bytes (MROCE-HINT-005 measures this).
[[nodiscard]] constexpr uint32_t DataIpLength(uint32_t payload, bool ipv6) {
  return (ipv6 ? kIpv6HeaderBytes : kIpv4HeaderBytes) + kUdpCh + kMehBytes + payload + kCrcBytes;
}

}  // namespace mroce::ref::spec
