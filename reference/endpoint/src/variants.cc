#include "mroce/endpoint/variants.h"

#include <array>

namespace mroce::ref {
namespace {

constexpr std::array<VariantInfo, kVariantCount> kVariantTable{{
    {Variant::kAckEveryPacket, "ack_every_packet", "MROCE-ACK-010", "ack-timing", "acknowledge every data packet at once"},
    {Variant::kAckEvery2, "ack_every_2", "MROCE-ACK-010", "ack-timing",
     "acknowledge after 2 recorded packets instead of 4 (4 us limit unchanged)"},
    {Variant::kArEveryPacket, "ar_every_packet", "MROCE-ACK-015", "", "set AR on every data packet"},
    {Variant::kSeOnMessages, "se_on_messages", "MROCE-HDR-008", "",
     "set SE in every packet of every SEND, SEND_IMM and WRITE_IMM message"},
    {Variant::kMaxRateZero, "max_rate_zero", "MROCE-CONN-018", "max-rate", "advertise max_rate 0 (unspecified)"},
    {Variant::kMaxRateHalf, "max_rate_half", "MROCE-CONN-018", "max-rate",
     "advertise half the link capacity as max_rate and hold own rate hints to it"},
    {Variant::kFirstPathLast, "first_path_last", "MROCE-STRM-009", "first-path",
     "spray starting from the highest path instead of path 0"},
    {Variant::kFirstPathMiddle, "first_path_middle", "MROCE-STRM-009", "first-path",
     "spray starting from path num_paths / 2"},
    {Variant::kSegmentsReverse, "segments_reverse", "MROCE-STRM-009", "segment-order",
     "send the segments of a message last first"},
    {Variant::kSegmentsOddFirst, "segments_odd_first", "MROCE-STRM-009", "segment-order",
     "send a message's odd-numbered segments first, then the even ones"},
    {Variant::kMessageAtATime, "message_at_a_time", "MROCE-STRM-009", "",
     "send every segment of a message before starting the next ready message"},
    {Variant::kConnIdSequential, "conn_id_sequential", "MROCE-CONN-001", "conn-id", "connection ids 1, 2, 3, ..."},
    {Variant::kConnIdHigh, "conn_id_high", "MROCE-CONN-001", "conn-id", "connection ids 0xFFFFFFFF, 0xFFFFFFFE, ..."},
    {Variant::kNonceCounter, "nonce_counter", "MROCE-CONN-002", "", "nonces 1, 2, 3, ... instead of random"},
    {Variant::kEntropySequential, "entropy_sequential", "MROCE-PATH-003", "entropy",
     "UDP source ports 49152, 49153, ... in turn (initial and re-rolls)"},
    {Variant::kEntropyDescending, "entropy_descending", "MROCE-PATH-003", "entropy",
     "UDP source ports 65535, 65534, ... in turn (initial and re-rolls)"},
    {Variant::kRerollOnEce, "reroll_on_ece", "MROCE-PATH-005", "",
     "re-roll an ACTIVE path's entropy on an ACK with ECE or CE count, at most once per SRTT"},
    {Variant::kReintroduceAfter4, "reintroduce_after_4", "MROCE-PATH-017", "",
     "reintroduce a failed path after 4 consecutive PROBE_ACKs (doubling from 4)"},
    {Variant::kRnrHoldDouble, "rnr_hold_double", "MROCE-RNR-005", "",
     "hold an RNR-NACKed PSN for twice the NACK's delay"},
    {Variant::kProbeClockOffset, "probe_clock_offset", "MROCE-HDR-016", "",
     "PROBE tx_time read from a clock 2^40 ns ahead (opaque to the receiver)"},
    {Variant::kMaxMinHints, "max_min_hints", "MROCE-HINT-003", "",
     "rate hints shared max-min by arrival rate, within HINT-003's sum and floor (else the equal share)"},
    {Variant::kNackInvalidConn, "nack_invalid_conn", "MROCE-DUP-007", "",
     "answer a data packet for an unknown connection with NACK INVALID_CONN, at most one per 1 ms per source address"},
    {Variant::kBurstToB, "burst_to_b", "MROCE-HINT-005", "",
     "send data in bursts up to the burst tolerance B of section 10.4 instead of pacing each packet (HINT-006 is a SHOULD)"},
    {Variant::kResendHighestPath, "resend_highest_path", "MROCE-PATH-014", "",
     "re-send the packets a failed path abandoned on the highest-numbered ACTIVE path with room, not spread by free window"},
    {Variant::kFailOnLinkDown, "fail_on_link_down", "MROCE-PATH-013", "",
     "move a plane's paths to FAILED at once when the attachment reports link down; probe them again when it is up"},
    {Variant::kRetransmitDescending, "retransmit_descending", "MROCE-LOSS-004", "",
     "retransmit the PSNs one ACK or NACK shows lost highest first (after an RTO still lowest first, MROCE-RTO-006)"},
    {Variant::kAckRouteHighest, "ack_route_highest", "MROCE-ACK-011", "",
     "send the ACKs and NACKs of a path that is neither ACTIVE nor SUSPECT with the highest-numbered ACTIVE path of its plane, else the highest ACTIVE path"},
    {Variant::kCmSportMirrored, "cm_sport_mirrored", "MROCE-ENC-004", "",
     "send connection-management packets other than CONNECT_REQ from 114687 - path 0's entropy (its mirror in 49152..65535) instead of path 0's entropy"},
    {Variant::kVerMax2, "ver_max_2", "MROCE-VER-004", "",
     "advertise ver_max 2 in CONNECT_REQ (ver_min <= 1 <= ver_max; the version negotiated with a version-1 peer is still 1)"},
    {Variant::kHoldThroughFailover, "hold_through_failover", "MROCE-RNR-005", "",
     "when a path fails during an RNR or RESOURCE hold, re-send the held content on another path when the hold ends, not at once"},
}};

}  // namespace

std::span<const VariantInfo> AllVariants() { return kVariantTable; }

std::string KnownVariantNames() {
  std::string out;
  for (const VariantInfo& info : kVariantTable) out += (out.empty() ? "" : ", ") + std::string(info.name);
  return out;
}

Result<Variants> Variants::Parse(std::string_view list) {
  Variants out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t sep = list.find_first_of("+,", pos);
    if (sep == std::string_view::npos) sep = list.size();
    std::string_view name = list.substr(pos, sep - pos);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) {
      const VariantInfo* found = nullptr;
      for (const VariantInfo& info : kVariantTable) {
        if (info.name == name) found = &info;
      }
      if (found == nullptr) {
        return MakeError("variant.unknown", "unknown variant '" + std::string(name) + "' (known: " + KnownVariantNames() + ")");
      }
      for (const VariantInfo& other : kVariantTable) {
        if (out.Has(other.variant) && !found->group.empty() && other.group == found->group && other.variant != found->variant) {
          return MakeError("variant.conflict", "variants '" + std::string(other.name) + "' and '" + std::string(name) +
                                                   "' are alternatives for the same choice (" + std::string(found->group) +
                                                   "); pick one");
        }
      }
      out.Set(found->variant);
    }
    pos = sep + 1;
  }
  return out;
}

Variants Variants::AllCompatible() {
  Variants out;
  for (const VariantInfo& info : kVariantTable) {
    bool group_taken = false;
    for (const VariantInfo& other : kVariantTable) {
      group_taken |= out.Has(other.variant) && !info.group.empty() && other.group == info.group;
    }
    if (!group_taken) out.Set(info.variant);
  }
  return out;
}

std::string Variants::ToString() const {
  std::string out;
  for (const VariantInfo& info : kVariantTable) {
    if (!Has(info.variant)) continue;
    if (!out.empty()) out += '+';
    out += info.name;
  }
  return out;
}

}  // namespace mroce::ref
