// AETH syndrome encoding of RoCEv2 RC (ACK, RNR NAK, NAK codes) and the IB timer encodings
// (RNR timer and local ACK timeout codes).
#pragma once

#include <cstdint>

#include "mroce/rocev2/types.h"

namespace mroce::rocev2 {

// Syndrome bits 6..5: 00 ACK (bits 4..0 credit count), 01 RNR NAK (bits 4..0 timer), 11 NAK (code).
enum class SyndromeKind : uint8_t { kAck, kRnrNak, kReserved, kNak };

// ACK with credit count 0x1F ("invalid": no end-to-end credits), as RoCE NICs send.
inline constexpr uint8_t kSyndromeAck = 0x1F;
inline constexpr uint8_t kSyndromeRnrNakBase = 0x20;
inline constexpr uint8_t kNakPsnSequenceError = 0x60;
inline constexpr uint8_t kNakInvalidRequest = 0x61;
inline constexpr uint8_t kNakRemoteAccessError = 0x62;
inline constexpr uint8_t kNakRemoteOperationalError = 0x63;

[[nodiscard]] constexpr SyndromeKind KindOf(uint8_t syndrome) {
  return static_cast<SyndromeKind>((syndrome >> 5) & 0x3);
}
[[nodiscard]] constexpr uint8_t RnrNakSyndrome(uint8_t timer_code) {
  return static_cast<uint8_t>(kSyndromeRnrNakBase | (timer_code & 0x1F));
}
[[nodiscard]] constexpr uint8_t RnrTimerCode(uint8_t syndrome) { return syndrome & 0x1F; }

// IBA table "RNR NAK timer field encodings": code 0 = 655.36 ms, 1 = 0.01 ms ... 31 = 491.52 ms.
[[nodiscard]] TimeNs RnrTimerNs(uint8_t timer_code);
// IBA local ACK timeout: 4.096 us * 2^code (code 1..31); code 0 means "infinite" (kNever).
[[nodiscard]] TimeNs LocalAckTimeoutNs(uint8_t code);

}  // namespace mroce::rocev2
