// Telemetry: the counters of docs/spec chapter 17 under exactly the names of tables 17.2, 17.3 and
// 17.4 (MROCE-TEL-001). The names are a contract the harness reads. Counters live in CounterSets;
// gauges are computed from live state when telemetry is read (MROCE-TEL-009), see
// Endpoint::ForEachTelemetry. Names beyond the tables carry the `x_` prefix (MROCE-TEL-005).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace mroce::ref {

// Endpoint scope (table 17.2). The gauge connections_open is computed.
enum class EndpointCounter : uint8_t {
  kMalformedRx, kCrcErrors, kUnknownOpcodeRx, kInvalidConnRx, kInvalidConnNackTx, kStaleConnRx,
  kBadNonceRx, kUnexpectedCmRx, kConnErrors,
  kXCqOverflows,
  kCount,
};

// Connection scope (table 17.2). Gauges conn_state, active_senders and state_bytes are computed;
// the two last-hint gauges are stored here (Set, not Add).
enum class ConnCounter : uint8_t {
  kTxPkts, kTxBytes, kRxPkts, kRxBytes, kRetransmits, kBadVersionRx, kBadPathRx, kCrcErrors,
  kStaleMsgRx, kDupSegmentRx, kNackTx, kNackRx,
  // Per NACK code, in code order 0x01..0x07 (NackTxCounter / NackRxCounter below).
  kNackTxPsnOutOfWindow, kNackTxInvalidConn, kNackTxRnr, kNackTxRemoteAccess, kNackTxInvalidRequest,
  kNackTxResource, kNackTxRemoteOpError,
  kNackRxPsnOutOfWindow, kNackRxInvalidConn, kNackRxRnr, kNackRxRemoteAccess, kNackRxInvalidRequest,
  kNackRxResource, kNackRxRemoteOpError,
  kUnknownNackRx, kRnrNackTx, kRnrNackRx, kRateHintTx, kRateHintRx, kCmplSuccess, kCmplError,
  // Gauges stored as values:
  kRateHintLastTxMbps, kRateHintLastRxMbps,
  // Implementation extras (MROCE-TEL-005).
  kXMessagesTx, kXMessagesRx, kXRnrHoldsEnded, kXPacingRateMbps,
  kCount,
};

// Sender side of the endpoint's own path (table 17.3). Gauges (state, entropy, epoch, cwnd_bytes,
// inflight_bytes, srtt_ns, rttvar_ns, rto_ns) are computed.
enum class PathCounter : uint8_t {
  kTxPkts, kTxBytes, kRetransmits, kLossInferred, kRtoEvents, kFailoverResends, kAcksRx, kEceRx,
  kCwndDecreases, kBadAckRx, kStaleEpochRx, kStaleNackRx, kPathStateChanges, kEntropyRerolls,
  kProbesTx, kProbeAcksRx, kProbeTimeouts, kReintroductions,
  kCount,
};

// Receiver side, the peer's path with this id (table 17.4), exposed under `.rx.` (MROCE-TEL-008).
// Gauges rx_epoch and epsn are computed.
enum class PathRxCounter : uint8_t {
  kRxPkts, kRxBytes, kAcksTx, kEcnCeRx, kDupRx, kDupRtxRx, kStaleEpochRx, kBadEpochRx, kProbesRx,
  kCount,
};

[[nodiscard]] std::string_view EndpointCounterName(EndpointCounter c);
[[nodiscard]] std::string_view ConnCounterName(ConnCounter c);
[[nodiscard]] std::string_view PathCounterName(PathCounter c);
[[nodiscard]] std::string_view PathRxCounterName(PathRxCounter c);

// Per-code NACK counters; `code` is the wire code 0x01..0x07 (asserted by the caller).
[[nodiscard]] inline ConnCounter NackTxCounter(uint8_t code) {
  return static_cast<ConnCounter>(static_cast<uint8_t>(ConnCounter::kNackTxPsnOutOfWindow) + code - 1);
}
[[nodiscard]] inline ConnCounter NackRxCounter(uint8_t code) {
  return static_cast<ConnCounter>(static_cast<uint8_t>(ConnCounter::kNackRxPsnOutOfWindow) + code - 1);
}

// Unsigned 64-bit counters that start at 0 and only grow (MROCE-TEL-002); Set is for the few
// stored gauges.
template <typename Enum>
class CounterSet {
 public:
  static constexpr size_t kSize = static_cast<size_t>(Enum::kCount);
  void Add(Enum c, uint64_t v = 1) { values_[static_cast<size_t>(c)] += v; }
  void Set(Enum c, uint64_t v) { values_[static_cast<size_t>(c)] = v; }
  [[nodiscard]] uint64_t Get(Enum c) const { return values_[static_cast<size_t>(c)]; }
  [[nodiscard]] std::span<const uint64_t, kSize> values() const { return values_; }

 private:
  std::array<uint64_t, kSize> values_{};
};

using EndpointCounters = CounterSet<EndpointCounter>;
using ConnCounters = CounterSet<ConnCounter>;
using PathCounters = CounterSet<PathCounter>;
using PathRxCounters = CounterSet<PathRxCounter>;

using TelemetryFn = std::function<void(std::string_view name, uint64_t value)>;

// Visit every stored counter as (unqualified name, value).
void ForEachCounter(const EndpointCounters& c, const TelemetryFn& fn);
void ForEachCounter(const ConnCounters& c, const TelemetryFn& fn);
void ForEachCounter(const PathCounters& c, const TelemetryFn& fn);
void ForEachCounter(const PathRxCounters& c, const TelemetryFn& fn);

}  // namespace mroce::ref
