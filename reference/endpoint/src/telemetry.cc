#include "mroce/endpoint/telemetry.h"

namespace mroce::ref {
namespace {

constexpr std::array<std::string_view, EndpointCounters::kSize> kEndpointNames = {
    "malformed_rx", "crc_errors", "unknown_opcode_rx", "invalid_conn_rx", "invalid_conn_nack_tx",
    "stale_conn_rx", "bad_nonce_rx", "unexpected_cm_rx", "conn_errors", "x_cq_overflows",
};

constexpr std::array<std::string_view, ConnCounters::kSize> kConnNames = {
    "tx_pkts", "tx_bytes", "rx_pkts", "rx_bytes", "retransmits", "bad_version_rx", "bad_path_rx",
    "crc_errors", "stale_msg_rx", "dup_segment_rx", "nack_tx", "nack_rx",
    "nack_tx_psn_out_of_window", "nack_tx_invalid_conn", "nack_tx_rnr", "nack_tx_remote_access",
    "nack_tx_invalid_request", "nack_tx_resource", "nack_tx_remote_op_error",
    "nack_rx_psn_out_of_window", "nack_rx_invalid_conn", "nack_rx_rnr", "nack_rx_remote_access",
    "nack_rx_invalid_request", "nack_rx_resource", "nack_rx_remote_op_error",
    "unknown_nack_rx", "rnr_nack_tx", "rnr_nack_rx", "rate_hint_tx", "rate_hint_rx", "cmpl_success",
    "cmpl_error", "rate_hint_last_tx_mbps", "rate_hint_last_rx_mbps",
    "x_messages_tx", "x_messages_rx", "x_rnr_holds_ended", "x_pacing_rate_mbps",
};

constexpr std::array<std::string_view, PathCounters::kSize> kPathNames = {
    "tx_pkts", "tx_bytes", "retransmits", "loss_inferred", "rto_events", "failover_resends",
    "acks_rx", "ece_rx", "cwnd_decreases", "bad_ack_rx", "stale_epoch_rx", "stale_nack_rx",
    "path_state_changes", "entropy_rerolls", "probes_tx", "probe_acks_rx", "probe_timeouts",
    "reintroductions",
};

constexpr std::array<std::string_view, PathRxCounters::kSize> kPathRxNames = {
    "rx_pkts", "rx_bytes", "acks_tx", "ecn_ce_rx", "dup_rx", "dup_rtx_rx", "stale_epoch_rx",
    "bad_epoch_rx", "probes_rx",
};

template <typename Set, size_t N>
void Visit(const Set& c, const std::array<std::string_view, N>& names, const TelemetryFn& fn) {
  for (size_t i = 0; i < N; ++i) fn(names[i], c.values()[i]);
}

}  // namespace

std::string_view EndpointCounterName(EndpointCounter c) { return kEndpointNames[static_cast<size_t>(c)]; }
std::string_view ConnCounterName(ConnCounter c) { return kConnNames[static_cast<size_t>(c)]; }
std::string_view PathCounterName(PathCounter c) { return kPathNames[static_cast<size_t>(c)]; }
std::string_view PathRxCounterName(PathRxCounter c) { return kPathRxNames[static_cast<size_t>(c)]; }

void ForEachCounter(const EndpointCounters& c, const TelemetryFn& fn) { Visit(c, kEndpointNames, fn); }
void ForEachCounter(const ConnCounters& c, const TelemetryFn& fn) { Visit(c, kConnNames, fn); }
void ForEachCounter(const PathCounters& c, const TelemetryFn& fn) { Visit(c, kPathNames, fn); }
void ForEachCounter(const PathRxCounters& c, const TelemetryFn& fn) { Visit(c, kPathRxNames, fn); }

}  // namespace mroce::ref
