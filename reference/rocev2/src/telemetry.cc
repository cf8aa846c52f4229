#include "mroce/rocev2/telemetry.h"

namespace mroce::rocev2 {

std::string_view CounterName(Counter c) {
  switch (c) {
    case Counter::kTxPkts: return "tx_pkts";
    case Counter::kTxBytes: return "tx_bytes";
    case Counter::kRxPkts: return "rx_pkts";
    case Counter::kRxBytes: return "rx_bytes";
    case Counter::kRetransmits: return "retransmits";
    case Counter::kTimeouts: return "timeouts";
    case Counter::kAcksTx: return "acks_tx";
    case Counter::kAcksRx: return "acks_rx";
    case Counter::kNaksTx: return "naks_tx";
    case Counter::kNaksRx: return "naks_rx";
    case Counter::kSeqNaksTx: return "seq_naks_tx";
    case Counter::kSeqNaksRx: return "seq_naks_rx";
    case Counter::kRnrNaksTx: return "rnr_naks_tx";
    case Counter::kRnrNaksRx: return "rnr_naks_rx";
    case Counter::kRnrRetries: return "rnr_retries";
    case Counter::kImpliedNaks: return "implied_naks";
    case Counter::kDupRx: return "dup_rx";
    case Counter::kOutOfSeqRx: return "out_of_seq_rx";
    case Counter::kIcrcErrors: return "icrc_errors";
    case Counter::kParseErrors: return "parse_errors";
    case Counter::kUnknownQpRx: return "unknown_qp_rx";
    case Counter::kUnknownOpcodeRx: return "unknown_opcode_rx";
    case Counter::kRemoteAccessErrors: return "remote_access_errors";
    case Counter::kEcnCeRx: return "ecn_ce_rx";
    case Counter::kCnpTx: return "cnp_tx";
    case Counter::kCnpRx: return "cnp_rx";
    case Counter::kMessagesTx: return "messages_tx";
    case Counter::kMessagesRx: return "messages_rx";
    case Counter::kCompletions: return "completions";
    case Counter::kErrorCompletions: return "error_completions";
    case Counter::kCount: break;
  }
  return "?";
}

Counters& Counters::operator+=(const Counters& o) {
  for (size_t i = 0; i < kSize; ++i) values_[i] += o.values_[i];
  return *this;
}

void Counters::ForEach(const std::function<void(std::string_view, uint64_t)>& fn) const {
  for (size_t i = 0; i < kSize; ++i) fn(CounterName(static_cast<Counter>(i)), values_[i]);
}

}  // namespace mroce::rocev2
