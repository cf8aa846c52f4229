// Variants: named, legal alternatives to the reference endpoint's own choices, off by default.
// Where quirks are deliberate deviations (the self-test's recall half: the suite must catch each),
// a variant takes another choice the spec leaves open (a MAY clause, a free field, a constrained
// choice within its bound), so every MUST case must still pass with it: the self-test's precision
// half. Each names the clause or degrees-of-freedom row (spec chapter 19) that allows it.
#pragma once

#include <bitset>
#include <span>
#include <string>
#include <string_view>

#include "mroce/endpoint/types.h"

namespace mroce::ref {

enum class Variant : uint8_t {
  kAckEveryPacket,      // ACK every data packet at once (MROCE-ACK-010)
  kAckEvery2,           // ACK after 2 recorded packets instead of 4 (MROCE-ACK-010)
  kArEveryPacket,       // AR on every data packet (MROCE-ACK-015)
  kSeOnMessages,        // SE on every SEND, SEND_IMM and WRITE_IMM message (MROCE-HDR-008)
  kMaxRateZero,         // advertise max_rate 0, "unspecified" (MROCE-CONN-018)
  kMaxRateHalf,         // advertise half the capacity and hold own hints to it (MROCE-CONN-018)
  kFirstPathLast,       // the first new data goes on the highest path (STRM-009, choice first-path)
  kFirstPathMiddle,     // the first new data goes on path num_paths / 2
  kSegmentsReverse,     // the segments of a message leave last first (choice segment-order)
  kSegmentsOddFirst,    // odd-numbered segments first, then even (choice segment-order)
  kMessageAtATime,      // every segment of a message before the next message (choice message-interleave)
  kConnIdSequential,    // connection ids 1, 2, 3, ... (MROCE-CONN-001: non-zero, unique)
  kConnIdHigh,          // connection ids 0xFFFFFFFF, 0xFFFFFFFE, ... (MROCE-CONN-001)
  kNonceCounter,        // nonces 1, 2, 3, ... (MROCE-CONN-002: non-zero, distinct)
  kEntropySequential,   // source ports 49152, 49153, ... in turn (MROCE-ENC-004, MROCE-PATH-003)
  kEntropyDescending,   // source ports 65535, 65534, ... in turn (MROCE-ENC-004, MROCE-PATH-003)
  kRerollOnEce,         // re-roll a path's entropy after ECE, at most once per SRTT (MROCE-PATH-005)
  kReintroduceAfter4,   // 4 consecutive PROBE_ACKs reintroduce a path (MROCE-PATH-017: at least 3)
  kRnrHoldDouble,       // hold an RNR-NACKed PSN twice its info delay (MROCE-RNR-005: at least info)
  kProbeClockOffset,    // PROBE tx_time from a clock offset by 2^40 ns (choice probe-clock, HDR-016)
  kMaxMinHints,         // max-min rate hints within the bounds of MROCE-HINT-003 (choice rate-hint)
  kNackInvalidConn,     // answer data for an unknown connection with NACK INVALID_CONN (MROCE-DUP-007)
  kBurstToB,            // send bursts up to the burst tolerance B of 10.4 instead of pacing (choice pacing)
  kResendHighestPath,   // re-send abandoned packets on the highest eligible path (choice resend-path)
  kFailOnLinkDown,      // fail a plane's paths at once when its link goes down (MROCE-PATH-013)
  kRetransmitDescending,  // PSNs a SACK or NACK shows lost together: highest first (choice retransmit-order)
  kAckRouteHighest,     // ACKs of a path not ACTIVE or SUSPECT: via the highest ACTIVE path (MROCE-ACK-011)
  kCmSportMirrored,     // CM packets but CONNECT_REQ: the mirror of path 0's entropy (choice sport-per-path)
  kVerMax2,             // CONNECT_REQ advertises ver_max 2 (choice requested-params, MROCE-VER-004)
  kHoldThroughFailover,  // an RNR/RESOURCE hold outlasts a path failure (choice hold-at-failover)
  kCount,
};

inline constexpr size_t kVariantCount = static_cast<size_t>(Variant::kCount);

struct VariantInfo {
  Variant variant;
  std::string_view name;         // stable name used on the command line
  std::string_view clause;       // the clause or chapter-19 choice that allows it
  std::string_view group;        // variants of one group are alternatives; empty: combines with all
  std::string_view description;  // one line
};

// The table of every variant, in enum order.
[[nodiscard]] std::span<const VariantInfo> AllVariants();
// "name, name, ...": every variant name, in table order (for error messages).
[[nodiscard]] std::string KnownVariantNames();

// A set of variants, parsed from "name[+name...]" (',' separates too).
class Variants {
 public:
  Variants() = default;
  [[nodiscard]] static Result<Variants> Parse(std::string_view list);
  // Every variant, one of each group (the first in table order): the "all compatible" combination.
  [[nodiscard]] static Variants AllCompatible();
  [[nodiscard]] bool Has(Variant v) const { return bits_.test(static_cast<size_t>(v)); }
  void Set(Variant v, bool on = true) { bits_.set(static_cast<size_t>(v), on); }
  [[nodiscard]] bool Empty() const { return bits_.none(); }
  // '+'-separated names of the variants set, in table order.
  [[nodiscard]] std::string ToString() const;
  bool operator==(const Variants&) const = default;

 private:
  std::bitset<kVariantCount> bits_;
};

}  // namespace mroce::ref
