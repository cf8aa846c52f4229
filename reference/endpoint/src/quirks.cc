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
