// Telemetry: the RoCEv2 baseline's counters with stable snake_case names (the harness reads them as
// evidence, side by side with the MetaRoCE reference's counters).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace mroce::rocev2 {

enum class Counter : uint8_t {
  kTxPkts,            // every frame sent (data, read responses, ACK/NAK, CNP)
  kTxBytes,           // frame bytes sent
  kRxPkts,            // every RoCEv2 frame received that parsed and matched a QP
  kRxBytes,
  kRetransmits,       // request packets re-sent (PSN below the highest PSN ever sent)
  kTimeouts,          // local ACK timeout expiries
  kAcksTx, kAcksRx,   // positive ACKs
  kNaksTx, kNaksRx,   // NAKs of any kind, RNR NAKs included
  kSeqNaksTx, kSeqNaksRx,  // NAK PSN sequence error (0x60)
  kRnrNaksTx, kRnrNaksRx,  // RNR NAK (0x20 | timer)
  kRnrRetries,        // retries after an RNR wait
  kImpliedNaks,       // go-back-N started by a read response / ACK skipping a read's responses
  kDupRx,             // request or response with a PSN already processed
  kOutOfSeqRx,        // request with a PSN ahead of the expected PSN (dropped)
  kIcrcErrors,        // frames whose ICRC did not verify (dropped)
  kParseErrors,       // frames the codec rejected for another reason
  kUnknownQpRx,       // RoCEv2 frames for a QP that does not exist
  kUnknownOpcodeRx,
  kRemoteAccessErrors,  // bad rkey / bounds / permission seen by the responder
  kEcnCeRx,           // frames received with IP ECN = CE
  kCnpTx, kCnpRx,
  kMessagesTx,        // send-queue work requests completed successfully
  kMessagesRx,        // incoming SEND / WRITE / READ requests completed by the responder
  kCompletions,       // completions pushed (any status)
  kErrorCompletions,  // completions pushed with a status other than success
  kCount,
};

[[nodiscard]] std::string_view CounterName(Counter c);

class Counters {
 public:
  static constexpr size_t kSize = static_cast<size_t>(Counter::kCount);
  void Add(Counter c, uint64_t v = 1) { values_[static_cast<size_t>(c)] += v; }
  [[nodiscard]] uint64_t Get(Counter c) const { return values_[static_cast<size_t>(c)]; }
  [[nodiscard]] std::span<const uint64_t, kSize> values() const { return values_; }
  Counters& operator+=(const Counters& o);
  // Visits every counter as (name, value), in enum order.
  void ForEach(const std::function<void(std::string_view, uint64_t)>& fn) const;

 private:
  std::array<uint64_t, kSize> values_{};
};

}  // namespace mroce::rocev2
