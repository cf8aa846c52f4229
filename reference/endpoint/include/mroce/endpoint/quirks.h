// Quirks: named, deliberate deviations from the spec, off by default, used by the suite's self-test
// to prove each deviation is caught. Every quirk changes a real code path (see README.md).
#pragma once

#include <bitset>
#include <span>
#include <string>
#include <string_view>

#include "mroce/endpoint/types.h"

namespace mroce::ref {

enum class Quirk : uint8_t {
  kGoBackN,                 // on a loss, resend the lost PSN and every later PSN on the path
  kRetransmitAllAfterGap,   // on a loss, resend every unacked packet of the path
  kReorderIsLoss,           // infer loss from connection-wide send order (cross-path reordering)
  kSinglePath,              // send all data on path 0 only
  kNoEntropyChange,         // never re-roll a path's UDP source port
  kIgnoreEcn,               // the congestion controller ignores ce_count
  kIgnoreRateHint,          // pace without the receiver's rate hint
  kConstantRateHint,        // advertise the full link share regardless of the number of senders
  kCompleteOutOfOrder,      // deliver completions as messages finish, not in stream order
  kHolBlockStreams,         // deliver completions in connection-wide arrival order (HOL across streams)
  kDoubleCompletionOnDup,   // a duplicate LAST packet of a completed message completes it again
  kPlaceStalePacket,        // place payload of a message already completed (stale msn)
  kAcceptBadCrc,            // skip the CRC check
  kAcceptUnknownVersion,    // process packets whose CH.ver is not a negotiated version
  kSkipRkeyBoundsCheck,     // check rkey but not the VA range
  kDropSendWithoutRnr,      // drop a SEND with no posted receive silently (no RNR NACK, no ack)
  kRetryForever,            // no retry limit (RTO and RNR)
  kSackOffByOne,            // encode SACK bit i as PSN epsn + i instead of epsn + 1 + i
  kNeverReintroducePath,    // a failed path is never probed or reintroduced
  kNoAckCoalescingLimit,    // ack only on AR / gap / duplicate: no 4-packet or 4 us limit
  kNoRtoBackoff,            // RTO is not doubled on expiry
  kAcceptStaleEpoch,        // data of an older path epoch is processed as current
  kRetransmitNewPsn,        // retransmit a lost packet with a new PSN instead of the same PSN
  kRetransmitOtherPath,     // retransmit a lost packet on another path
  kNoCeEcho,                // ACKs always carry ce_count 0 and no ECE flag
  kNoDupAck,                // duplicates are dropped without an ACK
  kIgnoreWindow,            // ignore cwnd (the 256-PSN window still holds)
  kNoResourceLimit,         // accept messages beyond the per-stream window (no NACK RESOURCE)
  kAcceptEpochJump,         // a PROBE any number of epochs ahead starts that epoch (v0.1 reading)
  kRnrHoldTenfold,          // hold an RNR-NACKed PSN for 10 x info (beyond the MROCE-RNR-005 bound)
  kProbeEpochSkip,          // a failed path's PROBEs announce epoch + 2 (next_epoch is epoch + 1)
  kArOnlyOnLast,            // AR only on the last packet of a message and on retransmissions, never on the packet that fills the window
  kFirstOnEverySegment,     // set FIRST on every segment of a message, not only at msg_offset 0
  kImmFlagOnWrite,          // set the IMM flag on WRITE packets too (imm stays 0)
  kProbeSeqStuck,           // a path's later PROBEs of an epoch repeat the first one's probe_seq instead of counting up
  kRetryLimitEight,         // allow 8 retransmissions of a packet before RETRY_EXC_ERR (the limit is 7)
  kReadsOutstanding65,      // allow 65 READs outstanding per connection (the limit is 64)
  kInitialWindow8Mtu,       // start each path's congestion window at 8 MTU instead of 4 MTU
  kRtoWindowTwoMtu,         // an RTO sets the path's cwnd to 2 MTU instead of 1 MTU
  kAdditiveIncreaseDouble,  // additive increase of 2 MTU per window of acknowledged bytes instead of 1
  kHalveEveryEce,           // halve cwnd on every ECE ACK, not at most once per SRTT
  kRtoInitial2ms,           // an RTO of 2 ms before the first RTT sample instead of 1 ms
  kTriggerPsnIsEpsn,        // ACKs carry epsn as trigger_psn instead of the PSN that triggered them
  kEceOnEveryAck,           // set ECE on every ACK once a CE mark arrived on the path, not only when the trigger was marked
  kCeCountDoubled,          // count each CE-marked packet twice in ce_count
  kRateHintTxUncounted,     // do not count the ACKs sent in rate_hint_tx
  kDupRxUncounted,          // do not count duplicate data packets in dup_rx
  kProbeAckTxTimeZero,      // PROBE_ACKs echo tx_time 0 instead of the PROBE's tx_time
  kOowNackInfoPsn,          // a NACK PSN_OUT_OF_WINDOW carries the refused PSN in info instead of epsn
  kConnectRetryNoDoubling,  // retransmit CONNECT_REQ every 1 ms instead of doubling the interval
  kDisconnectRetriesFive,   // retransmit an unanswered DISCONNECT 5 times instead of 3
  kQuarantine64ms,          // keep a closed connection's id in QUARANTINE for 64 ms instead of 128 ms
  kQuarantineGaugeClosed,   // the conn_state gauge reads 0 (CLOSED) in QUARANTINE instead of 6
  kControlNotEct,           // send connection management, ACK, NACK, PROBE and PROBE_ACK frames Not-ECT instead of ECT(0)
  kConnectAckKeepsOwnMtu,   // a CONNECT_ACK carries the responder's own MTU even above the requested one
  kRecvAfterErrorLost,      // a receive posted to a connection in ERROR is dropped without a WR_FLUSH_ERR completion
  kInvalidConnRxUncounted,  // do not count data for an unknown connection id in invalid_conn_rx
  kFatalCompletionStreamZero, // the completion of a work request a fatal NACK names carries stream 0
  kHintIdleWindow1ms,       // count a connection as an active sender in N for 1 ms after its last data packet instead of 100 us
  kAckDelayUnitsUs,         // report ack_delay in microseconds instead of 64 ns units
  kCount,
};

inline constexpr size_t kQuirkCount = static_cast<size_t>(Quirk::kCount);

struct QuirkInfo {
  Quirk quirk;
  std::string_view name;         // stable name used on the command line
  std::string_view description;  // one line
};

// The table of every quirk, in enum order.
[[nodiscard]] std::span<const QuirkInfo> AllQuirks();
// "name, name, ...": every quirk name, in table order (for error messages).
[[nodiscard]] std::string KnownQuirkNames();

// A set of quirks, parsed from "name[,name...]".
class Quirks {
 public:
  Quirks() = default;
  [[nodiscard]] static Result<Quirks> Parse(std::string_view list);
  [[nodiscard]] bool Has(Quirk q) const { return bits_.test(static_cast<size_t>(q)); }
  void Set(Quirk q, bool on = true) { bits_.set(static_cast<size_t>(q), on); }
  [[nodiscard]] bool Empty() const { return bits_.none(); }
  // Comma-separated names of the quirks set, in table order.
  [[nodiscard]] std::string ToString() const;

 private:
  std::bitset<kQuirkCount> bits_;
};

}  // namespace mroce::ref
