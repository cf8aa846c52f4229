#include "mroce/endpoint/quirks.h"

#include <array>

namespace mroce::ref {
namespace {

constexpr std::array<QuirkInfo, kQuirkCount> kQuirkTable{{
    {Quirk::kGoBackN, "go_back_n", "on a loss, resend the lost PSN and every later PSN sent on that path"},
    {Quirk::kRetransmitAllAfterGap, "retransmit_all_after_gap",
     "on a loss, resend every unacked packet of the path, SACKed or not"},
    {Quirk::kReorderIsLoss, "reorder_is_loss",
     "infer loss from connection-wide send order, so cross-path reordering looks like loss"},
    {Quirk::kSinglePath, "single_path", "send all data on path 0, never spray"},
    {Quirk::kNoEntropyChange, "no_entropy_change", "never re-roll a path's UDP source port"},
    {Quirk::kIgnoreEcn, "ignore_ecn", "congestion control ignores ce_count (no multiplicative decrease)"},
    {Quirk::kIgnoreRateHint, "ignore_rate_hint", "pace at link rate, ignoring the receiver's rate hint"},
    {Quirk::kConstantRateHint, "constant_rate_hint",
     "advertise capacity x 0.95 to every sender regardless of how many are active"},
    {Quirk::kCompleteOutOfOrder, "complete_out_of_order",
     "deliver completions when messages finish, not in message order per stream"},
    {Quirk::kHolBlockStreams, "hol_block_streams",
     "deliver completions in connection-wide order of first arrival (head-of-line blocking across streams)"},
    {Quirk::kDoubleCompletionOnDup, "double_completion_on_dup",
     "a duplicate LAST packet of a completed message produces a second completion"},
    {Quirk::kPlaceStalePacket, "place_stale_packet",
     "place the payload of a packet whose message already completed (stale msn)"},
    {Quirk::kAcceptBadCrc, "accept_bad_crc", "skip the CRC check on receipt"},
    {Quirk::kAcceptUnknownVersion, "accept_unknown_version", "process packets whose CH.ver is unknown"},
    {Quirk::kSkipRkeyBoundsCheck, "skip_rkey_bounds_check", "check the rkey but not the VA range"},
    {Quirk::kDropSendWithoutRnr, "drop_send_without_rnr",
     "silently drop a SEND with no posted receive: no RNR NACK, no ack"},
    {Quirk::kRetryForever, "retry_forever", "no retry limit on RTO or RNR"},
    {Quirk::kSackOffByOne, "sack_off_by_one", "encode SACK bit i as PSN epsn+i instead of epsn+1+i"},
    {Quirk::kNeverReintroducePath, "never_reintroduce_path", "a failed path is never probed nor reintroduced"},
    {Quirk::kNoAckCoalescingLimit, "no_ack_coalescing_limit",
     "ack only on AR, gap or duplicate: no every-4-packets / 4 us ack"},
    {Quirk::kNoRtoBackoff, "no_rto_backoff", "RTO is not doubled after it expires"},
    {Quirk::kAcceptStaleEpoch, "accept_stale_epoch", "data of an older path epoch is processed as current"},
    {Quirk::kRetransmitNewPsn, "retransmit_new_psn", "retransmit a lost packet under a new PSN"},
    {Quirk::kRetransmitOtherPath, "retransmit_other_path", "retransmit a lost packet on another active path"},
    {Quirk::kNoCeEcho, "no_ce_echo", "ACKs carry ce_count 0 and never set ECE"},
    {Quirk::kNoDupAck, "no_dup_ack", "duplicate packets are dropped without an ACK"},
    {Quirk::kIgnoreWindow, "ignore_window", "ignore the congestion window: new data beyond cwnd (the 256-PSN window still holds)"},
    {Quirk::kNoResourceLimit, "no_resource_limit",
     "accept messages beyond the per-stream window instead of NACK RESOURCE"},
    {Quirk::kAcceptEpochJump, "accept_epoch_jump",
     "a PROBE of any epoch serially above the path's starts that epoch (no epoch window: a forged jump stalls the path)"},
    {Quirk::kRnrHoldTenfold, "rnr_hold_tenfold",
     "hold an RNR-NACKed PSN for 10 x the NACK's delay (past the bound of 2 x info + 100 us)"},
    {Quirk::kProbeEpochSkip, "probe_epoch_skip",
     "a failed path's PROBEs announce epoch + 2 instead of next_epoch = epoch + 1 (the peer's epoch window drops them)"},
    {Quirk::kArOnlyOnLast, "ar_only_on_last",
     "AR only on the last packet of a message and on retransmissions, never on the packet that fills the window"},
    {Quirk::kFirstOnEverySegment, "first_on_every_segment",
     "set FIRST on every segment of a message, not only at msg_offset 0"},
    {Quirk::kImmFlagOnWrite, "imm_flag_on_write",
     "set the IMM flag on WRITE packets too (imm stays 0)"},
    {Quirk::kProbeSeqStuck, "probe_seq_stuck",
     "a path's later PROBEs of an epoch repeat the first one's probe_seq instead of counting up"},
    {Quirk::kRetryLimitEight, "retry_limit_eight",
     "allow 8 retransmissions of a packet before RETRY_EXC_ERR (the limit is 7)"},
    {Quirk::kReadsOutstanding65, "reads_outstanding_65",
     "allow 65 READs outstanding per connection (the limit is 64)"},
    {Quirk::kInitialWindow8Mtu, "initial_window_8mtu",
     "start each path's congestion window at 8 MTU instead of 4 MTU"},
    {Quirk::kRtoWindowTwoMtu, "rto_window_two_mtu",
     "an RTO sets the path's cwnd to 2 MTU instead of 1 MTU"},
    {Quirk::kAdditiveIncreaseDouble, "additive_increase_double",
     "additive increase of 2 MTU per window of acknowledged bytes instead of 1"},
    {Quirk::kHalveEveryEce, "halve_every_ece",
     "halve cwnd on every ECE ACK, not at most once per SRTT"},
    {Quirk::kRtoInitial2ms, "rto_initial_2ms",
     "an RTO of 2 ms before the first RTT sample instead of 1 ms"},
    {Quirk::kTriggerPsnIsEpsn, "trigger_psn_epsn",
     "ACKs carry epsn as trigger_psn instead of the PSN that triggered them"},
    {Quirk::kEceOnEveryAck, "ece_on_every_ack",
     "set ECE on every ACK once a CE mark arrived on the path, not only when the trigger was marked"},
    {Quirk::kCeCountDoubled, "ce_count_doubled",
     "count each CE-marked packet twice in ce_count"},
    {Quirk::kRateHintTxUncounted, "rate_hint_tx_uncounted",
     "do not count the ACKs sent in rate_hint_tx"},
    {Quirk::kDupRxUncounted, "dup_rx_uncounted",
     "do not count duplicate data packets in dup_rx"},
    {Quirk::kProbeAckTxTimeZero, "probe_ack_tx_time_zero",
     "PROBE_ACKs echo tx_time 0 instead of the PROBE's tx_time"},
    {Quirk::kOowNackInfoPsn, "oow_nack_info_psn",
     "a NACK PSN_OUT_OF_WINDOW carries the refused PSN in info instead of epsn"},
    {Quirk::kConnectRetryNoDoubling, "connect_retry_no_doubling",
     "retransmit CONNECT_REQ every 1 ms instead of doubling the interval"},
    {Quirk::kDisconnectRetriesFive, "disconnect_retries_five",
     "retransmit an unanswered DISCONNECT 5 times instead of 3"},
    {Quirk::kQuarantine64ms, "quarantine_64ms",
     "keep a closed connection's id in QUARANTINE for 64 ms instead of 128 ms"},
    {Quirk::kQuarantineGaugeClosed, "quarantine_gauge_closed",
     "the conn_state gauge reads 0 (CLOSED) in QUARANTINE instead of 6"},
    {Quirk::kControlNotEct, "control_not_ect",
     "send connection management, ACK, NACK, PROBE and PROBE_ACK frames Not-ECT instead of ECT(0)"},
    {Quirk::kConnectAckKeepsOwnMtu, "connect_ack_keeps_own_mtu",
     "a CONNECT_ACK carries the responder's own MTU even above the requested one"},
    {Quirk::kRecvAfterErrorLost, "recv_after_error_lost",
     "a receive posted to a connection in ERROR is dropped without a WR_FLUSH_ERR completion"},
    {Quirk::kInvalidConnRxUncounted, "invalid_conn_rx_uncounted",
     "do not count data for an unknown connection id in invalid_conn_rx"},
    {Quirk::kFatalCompletionStreamZero, "fatal_completion_stream_zero",
     "the completion of a work request a fatal NACK names carries stream 0"},
    {Quirk::kHintIdleWindow1ms, "hint_idle_window_1ms",
     "count a connection as an active sender in N for 1 ms after its last data packet instead of 100 us"},
    {Quirk::kAckDelayUnitsUs, "ack_delay_in_us",
     "report ack_delay in microseconds instead of 64 ns units"},
}};

}  // namespace

std::span<const QuirkInfo> AllQuirks() { return kQuirkTable; }

std::string KnownQuirkNames() {
  std::string out;
  for (const QuirkInfo& info : kQuirkTable) out += (out.empty() ? "" : ", ") + std::string(info.name);
  return out;
}

Result<Quirks> Quirks::Parse(std::string_view list) {
  Quirks out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view name = list.substr(pos, comma - pos);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) {
      bool found = false;
      for (const QuirkInfo& info : kQuirkTable) {
        if (info.name == name) {
          out.Set(info.quirk);
          found = true;
          break;
        }
      }
      if (!found) return MakeError("quirk.unknown", "unknown quirk '" + std::string(name) + "' (known: " + KnownQuirkNames() + ")");
    }
    pos = comma + 1;
  }
  return out;
}

std::string Quirks::ToString() const {
  std::string out;
  for (const QuirkInfo& info : kQuirkTable) {
    if (!Has(info.quirk)) continue;
    if (!out.empty()) out += ',';
    out += info.name;
  }
  return out;
}

}  // namespace mroce::ref
