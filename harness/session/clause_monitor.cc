// The clause monitor (see clause_monitor.h). One pass over the trace in recording order: each frame
// the DUT sent is judged against the state that the frames it received and sent before establish.
#include "mroce/session/clause_monitor.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "mroce/wire/frame.h"

namespace mroce::session {
namespace {

// Rule indices (parallel to Rules()).
enum R : size_t {
  kParse, kSport, kUdpChecksum, kEcn, kReserved, kVersion, kPayloadLen, kChFields, kFlags, kFirstLast, kImm,
  kMehFields, kPathId, kStreamId, kPlane, kSegmentation, kAckRequested, kMessageFields, kPsnSequence,
  kRetransmission, kResend, kFailedPath, kEpoch, kAfterProbes, kWindow, kInitialWindow, kNoRtxOfAcked, kRnrHold, kReadsOutstanding, kStreamWindow, kBeforeEstablished, kAckEpoch, kAckArrived,
  kAckRoute, kEpsnMonotone, kSackPersistent, kAckTrigger, kAckNeedsArrival, kAckDeadline, kCeCount, kRateHint, kNackRefused, kNackInvalidConn,
  kProbeSequence, kProbeTiming, kProbeReintroduceBy, kProbeAckEcho, kProbeAckEpochWindow, kConnectRequest, kConnectRetransmission, kConnectAccept, kConnectReject, kNonce, kDisconnectRetransmission, kDisconnectAck, kConnectReport,
  kCompletionOnce, kCompletionOrder, kCompletionFields, kCompletionFlush, kCountersTx, kCountersRx, kTelemetryNames, kSendingRate, kConnStateGauge, kRuleCount
};

const std::vector<MonitorRule>& Rules() {
  static const std::vector<MonitorRule> rules = {
      {"header.parse", "MROCE-GEN-001", "every frame the DUT sends to the MetaRoCE port parses: layout, lengths, CRC (MROCE-CRC-001)"},
      {"encap.sport", "MROCE-ENC-004", "UDP source port in 49152..65535"},
      {"encap.udp-checksum", "MROCE-ENC-006", "UDP checksum 0 over IPv4"},
      {"encap.ecn", "MROCE-ENC-007", "IP ECN ECT(0) in every packet sent, data and control alike"},
      {"header.reserved", "MROCE-GEN-001", "reserved fields and reserved flag bits 0"},
      {"header.version", "MROCE-HDR-002", "CH.ver 1 in connection management, the negotiated version otherwise"},
      {"header.payload-len", "MROCE-HDR-003", "no payload on READ_REQ and non-data opcodes; data payload at most the negotiated MTU"},
      {"header.ch-fields", "MROCE-HDR-004", "CH.psn 0 except on data and PROBE; path_id and epoch 0 in connection management; dst_conn_id 0 in CONNECT_REQ (table 3.9)"},
      {"header.flags", "MROCE-HDR-005", "AR/RTX/FIRST/LAST on data only, IMM on WRITE_IMM/SEND_IMM, SE on SEND/SEND_IMM/WRITE_IMM, ECE/TRTX on ACK only"},
      {"header.first-last", "MROCE-HDR-006", "FIRST iff msg_offset 0, LAST iff msg_offset + payload_len = msg_len; READ_REQ both"},
      {"header.imm", "MROCE-HDR-007", "IMM set on every WRITE_IMM/SEND_IMM packet and only there; imm 0 when IMM is clear"},
      {"header.meh-fields", "MROCE-GEN-001", "recv_seq 0 unless SEND/SEND_IMM/WRITE_IMM; rkey and va 0 unless WRITE/WRITE_IMM/READ_REQ (table 3.5)"},
      {"header.path-id", "MROCE-PATH-001", "path_id below the negotiated num_paths"},
      {"header.stream-id", "MROCE-STRM-001", "stream_id below the negotiated max_streams"},
      {"encap.plane", "MROCE-ENC-009", "data and PROBE of path p, and the PROBE_ACK for path p, leave through plane p mod num_planes"},
      {"data.segmentation", "MROCE-STRM-007", "msg_offset a multiple of the MTU and below msg_len (0 in an empty message), payload_len = min(MTU, msg_len - msg_offset)"},
      {"data.ack-requested", "MROCE-ACK-014", "AR on the last packet of every message, on every packet with RTX, on a new PSN p with p - snd_una = 255 (snd_una from the ACKs that arrived) and on a new packet after which the initial window has no room for another full-MTU packet (while data.initial-window knows the window)"},
      {"data.message-fields", "MROCE-STRM-004", "every packet of one message carries the same opcode, msg_len and MEH fields; a segment sent again the same bytes"},
      {"data.psn-sequence", "MROCE-PATH-006", "the first new PSN of a path is 0 (in a later epoch the PROBEs' PSN), each further new PSN the previous + 1"},
      {"data.retransmission", "MROCE-LOSS-002", "a PSN sent again on its path and epoch carries RTX and the original's opcode, flags and content"},
      {"data.resend", "MROCE-PATH-014", "RTX on a new PSN (a re-send) only for content sent before, whose last path had failed: the DUT sent a PROBE on it, or its plane's link went down (MROCE-PATH-013)"},
      {"data.failed-path", "MROCE-PATH-011", "no data in a path's epoch once the DUT sent a PROBE announcing a newer one (the path failed)"},
      {"data.epoch", "MROCE-PATH-008", "data starts in epoch 0; a path's epoch changes only to one its PROBEs announced, above the current"},
      {"data.after-probes", "MROCE-PATH-017", "no data in a new epoch before PROBE_ACKs matching 3 distinct PROBEs of the epoch arrived (a PROBE_ACK repeated for the same PROBE counts once)"},
      {"data.window", "MROCE-PATH-007", "a new PSN p only while p - snd_una < 256, snd_una from the ACKs that arrived"},
      {"data.initial-window", "MROCE-CC-003", "in each epoch of a path, until an ACK or NACK naming the epoch arrived or the DUT sent a packet of it again or with RTX, cwnd is the initial 4 x MTU (MROCE-CC-002, MROCE-PATH-018): no new data packet once its payload_len plus the payload bytes sent in the epoch exceed it, unless nothing was sent in the epoch"},
      {"data.no-rtx-of-acked", "MROCE-LOSS-003", "no retransmission of a PSN that an ACK which arrived had acknowledged (live: 5 ms grace)"},
      {"data.rnr-hold", "MROCE-RNR-005", "after an RNR NACK for an outstanding PSN of the path's epoch arrived (info us): no retransmission of that PSN for max(info, 1) us, and one by 2 x max(info, 1) + 100 us + G, unless meanwhile a later RNR NACK for it, an ACK of it, a PROBE of the path, the connection's close or error, the eighth RNR NACK or a hint below 1 Gb/s (simulated clock only)", true},
      {"data.reads-outstanding", "MROCE-PLACE-013", "a new READ_REQ only while fewer than 64 READs of the connection are outstanding (from the READ_REQ until all its READ_RESP bytes arrived)"},
      {"data.stream-window", "MROCE-STRM-011", "no packet of message msn m of a stream while m - u >= 1024, u the lowest msn of the stream whose work request had not completed (the k-th work request posted on a stream is msn k, MROCE-STRM-004; judged while the DUT has one connection)", true},
      {"conn.established", "MROCE-CONN-009", "no packet other than connection management to a connection id before a CONNECT_ACK set it up"},
      {"ack.epoch", "MROCE-ACK-003", "an ACK names epoch 0 or an epoch that a PROBE which arrived announced"},
      {"ack.only-arrived", "MROCE-ACK-003", "epsn and SACK bits acknowledge only PSNs that arrived at the DUT in that epoch (MROCE-ACK-001)"},
      {"ack.route", "MROCE-ACK-011", "an ACK or NACK for a path p the DUT's PROBE showed FAILED (until a PROBE_ACK of the new epoch arrived or data resumed on p) leaves with another path's entropy than p's while another path was certainly ACTIVE (new data with one source port and epoch before and after it, no RTX or PROBE between), and through p's plane while such a path of p's plane existed (judged without plane link changes)", true},
      {"ack.epsn-monotone", "MROCE-ACK-002", "the epsn of a path never decreases within an epoch"},
      {"ack.sack-persistent", "MROCE-ACK-003", "a PSN once reported received stays reported (below epsn or its SACK bit set) within the epoch"},
      {"ack.trigger", "MROCE-ACK-004", "trigger_psn is a PSN that arrived on the path; ECE only if it arrived CE-marked, TRTX only if with RTX"},
      {"ack.needs-arrival", "MROCE-ACK-009", "no ACK of a path on which no data packet arrived since its previous ACK", true},
      {"ack.deadline", "MROCE-ACK-009", "every data packet the DUT recorded (the only copy since the previous ACK of its epoch that the next ACK reports; not when that is ambiguous) is acknowledged by the next ACK of its path within 1 us if it had AR (MROCE-ACK-006), was not epsn when it arrived or filled a gap (MROCE-ACK-007) or was the 4th unacknowledged packet, else within 4 us + G of the oldest unacknowledged one", true},
      {"ack.ce-count", "MROCE-ACK-004", "ce_count at most the CE-marked data packets of the path that arrived since its previous ACK", true},
      {"ack.rate-hint", "MROCE-HINT-001", "rate_hint never 0 nor 0xFFFFFFFF"},
      {"nack.refused-packet", "MROCE-ERR-001", "a NACK has a code of table 16.1 and names path, epoch and PSN of a data packet that arrived"},
      {"nack.invalid-conn", "MROCE-DUP-007", "a NACK INVALID_CONN answers a data packet that arrived for a connection id naming no open connection of the DUT's (CH.dst_conn_id, path, epoch and PSN copied from it, stream_id and msn 0), at most one per 1 ms per source address (1 us granularity; live: not timed)"},
      {"probe.sequence", "MROCE-PATH-016", "PROBEs announce the path's next epoch (current + 1) with the path's snd_nxt, one PSN per epoch, probe_seq 1, 2, 3 ..."},
      {"probe.timing", "MROCE-PATH-016", "the next PROBE of an epoch 100 us after a PROBE_ACK matching the last one arrived, else 1 ms after the last PROBE (1 us granularity), unless the path's plane link went down or up in between (table 7.6 rows 7, 12)", true},
      {"probe.reintroduce-by", "MROCE-PATH-017", "a path is ACTIVE by its 24th consecutive matching PROBE_ACK (R <= 24): no further PROBE of the epoch after 24 in a row", true},
      {"probe-ack.echo", "MROCE-PATH-020", "a PROBE_ACK echoes path_id, path_epoch, probe_seq and tx_time of a PROBE that arrived"},
      {"probe-ack.epoch-window", "MROCE-PATH-019", "no PROBE_ACK for a PROBE 2 or more epochs above the receiver's epoch of the path (dropped, counted in bad_epoch_rx); the receiver's epoch moves only to the next one"},
      {"connect.request", "MROCE-CONN-004", "CONNECT_REQ: reason 0, non-zero src_conn_id (MROCE-CONN-001) and nonce (MROCE-CONN-002), parameters in range"},
      {"connect.retransmission", "MROCE-CONN-005", "a CONNECT_REQ sent again is byte-identical, 1 ms after the first and doubling (1 us granularity; live: not timed), at most 7 times"},
      {"connect.accept", "MROCE-CONN-007", "CONNECT_ACK answers a CONNECT_REQ that arrived: its src_conn_id and nonce, reason 0, values at most requested"},
      {"connect.reject", "MROCE-CONN-006", "an invalid CONNECT_REQ is answered CONNECT_REJ INVALID_PARAMS, never CONNECT_ACK; a CONNECT_REJ has a reason of table 3.7 and echoes the request's CMH but reason, src_conn_id 0 and (VERSION_UNSUPPORTED) the version range"},
      {"connect.nonce", "MROCE-CONN-003", "CONNECT_REJ answers a request that arrived, with its nonce; DISCONNECT(_ACK) carry the connection's nonce"},
      {"disconnect.retransmission", "MROCE-CONN-013", "a DISCONNECT sent again is 1 ms after the first and doubling (1 us granularity; live: not timed), at most 3 times"},
      {"disconnect.ack", "MROCE-CONN-015", "a DISCONNECT_ACK answers a DISCONNECT with the connection's nonce that arrived"},
      {"connect.report", "MROCE-CONN-008", "the DUT's connection events tell what the frames show (table 5.5 rows 6, 7, 8, 9, 11, 15, 17, 21; the ABI's events): REJECTED with the CONNECT_REJ's reason for each of its requests one answered, REJECTED INVALID_PARAMS for each CONNECT_ACK it refused (MROCE-CONN-008), ESTABLISHED (reason 0) for each request a valid CONNECT_ACK answered and each connection it accepted once a packet other than connection management named it, CLOSED for each connection closed by a DISCONNECT it answered in ESTABLISHED (that reason), by the DISCONNECT_ACK of its own DISCONNECT or by a DISCONNECT crossing its DISCONNECT ERROR (either side's reason); TIMEOUT for each of its CONNECT_REQs still unanswered 255 ms after the first transmission (MROCE-CONN-005, row 6; not judged once the harness closed one of its connections); no REJECTED, ESTABLISHED or TIMEOUT beyond what the frames show (due by the harness's poll after the frame that makes them due; simulated clock only)", true},
      {"completion.once", "MROCE-CMPL-007", "at most one completion per work request and per posted receive, none for one never posted"},
      {"completion.order", "MROCE-CMPL-006", "a successful completion only after every earlier work request (or receive) of its stream completed"},
      {"completion.fields", "MROCE-CMPL-009", "a completion carries its work request's connection, stream and kind (a receive completes as a receive, a READ as a READ)"},
      {"completion.flush", "MROCE-CMPL-011", "once the DUT reported its connection in ERROR: no SUCCESS completion of it; every work request and receive outstanding then or posted later completes (posted later: WR_FLUSH_ERR) while the trace runs on for 1 ms"},
      {"counters.tx-exact", "MROCE-TEL-003", "the last telemetry sample's counters of what the DUT sent equal the frames it sent: conn tx_pkts, tx_bytes, retransmits, nack_tx (and per code), rnr_nack_tx, rate_hint_tx; path tx_pkts, tx_bytes, retransmits, probes_tx, failover_resends, rx.acks_tx", true},
      {"counters.rx-exact", "MROCE-TEL-003", "the last telemetry sample's counters of what the DUT received lie between the events that arrived and certainly count and those that may count: conn rx_pkts, rx_bytes, nack_rx (and per code), rnr_nack_rx, unknown_nack_rx, dup_segment_rx, rate_hint_rx (upper bound); path acks_rx, ece_rx, rx.rx_pkts, rx.rx_bytes, rx.ecn_ce_rx, rx.probes_rx, rx.dup_rx, rx.dup_rtx_rx, rx.stale_epoch_rx, rx.bad_epoch_rx; endpoint invalid_conn_rx and the gauge connections_open", true},
      {"telemetry.names", "MROCE-TEL-001", "a DUT that exposes telemetry exposes every counter and gauge of tables 17.2, 17.3 and 17.4 for each connection open at its last sample and each path of it"},
      {"data.rate", "MROCE-HINT-005", "the connection's data (IP total length, all paths) stays within a token bucket of depth B = max(16384, 2 full-MTU packets) filled at the latest hint of an ACK that arrived (the peer's max_rate before the first, capped by it), either hint allowed for 1 us after a change", true},
      {"telemetry.conn-state", "MROCE-TEL-001", "the gauge conn_state of each telemetry sample is the table 17.2 number of the state the frames show the connection in: 1 REQ_SENT after the DUT's CONNECT_REQ until its answer arrived, 2 ACK_SENT after the DUT's CONNECT_ACK until another packet naming the connection arrived (each for at most 255 ms, and only until the harness closed a connection of the DUT's), 6 QUARANTINE for 128 ms after what closed it as connect.report has it: a DISCONNECT it answered with no DISCONNECT of its own, the DISCONNECT_ACK of its own DISCONNECT, a DISCONNECT crossing its DISCONNECT ERROR (table 5.5 rows 15, 17, 21) (simulated clock only)", true},
  };
  return rules;
}

constexpr size_t kKeepPerRule = 8;
constexpr int64_t kGranularityNs = 1000;     // Clock granularity G (table 15.1).
constexpr int64_t kLiveGraceNs = 5'000'000;  // Live DUTs: how long a frame may sit in the DUT unseen.
constexpr int kMaxProbeAcksNeeded = 24;      // R's upper bound (MROCE-PATH-017).

using wire::Opcode;

bool Below(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) < 0; }  // serial a < b
// Epochs are 8-bit serial numbers (MROCE-PATH-008): how far `a` lies above `b`, in -128..127.
int EpochAhead(uint8_t a, uint8_t b) { return static_cast<int8_t>(static_cast<uint8_t>(a - b)); }
bool EpochAbove(uint8_t a, uint8_t b) { return EpochAhead(a, b) > 0; }
std::string Str(uint64_t v) { return std::to_string(v); }
std::string Name(Opcode op) { return std::string(wire::OpcodeName(op)); }

struct Negotiated {
  uint32_t dut_id = 0;
  uint32_t peer_id = 0;
  uint64_t nonce = 0;
  uint8_t version = 1;
  uint8_t num_paths = 0;
  uint8_t num_planes = 0;
  uint16_t mtu = 0;
  uint16_t max_streams = 0;
  uint32_t generation = 0;  // Bumped for each new connection under the same key.
};

// The DUT's sending side of one path of one connection.
struct TxPath {
  bool started = false;   // A data packet was seen.
  uint8_t epoch = 0;      // The epoch of the path's data.
  uint32_t first = 0;     // First PSN of the epoch.
  uint32_t next_new = 0;  // snd_nxt as the frames show it.
  std::map<uint32_t, long> sent;  // PSN -> frame index of its first transmission in this epoch.
  // ACKs of this epoch that arrived.
  bool have_cum = false;
  uint32_t cum = 0;                                        // Highest epsn.
  std::vector<std::pair<int64_t, uint32_t>> cum_history;  // (time, epsn) each time cum rose.
  std::map<uint32_t, int64_t> sacked;                      // PSN -> time first SACKed.
  uint32_t una = 0;
  // The epoch's window while it is certainly the initial 4 x MTU (MROCE-CC-002, PATH-018): no ACK
  // or NACK naming the epoch arrived (the only inputs that move cwnd apart from an RTO, whose
  // retransmission comes before any new data, MROCE-LOSS-004) and no packet sent again or with RTX.
  bool initial_window = true;
  uint64_t initial_sent = 0;  // payload bytes of the epoch's new packets while initial_window holds
  std::set<uint8_t> feedback;  // epochs an ACK or NACK named that arrived
  // PROBEs the DUT sent: epoch -> (psn, frame of the first); (epoch, probe_seq, tx_time) of each.
  std::map<uint8_t, std::pair<uint32_t, long>> probe_psn;
  std::set<std::tuple<uint8_t, uint32_t, uint64_t>> probes;
  std::map<uint8_t, int> probe_acks;  // epoch -> PROBEs of it a matching PROBE_ACK answered (a repeated PROBE_ACK counts once)
  std::set<std::tuple<uint8_t, uint32_t, uint64_t>> probes_answered;
  uint32_t last_probe_seq = 0;
  int consecutive_acks = 0;  // Matching PROBE_ACKs in a row (no probe timeout between) in the last PROBE's epoch.
  // The last PROBE (epoch, probe_seq, tx_time, frame) and when a PROBE_ACK matching it first arrived.
  struct LastProbe {
    uint8_t epoch = 0;
    uint32_t seq = 0;
    uint64_t tx_time = 0;
    long frame = -1;
    int64_t acked_at = -1;
  };
  std::optional<LastProbe> last_probe;
  std::vector<int64_t> probe_sent_at;  // every PROBE the DUT sent on the path
  // RNR holds (MROCE-RNR-005): (epoch, psn) -> the RNR NACKs a conformant sender certainly took, and
  // the times the DUT retransmitted the PSN in that epoch.
  struct RnrHold {
    int64_t at = 0;
    uint16_t info = 0;
    long frame = -1;
  };
  std::map<std::pair<uint8_t, uint32_t>, std::vector<RnrHold>> rnr_holds;
  std::map<std::pair<uint8_t, uint32_t>, std::vector<int64_t>> rtx_at;
};

// The DUT's receiving side of one path of one connection.
struct RxPath {
  uint8_t current = 0;                                // the highest epoch a PROBE that arrived announced
  std::map<uint8_t, uint32_t> epoch_first;            // epoch -> first PSN (the PROBE's that started it)
  std::map<uint8_t, std::set<uint32_t>> arrived;      // epoch -> PSNs that arrived
  std::map<uint8_t, uint32_t> contiguous;             // epoch -> lowest PSN from the first not arrived (lazy)
  std::map<uint32_t, std::pair<bool, bool>> trigger;  // PSN (any epoch) -> (arrived CE-marked once, with RTX once)
  uint64_t arrivals_since_ack = 0;
  uint64_t ce_since_ack = 0;
  uint8_t answered = 0;  // the highest epoch the DUT sent a PROBE_ACK in: its epoch of the path is at least this
  struct Reported {  // What the DUT's last ACK of an epoch said.
    bool any = false;
    uint32_t epsn = 0;
    std::vector<uint32_t> sacked;
    long frame = -1;
  };
  std::map<uint8_t, Reported> reported;
  // For ack.deadline (MROCE-ACK-006/007/009): every data copy that arrived, every ACK and NACK the
  // DUT sent for the path, in trace order.
  struct DataIn {
    long frame;
    int64_t t;
    uint8_t epoch;
    uint32_t psn;
    bool ar;
    bool valid;  // passes every check before recording the monitor can see (version, path id, checksums)
  };
  struct AckOut {
    long frame;
    int64_t t;
    uint8_t epoch;
    wire::AckHeader ack;
  };
  std::vector<DataIn> data_in;
  std::vector<AckOut> acks_out;
  std::vector<std::tuple<long, uint8_t, uint32_t>> nacks_out;  // (frame, epoch, PSN)
};

using ConnKey = std::pair<int, uint32_t>;  // (remote host, the peer's connection id)

// A frame the DUT sent on a connection, for the exact send counters (chapter 17).
struct TxEvent {
  int64_t t = 0;
  std::string counter;  // "conn.nack_tx", "path.P.tx_pkts", ... (without the connection id)
  uint64_t add = 1;
  long frame = -1;  // the frame's index in the trace
};
// A frame that arrived at the DUT, for the receive counters (chapter 17): it either certainly counts
// (the DUT's state is known from the frames: an open connection, its epoch of the path, what it
// acknowledged) or only may count (the connection was closing, a check order the spec leaves open).
struct RxEvent {
  int64_t t = 0;
  std::string counter;  // "conn.nack_rx", "path.P.rx.dup_rx", "endpoint.invalid_conn_rx"
  uint64_t add = 1;
  bool certain = true;
};
const char* const kNackRxNames[] = {"", "nack_rx_psn_out_of_window", "nack_rx_invalid_conn", "nack_rx_rnr",
                                    "nack_rx_remote_access", "nack_rx_invalid_request", "nack_rx_resource",
                                    "nack_rx_remote_op_error"};
bool FatalNack(uint8_t code) { return code == 0x02 || code == 0x04 || code == 0x05 || code == 0x07; }  // table 16.1
const char* const kNackTxNames[] = {"", "nack_tx_psn_out_of_window", "nack_tx_invalid_conn", "nack_tx_rnr",
                                    "nack_tx_remote_access", "nack_tx_invalid_request", "nack_tx_resource",
                                    "nack_tx_remote_op_error"};
using ReqKey = std::tuple<int, uint32_t, uint64_t>;  // (remote host, requester's src_conn_id, nonce)

class Monitor {
 public:
  explicit Monitor(const RunRecord& rec) : t_(rec.trace), live_(!rec.dut_caps.simulated_time) {
    out_.judged.assign(kRuleCount, 0);
    out_.violation_counts.assign(kRuleCount, 0);
    out_.at_bound.assign(kRuleCount, 0);
  }

  MonitorReport Run() {
    for (size_t i = 0; i < t_.frames.size(); ++i) {
      const FrameRecord& r = t_.frames[i];
      if (r.event == FrameRecord::Event::kTx && r.from_dut()) {
        DutSent(static_cast<long>(i));
      } else if (r.event == FrameRecord::Event::kRx && r.to_dut()) {
        DutGot(static_cast<long>(i));
      }
    }
    Completions();
    StreamWindow();
    AckRoutes();
    AckDeadlines();
    CountersTx();
    CountersRx();
    TelemetryNames();
    SendingRate();
    RnrHoldEnds();
    ConnectReports();
    ConnStateGauges();
    return std::move(out_);
  }

 private:
  const Trace& t_;
  bool live_ = false;
  MonitorReport out_;
  MonitorViolation sink_;  // Takes the violations beyond kKeepPerRule.

  std::map<ConnKey, Negotiated> conns_;
  std::map<std::pair<int, uint32_t>, ConnKey> by_dut_id_;  // (host, DUT's id) -> key
  std::map<std::tuple<ConnKey, uint32_t, uint8_t>, TxPath> tx_;  // (key, generation, path)
  std::map<std::tuple<ConnKey, uint32_t, uint8_t>, RxPath> rx_;
  // First packet of each message and of each segment: (key, generation, stream, msn, is READ_RESP[, offset]).
  std::map<std::tuple<ConnKey, uint32_t, uint16_t, uint32_t, bool>, long> message_;
  std::map<std::tuple<ConnKey, uint32_t, uint16_t, uint32_t, bool, uint32_t>, long> segment_;
  // The last transmission of each segment: (key, generation, stream, msn, READ_RESP, offset) -> frame.
  std::map<std::tuple<ConnKey, uint32_t, uint16_t, uint32_t, bool, uint32_t>, long> last_sent_;
  std::map<ReqKey, std::vector<long>> dut_requests_;  // The DUT's CONNECT_REQs.
  std::map<ReqKey, long> arrived_requests_;           // CONNECT_REQs that arrived at the DUT.
  std::map<ReqKey, long> dut_accepts_;                // The DUT's first CONNECT_ACK per request.
  std::map<ConnKey, uint64_t> refused_accepts_;
  std::map<std::pair<ConnKey, uint32_t>, std::vector<TxEvent>> tx_events_;  // (key, generation) -> what it sent
  std::map<ReqKey, std::vector<long>> dut_disconnects_;   // (host, peer id, nonce) -> the DUT's DISCONNECTs
  std::map<ReqKey, std::pair<long, uint32_t>> first_disconnect_rx_;  // (host, DUT's id, nonce) -> (frame, reason) of the first that arrived
  std::set<ReqKey> arrived_disconnects_;                  // (host, DUT's id, nonce) of DISCONNECTs that arrived       // CONNECT_ACKs beyond the request: (host, peer id) -> nonce
  std::set<std::tuple<int, uint8_t, uint8_t, uint32_t>> arrived_data_;  // (host, path, epoch, psn)
  // Data that arrived for a connection id naming no open connection of the DUT's (unknown, or one
  // closing): (host, id, path, epoch, psn). What a NACK INVALID_CONN may answer (MROCE-DUP-007).
  std::set<std::tuple<int, uint32_t, uint8_t, uint8_t, uint32_t>> unknown_conn_data_;
  std::map<int, long> last_invalid_conn_nack_;  // host -> the DUT's latest NACK INVALID_CONN to it
  std::set<std::tuple<int, uint32_t, uint8_t, uint8_t, uint32_t, uint64_t>> arrived_probes_;
  // Receive counters.
  std::map<std::pair<ConnKey, uint32_t>, std::vector<RxEvent>> rx_events_;  // (key, generation) -> events
  std::vector<RxEvent> endpoint_rx_;
  // Past ESTABLISHED as the frames show (DISCONNECT, fatal NACK): when the frames first showed it.
  std::map<std::pair<ConnKey, uint32_t>, int64_t> closing_at_;
  // READs of the DUT (MROCE-PLACE-013): (key, generation) -> (stream, msn) -> response bytes awaited.
  struct OpenRead {
    uint64_t len = 0;
    uint64_t got = 0;
    std::set<uint32_t> offsets;
  };
  std::map<std::pair<ConnKey, uint32_t>, std::map<std::pair<uint16_t, uint32_t>, OpenRead>> reads_;
  struct StreamData {
    long frame;
    ConnKey key;
    uint32_t generation;
    uint16_t stream;
    uint32_t msn;
  };
  std::vector<StreamData> stream_data_;
  // MROCE-ACK-011: what the DUT sent on each path and the PROBE_ACKs it got, per connection.
  struct RouteEvent {
    enum Kind : uint8_t { kNew, kRtx, kProbe, kAck, kProbeAckIn };
    long frame;
    Kind kind;
    uint8_t path;
    uint8_t epoch;
    uint16_t sport;
    int plane;
  };
  std::map<std::pair<ConnKey, uint32_t>, std::vector<RouteEvent>> route_;
  std::map<std::pair<ConnKey, uint32_t>, uint8_t> route_planes_;
  uint16_t sport_ = 0;  // the UDP source port of the DUT frame being judged
  void Route(const ConnKey& key, const Negotiated& n, long i, RouteEvent::Kind kind, uint8_t path, uint8_t epoch) {
    route_planes_[{key, n.generation}] = n.num_planes;
    route_[{key, n.generation}].push_back({i, kind, path, epoch, sport_, t_.frames[static_cast<size_t>(i)].plane});
  }  // every data packet the DUT sent but READ_RESP, in order
  void Close(const std::pair<ConnKey, uint32_t>& kg, int64_t t) { closing_at_.try_emplace(kg, t); }
  std::set<uint32_t> dut_ids_;                      // every connection id the DUT used
  std::set<std::pair<ConnKey, uint32_t>> established_;  // a packet arrived on it, or it answered the DUT's request
  // What the DUT must report to its application (connect.report): the frame that makes each report
  // due, with the reason the report carries.
  struct Due {
    int64_t time = 0;
    long frame = -1;
    uint32_t reason = 0;
    uint32_t alt = 0xFFFFFFFFu;  // another reason the report may carry (both sides sent a DISCONNECT)
  };
  std::map<ReqKey, int64_t> answered_requests_;  // the DUT's requests a CONNECT_ACK or CONNECT_REJ answered: when first
  std::vector<Due> due_rejected_;       // a CONNECT_REJ (its reason), or a CONNECT_ACK the DUT refused (INVALID_PARAMS)
  std::vector<Due> due_established_;    // a valid CONNECT_ACK answering the DUT's request
  std::set<std::pair<int, uint32_t>> accepted_ids_;  // (host, id) of the DUT's CONNECT_ACKs
  std::map<std::pair<int, uint32_t>, Due> used_ids_;  // of those, ids a later packet named: its first (responder ESTABLISHED)
  std::map<ReqKey, long> dut_disconnected_;          // (host, DUT's id, nonce) -> the DUT's first DISCONNECT
  // (host, DUT's id) -> what closed it: a DISCONNECT it answered in ESTABLISHED (row 15), or, after
  // its own DISCONNECT, the DISCONNECT_ACK that arrived (rows 17, 21) or in ERROR a DISCONNECT (row 21).
  std::map<std::pair<int, uint32_t>, Due> due_closed_;
  using SegKey = std::tuple<ConnKey, uint32_t, uint16_t, uint32_t, bool, uint32_t>;  // as segment_
  using MsgKey = std::tuple<ConnKey, uint32_t, uint16_t, uint32_t, bool>;
  std::map<SegKey, std::tuple<uint8_t, uint8_t, uint32_t>> rx_segment_;  // -> (path, epoch, psn) of its first arrival
  std::map<MsgKey, std::set<uint32_t>> rx_offsets_;                        // offsets of a message that arrived

  // --- reporting ----------------------------------------------------------------------------------
  void Judged(R rule) { ++out_.judged[rule]; }
  MonitorViolation& Violate(R rule, long frame, std::string reason, long related = -1) {
    if (out_.violation_counts[rule]++ >= kKeepPerRule) return sink_ = MonitorViolation{};
    MonitorViolation v;
    v.rule = rule;
    v.frame = frame;
    v.related = related;
    v.reason = std::move(reason);
    out_.violations.push_back(std::move(v));
    return out_.violations.back();
  }
  static void Values(MonitorViolation& v, std::string field, uint64_t expected, uint64_t actual) {
    v.field = std::move(field);
    v.expected = expected;
    v.actual = actual;
    v.has_values = true;
  }
  void Expect(R rule, bool ok, long frame, const std::string& reason, const std::string& field, uint64_t expected,
              uint64_t actual, long related = -1) {
    Judged(rule);
    if (!ok) Values(Violate(rule, frame, reason, related), field, expected, actual);
  }

  // --- decoding -----------------------------------------------------------------------------------
  std::optional<wire::Frame> Decode(const FrameRecord& r, std::string* error = nullptr) const {
    wire::ParseOptions o;
    o.meta_port = t_.meta_port;
    auto f = wire::ParseFrame(r.bytes, o);
    if (!f.ok()) {
      if (error != nullptr) *error = f.error().code + ": " + f.error().message;
      return std::nullopt;
    }
    return std::move(f).value();
  }
  // Whether a frame passes every check of the codec, a non-zero UDP checksum included (MROCE-ENC-006).
  bool StrictlyValid(const FrameRecord& r) const {
    wire::ParseOptions o;
    o.meta_port = t_.meta_port;
    o.verify_udp_checksum = true;
    return wire::ParseFrame(r.bytes, o).ok();
  }
  // The MetaRoCE packet of a frame already found parseable (a copy).
  wire::MetaPacket MetaAt(long idx) const { return *Decode(t_.frames[idx])->meta(); }
  // Whether a frame that does not parse was meant for the MetaRoCE port.
  bool ToMetaPort(const FrameRecord& r) const {
    wire::ParseOptions o;
    o.meta_port = t_.meta_port;
    o.verify_crc = false;
    o.verify_ip_checksum = false;
    auto f = wire::ParseFrame(r.bytes, o);
    if (f.ok()) return f.value().udp.dport == t_.meta_port;
    const auto& b = r.bytes;  // Not even the lengths hold: UDP to the port at the IPv4 offsets?
    return b.size() >= 38 && b[12] == 0x08 && b[13] == 0x00 && b[23] == 17 && ((b[36] << 8) | b[37]) == t_.meta_port;
  }

  // --- connections --------------------------------------------------------------------------------
  const Negotiated* Conn(const ConnKey& k) const {
    auto it = conns_.find(k);
    return it == conns_.end() ? nullptr : &it->second;
  }
  TxPath& Tx(const ConnKey& k, const Negotiated& n, uint8_t path) { return tx_[{k, n.generation, path}]; }
  RxPath& Rx(const ConnKey& k, const Negotiated& n, uint8_t path) { return rx_[{k, n.generation, path}]; }
  void Register(const ConnKey& k, Negotiated n) {
    auto it = conns_.find(k);
    if (it != conns_.end()) {
      if (it->second.nonce == n.nonce && it->second.dut_id == n.dut_id) return;  // the same connection again
      n.generation = it->second.generation + 1;
    }
    conns_[k] = n;
    by_dut_id_[{k.first, n.dut_id}] = k;
  }
  static Negotiated FromCmh(const wire::ConnMgmtHeader& c, uint32_t dut_id, uint32_t peer_id) {
    Negotiated n;
    n.dut_id = dut_id;
    n.peer_id = peer_id;
    n.nonce = c.nonce;
    n.version = c.ver_min;
    n.num_paths = c.num_paths;
    n.num_planes = c.num_planes;
    n.mtu = c.mtu;
    n.max_streams = c.max_streams;
    return n;
  }

  // The connection a non-connection-management packet of the DUT names; judges conn.established.
  const Negotiated* Named(long i, const FrameRecord& r, const wire::MetaPacket& m, ConnKey* key) {
    *key = {r.dst_host, m.ch.dst_conn_id};
    const Negotiated* n = Conn(*key);
    Judged(kBeforeEstablished);
    if (n == nullptr) {
      Values(Violate(kBeforeEstablished, i,
                     Name(m.ch.opcode) + " to connection id " + Str(m.ch.dst_conn_id) +
                         " before any CONNECT_ACK set up a connection with that id"),
             "ch.dst_conn_id", 0, m.ch.dst_conn_id);
      return nullptr;
    }
    Expect(kVersion, m.ch.ver == n->version, i, "CH.ver differs from the negotiated version", "ch.ver", n->version,
           m.ch.ver);
    return n;
  }
  void Plane(long i, const FrameRecord& r, const Negotiated& n, uint8_t path) {
    if (n.num_planes == 0) return;
    const int want = path % n.num_planes;
    Expect(kPlane, r.plane == want, i, "path " + Str(path) + " sent through plane " + Str(r.plane), "plane", want, r.plane);
  }

  // --- frames the DUT sent ------------------------------------------------------------------------
  void DutSent(long i) {
    const FrameRecord& r = t_.frames[i];
    std::string error;
    auto fr = Decode(r, &error);
    if (!fr) {
      if (ToMetaPort(r)) {
        Judged(kParse);
        Violate(kParse, i, "the DUT sent a frame to the MetaRoCE port that does not parse: " + error);
      }
      return;
    }
    const wire::MetaPacket* m = fr->meta();
    if (m == nullptr) return;  // RoCEv2 or another protocol: not judged here
    Judged(kParse);
    const Opcode op = m->ch.opcode;
    const bool data = wire::IsDataOpcode(op);
    const bool cm = wire::ExtKindOf(op) == wire::ExtKind::kConnMgmt;
    Expect(kSport, fr->udp.sport >= 49152, i, "UDP source port below the entropy range 49152..65535", "udp.sport", 49152,
           fr->udp.sport);
    if (fr->is_ipv4()) {
      Expect(kUdpChecksum, fr->udp.checksum == 0, i, "UDP checksum over IPv4 not 0", "udp.checksum", 0, fr->udp.checksum);
    }
    Expect(kEcn, fr->ecn() == wire::kEcnEct0, i, "IP ECN is not ECT(0) (binary 10)", "ip.ecn", wire::kEcnEct0, fr->ecn());
    Reserved(i, *m);
    if (cm) {
      Expect(kVersion, m->ch.ver == 1, i, "connection-management packet with CH.ver other than 1 (MROCE-VER-001)", "ch.ver",
             1, m->ch.ver);
    }
    Flags(i, *m);
    ChFields(i, *m);
    if (!data || op == Opcode::kReadReq) {
      Expect(kPayloadLen, m->payload.empty(), i, Name(op) + " carries payload", "ch.payload_len", 0, m->payload.size());
    }
    RecordTx(i, *fr, *m);
    sport_ = fr->udp.sport;
    if (data) {
      DataSent(i, *m);
    } else if (op == Opcode::kAck) {
      AckSent(i, r, *m);
    } else if (op == Opcode::kNack) {
      NackSent(i, r, *m);
    } else if (op == Opcode::kProbe) {
      ProbeSent(i, r, *m);
    } else if (op == Opcode::kProbeAck) {
      ProbeAckSent(i, r, *m);
    } else if (cm) {
      CmSent(i, r, *m);
    }
  }

  void RecordTx(long i, const wire::Frame& fr, const wire::MetaPacket& m) {
    const FrameRecord& r = t_.frames[static_cast<size_t>(i)];
    const Opcode op = m.ch.opcode;
    if (wire::ExtKindOf(op) == wire::ExtKind::kConnMgmt) return;
    const ConnKey key{r.dst_host, m.ch.dst_conn_id};
    const Negotiated* n = Conn(key);
    if (n == nullptr) return;
    auto& ev = tx_events_[{key, n->generation}];
    const std::string path = "path." + Str(m.ch.path_id) + ".";
    if (wire::IsDataOpcode(op)) {
      const uint64_t ip_len = fr.is_ipv4() ? fr.ip4()->total_len : fr.ip6()->payload_len + 40u;
      RateTrack& rt = rate_[{key, n->generation}];
      rt.sent.emplace_back(r.time_ns, ip_len, i);
      rt.full_packet = std::max<uint64_t>(rt.full_packet, ip_len - m.payload.size() + n->mtu);
      for (const std::string& scope : {std::string("conn."), path}) {
        ev.push_back({r.time_ns, scope + "tx_pkts", 1, i});
        ev.push_back({r.time_ns, scope + "tx_bytes", ip_len, i});
        if (m.ch.Has(wire::kFlagRtx)) ev.push_back({r.time_ns, scope + "retransmits", 1, i});
      }
    } else if (op == Opcode::kAck) {
      ev.push_back({r.time_ns, "conn.rate_hint_tx", 1, i});
      ev.push_back({r.time_ns, path + "rx.acks_tx", 1, i});
    } else if (op == Opcode::kNack) {
      const uint8_t code = static_cast<uint8_t>(m.nack()->code);
      if (code == static_cast<uint8_t>(wire::NackCode::kInvalidConn)) return;  // names no connection of the DUT
      ev.push_back({r.time_ns, "conn.nack_tx", 1, i});
      if (code >= 1 && code <= 7) ev.push_back({r.time_ns, std::string("conn.") + kNackTxNames[code], 1, i});
      if (m.nack()->code == wire::NackCode::kRnr) ev.push_back({r.time_ns, "conn.rnr_nack_tx", 1, i});
    } else if (op == Opcode::kProbe) {
      ev.push_back({r.time_ns, path + "probes_tx", 1, i});
    }
  }

  // MROCE-TEL-003 for the send counters: each counter of the DUT's last telemetry sample lies between
  // the frames it sent before the sample and those sent up to its instant (same-nanosecond order).
  void CountersTx() {
    if (live_) return;
    const TelemetrySample* s = t_.LastTelemetry(kDutHost);
    if (s == nullptr) return;
    std::map<std::string, uint64_t> value;
    for (const auto& [name, v] : s->counters) value[name] = v;
    for (const auto& [k, n] : conns_) {
      auto ev = tx_events_.find({k, n.generation});
      // Every counter this connection's frames name, with the counts before and up to the sample.
      std::map<std::string, std::pair<uint64_t, uint64_t>> want;
      for (const char* base : {"conn.tx_pkts", "conn.tx_bytes", "conn.retransmits", "conn.nack_tx", "conn.rnr_nack_tx",
                               "conn.rate_hint_tx"}) {
        want[base] = {0, 0};
      }
      for (int c = 1; c <= 7; ++c) {
        if (c != static_cast<int>(wire::NackCode::kInvalidConn)) want[std::string("conn.") + kNackTxNames[c]] = {0, 0};
      }
      for (int p = 0; p < n.num_paths; ++p) {
        for (const char* name : {"tx_pkts", "tx_bytes", "retransmits", "probes_tx", "failover_resends", "rx.acks_tx"}) {
          want["path." + Str(p) + "." + name] = {0, 0};
        }
      }
      if (ev != tx_events_.end()) {
        for (const TxEvent& e : ev->second) {
          auto& w = want[e.counter];
          if (s->frames_before && e.frame >= 0) {
            // The sample's place in the frame order is known (simulated testbed): a frame sent in the
            // sample's nanosecond is before it or after it, not either.
            if (static_cast<size_t>(e.frame) < *s->frames_before) {
              w.first += e.add;
              w.second += e.add;
            }
            continue;
          }
          if (e.t < s->time_ns) w.first += e.add;
          if (e.t <= s->time_ns) w.second += e.add;
        }
      }
      for (const auto& [counter, range] : want) {
        // conn.C.NAME or path.C.P.NAME in the DUT's names.
        const std::string name = counter.rfind("conn.", 0) == 0 ? "conn." + Str(n.dut_id) + "." + counter.substr(5)
                                                                 : "path." + Str(n.dut_id) + "." + counter.substr(5);
        auto it = value.find(name);
        if (it == value.end()) continue;  // not exposed (telemetry is an optional feature; TEL-001 is a case's job)
        Judged(kCountersTx);
        if (it->second < range.first || it->second > range.second) {
          MonitorViolation& v = Violate(kCountersTx, -1,
                                        "counter " + name + " is " + Str(it->second) + " but the DUT sent " + Str(range.first) +
                                            (range.second != range.first ? ".." + Str(range.second) : "") +
                                            " such events before its last telemetry sample at " + Str(s->time_ns) + " ns");
          Values(v, name, range.first, it->second);
        }
      }
    }
  }

  void Reserved(long i, const wire::MetaPacket& m) {
    auto zero = [&](const char* field, uint64_t v) {
      Expect(kReserved, v == 0, i, std::string("reserved field ") + field + " not 0", field, 0, v);
    };
    zero("ch.rsvd0", m.ch.rsvd0);
    zero("ch.flags.rsvd", m.ch.flags & wire::kFlagsReservedMask);
    if (const auto* e = m.meh()) {
      zero("meh.rsvd1", e->rsvd1);
      zero("meh.rsvd2", e->rsvd2);
      zero("meh.rsvd3", e->rsvd3);
    }
    if (const auto* e = m.nack()) zero("nakh.rsvd", e->rsvd);
    if (const auto* e = m.cmh()) {
      zero("cmh.rsvd4", e->rsvd4);
      zero("cmh.rsvd5", e->rsvd5);
      zero("cmh.rsvd6", e->rsvd6);
    }
    if (const auto* e = m.prh()) zero("prh.rsvd7", e->rsvd7);
  }

  void Flags(long i, const wire::MetaPacket& m) {
    const Opcode op = m.ch.opcode;
    uint16_t allowed = 0;
    if (wire::IsDataOpcode(op)) allowed |= wire::kFlagAr | wire::kFlagRtx | wire::kFlagFirst | wire::kFlagLast;
    if (op == Opcode::kWriteImm || op == Opcode::kSendImm) allowed |= wire::kFlagImm;
    if (op == Opcode::kSend || op == Opcode::kSendImm || op == Opcode::kWriteImm) allowed |= wire::kFlagSe;
    if (op == Opcode::kAck) allowed |= wire::kFlagEce | wire::kFlagTrtx;
    const uint16_t defined = m.ch.flags & static_cast<uint16_t>(~wire::kFlagsReservedMask);
    Expect(kFlags, (defined & ~allowed) == 0, i, "flag bits not allowed on " + Name(op) + " (table 3.2)", "ch.flags",
           defined & allowed, defined);
  }

  void ChFields(long i, const wire::MetaPacket& m) {
    const Opcode op = m.ch.opcode;
    if (!wire::IsDataOpcode(op) && op != Opcode::kProbe) {
      Expect(kChFields, m.ch.psn == 0, i, "CH.psn of " + Name(op) + " not 0", "ch.psn", 0, m.ch.psn);
    }
    if (wire::ExtKindOf(op) == wire::ExtKind::kConnMgmt) {
      Expect(kChFields, m.ch.path_id == 0, i, "connection-management packet with CH.path_id not 0", "ch.path_id", 0,
             m.ch.path_id);
      Expect(kChFields, m.ch.path_epoch == 0, i, "connection-management packet with CH.path_epoch not 0", "ch.path_epoch",
             0, m.ch.path_epoch);
    }
    if (op == Opcode::kConnectReq) {
      Expect(kChFields, m.ch.dst_conn_id == 0, i, "CONNECT_REQ with CH.dst_conn_id not 0", "ch.dst_conn_id", 0,
             m.ch.dst_conn_id);
    }
  }

  void DataSent(long i, const wire::MetaPacket& m) {
    const FrameRecord& r = t_.frames[i];
    const wire::MessageExt& e = *m.meh();
    const Opcode op = m.ch.opcode;
    const auto& ch = m.ch;
    const uint32_t len = static_cast<uint32_t>(m.payload.size());
    if (op == Opcode::kReadReq) {
      const bool both = ch.Has(wire::kFlagFirst) && ch.Has(wire::kFlagLast);
      Expect(kFirstLast, both, i, "READ_REQ without both FIRST and LAST", "ch.flags.first&last", 1, both);
    } else {
      const bool first = e.msg_offset == 0;
      const bool last = static_cast<uint64_t>(e.msg_offset) + len == e.msg_len;
      Expect(kFirstLast, ch.Has(wire::kFlagFirst) == first, i, "FIRST does not match msg_offset == 0", "ch.flags.first",
             first, ch.Has(wire::kFlagFirst));
      Expect(kFirstLast, ch.Has(wire::kFlagLast) == last, i, "LAST does not match msg_offset + payload_len == msg_len",
             "ch.flags.last", last, ch.Has(wire::kFlagLast));
    }
    const bool imm_op = op == Opcode::kWriteImm || op == Opcode::kSendImm;
    Expect(kImm, ch.Has(wire::kFlagImm) == imm_op, i, "IMM flag wrong on " + Name(op), "ch.flags.imm", imm_op,
           ch.Has(wire::kFlagImm));
    if (!ch.Has(wire::kFlagImm)) Expect(kImm, e.imm == 0, i, "imm not 0 while IMM is clear", "meh.imm", 0, e.imm);
    const bool uses_recv = op == Opcode::kSend || op == Opcode::kSendImm || op == Opcode::kWriteImm;
    const bool uses_remote = op == Opcode::kWrite || op == Opcode::kWriteImm || op == Opcode::kReadReq;
    if (!uses_recv) {
      Expect(kMehFields, e.recv_seq == 0, i, "recv_seq not 0 on " + Name(op), "meh.recv_seq", 0, e.recv_seq);
    }
    if (!uses_remote) {
      Expect(kMehFields, e.rkey == 0, i, "rkey not 0 on " + Name(op), "meh.rkey", 0, e.rkey);
      Expect(kMehFields, e.va == 0, i, "va not 0 on " + Name(op), "meh.va", 0, e.va);
    }
    const bool last_packet = op == Opcode::kReadReq || ch.Has(wire::kFlagLast);
    if (last_packet || ch.Has(wire::kFlagRtx)) {
      Expect(kAckRequested, ch.Has(wire::kFlagAr), i,
             last_packet ? "last packet of a message without AR" : "packet with RTX without AR", "ch.flags.ar", 1, 0);
    }
    ConnKey key;
    const Negotiated* n = Named(i, r, m, &key);
    if (n == nullptr) return;
    Expect(kPathId, ch.path_id < n->num_paths, i, "path_id not below the negotiated num_paths", "ch.path_id",
           n->num_paths - 1u, ch.path_id);
    Expect(kStreamId, e.stream_id < n->max_streams, i, "stream_id not below the negotiated max_streams", "meh.stream_id",
           n->max_streams - 1u, e.stream_id);
    Plane(i, r, *n, ch.path_id);
    if (n->mtu != 0) {
      Expect(kPayloadLen, len <= n->mtu, i, "payload longer than the negotiated MTU", "ch.payload_len", n->mtu, len);
      if (op != Opcode::kReadReq) {
        Expect(kSegmentation, e.msg_offset % n->mtu == 0, i, "msg_offset not a multiple of the MTU", "meh.msg_offset",
               e.msg_offset - e.msg_offset % n->mtu, e.msg_offset);
        Expect(kSegmentation, e.msg_offset < e.msg_len || (e.msg_len == 0 && e.msg_offset == 0), i,
               "msg_offset at or beyond msg_len (a segment past the message's end)", "meh.msg_offset",
               e.msg_len == 0 ? 0 : e.msg_len - 1, e.msg_offset);
        const uint64_t want = e.msg_offset >= e.msg_len ? 0 : std::min<uint64_t>(n->mtu, e.msg_len - e.msg_offset);
        Expect(kSegmentation, len == want, i, "payload_len not min(MTU, msg_len - msg_offset)", "ch.payload_len", want, len);
      }
    }
    if (op == Opcode::kReadReq && !message_.count({key, n->generation, e.stream_id, e.msn, false})) {
      // MROCE-PLACE-013: at most 64 READs outstanding; a READ is certainly outstanding until every
      // byte of its response arrived (the DUT may count it longer, never shorter).
      auto& open = reads_[{key, n->generation}];
      if (!closing_at_.count({key, n->generation})) {
        if (open.size() == 63) ++out_.at_bound[kReadsOutstanding];
        Expect(kReadsOutstanding, open.size() < 64, i,
               "READ_REQ while 64 READs of the connection await their response", "outstanding READs before it", 63,
               open.size());
      }
      open[{e.stream_id, e.msn}].len = e.msg_len;
    }
    if (op != Opcode::kReadResp) stream_data_.push_back({i, key, n->generation, e.stream_id, e.msn});
    Route(key, *n, i, ch.Has(wire::kFlagRtx) ? RouteEvent::kRtx : RouteEvent::kNew, ch.path_id, ch.path_epoch);
    MessageFields(i, key, *n, m);
    Sequence(i, key, *n, m);
  }

  void MessageFields(long i, const ConnKey& key, const Negotiated& n, const wire::MetaPacket& m) {
    const wire::MessageExt& e = *m.meh();
    const bool resp = m.ch.opcode == Opcode::kReadResp;
    auto [it, fresh] = message_.try_emplace({key, n.generation, e.stream_id, e.msn, resp}, i);
    if (!fresh) {
      const wire::MetaPacket o = MetaAt(it->second);
      const wire::MessageExt& oe = *o.meh();
      auto same = [&](const char* f, uint64_t a, uint64_t b) {
        Expect(kMessageFields, a == b, i, std::string("a packet of the same (stream, msn) with another ") + f, f, a, b,
               it->second);
      };
      same("ch.opcode", static_cast<uint8_t>(o.ch.opcode), static_cast<uint8_t>(m.ch.opcode));
      same("meh.msg_len", oe.msg_len, e.msg_len);
      same("meh.recv_seq", oe.recv_seq, e.recv_seq);
      same("meh.imm", oe.imm, e.imm);
      same("meh.rkey", oe.rkey, e.rkey);
      same("meh.va", oe.va, e.va);
    }
    auto [sit, sfresh] = segment_.try_emplace({key, n.generation, e.stream_id, e.msn, resp, e.msg_offset}, i);
    if (!sfresh) {
      const wire::MetaPacket o = MetaAt(sit->second);
      Expect(kMessageFields, o.payload == m.payload, i, "a segment sent again with other payload bytes",
             "payload bytes equal", 1, 0, sit->second);
    }
  }

  // Whether an ACK that arrived at or before `before` acknowledged `psn` (of the path's epoch).
  static bool Acked(const TxPath& p, uint32_t psn, int64_t before) {
    for (auto h = p.cum_history.rbegin(); h != p.cum_history.rend(); ++h) {
      if (h->first > before) continue;
      if (Below(psn, h->second)) return true;
      break;  // cum only rises: earlier entries acknowledge less
    }
    auto it = p.sacked.find(psn);
    return it != p.sacked.end() && it->second <= before;
  }

  void Sequence(long i, const ConnKey& key, const Negotiated& n, const wire::MetaPacket& m) {
    const FrameRecord& r = t_.frames[i];
    const auto& ch = m.ch;
    TxPath& p = Tx(key, n, ch.path_id);
    const uint8_t cur = p.started ? p.epoch : 0;
    Judged(kEpoch);
    if (ch.path_epoch != cur) {
      auto probe = p.probe_psn.find(ch.path_epoch);
      if (probe == p.probe_psn.end() || !EpochAbove(ch.path_epoch, cur)) {
        Values(Violate(kEpoch, i, "data in an epoch other than the path's current one and not announced by its PROBEs"),
               "ch.path_epoch", cur, ch.path_epoch);
        return;
      }
      Expect(kAfterProbes, p.probe_acks[ch.path_epoch] >= 3, i, "data in a new epoch before PROBE_ACKs matching 3 distinct PROBEs arrived",
             "matching PROBE_ACKs", 3, p.probe_acks[ch.path_epoch], probe->second.second);
      p.epoch = ch.path_epoch;
      p.first = p.next_new = p.una = probe->second.first;
      p.initial_window = true;
      p.initial_sent = 0;
      p.sent.clear();
      p.have_cum = false;
      p.cum_history.clear();
      p.sacked.clear();
    }
    p.started = true;
    Judged(kFailedPath);
    for (const auto& [e, probe] : p.probe_psn) {
      if (!EpochAbove(e, p.epoch)) continue;
      Values(Violate(kFailedPath, i,
                     "data in epoch " + Str(p.epoch) + " of path " + Str(ch.path_id) + " after the DUT probed it for epoch " +
                         Str(e) + " (the path had failed)",
                     probe.second),
             "ch.path_epoch", e, p.epoch);
      break;
    }
    const wire::MessageExt& e = *m.meh();
    const auto content = std::make_tuple(key, n.generation, e.stream_id, e.msn, ch.opcode == Opcode::kReadResp, e.msg_offset);
    auto last = last_sent_.find(content);
    const long previous = last == last_sent_.end() ? -1 : last->second;
    last_sent_[content] = i;
    auto seen = p.sent.find(ch.psn);
    if (seen == p.sent.end() && ch.Has(wire::kFlagRtx)) Resend(i, key, n, previous);
    if (seen == p.sent.end()) {
      Expect(kPsnSequence, ch.psn == p.next_new, i, "a new PSN that is not the previous new PSN + 1", "ch.psn", p.next_new,
             ch.psn);
      while (p.una != p.next_new && Acked(p, p.una, r.time_ns)) ++p.una;
      const uint32_t ahead = ch.psn - p.una;
      Expect(kWindow, ahead < 256, i, "new PSN " + Str(ch.psn) + " while snd_una is " + Str(p.una) + " (window 256)",
             "psn - snd_una", 255, ahead);
      // MROCE-ACK-014: no room for another packet. The monitor's snd_una is at or above the DUT's
      // (it counts every ACK that arrived, the DUT perhaps not all yet), so 255 here is 255 there.
      if (ahead == 255) {
        Expect(kAckRequested, ch.Has(wire::kFlagAr), i,
               "new PSN " + Str(ch.psn) + " = snd_una + 255 (the window's last PSN) without AR", "ch.flags.ar", 1, 0);
      }
      if (ch.Has(wire::kFlagRtx)) p.initial_window = false;
      if (p.initial_window && !p.feedback.count(p.epoch) && n.mtu != 0) {
        const uint64_t cwnd = 4ull * n.mtu;
        const uint64_t len = m.payload.size();
        Judged(kInitialWindow);
        if (p.initial_sent != 0 && p.initial_sent + len > cwnd) {
          Values(Violate(kInitialWindow, i,
                         "new packet of " + Str(len) + " payload bytes with " + Str(p.initial_sent) +
                             " in flight in the initial window of 4 x MTU = " + Str(cwnd) + " (no ACK or NACK of path " +
                             Str(ch.path_id) + " epoch " + Str(p.epoch) + " arrived)"),
                 "bytes in flight + payload_len", cwnd, p.initial_sent + len);
        }
        if (p.initial_sent + len + n.mtu > cwnd) {
          Expect(kAckRequested, ch.Has(wire::kFlagAr), i,
                 "new packet after which the initial window (4 x MTU = " + Str(cwnd) + ", " + Str(p.initial_sent + len) +
                     " bytes in flight) has no room for another full-MTU packet, without AR",
                 "ch.flags.ar", 1, 0);
        }
        p.initial_sent += len;
      }
      p.sent[ch.psn] = i;
      p.next_new = ch.psn + 1;
      return;
    }
    // The same PSN again on this path and epoch: a retransmission.
    p.initial_window = false;
    const wire::MetaPacket o = MetaAt(seen->second);
    constexpr uint16_t kMayDiffer = wire::kFlagAr | wire::kFlagRtx;
    const bool same = o.ch.opcode == ch.opcode && (o.ch.flags & ~kMayDiffer) == (ch.flags & ~kMayDiffer) &&
                      *o.meh() == *m.meh() && o.payload == m.payload;
    Judged(kRetransmission);
    if (!ch.Has(wire::kFlagRtx)) {
      Values(Violate(kRetransmission, i, "PSN " + Str(ch.psn) + " sent again without RTX", seen->second), "ch.flags.rtx", 1,
             0);
    } else if (!same) {
      Violate(kRetransmission, i, "PSN " + Str(ch.psn) + " sent again with other content than its first transmission",
              seen->second);
    }
    // A live DUT may have decided the retransmission before it read an ACK the tap had already seen.
    const int64_t before = live_ ? r.time_ns - kLiveGraceNs : r.time_ns;
    Expect(kNoRtxOfAcked, !Acked(p, ch.psn, before), i,
           "PSN " + Str(ch.psn) + " retransmitted after an ACK that arrived had acknowledged it", "acknowledged", 0, 1,
           seen->second);
    // MROCE-RNR-005: not during an RNR hold (simulated clock: the NACK's arrival is the DUT's moment).
    p.rtx_at[{p.epoch, ch.psn}].push_back(r.time_ns);
    if (auto h = p.rnr_holds.find({p.epoch, ch.psn}); h != p.rnr_holds.end() && !live_) {
      for (const TxPath::RnrHold& hold : h->second) {
        const int64_t min_ns = std::max<int64_t>(hold.info, 1) * 1000;
        if (r.time_ns < hold.at || r.time_ns - hold.at >= min_ns) continue;  // same ns: sent after it arrived
        Values(Violate(kRnrHold, i,
                       "PSN " + Str(ch.psn) + " retransmitted " + Str(static_cast<uint64_t>(r.time_ns - hold.at)) +
                           " ns after an RNR NACK with info " + Str(hold.info) + " arrived: the hold lasts at least " +
                           Str(static_cast<uint64_t>(min_ns)) + " ns",
                       hold.frame),
               "ns after the RNR NACK", static_cast<uint64_t>(min_ns), static_cast<uint64_t>(r.time_ns - hold.at));
        break;
      }
    }
  }

  // Whether `plane`'s link was down at some moment of [a, b] (trace.links, in time order).
  bool LinkDownDuring(uint8_t plane, int64_t a, int64_t b) const {
    bool down = false;  // at time a
    for (const LinkEvent& e : t_.links) {
      if (e.plane != plane) continue;
      if (e.time_ns <= a) {
        down = !e.up;
      } else if (e.time_ns <= b && !e.up) {
        return true;
      }
    }
    return down;
  }

  // Whether `plane`'s link went down or up in (a, b].
  bool LinkChangedDuring(uint8_t plane, int64_t a, int64_t b) const {
    return std::any_of(t_.links.begin(), t_.links.end(),
                       [&](const LinkEvent& e) { return e.plane == plane && e.time_ns > a && e.time_ns <= b; });
  }

  // A re-send (RTX on a new PSN): its content was sent before on a path the DUT has since probed.
  void Resend(long i, const ConnKey& key, const Negotiated& n, long previous) {
    Judged(kResend);
    if (previous < 0) {
      Violate(kResend, i, "RTX set on a new PSN whose content (stream, msn, offset) was never sent before");
      return;
    }
    const wire::MetaPacket o = MetaAt(previous);
    const TxPath& was = Tx(key, n, o.ch.path_id);
    const int64_t t = t_.frames[static_cast<size_t>(i)].time_ns;
    // Table 17.3: failover_resends of the path whose content was re-sent on another path.
    if (o.ch.path_id != MetaAt(i).ch.path_id) {
      tx_events_[{key, n.generation}].push_back({t, "path." + Str(o.ch.path_id) + ".failover_resends", 1, i});
    }
    const int64_t until = live_ ? t + kLiveGraceNs : t;
    for (const auto& [e, probe] : was.probe_psn) {
      if (EpochAbove(e, o.ch.path_epoch) && t_.frames[static_cast<size_t>(probe.second)].time_ns <= until) return;
    }
    // A PROBE of that path recorded later at the same instant (or within the live grace) counts too.
    for (size_t j = static_cast<size_t>(i) + 1; j < t_.frames.size() && t_.frames[j].time_ns <= until; ++j) {
      const FrameRecord& f = t_.frames[j];
      if (f.event != FrameRecord::Event::kTx || !f.from_dut() || f.dst_host != key.first) continue;
      auto fr = Decode(f);
      const wire::MetaPacket* pm = fr ? fr->meta() : nullptr;
      if (pm != nullptr && pm->ch.opcode == Opcode::kProbe && pm->ch.dst_conn_id == key.second &&
          pm->ch.path_id == o.ch.path_id && EpochAbove(pm->ch.path_epoch, o.ch.path_epoch)) {
        return;
      }
    }
    // Or the path's plane reported link down (MROCE-PATH-013: FAILED at once, no PROBE until up).
    const auto plane = static_cast<uint8_t>(o.ch.path_id % std::max<uint8_t>(n.num_planes, 1));
    if (LinkDownDuring(plane, t_.frames[static_cast<size_t>(previous)].time_ns, until)) return;
    Values(Violate(kResend, i,
                   "content last sent on path " + Str(o.ch.path_id) + " (PSN " + Str(o.ch.psn) +
                       ") re-sent with a new PSN although the DUT never probed that path nor did its plane's link go down: "
                       "a path that fails is probed at once (MROCE-PATH-016), a lost packet is retransmitted on its own path "
                       "with its own PSN (MROCE-LOSS-002)",
                   previous),
           "ch.path_id", o.ch.path_id, MetaAt(i).ch.path_id);
  }

  void AckSent(long i, const FrameRecord& r, const wire::MetaPacket& m) {
    const wire::AckHeader& a = *m.ack();
    Expect(kRateHint, a.rate_hint != 0 && a.rate_hint != 0xFFFFFFFFu, i, "rate_hint 0 or 0xFFFFFFFF", "ack.rate_hint", 1,
           a.rate_hint);
    ConnKey key;
    const Negotiated* n = Named(i, r, m, &key);
    if (n == nullptr) return;
    const uint8_t path = m.ch.path_id;
    const uint8_t epoch = m.ch.path_epoch;
    Route(key, *n, i, RouteEvent::kAck, path, epoch);
    Expect(kPathId, path < n->num_paths, i, "ACK path_id not below the negotiated num_paths", "ch.path_id",
           n->num_paths - 1u, path);
    RxPath& x = Rx(key, *n, path);
    if (!live_) {
      x.acks_out.push_back({i, r.time_ns, epoch, a});
      Expect(kAckNeedsArrival, x.arrivals_since_ack > 0, i, "ACK of a path on which no data arrived since its previous ACK",
             "data arrivals since the previous ACK", 1, 0);
      const uint64_t ce = std::min<uint64_t>(0xFFFF, x.ce_since_ack);
      Expect(kCeCount, a.ce_count <= ce, i,
             "ce_count above the CE-marked data packets of the path that arrived since its previous ACK", "ack.ce_count",
             ce, a.ce_count);
    }
    x.arrivals_since_ack = 0;
    x.ce_since_ack = 0;
    auto trig = x.trigger.find(a.trigger_psn);
    Judged(kAckTrigger);
    if (trig == x.trigger.end()) {
      Values(Violate(kAckTrigger, i, "trigger_psn names no data packet that arrived on the path"), "ack.trigger_psn", 0,
             a.trigger_psn);
    } else {
      if (m.ch.Has(wire::kFlagEce)) {
        Expect(kAckTrigger, trig->second.first, i, "ECE set although the trigger PSN never arrived CE-marked",
               "ch.flags.ece", 0, 1);
      }
      if (m.ch.Has(wire::kFlagTrtx)) {
        Expect(kAckTrigger, trig->second.second, i, "TRTX set although the trigger PSN never arrived with RTX",
               "ch.flags.trtx", 0, 1);
      }
    }
    auto first_it = x.epoch_first.find(epoch);
    Judged(kAckEpoch);
    if (epoch != 0 && first_it == x.epoch_first.end()) {
      Values(Violate(kAckEpoch, i, "ACK in an epoch no PROBE that arrived announced"), "ch.path_epoch", 0, epoch);
      return;
    }
    const uint32_t first = first_it == x.epoch_first.end() ? 0 : first_it->second;
    const std::set<uint32_t>& got = x.arrived[epoch];
    // Every PSN in [first, epsn) arrived; every SACKed PSN arrived.
    Judged(kAckArrived);
    auto cit = x.contiguous.try_emplace(epoch, first).first;
    while (got.count(cit->second)) ++cit->second;
    const uint32_t span = a.epsn - first;
    if (span > 0x80000000u) {
      Values(Violate(kAckArrived, i, "epsn serially below the epoch's first PSN"), "ack.epsn", first, a.epsn);
    } else if (span > cit->second - first) {
      Values(Violate(kAckArrived, i, "epsn acknowledges PSN " + Str(cit->second) + ", which never arrived in this epoch"),
             "ack.epsn", cit->second, a.epsn);
    }
    std::vector<uint32_t> sacked;
    bool sack_bad = false;
    for (int b = 0; b < 256; ++b) {
      if (!a.SackBit(b)) continue;
      const uint32_t q = a.epsn + 1 + static_cast<uint32_t>(b);
      sacked.push_back(q);
      if (!sack_bad && !got.count(q)) {
        sack_bad = true;
        Values(Violate(kAckArrived, i,
                       "SACK bit " + Str(b) + " acknowledges PSN " + Str(q) + ", which never arrived in this epoch"),
               "ack.sack[" + Str(b) + "]", 0, 1);
      }
    }
    RxPath::Reported& rep = x.reported[epoch];
    if (rep.any) {
      Expect(kEpsnMonotone, !Below(a.epsn, rep.epsn), i, "epsn went back within the epoch", "ack.epsn", rep.epsn, a.epsn,
             rep.frame);
      Judged(kSackPersistent);
      for (uint32_t q : rep.sacked) {
        if (Below(q, a.epsn)) continue;
        const uint32_t b = q - a.epsn - 1;
        if (q != a.epsn && b < 256 && a.SackBit(static_cast<int>(b))) continue;
        if (q == a.epsn) {
          Values(Violate(kSackPersistent, i, "PSN " + Str(q) + ", reported received before, is now epsn", rep.frame),
                 "ack.epsn", q + 1u, a.epsn);
        } else {
          Values(Violate(kSackPersistent, i, "PSN " + Str(q) + ", reported received before, has its SACK bit clear",
                         rep.frame),
                 "ack.sack[" + Str(b) + "]", 1, 0);
        }
        break;
      }
    }
    rep.any = true;
    rep.epsn = a.epsn;
    rep.sacked = std::move(sacked);
    rep.frame = i;
  }

  void NackSent(long i, const FrameRecord& r, const wire::MetaPacket& m) {
    const wire::NackHeader& k = *m.nack();
    const uint8_t code = static_cast<uint8_t>(k.code);
    Expect(kNackRefused, code >= 1 && code <= 7, i, "NACK code not in table 16.1", "nakh.code", 1, code);
    Judged(kNackRefused);
    if (!arrived_data_.count({r.dst_host, m.ch.path_id, m.ch.path_epoch, k.psn})) {
      Violate(kNackRefused, i,
              "NACK for path " + Str(m.ch.path_id) + " epoch " + Str(m.ch.path_epoch) + " PSN " + Str(k.psn) +
                  ": no such data packet arrived from that peer");
    }
    if (k.code == wire::NackCode::kInvalidConn) InvalidConnNackSent(i, r, m);
    if (k.code != wire::NackCode::kInvalidConn) {
      ConnKey key;
      const Negotiated* n = Named(i, r, m, &key);
      if (n != nullptr) Route(key, *n, i, RouteEvent::kAck, m.ch.path_id, m.ch.path_epoch);
      if (n != nullptr && !live_) Rx(key, *n, m.ch.path_id).nacks_out.emplace_back(i, m.ch.path_epoch, k.psn);
      if (n != nullptr && FatalNack(code)) Close({key, n->generation}, r.time_ns);
    }
  }

  // MROCE-DUP-007 (a MAY): when the DUT does answer, it answers only data for an id it does not
  // know, with the fields ERR-001 gives INVALID_CONN, and within the rate limit.
  void InvalidConnNackSent(long i, const FrameRecord& r, const wire::MetaPacket& m) {
    const wire::NackHeader& k = *m.nack();
    Judged(kNackInvalidConn);
    if (!unknown_conn_data_.count({r.dst_host, m.ch.dst_conn_id, m.ch.path_id, m.ch.path_epoch, k.psn})) {
      Violate(kNackInvalidConn, i,
              "NACK INVALID_CONN for connection id " + Str(m.ch.dst_conn_id) + ", path " + Str(m.ch.path_id) + " epoch " +
                  Str(m.ch.path_epoch) + " PSN " + Str(k.psn) +
                  ": no data packet for that id arrived from that peer while the id named no open connection of the DUT's");
    }
    Expect(kNackInvalidConn, k.stream_id == 0, i, "NACK INVALID_CONN stream_id not 0 (MROCE-ERR-001)", "nakh.stream_id", 0,
           k.stream_id);
    Expect(kNackInvalidConn, k.msn == 0, i, "NACK INVALID_CONN msn not 0 (MROCE-ERR-001)", "nakh.msn", 0, k.msn);
    auto last = last_invalid_conn_nack_.find(r.dst_host);
    if (!live_ && last != last_invalid_conn_nack_.end()) {
      const int64_t gap = r.time_ns - t_.frames[static_cast<size_t>(last->second)].time_ns;
      if (gap < 1'000'000 - kGranularityNs) {
        Values(Violate(kNackInvalidConn, i,
                       "a second NACK INVALID_CONN to the same source address " + Str(gap / 1000) +
                           " us after the previous one (at most one per 1 ms)",
                       last->second),
               "gap_us", 1000, gap / 1000);
      }
    }
    last_invalid_conn_nack_[r.dst_host] = i;
  }

  void ProbeSent(long i, const FrameRecord& r, const wire::MetaPacket& m) {
    ConnKey key;
    const Negotiated* n = Named(i, r, m, &key);
    if (n == nullptr) return;
    const wire::ProbeHeader& h = *m.prh();
    Route(key, *n, i, RouteEvent::kProbe, m.ch.path_id, m.ch.path_epoch);
    Expect(kPathId, m.ch.path_id < n->num_paths, i, "PROBE path_id not below the negotiated num_paths", "ch.path_id",
           n->num_paths - 1u, m.ch.path_id);
    Plane(i, r, *n, m.ch.path_id);
    TxPath& p = Tx(key, *n, m.ch.path_id);
    p.probe_sent_at.push_back(r.time_ns);
    Expect(kProbeSequence, h.probe_seq == p.last_probe_seq + 1, i, "probe_seq not one above the path's previous PROBE",
           "prh.probe_seq", p.last_probe_seq + 1, h.probe_seq);
    p.last_probe_seq = h.probe_seq;
    const uint8_t cur = p.started ? p.epoch : 0;
    // next_epoch is the current epoch + 1 (MROCE-PATH-008, rows 5 and 6 of table 7.6). The frames
    // show the epoch of the path's data; the DUT may since have been reintroduced, without sending
    // data, into each following epoch it got 3 matching PROBE_ACKs for, and failed again from there.
    uint8_t reach = cur;
    while (p.probe_acks.count(static_cast<uint8_t>(reach + 1)) && p.probe_acks[static_cast<uint8_t>(reach + 1)] >= 3 &&
           EpochAhead(static_cast<uint8_t>(reach + 1), cur) < 127) {
      ++reach;
    }
    const int ahead = EpochAhead(m.ch.path_epoch, cur);
    Expect(kProbeSequence, ahead >= 1 && ahead <= EpochAhead(reach, cur) + 1, i,
           "PROBE does not announce the path's next epoch (its current epoch + 1)", "ch.path_epoch",
           static_cast<uint8_t>(reach + 1), m.ch.path_epoch);
    auto [it, fresh] = p.probe_psn.try_emplace(m.ch.path_epoch, m.ch.psn, i);
    if (fresh) {
      // The new epoch's first PSN is snd_nxt when the path failed: the data's, or the PROBEs' PSN of
      // an epoch reintroduced without data.
      auto before = p.probe_psn.find(static_cast<uint8_t>(m.ch.path_epoch - 1));
      const bool via_probes = ahead > 1 && before != p.probe_psn.end();
      const uint32_t want = via_probes ? before->second.first : p.next_new;
      Expect(kProbeSequence, m.ch.psn == want, i, "PROBE PSN is not the path's snd_nxt", "ch.psn", want, m.ch.psn);
    } else {
      Expect(kProbeSequence, m.ch.psn == it->second.first, i, "PROBEs of one epoch with different PSNs", "ch.psn",
             it->second.first, m.ch.psn, it->second.second);
    }
    p.probes.insert({m.ch.path_epoch, h.probe_seq, h.tx_time});
    const auto plane = static_cast<uint8_t>(m.ch.path_id % std::max<uint8_t>(n->num_planes, 1));
    if (!live_ && p.last_probe && p.last_probe->epoch == m.ch.path_epoch &&
        !LinkChangedDuring(plane, t_.frames[static_cast<size_t>(p.last_probe->frame)].time_ns, r.time_ns)) {
      // (A plane link that went down or up in between restarts the probing: table 7.6 rows 7, 12.)
      const TxPath::LastProbe& lp = *p.last_probe;
      const bool acked = lp.acked_at >= 0;
      const int64_t want = acked ? lp.acked_at + 100'000 : t_.frames[static_cast<size_t>(lp.frame)].time_ns + 1'000'000;
      const int64_t at = r.time_ns;
      Expect(kProbeTiming, at >= want - kGranularityNs && at <= want + kGranularityNs, i,
             acked ? "PROBE not 100 us after the PROBE_ACK of the previous one arrived"
                   : "PROBE not 1 ms (probe timeout) after the previous unanswered one",
             "ns after the " + std::string(acked ? "PROBE_ACK" : "previous PROBE"), acked ? 100'000 : 1'000'000,
             static_cast<uint64_t>(at - (acked ? lp.acked_at : t_.frames[static_cast<size_t>(lp.frame)].time_ns)), lp.frame);
    }
    // MROCE-PATH-017: R consecutive matching PROBE_ACKs make the path ACTIVE, R <= 24. A PROBE of
    // the same epoch after an answered one continues the run; any other restarts it.
    const bool run_goes_on = p.last_probe && p.last_probe->epoch == m.ch.path_epoch && p.last_probe->acked_at >= 0;
    if (!run_goes_on) p.consecutive_acks = 0;
    if (!live_ && p.consecutive_acks >= kMaxProbeAcksNeeded) {
      Values(Violate(kProbeReintroduceBy, i,
                     "PROBE after " + Str(static_cast<uint64_t>(p.consecutive_acks)) +
                         " consecutive matching PROBE_ACKs: the path must be ACTIVE by the 24th",
                     p.last_probe->frame),
             "consecutive matching PROBE_ACKs before the PROBE", kMaxProbeAcksNeeded, p.consecutive_acks);
    }
    p.last_probe = TxPath::LastProbe{m.ch.path_epoch, h.probe_seq, h.tx_time, i, -1};
  }

  void ProbeAckSent(long i, const FrameRecord& r, const wire::MetaPacket& m) {
    ConnKey key;
    const Negotiated* n = Named(i, r, m, &key);
    if (n == nullptr) return;
    const wire::ProbeHeader& h = *m.prh();
    Plane(i, r, *n, m.ch.path_id);
    RxPath& x = Rx(key, *n, m.ch.path_id);
    // x.current is exact: every PROBE of the next epoch that arrived moved it (MROCE-PATH-019).
    const bool in_window = !EpochAbove(m.ch.path_epoch, x.current);
    Expect(kProbeAckEpochWindow, in_window, i,
           "PROBE_ACK for a PROBE of an epoch 2 or more above the path's, which the receiver must drop", "ch.path_epoch",
           x.current, m.ch.path_epoch);
    if (in_window && EpochAbove(m.ch.path_epoch, x.answered)) x.answered = m.ch.path_epoch;
    Judged(kProbeAckEcho);
    if (!arrived_probes_.count({r.dst_host, n->dut_id, m.ch.path_id, m.ch.path_epoch, h.probe_seq, h.tx_time})) {
      Violate(kProbeAckEcho, i,
              "PROBE_ACK (path " + Str(m.ch.path_id) + ", epoch " + Str(m.ch.path_epoch) + ", probe_seq " +
                  Str(h.probe_seq) + ", tx_time " + Str(h.tx_time) + ") echoes no PROBE that arrived");
    }
  }

  void CmSent(long i, const FrameRecord& r, const wire::MetaPacket& m) {
    const wire::ConnMgmtHeader& c = *m.cmh();
    const Opcode op = m.ch.opcode;
    if (op == Opcode::kConnectReq) {
      auto in = [&](const char* f, uint64_t v, uint64_t lo, uint64_t hi) {
        Expect(kConnectRequest, v >= lo && v <= hi, i, std::string("CONNECT_REQ ") + f + " outside " + Str(lo) + ".." + Str(hi),
               f, v < lo ? lo : hi, v);
      };
      in("cmh.reason", static_cast<uint8_t>(c.reason), 0, 0);
      in("cmh.src_conn_id", c.src_conn_id, 1, 0xFFFFFFFFu);
      in("cmh.nonce (non-zero)", c.nonce != 0, 1, 1);
      in("cmh.ver_min", c.ver_min, 1, c.ver_max);
      in("cmh.num_paths", c.num_paths, 1, 64);
      in("cmh.mtu", c.mtu, 256, 9000);
      in("cmh.max_streams", c.max_streams, 1, 1024);
      in("cmh.num_planes", c.num_planes, 1, 8);
      auto& sends = dut_requests_[{r.dst_host, c.src_conn_id, c.nonce}];
      if (!sends.empty()) {
        const long prev = sends.back();
        Expect(kConnectRetransmission, MetaAt(sends.front()) == m, i, "a retransmitted CONNECT_REQ differs from the first",
               "byte-identical", 1, 0, sends.front());
        Expect(kConnectRetransmission, sends.size() <= 7, i, "more than 7 retransmissions of a CONNECT_REQ",
               "retransmissions", 7, sends.size());
        if (!live_) {
          const int64_t want = int64_t{1'000'000} << std::min<size_t>(sends.size() - 1, 20);
          const int64_t gap = r.time_ns - t_.frames[prev].time_ns;
          Expect(kConnectRetransmission, gap >= want - kGranularityNs && gap <= want + kGranularityNs, i,
                 "CONNECT_REQ retransmission " + Str(sends.size()) + " not " + Str(want / 1'000'000) +
                     " ms after the previous transmission",
                 "interval ns", want, gap, prev);
        }
      }
      sends.push_back(i);
      dut_ids_.insert(c.src_conn_id);
      return;
    }
    if (op == Opcode::kConnectAck) {
      dut_ids_.insert(c.src_conn_id);
      accepted_ids_.insert({r.dst_host, c.src_conn_id});
    }
    if (op == Opcode::kConnectAck || op == Opcode::kConnectRej) {
      auto req = arrived_requests_.find({r.dst_host, m.ch.dst_conn_id, c.nonce});
      const R rule = op == Opcode::kConnectAck ? kConnectAccept : kNonce;
      Judged(rule);
      if (req == arrived_requests_.end()) {
        Violate(rule, i, Name(op) + " answers no CONNECT_REQ that arrived with src_conn_id " + Str(m.ch.dst_conn_id) +
                             " and this nonce");
        return;
      }
      const wire::ConnMgmtHeader q = *MetaAt(req->second).cmh();
      const bool invalid = q.ver_min > q.ver_max || q.num_paths < 1 || q.num_paths > 64 || q.mtu < 256 || q.mtu > 9000 ||
                           q.max_streams < 1 || q.max_streams > 1024 || q.num_planes < 1 || q.num_planes > 8 ||
                           q.num_planes > q.num_paths || q.src_conn_id == 0 || q.nonce == 0;
      if (op == Opcode::kConnectRej) {
        const uint8_t reason = static_cast<uint8_t>(c.reason);
        Expect(kConnectReject, reason >= 1 && reason <= 3, i, "CONNECT_REJ reason not VERSION_UNSUPPORTED, NO_RESOURCES or INVALID_PARAMS",
               "cmh.reason", static_cast<uint8_t>(wire::ConnReason::kInvalidParams), reason, req->second);
        if (invalid) {
          Expect(kConnectReject, c.reason == wire::ConnReason::kInvalidParams, i,
                 "CONNECT_REJ of an invalid request without reason INVALID_PARAMS (it takes precedence)", "cmh.reason",
                 static_cast<uint8_t>(wire::ConnReason::kInvalidParams), reason, req->second);
        }
        wire::ConnMgmtHeader want = q;
        want.reason = c.reason;
        want.src_conn_id = 0;
        if (c.reason == wire::ConnReason::kVersionUnsupported) {
          want.ver_min = c.ver_min;
          want.ver_max = c.ver_max;
        }
        Expect(kConnectReject, c == want, i, "CONNECT_REJ does not echo the request's CMH (but reason, src_conn_id 0, the version range)",
               c.src_conn_id != 0 ? "cmh.src_conn_id" : "cmh (echo of the request)", c.src_conn_id != 0 ? 0 : 1,
               c.src_conn_id != 0 ? c.src_conn_id : 0, req->second);
        return;
      }
      Expect(kConnectReject, !invalid, i, "CONNECT_ACK for an invalid CONNECT_REQ (MROCE-CONN-006: CONNECT_REJ INVALID_PARAMS)",
             "cmh.reason", static_cast<uint8_t>(wire::ConnReason::kInvalidParams), 0, req->second);
      auto at_most = [&](const char* f, uint64_t v, uint64_t requested) {
        Expect(kConnectAccept, v >= 1 && v <= requested, i, std::string("CONNECT_ACK ") + f + " not in 1..requested", f,
               requested, v, req->second);
      };
      Expect(kConnectAccept, c.reason == wire::ConnReason::kNone, i, "CONNECT_ACK reason not 0", "cmh.reason", 0,
             static_cast<uint8_t>(c.reason));
      Expect(kConnectAccept, c.ver_min == c.ver_max && c.ver_min >= q.ver_min && c.ver_min <= q.ver_max, i,
             "CONNECT_ACK version not one version within the requested range", "cmh.ver_min", q.ver_max, c.ver_min,
             req->second);
      Expect(kConnectAccept, c.src_conn_id != 0, i, "CONNECT_ACK src_conn_id 0 (MROCE-CONN-001)", "cmh.src_conn_id", 1, 0);
      at_most("cmh.num_paths", c.num_paths, q.num_paths);
      at_most("cmh.mtu", c.mtu, q.mtu);
      at_most("cmh.max_streams", c.max_streams, q.max_streams);
      at_most("cmh.num_planes", c.num_planes, q.num_planes);
      auto [prev, fresh] = dut_accepts_.try_emplace({r.dst_host, m.ch.dst_conn_id, c.nonce}, i);
      if (!fresh) {
        Expect(kConnectAccept, MetaAt(prev->second) == m, i, "a second CONNECT_ACK for the same request differs from the first",
               "identical", 1, 0, prev->second);
      }
      Register({r.dst_host, m.ch.dst_conn_id}, FromCmh(c, c.src_conn_id, m.ch.dst_conn_id));
      rate_[{{r.dst_host, m.ch.dst_conn_id}, conns_.at({r.dst_host, m.ch.dst_conn_id}).generation}].peer_max_rate = q.max_rate;
      return;
    }
    // DISCONNECT, DISCONNECT_ACK.
    const Negotiated* n = Conn({r.dst_host, m.ch.dst_conn_id});
    Judged(kNonce);
    auto refused = refused_accepts_.find({r.dst_host, m.ch.dst_conn_id});
    if (n == nullptr && refused != refused_accepts_.end()) {  // the DISCONNECT of MROCE-CONN-008
      Expect(kNonce, c.nonce == refused->second, i, Name(op) + " without the refused CONNECT_ACK's nonce", "cmh.nonce",
             refused->second, c.nonce);
      return;
    }
    if (n == nullptr) {
      Violate(kNonce, i, Name(op) + " to connection id " + Str(m.ch.dst_conn_id) + ", which no CONNECT_ACK set up");
      return;
    }
    Expect(kNonce, c.nonce == n->nonce, i, Name(op) + " without the connection's nonce", "cmh.nonce", n->nonce, c.nonce);
    Close({{r.dst_host, m.ch.dst_conn_id}, n->generation}, r.time_ns);
    if (op == Opcode::kDisconnect) dut_disconnected_.try_emplace({r.dst_host, n->dut_id, c.nonce}, i);
    if (op == Opcode::kDisconnectAck && c.nonce == n->nonce) {
      // Row 15: a DISCONNECT answered while the DUT had sent none of its own (not DISC_SENT, not ERROR).
      const auto got = first_disconnect_rx_.find({r.dst_host, n->dut_id, c.nonce});
      if (got != first_disconnect_rx_.end() && !dut_disconnected_.count({r.dst_host, n->dut_id, c.nonce})) {
        due_closed_.try_emplace({r.dst_host, n->dut_id}, Due{t_.frames[static_cast<size_t>(got->second.first)].time_ns,
                                                               got->second.first, got->second.second});
      }
    }
    if (op == Opcode::kDisconnectAck) {
      Judged(kDisconnectAck);
      if (!arrived_disconnects_.count({r.dst_host, n->dut_id, c.nonce})) {
        Violate(kDisconnectAck, i, "DISCONNECT_ACK although no DISCONNECT of this connection arrived");
      }
      return;
    }
    auto& sends = dut_disconnects_[{r.dst_host, m.ch.dst_conn_id, c.nonce}];
    if (!sends.empty()) {
      const long prev = sends.back();
      Expect(kDisconnectRetransmission, sends.size() <= 3, i, "more than 3 retransmissions of a DISCONNECT", "retransmissions", 3,
             sends.size(), sends.front());
      if (!live_) {
        const int64_t want = int64_t{1'000'000} << std::min<size_t>(sends.size() - 1, 20);
        const int64_t gap = r.time_ns - t_.frames[static_cast<size_t>(prev)].time_ns;
        Expect(kDisconnectRetransmission, gap >= want - kGranularityNs && gap <= want + kGranularityNs, i,
               "DISCONNECT retransmission " + Str(sends.size()) + " not " + Str(want / 1'000'000) + " ms after the previous one",
               "interval ns", want, gap, prev);
      }
    }
    sends.push_back(i);
  }

  // --- frames that arrived at the DUT -------------------------------------------------------------
  void DutGot(long i) {
    const FrameRecord& r = t_.frames[i];
    auto fr = Decode(r);
    if (!fr) return;
    const wire::MetaPacket* m = fr->meta();
    if (m == nullptr) return;
    const Opcode op = m->ch.opcode;
    if (!live_) RxCounters(r, *fr, *m);
    if (op == Opcode::kConnectReq) {
      arrived_requests_.try_emplace({r.src_host, m->cmh()->src_conn_id, m->cmh()->nonce}, i);
      return;
    }
    if (op == Opcode::kConnectAck) {
      const wire::ConnMgmtHeader& c = *m->cmh();
      // Only an answer to a request the DUT sent, within what it asked for, sets a connection up.
      auto req = dut_requests_.find({r.src_host, m->ch.dst_conn_id, c.nonce});
      if (req == dut_requests_.end()) return;
      const wire::ConnMgmtHeader q = *MetaAt(req->second.front()).cmh();
      const bool first_answer = answered_requests_.try_emplace(req->first, r.time_ns).second;
      if (c.num_paths < 1 || c.num_paths > q.num_paths || c.mtu > q.mtu || c.max_streams > q.max_streams ||
          c.num_planes > q.num_planes || c.ver_min < q.ver_min || c.ver_min > q.ver_max) {
        refused_accepts_.try_emplace({r.src_host, c.src_conn_id}, c.nonce);  // answered by DISCONNECT (MROCE-CONN-008)
        if (first_answer) due_rejected_.push_back({r.time_ns, i, static_cast<uint32_t>(wire::ConnReason::kInvalidParams)});
        return;
      }
      if (first_answer) due_established_.push_back({r.time_ns, i, 0});
      const ConnKey key{r.src_host, c.src_conn_id};
      if (const Negotiated* have = Conn(key); have != nullptr && have->nonce == c.nonce) return;  // the first one counts
      Register(key, FromCmh(c, m->ch.dst_conn_id, c.src_conn_id));
      rate_[{key, conns_.at(key).generation}].peer_max_rate = c.max_rate;
      established_.insert({key, conns_.at(key).generation});
      return;
    }
    if (op == Opcode::kConnectRej) {
      // The first answer to one of the DUT's requests (same peer, nonce and requester id) counts.
      const ReqKey key{r.src_host, m->ch.dst_conn_id, m->cmh()->nonce};
      if (dut_requests_.count(key) && answered_requests_.try_emplace(key, r.time_ns).second) {
        due_rejected_.push_back({r.time_ns, i, static_cast<uint32_t>(m->cmh()->reason)});
      }
      return;
    }
    if (op == Opcode::kDisconnect || op == Opcode::kDisconnectAck) {
      if (op == Opcode::kDisconnect) {
        arrived_disconnects_.insert({r.src_host, m->ch.dst_conn_id, m->cmh()->nonce});
        first_disconnect_rx_.try_emplace({r.src_host, m->ch.dst_conn_id, m->cmh()->nonce},
                                        std::make_pair(i, static_cast<uint32_t>(m->cmh()->reason)));
      }
      // After the DUT's own DISCONNECT, its DISCONNECT_ACK closes the connection (rows 17, 21), and
      // so does a DISCONNECT crossing a DISCONNECT ERROR (row 21, MROCE-CONN-016 as amended in
      // v0.2); in DISC_SENT a crossing DISCONNECT leaves the state (row 18).
      if (const auto own = dut_disconnected_.find({r.src_host, m->ch.dst_conn_id, m->cmh()->nonce}); own != dut_disconnected_.end()) {
        const uint32_t own_reason = static_cast<uint32_t>(MetaAt(own->second).cmh()->reason);
        if (op == Opcode::kDisconnectAck || own_reason == static_cast<uint32_t>(wire::ConnReason::kError)) {
          due_closed_.try_emplace({r.src_host, m->ch.dst_conn_id}, Due{r.time_ns, i, static_cast<uint32_t>(m->cmh()->reason), own_reason});
        }
      }
      auto k = by_dut_id_.find({r.src_host, m->ch.dst_conn_id});
      if (k != by_dut_id_.end()) Close({k->second, conns_.at(k->second).generation}, r.time_ns);
      return;
    }
    if (accepted_ids_.count({r.src_host, m->ch.dst_conn_id})) used_ids_.try_emplace({r.src_host, m->ch.dst_conn_id}, Due{r.time_ns, i, 0});
    const bool data = wire::IsDataOpcode(op);
    if (data) arrived_data_.insert({r.src_host, m->ch.path_id, m->ch.path_epoch, m->ch.psn});
    auto k = by_dut_id_.find({r.src_host, m->ch.dst_conn_id});
    const bool known = k != by_dut_id_.end() && conns_.at(k->second).dut_id == m->ch.dst_conn_id;
    if (data && (!known || closing_at_.count({k->second, conns_.at(k->second).generation}))) {
      unknown_conn_data_.insert({r.src_host, m->ch.dst_conn_id, m->ch.path_id, m->ch.path_epoch, m->ch.psn});
    }
    if (!known) return;
    const Negotiated& n = conns_.at(k->second);
    const uint8_t path = m->ch.path_id;
    if (op == Opcode::kAck || op == Opcode::kNack) Tx(k->second, n, path).feedback.insert(m->ch.path_epoch);
    const bool ce = r.ce || fr->ecn() == 3;
    if (op == Opcode::kReadResp && m->meh() != nullptr) {
      auto reads = reads_.find({k->second, n.generation});
      if (reads != reads_.end()) {
        auto open = reads->second.find({m->meh()->stream_id, m->meh()->msn});
        if (open != reads->second.end()) {
          if (open->second.offsets.insert(m->meh()->msg_offset).second) open->second.got += m->payload.size();
          if (open->second.got >= open->second.len) reads->second.erase(open);
        }
      }
    }
    if (data) {
      RxPath& x = Rx(k->second, n, path);
      x.arrived[m->ch.path_epoch].insert(m->ch.psn);
      auto& tr = x.trigger[m->ch.psn];
      tr.first = tr.first || ce;
      tr.second = tr.second || m->ch.Has(wire::kFlagRtx);
      ++x.arrivals_since_ack;
      if (ce) ++x.ce_since_ack;
      if (!live_) {  // ack.deadline
        const bool valid = !r.corrupted && m->ch.ver == n.version && path < n.num_paths &&
                           !closing_at_.count({k->second, n.generation}) && (fr->udp.checksum == 0 || StrictlyValid(r));
        x.data_in.push_back({i, r.time_ns, m->ch.path_epoch, m->ch.psn, m->ch.Has(wire::kFlagAr), valid});
      }
    } else if (op == Opcode::kProbe) {
      // MROCE-PATH-019: only a PROBE of the epoch after the receiver's current one starts an epoch
      // (v0.2 epoch window); one further ahead is dropped (forged: no conformant sender gets there).
      RxPath& x = Rx(k->second, n, path);
      if (EpochAhead(m->ch.path_epoch, x.current) == 1) {
        x.current = m->ch.path_epoch;
        x.epoch_first.try_emplace(m->ch.path_epoch, m->ch.psn);
      }
      arrived_probes_.insert({r.src_host, n.dut_id, path, m->ch.path_epoch, m->prh()->probe_seq, m->prh()->tx_time});
    } else if (op == Opcode::kProbeAck) {
      TxPath& p = Tx(k->second, n, path);
      const std::tuple<uint8_t, uint32_t, uint64_t> probe{m->ch.path_epoch, m->prh()->probe_seq, m->prh()->tx_time};
      if (p.probes.count(probe) && p.probes_answered.insert(probe).second) ++p.probe_acks[m->ch.path_epoch];
      Route(k->second, n, static_cast<long>(i), RouteEvent::kProbeAckIn, path, m->ch.path_epoch);
      if (p.last_probe && p.last_probe->acked_at < 0 && p.last_probe->epoch == m->ch.path_epoch &&
          p.last_probe->seq == m->prh()->probe_seq && p.last_probe->tx_time == m->prh()->tx_time) {
        p.last_probe->acked_at = r.time_ns;
        if (++p.consecutive_acks == kMaxProbeAcksNeeded && !live_) Judged(kProbeReintroduceBy);
      }
    } else if (op == Opcode::kNack && m->nack() != nullptr && m->nack()->code == wire::NackCode::kRnr && !live_) {
      // MROCE-RNR-005: a hold a conformant sender certainly starts (RNR-007: the PSN outstanding on
      // the named path and epoch; the NACK of the connection's version, naming the PSN's message).
      const wire::NackHeader& q = *m->nack();
      if (path >= n.num_paths || m->ch.ver != n.version || closing_at_.count({k->second, n.generation})) return;
      TxPath& p = Tx(k->second, n, path);
      if (!p.started || m->ch.path_epoch != p.epoch) return;
      auto sent = p.sent.find(q.psn);
      if (sent == p.sent.end() || Acked(p, q.psn, r.time_ns)) return;
      const wire::MetaPacket d = MetaAt(sent->second);
      if (d.meh() == nullptr || d.meh()->stream_id != q.stream_id || d.meh()->msn != q.msn) return;
      p.rnr_holds[{p.epoch, q.psn}].push_back({r.time_ns, static_cast<uint16_t>(std::min<uint32_t>(q.info, 0xFFFF)), i});
    } else if (op == Opcode::kAck) {
      TxPath& p = Tx(k->second, n, path);
      const wire::AckHeader& a = *m->ack();
      {
        // MROCE-HINT-005: any path, any epoch; an ACK the sender may drop (MROCE-ACK-013, a bad
        // version or path, a connection closing) may or may not set the hint.
        bool maybe = m->ch.ver != n.version || path >= n.num_paths || closing_at_.count({k->second, n.generation}) ||
                     !p.started || m->ch.path_epoch != p.epoch || Below(p.next_new, a.epsn);
        for (int b = 0; b < 256 && !maybe; ++b) {
          if (a.SackBit(b) && !Below(a.epsn + 1 + static_cast<uint32_t>(b), p.next_new)) maybe = true;
        }
        rate_[{k->second, n.generation}].hints.emplace_back(r.time_ns, a.rate_hint, maybe);
      }
      if (!p.started || m->ch.path_epoch != p.epoch) return;  // another epoch: ignored (MROCE-PATH-009)
      if (!live_) {
        // MROCE-ACK-013: a conformant sender drops an ACK beyond its snd_nxt.
        if (a.epsn - p.first > p.next_new - p.first) return;
        for (int b = 0; b < 256; ++b) {
          if (a.SackBit(b) && !Below(a.epsn + 1 + static_cast<uint32_t>(b), p.next_new)) return;
        }
      }
      if (!p.have_cum || Below(p.cum, a.epsn)) {
        p.have_cum = true;
        p.cum = a.epsn;
        p.cum_history.emplace_back(r.time_ns, a.epsn);
      }
      for (int b = 0; b < 256; ++b) {
        if (a.SackBit(b)) p.sacked.try_emplace(a.epsn + 1 + static_cast<uint32_t>(b), r.time_ns);
      }
    }
  }

  // --- receive counters (MROCE-TEL-003, "no over-count") ------------------------------------------
  // Called for every MetaRoCE frame that arrived at the DUT, before the monitor's state takes it in.
  void RxCounters(const FrameRecord& r, const wire::Frame& fr, const wire::MetaPacket& m) {
    const Opcode op = m.ch.opcode;
    if (op == Opcode::kConnectReq) return;  // identified by its nonce, never "unknown" (MROCE-DUP-006)
    const int64_t t = r.time_ns;
    const uint32_t id = m.ch.dst_conn_id;
    const uint8_t code = op == Opcode::kNack ? static_cast<uint8_t>(m.nack()->code) : 0;
    // Every connection this packet may be for: its DUT id from this host, or (MROCE-ENC-010) the
    // peer id a NACK INVALID_CONN names, or the same DUT id from another host.
    auto k = by_dut_id_.find({r.src_host, id});
    const Negotiated* n = k == by_dut_id_.end() ? nullptr : Conn(k->second);
    if (n != nullptr && n->dut_id != id) n = nullptr;
    const bool invalid_conn_nack = op == Opcode::kNack && code == static_cast<uint8_t>(wire::NackCode::kInvalidConn);
    const bool open = n != nullptr && !invalid_conn_nack && !closing_at_.count({k->second, n->generation});
    if (invalid_conn_nack) {
      // MROCE-ERR-008: a valid NACK INVALID_CONN names the connection by the peer's id, and a PSN
      // outstanding on the named path in its epoch (MROCE-DUP-008): the DUT closes the connection.
      auto pk = conns_.find({r.src_host, id});
      if (pk != conns_.end() && pk->second.peer_id == id && m.ch.path_id < pk->second.num_paths) {
        auto tp = tx_.find({pk->first, pk->second.generation, m.ch.path_id});
        const uint32_t psn = m.nack()->psn;
        if (tp != tx_.end() && tp->second.started && tp->second.epoch == m.ch.path_epoch && tp->second.sent.count(psn) &&
            !Acked(tp->second, psn, t)) {
          Close({pk->first, pk->second.generation}, t);
        }
      }
    }
    if (!open) {
      // MROCE-DUP-006: certainly unknown when the DUT never used the id; maybe when it names a
      // connection that is closing (QUARANTINE may end) or is a NACK INVALID_CONN.
      endpoint_rx_.push_back({t, "endpoint.invalid_conn_rx", 1, !invalid_conn_nack && !dut_ids_.count(id) && m.ch.ver == 1});
      for (const auto& [ck, cn] : conns_) {  // whatever it may count in a connection: only an upper bound
        if (cn.dut_id != id && !(invalid_conn_nack && cn.peer_id == id && ck.first == r.src_host)) continue;
        RxEventsOf(ck, cn, r, fr, m, false);
      }
      return;
    }
    RxEventsOf(k->second, *n, r, fr, m, true);
    if (wire::ExtKindOf(op) != wire::ExtKind::kConnMgmt) established_.insert({k->second, n->generation});
    if (op == Opcode::kNack && FatalNack(code)) Close({k->second, n->generation}, r.time_ns);
  }

  // The counter events of a packet for connection (key, n); `sure`: the connection is open and this
  // is its packet.
  void RxEventsOf(const ConnKey& key, const Negotiated& n, const FrameRecord& r, const wire::Frame& fr,
                  const wire::MetaPacket& m, bool sure) {
    const Opcode op = m.ch.opcode;
    if (wire::ExtKindOf(op) == wire::ExtKind::kConnMgmt) return;
    const int64_t t = r.time_ns;
    const uint8_t path = m.ch.path_id;
    // Dropped before any counter of the connection but bad_version_rx / bad_path_rx (MROCE-HDR-002,
    // MROCE-PATH-001); the spec does not order those two checks, so such packets only may count.
    sure = sure && m.ch.ver == n.version && path < n.num_paths;
    auto& ev = rx_events_[{key, n.generation}];
    auto add = [&](std::string counter, uint64_t v, bool certain) { ev.push_back({t, std::move(counter), v, certain}); };
    const std::string p = "path." + Str(path) + ".";
    if (wire::IsDataOpcode(op)) {
      const uint64_t ip_len = fr.is_ipv4() ? fr.ip4()->total_len : fr.ip6()->payload_len + 40u;
      add("conn.rx_pkts", 1, sure);
      add("conn.rx_bytes", ip_len, sure);
      add(p + "rx.rx_pkts", 1, sure);
      add(p + "rx.rx_bytes", ip_len, sure);
      if (r.ce || fr.ecn() == wire::kEcnCe) add(p + "rx.ecn_ce_rx", 1, sure);
      if (path >= n.num_paths) return;
      RxPath& x = Rx(key, n, path);
      const uint8_t e = m.ch.path_epoch;
      // The DUT's epoch of the path lies between the highest it answered a PROBE of and the highest a
      // PROBE that arrived announced (MROCE-PATH-019): below both the packet is stale, above both it
      // is of a newer epoch (MROCE-PATH-009, MROCE-DUP-003); in between it may be either.
      if (EpochAbove(x.current, e)) add(p + "rx.stale_epoch_rx", 1, sure && EpochAbove(x.answered, e));
      if (EpochAbove(e, x.answered)) add(p + "rx.bad_epoch_rx", 1, sure && EpochAbove(e, x.current));
      const bool in_epoch = sure && x.answered == x.current && e == x.current;  // the DUT's epoch is e
      const uint32_t psn = m.ch.psn;
      const bool seen = x.arrived.count(e) && x.arrived[e].count(psn);
      const auto rep = x.reported.find(e);
      auto acked = [&](const RxPath& y, uint8_t epoch, uint32_t q) {
        auto it = y.reported.find(epoch);
        if (it == y.reported.end() || !it->second.any) return false;
        return Below(q, it->second.epsn) ||
               std::find(it->second.sacked.begin(), it->second.sacked.end(), q) != it->second.sacked.end();
      };
      if (seen) {  // MROCE-DUP-001: certainly a duplicate once the DUT acknowledged the PSN in its epoch
        const bool certain = in_epoch && acked(x, e, psn);
        add(p + "rx.dup_rx", 1, certain);
        if (m.ch.Has(wire::kFlagRtx)) add(p + "rx.dup_rtx_rx", 1, certain);
        return;
      }
      const wire::MessageExt* meh = m.meh();
      if (meh == nullptr || op == Opcode::kReadReq) return;
      const bool resp = op == Opcode::kReadResp;
      const SegKey sk{key, n.generation, meh->stream_id, meh->msn, resp, meh->msg_offset};
      const MsgKey mk{key, n.generation, meh->stream_id, meh->msn, resp};
      auto [it, fresh] = rx_segment_.try_emplace(sk, std::make_tuple(path, e, psn));
      auto& offsets = rx_offsets_[mk];
      if (!fresh) {
        // MROCE-DUP-005: a copy on a new PSN of a segment that arrived before. Certain when the DUT
        // acknowledged the first copy, the message is incomplete (a segment never arrived) and the
        // copy is inside the window of its path in the DUT's epoch.
        const auto [p0, e0, q0] = it->second;
        const uint32_t mtu = std::max<uint32_t>(1, n.mtu);
        const uint64_t segments = meh->msg_len == 0 ? 1 : (uint64_t{meh->msg_len} + mtu - 1) / mtu;
        const uint32_t base = rep != x.reported.end() && rep->second.any ? rep->second.epsn
                              : x.epoch_first.count(e)                   ? x.epoch_first.at(e)
                                                                         : 0;
        const bool in_window = !Below(psn, base) && Below(psn, base + 256);
        const bool certain = in_epoch && in_window && offsets.size() < segments &&
                             acked(Rx(key, n, p0), e0, q0);
        add("conn.dup_segment_rx", 1, certain);
      }
      offsets.insert(meh->msg_offset);
    } else if (op == Opcode::kNack) {
      const uint8_t code = static_cast<uint8_t>(m.nack()->code);
      const bool known = code >= 1 && code <= 7;
      const bool c = sure && code != static_cast<uint8_t>(wire::NackCode::kInvalidConn);
      add("conn.nack_rx", 1, c && known);  // MROCE-ERR-004; an unknown code may count (MROCE-ERR-003)
      if (known) add(std::string("conn.") + kNackRxNames[code], 1, c);
      if (code == static_cast<uint8_t>(wire::NackCode::kRnr)) add("conn.rnr_nack_rx", 1, c);  // MROCE-RNR-009
      if (!known) add("conn.unknown_nack_rx", 1, c);                                           // MROCE-ERR-003
    } else if (op == Opcode::kAck) {
      add(p + "acks_rx", 1, sure);
      if (m.ch.Has(wire::kFlagEce) || m.ack()->ce_count > 0) add(p + "ece_rx", 1, sure);
      add("conn.rate_hint_rx", 1, false);  // "whose hint the sender used": at most every ACK
    } else if (op == Opcode::kProbe) {
      // A PROBE of an epoch below the DUT's is dropped and counted in stale_epoch_rx (MROCE-PATH-019
      // does not say of which table): it may or may not count as received.
      const bool stale = path < n.num_paths && EpochAbove(Rx(key, n, path).current, m.ch.path_epoch);
      const bool fresh = path < n.num_paths && !EpochAbove(Rx(key, n, path).answered, m.ch.path_epoch);
      // A jump of 2 or more epochs (MROCE-PATH-019 window) is dropped and counted in bad_epoch_rx.
      const bool jump = path < n.num_paths && EpochAhead(m.ch.path_epoch, Rx(key, n, path).current) > 1;
      add(p + "rx.probes_rx", 1, sure && fresh && !jump);
      if (stale) add(p + "rx.stale_epoch_rx", 1, false);
      if (jump) add(p + "rx.bad_epoch_rx", 1, sure);
    }
  }

  // The last telemetry sample's receive counters against the events recorded above.
  void CountersRx() {
    if (live_) return;
    const TelemetrySample* s = t_.LastTelemetry(kDutHost);
    if (s == nullptr) return;
    std::map<std::string, uint64_t> value;
    for (const auto& [name, v] : s->counters) value[name] = v;
    auto judge = [&](const std::string& name, uint64_t lo, uint64_t hi) {
      auto it = value.find(name);
      if (it == value.end()) return;  // not exposed: telemetry.names judges that
      Judged(kCountersRx);
      if (it->second >= lo && it->second <= hi) return;
      MonitorViolation& v = Violate(kCountersRx, -1,
                                    "counter " + name + " is " + Str(it->second) + " but " + Str(lo) +
                                        (hi != lo ? ".." + Str(hi) : "") + " such events arrived at the DUT before its last telemetry sample at " +
                                        Str(s->time_ns) + " ns (the lower figure counts what certainly counts)");
      Values(v, name, it->second < lo ? lo : hi, it->second);
    };
    auto range = [&](const std::vector<RxEvent>* ev, const std::string& counter) {
      std::pair<uint64_t, uint64_t> r{0, 0};
      if (ev == nullptr) return r;
      for (const RxEvent& e : *ev) {
        if (e.counter != counter) continue;
        if (e.certain && e.t < s->time_ns) r.first += e.add;
        if (e.t <= s->time_ns) r.second += e.add;
      }
      return r;
    };
    for (const auto& [k, n] : conns_) {
      auto it = rx_events_.find({k, n.generation});
      const std::vector<RxEvent>* ev = it == rx_events_.end() ? nullptr : &it->second;
      std::vector<std::string> names = {"conn.rx_pkts", "conn.rx_bytes", "conn.nack_rx", "conn.rnr_nack_rx",
                                        "conn.unknown_nack_rx", "conn.dup_segment_rx", "conn.rate_hint_rx"};
      for (int c = 1; c <= 7; ++c) names.push_back(std::string("conn.") + kNackRxNames[c]);
      for (int p = 0; p < n.num_paths; ++p) {
        for (const char* name : {"acks_rx", "ece_rx", "rx.rx_pkts", "rx.rx_bytes", "rx.ecn_ce_rx", "rx.probes_rx", "rx.dup_rx",
                                 "rx.dup_rtx_rx", "rx.stale_epoch_rx", "rx.bad_epoch_rx"}) {
          names.push_back("path." + Str(p) + "." + name);
        }
      }
      for (const std::string& counter : names) {
        const auto [lo, hi] = range(ev, counter);
        const std::string name = counter.rfind("conn.", 0) == 0 ? "conn." + Str(n.dut_id) + "." + counter.substr(5)
                                                                 : "path." + Str(n.dut_id) + "." + counter.substr(5);
        // rate_hint_rx has no lower bound (which ACKs' hints a sender "used" is its own business).
        judge(name, counter == "conn.rate_hint_rx" ? 0 : lo, hi);
      }
    }
    const auto [lo, hi] = range(&endpoint_rx_, "endpoint.invalid_conn_rx");
    judge("endpoint.invalid_conn_rx", lo, hi);
    // The gauge endpoint.connections_open (connections not CLOSED): at least those the frames show
    // established and not closing, at most one per id the DUT used and per request that arrived.
    uint64_t open = 0;
    for (const auto& [k, n] : conns_) open += established_.count({k, n.generation}) && !closing_at_.count({k, n.generation});
    judge("endpoint.connections_open", open, dut_ids_.size() + arrived_requests_.size());
  }

  // MROCE-TEL-001: a DUT exposing telemetry exposes every name of tables 17.2-17.4 for each
  // connection the frames show open at its last sample (not closing) and each of its paths.
  void TelemetryNames() {
    if (live_) return;
    const TelemetrySample* s = t_.LastTelemetry(kDutHost);
    if (s == nullptr || s->counters.empty()) return;
    std::set<std::string> have;
    for (const auto& [name, v] : s->counters) have.insert(name);
    static const char* const kConn[] = {
        "conn_state", "tx_pkts", "tx_bytes", "rx_pkts", "rx_bytes", "retransmits", "bad_version_rx", "bad_path_rx", "crc_errors",
        "stale_msg_rx", "dup_segment_rx", "nack_tx", "nack_rx", "nack_tx_psn_out_of_window", "nack_tx_invalid_conn", "nack_tx_rnr",
        "nack_tx_remote_access", "nack_tx_invalid_request", "nack_tx_resource", "nack_tx_remote_op_error",
        "nack_rx_psn_out_of_window", "nack_rx_invalid_conn", "nack_rx_rnr", "nack_rx_remote_access", "nack_rx_invalid_request",
        "nack_rx_resource", "nack_rx_remote_op_error", "unknown_nack_rx", "rnr_nack_tx", "rnr_nack_rx", "rate_hint_tx",
        "rate_hint_last_tx_mbps", "rate_hint_rx", "rate_hint_last_rx_mbps", "active_senders", "cmpl_success", "cmpl_error",
        "state_bytes"};
    static const char* const kPath[] = {
        "state", "entropy", "epoch", "tx_pkts", "tx_bytes", "retransmits", "loss_inferred", "rto_events", "failover_resends",
        "acks_rx", "ece_rx", "cwnd_decreases", "bad_ack_rx", "stale_epoch_rx", "stale_nack_rx", "path_state_changes",
        "entropy_rerolls", "probes_tx", "probe_acks_rx", "probe_timeouts", "reintroductions", "cwnd_bytes", "inflight_bytes",
        "srtt_ns", "rttvar_ns", "rto_ns"};
    static const char* const kPathRx[] = {"rx_pkts", "rx_bytes", "acks_tx", "ecn_ce_rx", "dup_rx", "dup_rtx_rx",
                                          "stale_epoch_rx", "bad_epoch_rx", "probes_rx", "rx_epoch", "epsn"};
    static const char* const kEndpoint[] = {"malformed_rx", "crc_errors", "unknown_opcode_rx", "invalid_conn_rx",
                                            "invalid_conn_nack_tx", "stale_conn_rx", "bad_nonce_rx", "unexpected_cm_rx",
                                            "conn_errors", "connections_open"};
    std::vector<std::string> missing;
    for (const char* e : kEndpoint) {
      if (!have.count(std::string("endpoint.") + e)) missing.push_back(std::string("endpoint.") + e);
    }
    for (const auto& [k, n] : conns_) {
      if (closing_at_.count({k, n.generation})) continue;
      const std::string id = Str(n.dut_id);
      for (const char* c : kConn) {
        if (!have.count("conn." + id + "." + c)) missing.push_back("conn." + id + "." + c);
      }
      for (int p = 0; p < n.num_paths; ++p) {
        const std::string pre = "path." + id + "." + Str(p) + ".";
        for (const char* c : kPath) {
          if (!have.count(pre + c)) missing.push_back(pre + c);
        }
        for (const char* c : kPathRx) {
          if (!have.count(pre + "rx." + c)) missing.push_back(pre + "rx." + c);
        }
      }
    }
    Judged(kTelemetryNames);
    if (missing.empty()) return;
    std::string list;
    for (size_t j = 0; j < missing.size() && j < 6; ++j) list += (j ? ", " : "") + missing[j];
    if (missing.size() > 6) list += ", ... (" + Str(missing.size()) + " in all)";
    Values(Violate(kTelemetryNames, -1, "the last telemetry sample at " + Str(s->time_ns) + " ns lacks " + list),
           "names missing", 0, missing.size());
  }

  // --- the gauge conn_state (MROCE-TEL-001, table 17.2) -----------------------------------------
  // Intervals in which the frames fix a connection's state, by the DUT's connection id, from what the
  // pass over the frames recorded for the connection rules: a sample strictly inside one must read
  // that state's number. REQ_SENT runs from the DUT's CONNECT_REQ to the first answer to it, ACK_SENT
  // from its CONNECT_ACK to the first other packet naming the connection (or the DISCONNECT that
  // closed it), each for at most 255 ms (table 15.1) and only until the harness closed a connection
  // of the DUT's (an application may close in those states without a frame); QUARANTINE lasts
  // 128 ms from what closed the connection (table 5.5 rows 15, 17, 21, as connect.report has it).
  struct StateSpan {
    uint64_t gauge = 0;
    int64_t from = 0;
    int64_t to = 0;
    long frame = -1;  // the frame that entered the state
  };
  void ConnStateGauges() {
    if (live_) return;
    constexpr int64_t kQuarantineNs = 128'000'000;
    constexpr int64_t kHandshakeNs = 255'000'000;
    constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
    int64_t closed_at = kNever;  // the harness's first close of a DUT connection
    for (const ControlRecord& c : t_.control) {
      if (c.host == kDutHost && c.kind == ControlRecord::Kind::kClose) closed_at = std::min(closed_at, c.time_ns);
    }
    std::map<uint32_t, std::vector<StateSpan>> spans;  // DUT's connection id -> spans
    auto handshake = [&](uint64_t gauge, uint32_t id, long frame, int64_t end) {
      const int64_t from = t_.frames[static_cast<size_t>(frame)].time_ns;
      const int64_t to = closed_at <= from ? from : std::min({end, from + kHandshakeNs, closed_at});
      spans[id].push_back({gauge, from, to, frame});
    };
    for (const auto& [key, sends] : dut_requests_) {
      const auto answer = answered_requests_.find(key);
      handshake(1, std::get<1>(key), sends.front(), answer == answered_requests_.end() ? kNever : answer->second);
    }
    for (const auto& [key, frame] : dut_accepts_) {
      const std::pair<int, uint32_t> id{std::get<0>(key), MetaAt(frame).cmh()->src_conn_id};
      int64_t end = kNever;
      if (const auto used = used_ids_.find(id); used != used_ids_.end()) end = used->second.time;
      if (const auto closed = due_closed_.find(id); closed != due_closed_.end()) end = std::min(end, closed->second.time);
      handshake(2, id.second, frame, end);
    }
    for (const auto& [id, d] : due_closed_) spans[id.second].push_back({6, d.time, d.time + kQuarantineNs, d.frame});
    for (const TelemetrySample& s : t_.telemetry) {
      if (s.host != kDutHost) continue;
      for (const auto& [name, value] : s.counters) {
        if (name.rfind("conn.", 0) != 0 || name.size() < 17 || name.compare(name.size() - 11, 11, ".conn_state") != 0) continue;
        uint32_t id = 0;
        try {
          id = static_cast<uint32_t>(std::stoul(name.substr(5, name.size() - 16)));
        } catch (...) {
          continue;
        }
        auto sp = spans.find(id);
        if (sp == spans.end()) continue;
        for (const StateSpan& span : sp->second) {
          if (!(s.time_ns > span.from && s.time_ns < span.to)) continue;
          Judged(kConnStateGauge);
          if (value == span.gauge) continue;
          static const char* const kState[] = {"CLOSED", "REQ_SENT", "ACK_SENT", "ESTABLISHED", "DISC_SENT", "ERROR", "QUARANTINE"};
          Values(Violate(kConnStateGauge, span.frame,
                         name + " read " + Str(value) + " in the telemetry sample at " + Str(static_cast<uint64_t>(s.time_ns)) +
                             " ns, while the frames show the connection in " + kState[span.gauge] + " (" + Str(span.gauge) +
                             ", table 17.2) from this frame until " + Str(static_cast<uint64_t>(span.to)) + " ns"),
                 name, span.gauge, value);
        }
      }
    }
  }

  // The trace's last moment: its last frame, control record or telemetry sample.
  int64_t TraceEnd() const {
    int64_t end = 0;
    for (const auto& f : t_.frames) end = std::max(end, f.time_ns);
    for (const auto& c : t_.control) end = std::max(end, c.time_ns);
    for (const auto& s : t_.telemetry) end = std::max(end, s.time_ns);
    return end;
  }

  // --- connection reports (connect.report) ---------------------------------------------------------
  // Events carry no connection id of the wire, only the DUT's handle, so each kind is judged as a
  // multiset of reasons: every report a frame of the trace made due is
  // there, and no REJECTED or ESTABLISHED is there that no frame explains.
  void ConnectReports() {
    if (live_) return;
    const int64_t end = TraceEnd();
    // The harness polls the DUT after every event of the simulation, so a report is due by the
    // poll after the frame that made it due: any frame of the trace (adapter guide, "Connection
    // events").
    std::map<std::string, std::vector<std::pair<uint32_t, size_t>>> events;  // kind -> (reason, control index)
    for (size_t j = 0; j < t_.control.size(); ++j) {
      const ControlRecord& c = t_.control[j];
      if (c.host == kDutHost && c.kind == ControlRecord::Kind::kConnEvent) events[c.detail].push_back({c.bytes, j});
    }
    const std::string established(dut::ConnEventKindName(dut::ConnEventKind::kEstablished));
    const std::string rejected(dut::ConnEventKindName(dut::ConnEventKind::kRejected));
    const std::string closed(dut::ConnEventKindName(dut::ConnEventKind::kClosed));
    // Every due report of `kind` with its reason is among the events (each event answers one).
    auto all_reported = [&](const std::string& kind, const std::vector<Due>& due, const std::string& what) {
      std::multiset<uint32_t> have;
      for (const auto& [reason, j] : events[kind]) have.insert(reason);
      for (const Due& d : due) {
        if (d.time > end) continue;
        Judged(kConnectReport);
        auto it = have.find(d.reason);
        if (it == have.end()) it = have.find(d.alt);
        if (it != have.end()) {
          have.erase(it);
          continue;
        }
        const size_t n = std::count_if(events[kind].begin(), events[kind].end(), [&](const auto& e) { return e.first == d.reason; });
        Values(Violate(kConnectReport, d.frame, "the DUT reported no " + kind + " event with reason " + Str(d.reason) + " for " + what),
               kind + " events with reason " + Str(d.reason), n + 1, n);
      }
    };
    all_reported(rejected, due_rejected_, "this frame (a CONNECT_REJ answering its request, or a CONNECT_ACK it refused: "
                                          "table 5.5 rows 8 and 9, MROCE-CONN-008)");
    std::vector<Due> establishments = due_established_;
    for (const auto& [key, d] : used_ids_) establishments.push_back(d);
    all_reported(established, establishments,
                 "this CONNECT_ACK answering its request, or this first packet naming a connection it accepted (table 5.5 rows 7, 11)");
    std::vector<Due> closes;
    for (const auto& [key, d] : due_closed_) closes.push_back(d);
    all_reported(closed, closes, "the connection this frame closed (table 5.5 rows 15, 17, 21)");
    // Nothing beyond what the frames show.
    auto at_most = [&](const std::string& kind, size_t most, const std::string& what) {
      const auto& ev = events[kind];
      if (ev.empty() && most == 0) return;  // nothing reported, nothing to report
      Judged(kConnectReport);
      if (ev.size() <= most) return;
      MonitorViolation& v = Violate(kConnectReport, -1, "the DUT reported " + Str(ev.size()) + " " + kind + " events; the frames show " +
                                                            Str(most) + " (" + what + ")");
      v.control = static_cast<long>(ev[most].second);
      Values(v, kind + " events", most, ev.size());
    };
    at_most(rejected, due_rejected_.size(), "CONNECT_REJs answering its requests and CONNECT_ACKs it refused");
    at_most(established, due_established_.size() + used_ids_.size(),
            "valid CONNECT_ACKs answering its requests, and connections it accepted on which a packet then arrived");
    // MROCE-CONN-005, table 5.5 row 6: a request still unanswered 255 ms after its first
    // transmission ends with TIMEOUT (1 us granularity either side); one answered before cannot.
    // Not judged once the harness closed a DUT connection (the request may be the one it closed).
    const std::string timeout(dut::ConnEventKindName(dut::ConnEventKind::kTimeout));
    constexpr int64_t kGiveUpNs = 255'000'000;
    constexpr int64_t kUnanswered = std::numeric_limits<int64_t>::max();
    int64_t harness_closed = kUnanswered;
    for (const ControlRecord& c : t_.control) {
      if (c.host == kDutHost && c.kind == ControlRecord::Kind::kClose) harness_closed = std::min(harness_closed, c.time_ns);
    }
    std::vector<Due> timeouts;
    size_t may_time_out = 0;
    for (const auto& [key, sends] : dut_requests_) {
      const int64_t first = t_.frames[static_cast<size_t>(sends.front())].time_ns;
      const auto answer = answered_requests_.find(key);
      const int64_t answered = answer == answered_requests_.end() ? kUnanswered : answer->second;
      if (answered >= first + kGiveUpNs - kGranularityNs) ++may_time_out;
      if (answered > first + kGiveUpNs + kGranularityNs && harness_closed > first + kGiveUpNs + kGranularityNs) {
        timeouts.push_back(Due{first + kGiveUpNs + kGranularityNs, sends.front(), 0});
      }
    }
    all_reported(timeout, timeouts, "the request this CONNECT_REQ began, unanswered 255 ms after it (MROCE-CONN-005, table 5.5 row 6)");
    if (harness_closed == kUnanswered) {
      at_most(timeout, may_time_out, "requests still unanswered 255 ms after their first CONNECT_REQ");
    }
    for (const auto& [reason, j] : events[established]) {
      Judged(kConnectReport);
      if (reason == 0) continue;
      MonitorViolation& v = Violate(kConnectReport, -1, "an ESTABLISHED event with reason " + Str(reason) + " (a CONNECT_ACK's reason is 0)");
      v.control = static_cast<long>(j);
      Values(v, "reason", 0, reason);
    }
  }

  // --- RNR holds end (MROCE-RNR-005's upper bound, simulated clock) ---------------------------------
  void RnrHoldEnds() {
    if (live_) return;
    const int64_t end = TraceEnd();
    for (const auto& [kp, p] : tx_) {
      const std::pair<ConnKey, uint32_t> kg{std::get<0>(kp), std::get<1>(kp)};
      auto closing = closing_at_.find(kg);
      auto rate = rate_.find(kg);
      for (const auto& [ep, holds] : p.rnr_holds) {
        const auto rtx = p.rtx_at.find(ep);
        for (size_t h = 0; h < holds.size(); ++h) {
          const TxPath::RnrHold& hold = holds[h];
          Judged(kRnrHold);
          const int64_t deadline = hold.at + (2 * std::max<int64_t>(hold.info, 1) + 100) * 1000 + kGranularityNs;
          if (deadline > end || h >= 7) continue;                       // not seen to its end; RNR retry limit
          if (h + 1 < holds.size() && holds[h + 1].at <= deadline) continue;  // a new hold took over
          if (closing != closing_at_.end() && closing->second <= deadline) continue;
          if (std::any_of(p.probe_sent_at.begin(), p.probe_sent_at.end(),
                          [&](int64_t t) { return t > hold.at && t <= deadline; })) {
            continue;  // the path failed: the content is re-sent elsewhere (7.7)
          }
          if (p.epoch == ep.first && Acked(p, ep.second, deadline)) continue;
          if (rate != rate_.end()) {  // the pacing of chapter 10 may delay it
            const RateTrack& tr = rate->second;
            bool slow = tr.peer_max_rate != 0 && tr.peer_max_rate < 1000;
            for (const auto& hint : tr.hints) slow = slow || (std::get<0>(hint) <= deadline && std::get<1>(hint) < 1000);
            if (slow) continue;
          }
          const bool done = rtx != p.rtx_at.end() &&
                            std::any_of(rtx->second.begin(), rtx->second.end(),
                                        [&](int64_t t) { return t > hold.at && t <= deadline; });
          if (!done) {
            Values(Violate(kRnrHold, hold.frame,
                           "PSN " + Str(ep.second) + " not retransmitted within 2 x max(info, 1) + 100 us (+ G) of the RNR "
                                                     "NACK with info " + Str(hold.info) + " that held it"),
                   "retransmission by (ns after the NACK)", static_cast<uint64_t>(deadline - hold.at), 0);
          }
        }
      }
    }
  }

  // --- sending rate (MROCE-HINT-005, section 10.4) --------------------------------------------------
  // Per connection: the hints in force (the peer's CMH max_rate before the first ACK) and the data the
  // DUT sent, judged after the pass as a token bucket of depth B filled at the hint.
  struct RateTrack {
    uint32_t peer_max_rate = 0;                          // Mb/s, 0 = unspecified
    // (arrival, rate_hint, maybe dropped) of each ACK that arrived; a sender drops an ACK beyond its
    // snd_nxt or of a bad version or path (MROCE-ACK-013), so its hint may or may not apply.
    std::vector<std::tuple<int64_t, uint32_t, bool>> hints;
    std::vector<std::tuple<int64_t, uint64_t, long>> sent;  // (time, IP total length, frame) of each data packet
    uint64_t full_packet = 0;                           // IP total length of a full-MTU data packet
  };
  std::map<std::pair<ConnKey, uint32_t>, RateTrack> rate_;

  // Mb/s in force from `h` (0xFFFFFFFF unlimited = 0 here; 0 read as 1 Mb/s), capped by max_rate.
  static double RateMbps(uint32_t h, uint32_t max_rate) {
    double r = h == 0xFFFFFFFFu ? 0 : h == 0 ? 1 : h;  // 0: unlimited
    if (max_rate != 0 && (r == 0 || r > max_rate)) r = max_rate;
    return r;
  }

  void SendingRate() {
    if (live_) return;
    for (const auto& [kg, tr] : rate_) {
      if (tr.sent.empty()) continue;
      const double depth = std::max<double>(16384, 2.0 * static_cast<double>(tr.full_packet));  // B
      // The rate in force at time t: the larger of hint(t) and hint(t - 1 us) (a new hint applies
      // within 1 us; whichever way it moves, the sender may use either meanwhile). 0 = unlimited.
      const int64_t kReact = 1000;
      auto hint_at = [&](int64_t t) -> double {  // the largest latest hint at t (ACKs arriving at t included)
        auto it = std::upper_bound(tr.hints.begin(), tr.hints.end(), t,
                                   [](int64_t x, const auto& h) { return x < std::get<0>(h); });
        double r = -1;
        auto more = [&](double v) { r = (r == 0 || v == 0) ? 0 : std::max(r, v); };
        while (it != tr.hints.begin()) {  // back to the last ACK that certainly counted
          --it;
          more(RateMbps(std::get<1>(*it), tr.peer_max_rate));
          if (!std::get<2>(*it)) return r;
        }
        more(RateMbps(0xFFFFFFFFu, tr.peer_max_rate));  // before the first ACK
        return r;
      };
      auto rate_at = [&](int64_t t) {
        const double a = hint_at(t), b = hint_at(t - kReact);
        return (a == 0 || b == 0) ? 0.0 : std::max(a, b);
      };
      // Boundaries where the rate may change.
      std::vector<int64_t> cuts;
      for (const auto& h : tr.hints) {
        cuts.push_back(std::get<0>(h));
        cuts.push_back(std::get<0>(h) + kReact);
      }
      std::sort(cuts.begin(), cuts.end());
      double tokens = depth;
      int64_t now = std::get<0>(tr.sent.front());
      Judged(kSendingRate);
      for (const auto& [t, bytes, frame] : tr.sent) {
        // Fill from `now` to `t`, segment by segment.
        auto c = std::upper_bound(cuts.begin(), cuts.end(), now);
        while (now < t) {
          const int64_t next = (c != cuts.end() && *c < t) ? *c : t;
          const double r = rate_at(now);
          tokens = r == 0 ? depth : std::min(depth, tokens + r / 8000.0 * static_cast<double>(next - now));
          now = next;
          while (c != cuts.end() && *c <= now) ++c;
        }
        if (rate_at(t) == 0) tokens = depth;
        tokens -= static_cast<double>(bytes);
        if (tokens < -1.0) {
          const double r = rate_at(t);
          MonitorViolation& v = Violate(kSendingRate, frame,
                                        "data of the connection beyond the rate bound of section 10.4: " +
                                            Str(static_cast<uint64_t>(-tokens)) + " B more than the latest hint (" +
                                            Str(static_cast<uint64_t>(r)) + " Mb/s) and the burst tolerance B = " +
                                            Str(static_cast<uint64_t>(depth)) + " B allow");
          Values(v, "bytes over the bound", 0, static_cast<uint64_t>(-tokens));
          tokens = 0;  // judge what follows from a clean bucket
        }
      }
    }
  }

  // --- completions --------------------------------------------------------------------------------
  // MROCE-STRM-011: no packet of msn m while m - u >= 1024, u the stream's lowest msn whose work
  // request has not completed. The k-th work request posted on a stream is msn k (MROCE-STRM-004);
  // control records name the DUT's connection by its handle, frames by connection id, so the rule
  // judges a trace in which the DUT posted on one connection and sent data in one. Simulated clock
  // only: a completion is recorded at the poll after the event that caused it, so a frame sent in
  // the completion's own nanosecond counts as after it.
  void StreamWindow() {
    if (live_ || stream_data_.empty()) return;
    using K = ControlRecord::Kind;
    std::set<dut::ConnHandle> handles;
    std::map<uint16_t, std::vector<uint64_t>> posts;  // stream -> wr_ids in posting order (msn = index)
    std::map<uint64_t, int64_t> done_at;              // wr_id -> its first completion
    for (const ControlRecord& c : t_.control) {
      if (c.host != kDutHost || c.op == dut::OpKind::kRecv || c.op == dut::OpKind::kRecvWriteImm) continue;
      if (c.kind == K::kPost) {
        handles.insert(c.conn);
        posts[c.stream].push_back(c.wr_id);
      } else if (c.kind == K::kCompletion) {
        done_at.try_emplace(c.wr_id, c.time_ns);
      }
    }
    std::set<std::pair<ConnKey, uint32_t>> conns;
    for (const StreamData& d : stream_data_) conns.insert({d.key, d.generation});
    if (handles.size() != 1 || conns.size() != 1) return;
    constexpr uint32_t kStreamWindowMsgs = 1024;
    std::map<uint16_t, size_t> lowest;  // stream -> u (monotone: completions only accumulate)
    for (const StreamData& d : stream_data_) {
      const auto p = posts.find(d.stream);
      if (p == posts.end()) continue;
      const int64_t t = t_.frames[static_cast<size_t>(d.frame)].time_ns;
      size_t& u = lowest[d.stream];
      while (u < p->second.size()) {
        const auto done = done_at.find(p->second[u]);
        if (done == done_at.end() || done->second > t) break;
        ++u;
      }
      if (u >= p->second.size()) continue;  // every posted work request completed: nothing to bound
      const auto ahead = static_cast<int32_t>(d.msn - static_cast<uint32_t>(u));
      if (ahead == static_cast<int32_t>(kStreamWindowMsgs) - 1) ++out_.at_bound[kStreamWindow];
      Expect(kStreamWindow, ahead < static_cast<int32_t>(kStreamWindowMsgs), d.frame,
             "a packet of msn " + Str(d.msn) + " on stream " + Str(d.stream) + " while msn " + Str(u) +
                 " (wr_id " + Str(p->second[u]) + ") had not completed",
             "meh.msn", static_cast<uint32_t>(u) + kStreamWindowMsgs - 1, d.msn);
    }
  }

  // MROCE-ACK-011: the ACKs and NACKs of a path p leave with p's own entropy while p is ACTIVE or
  // SUSPECT, else with an ACTIVE path's of p's plane, else any ACTIVE path's. The frames show p
  // FAILED from the PROBE the DUT sends on entering FAILED (MROCE-PATH-016) until a PROBE_ACK of
  // the announced epoch arrived (p may then be ACTIVE unseen) or data resumed on p. They show a path
  // q ACTIVE around an ACK when the DUT sent new data on q before and after it with the same source
  // port and epoch and nothing on q between that an RTO or a failure leaves (MROCE-PATH-011: new
  // data only on ACTIVE paths; an RTO re-rolls the entropy before q's next packet, MROCE-PATH-004,
  // and retransmits). A plane's link change fails paths without a PROBE: such traces are not judged.
  void AckRoutes() {
    if (live_ || !t_.links.empty()) return;
    using K = RouteEvent::Kind;
    for (const auto& [kg, ev] : route_) {
      const int planes = std::max<int>(1, route_planes_[kg]);
      // Per path, the indices into ev of its new-data events and of what breaks an ACTIVE span.
      std::map<uint8_t, std::vector<size_t>> fresh, breaks;
      for (size_t j = 0; j < ev.size(); ++j) {
        if (ev[j].kind == K::kNew) fresh[ev[j].path].push_back(j);
        if (ev[j].kind == K::kRtx || ev[j].kind == K::kProbe) breaks[ev[j].path].push_back(j);
      }
      // Whether q was certainly ACTIVE at event j.
      // Whether q was certainly ACTIVE at event j: its source port then, else nothing.
      auto active_at = [&](uint8_t q, size_t j) -> std::optional<uint16_t> {
        const auto& f = fresh[q];
        const auto after = std::upper_bound(f.begin(), f.end(), j);
        if (after == f.begin() || after == f.end()) return std::nullopt;
        const RouteEvent& a = ev[*std::prev(after)];
        const RouteEvent& b = ev[*after];
        if (a.sport != b.sport || a.epoch != b.epoch) return std::nullopt;
        const auto& br = breaks[q];
        const auto k = std::upper_bound(br.begin(), br.end(), *std::prev(after));
        if (k != br.end() && *k < *after) return std::nullopt;
        return a.sport;
      };
      std::map<uint8_t, std::pair<uint8_t, uint16_t>> failed;  // path -> (announced epoch, the PROBE's source port)
      for (size_t j = 0; j < ev.size(); ++j) {
        const RouteEvent& e = ev[j];
        if (e.kind == K::kProbe) {
          failed[e.path] = {e.epoch, e.sport};
          continue;
        }
        if (e.kind == K::kProbeAckIn) {
          if (auto f = failed.find(e.path); f != failed.end() && f->second.first == e.epoch) failed.erase(f);
          continue;
        }
        if (e.kind == K::kNew || e.kind == K::kRtx) {
          failed.erase(e.path);
          continue;
        }
        const auto f = failed.find(e.path);
        if (f == failed.end()) continue;
        const uint16_t own = f->second.second;
        const int own_plane = e.path % planes;
        bool any = false, same_plane = false;
        uint8_t witness = 0;
        uint16_t witness_sport = 0;
        for (const auto& [q, list] : fresh) {
          if (q == e.path) continue;
          const auto sport = active_at(q, j);
          if (!sport) continue;
          if (!any || (!same_plane && q % planes == own_plane)) {
            witness = q;
            witness_sport = *sport;
          }
          any = true;
          same_plane |= q % planes == own_plane;
        }
        if (!any) continue;
        const std::string what = std::string(MetaAt(e.frame).ch.opcode == Opcode::kAck ? "ACK" : "NACK") + " for path " +
                                 Str(e.path) + ", FAILED since its PROBE of epoch " + Str(f->second.first);
        Expect(kAckRoute, e.sport != own, e.frame,
               what + ", left with that path's own source port while path " + Str(witness) + " was ACTIVE",
               "udp.sport", witness_sport, e.sport);
        if (same_plane) {
          Expect(kAckRoute, e.plane == own_plane, e.frame,
                 what + ", left through plane " + Str(e.plane) + " while path " + Str(witness) + " of its plane " +
                     Str(own_plane) + " was ACTIVE",
                 "plane", own_plane, e.plane);
        }
      }
    }
  }

  // --- ack.deadline (MROCE-ACK-006, -007, -009; simulated clock only) ---------------------------
  // Which copy of a PSN the DUT recorded follows from its ACKs (MROCE-ACK-003: an ACK reports
  // exactly what is recorded): the copy after which the next ACK of the epoch first reports the
  // PSN. Only when that copy is the only one since the epoch's previous ACK (no NACK refused it,
  // MROCE-ACK-001), passes every check the monitor can see, and every PSN each ACK newly reports has
  // such a copy, is the path judged: then the DUT's recording order is known, and with it epsn at
  // each arrival, so whether the packet needed an immediate ACK.
  static bool Reports(const wire::AckHeader& a, uint32_t psn, uint32_t first) {
    if (psn - first < a.epsn - first) return true;
    const uint32_t b = psn - a.epsn - 1;
    return b < 256 && a.SackBit(static_cast<int>(b));
  }
  static int SackCount(const wire::AckHeader& a, uint32_t from_off, uint32_t to_off, uint32_t first) {
    int c = 0;  // SACK bits of `a` whose PSN lies at offset [from_off, to_off) from `first`
    for (int b = 0; b < 256; ++b) {
      const uint32_t off = a.epsn + 1 + static_cast<uint32_t>(b) - first;
      if (a.SackBit(b) && off >= from_off && off < to_off) ++c;
    }
    return c;
  }
  void AckDeadlines() {
    if (live_) return;
    for (const auto& [kgp, x] : rx_) AckDeadlinesOf(x);
  }
  void AckDeadlinesOf(const RxPath& x) {
    if (x.data_in.empty() || x.acks_out.empty()) return;
    auto first_of = [&](uint8_t e) -> std::optional<uint32_t> {
      auto it = x.epoch_first.find(e);
      if (it != x.epoch_first.end()) return it->second;
      if (e == 0) return 0u;
      return std::nullopt;
    };
    std::map<uint8_t, std::vector<size_t>> acks_of;  // epoch -> its ACKs (indices into acks_out)
    for (size_t j = 0; j < x.acks_out.size(); ++j) acks_of[x.acks_out[j].epoch].push_back(j);
    // The next ACK of epoch e after frame f (index into acks_of[e]), or -1.
    auto next_ack = [&](uint8_t e, long f) -> long {
      auto it = acks_of.find(e);
      if (it == acks_of.end()) return -1;
      auto pos = std::upper_bound(it->second.begin(), it->second.end(), f,
                                  [&](long fr, size_t j) { return fr < x.acks_out[j].frame; });
      return pos == it->second.end() ? -1 : static_cast<long>(pos - it->second.begin());
    };
    std::map<std::pair<uint8_t, uint32_t>, std::vector<long>> nacked;
    for (const auto& [f, e, psn] : x.nacks_out) nacked[{e, psn}].push_back(f);
    std::map<std::pair<uint8_t, uint32_t>, std::vector<size_t>> copies;
    for (size_t d = 0; d < x.data_in.size(); ++d) copies[{x.data_in[d].epoch, x.data_in[d].psn}].push_back(d);
    std::vector<std::pair<size_t, long>> recorded;  // (data_in index, position in acks_of[epoch] of the ACK)
    std::map<std::pair<uint8_t, long>, uint32_t> recorded_by;  // (epoch, ACK position) -> copies it newly reports
    for (const auto& [ep, v] : copies) {
      const auto first = first_of(ep.first);
      if (!first) {
        if (acks_of.count(ep.first)) return;  // an ACK of an epoch no PROBE announced: ack.epoch's matter
        continue;
      }
      // Copies a NACK refused (a NACK naming the PSN before its next copy) are not recorded.
      std::vector<size_t> live;
      for (size_t c = 0; c < v.size(); ++c) {
        const long from = x.data_in[v[c]].frame;
        const long to = c + 1 < v.size() ? x.data_in[v[c + 1]].frame : std::numeric_limits<long>::max();
        bool refused = false;
        if (auto nk = nacked.find(ep); nk != nacked.end()) {
          for (long f : nk->second) refused = refused || (f > from && f < to);
        }
        if (!refused) live.push_back(v[c]);
      }
      for (size_t c = 0; c < live.size(); ++c) {
        const RxPath::DataIn& in = x.data_in[live[c]];
        const long a = next_ack(ep.first, in.frame);
        if (a < 0) break;
        const auto& list = acks_of.at(ep.first);
        if (!Reports(x.acks_out[list[a]].ack, ep.second, *first)) continue;  // dropped
        // Recorded. Ambiguous when another copy shares the interval, the copy fails a check, or the
        // epoch's previous ACK already reported the PSN.
        if (!in.valid) return;
        if (c + 1 < live.size() && next_ack(ep.first, x.data_in[live[c + 1]].frame) == a) return;
        if (a > 0 && Reports(x.acks_out[list[a - 1]].ack, ep.second, *first)) return;
        recorded.emplace_back(live[c], a);
        ++recorded_by[{ep.first, a}];
        break;
      }
    }
    // Every PSN an ACK newly reports has its recording copy since the epoch's previous ACK.
    for (const auto& [e, list] : acks_of) {
      const auto first = first_of(e);
      if (!first) return;
      for (size_t j = 0; j < list.size(); ++j) {
        const wire::AckHeader& a = x.acks_out[list[j]].ack;
        const uint32_t hi = a.epsn - *first;
        if (hi > 0x80000000u) return;
        uint64_t fresh = 0;
        if (j == 0) {
          fresh = hi + static_cast<uint64_t>(SackCount(a, hi + 1, hi + 257, *first));
        } else {
          const wire::AckHeader& p = x.acks_out[list[j - 1]].ack;
          const uint32_t lo = p.epsn - *first;
          if (lo > hi) return;
          // What p reported must stay reported (else ack.sack-persistent's matter).
          for (int b = 0; b < 256; ++b) {
            if (p.SackBit(b) && !Reports(a, p.epsn + 1 + static_cast<uint32_t>(b), *first)) return;
          }
          fresh = (hi - lo) - static_cast<uint64_t>(SackCount(p, lo, hi, *first));
          for (int b = 0; b < 256; ++b) {
            if (a.SackBit(b) && !Reports(p, a.epsn + 1 + static_cast<uint32_t>(b), *first)) ++fresh;
          }
        }
        auto it = recorded_by.find({e, static_cast<long>(j)});
        if (fresh != (it == recorded_by.end() ? 0u : it->second)) return;
      }
    }
    std::sort(recorded.begin(), recorded.end());  // data_in is in trace order
    std::map<uint8_t, std::set<uint32_t>> above;  // epoch -> recorded offsets above epsn
    std::map<uint8_t, uint32_t> epsn;             // epoch -> epsn's offset from the epoch's first PSN
    std::vector<size_t> unacked;
    int64_t due = std::numeric_limits<int64_t>::max();
    long due_frame = -1;
    std::string why;
    size_t ri = 0;
    for (size_t ai = 0; ri < recorded.size() || ai < x.acks_out.size();) {
      if (ri < recorded.size() && (ai >= x.acks_out.size() || x.data_in[recorded[ri].first].frame < x.acks_out[ai].frame)) {
        const RxPath::DataIn& in = x.data_in[recorded[ri++].first];
        const uint32_t off = in.psn - *first_of(in.epoch);
        uint32_t& ep = epsn[in.epoch];
        std::set<uint32_t>& up = above[in.epoch];
        std::string reason;
        if (in.ar) {
          reason = "it had AR (MROCE-ACK-006)";
        } else if (off != ep) {
          reason = "it was not epsn (" + Str(ep + *first_of(in.epoch)) + ") when it arrived (MROCE-ACK-007)";
        } else if (!up.empty()) {
          reason = "it filled a gap (MROCE-ACK-007)";
        }
        up.insert(off);
        while (!up.empty() && *up.begin() == ep) {
          up.erase(up.begin());
          ++ep;
        }
        unacked.push_back(ri - 1);
        if (reason.empty() && unacked.size() >= 4) reason = "it was the 4th unacknowledged recorded packet (MROCE-ACK-009)";
        const int64_t d = reason.empty() ? x.data_in[recorded[unacked.front()].first].t + 4000 + kGranularityNs
                                         : in.t + 1000;
        if (reason.empty()) {
          reason = "4 us after the oldest unacknowledged recorded packet (PSN " +
                   Str(x.data_in[recorded[unacked.front()].first].psn) + ") arrived (MROCE-ACK-009)";
        }
        if (d < due) {
          due = d;
          due_frame = in.frame;
          why = "data packet PSN " + Str(in.psn) + " (epoch " + Str(in.epoch) + ") needed an ACK within " +
                (d == in.t + 1000 ? std::string("1 us: ") : std::string("the 4 us timer: ")) + reason;
        }
        continue;
      }
      const RxPath::AckOut& a = x.acks_out[ai++];
      if (!unacked.empty()) {
        Judged(kAckDeadline);
        if (a.t > due) {
          const int64_t at = t_.frames[static_cast<size_t>(due_frame)].time_ns;
          Values(Violate(kAckDeadline, a.frame,
                         why + "; the next ACK of the path left " + Str(static_cast<uint64_t>(a.t - at)) +
                             " ns after its arrival",
                         due_frame),
                 "ack_after_arrival_ns", static_cast<uint64_t>(due - at), static_cast<uint64_t>(a.t - at));
        }
      }
      unacked.clear();
      due = std::numeric_limits<int64_t>::max();
    }
  }

  void Completions() {
    using K = ControlRecord::Kind;
    using WrKey = std::tuple<uint64_t, bool, uint64_t>;  // (conn, receive side, wr_id)
    std::map<WrKey, std::pair<int, int>> count;           // posts, completions
    std::map<WrKey, uint16_t> stream_of;
    std::map<std::tuple<uint64_t, bool, uint16_t>, std::vector<uint64_t>> order;  // post order per stream
    std::set<WrKey> completed;
    std::map<WrKey, dut::OpKind> op_of;
    std::map<WrKey, std::pair<int64_t, size_t>> posted_at;   // (time, control index) of the post
    std::map<WrKey, std::pair<int64_t, size_t>> first_done;  // (time, control index) of its first completion
    std::map<uint64_t, std::pair<int64_t, size_t>> error_at;  // conn -> the DUT's first ERROR event
    const int64_t end = TraceEnd();
    const auto& ctl = t_.control;
    for (size_t j = 0; j < ctl.size(); ++j) {
      const ControlRecord& c = ctl[j];
      if (c.host != kDutHost) continue;
      if (c.kind == K::kConnEvent && c.detail == dut::ConnEventKindName(dut::ConnEventKind::kError)) {
        error_at.try_emplace(static_cast<uint64_t>(c.conn), c.time_ns, j);
        continue;
      }
      const bool recv = c.op == dut::OpKind::kRecv || c.op == dut::OpKind::kRecvWriteImm;
      const uint64_t conn = static_cast<uint64_t>(c.conn);
      const WrKey key{conn, recv, c.wr_id};
      if (c.kind == K::kPost) {
        ++count[key].first;
        stream_of[key] = c.stream;
        op_of[key] = c.op;
        posted_at.try_emplace(key, c.time_ns, j);
        order[{conn, recv, c.stream}].push_back(c.wr_id);
        continue;
      }
      if (c.kind != K::kCompletion) continue;
      first_done.try_emplace(key, c.time_ns, j);
      auto& [posts, done] = count[key];
      ++done;
      if (posts > 0) {
        // MROCE-CMPL-009 (and 13.2): the completion names the work request's stream and kind.
        Judged(kCompletionFields);
        const dut::OpKind want = op_of[key];
        const bool kind_ok = recv ? (want == dut::OpKind::kRecv || want == dut::OpKind::kRecvWriteImm) : c.op == want;
        if (c.stream != stream_of[key] || !kind_ok) {
          const bool bad_stream = c.stream != stream_of[key];
          MonitorViolation& v = Violate(kCompletionFields, -1,
                                        std::string(recv ? "receive" : "work request") + " wr_id " + Str(c.wr_id) +
                                            " completed with " +
                                            (bad_stream ? "stream " + Str(c.stream) + ", posted on stream " + Str(stream_of[key])
                                                        : "kind " + std::string(dut::OpKindName(c.op)) + ", posted as " +
                                                              std::string(dut::OpKindName(want))));
          v.control = static_cast<long>(j);
          if (bad_stream) Values(v, "completion.stream", stream_of[key], c.stream);
        }
      }
      if (auto e = error_at.find(conn); e != error_at.end() && c.time_ns > e->second.first &&
                                        c.status == dut::OpStatus::kSuccess) {
        Judged(kCompletionFlush);
        MonitorViolation& v = Violate(kCompletionFlush, -1,
                                      std::string(recv ? "receive" : "work request") + " wr_id " + Str(c.wr_id) +
                                          " completed SUCCESS " + Str(c.time_ns - e->second.first) +
                                          " ns after the DUT reported its connection in ERROR");
        v.control = static_cast<long>(j);
      }
      Judged(kCompletionOnce);
      const std::string what = std::string(recv ? "receive" : "work request") + " wr_id " + Str(c.wr_id);
      if (done > posts) {
        MonitorViolation& v =
            Violate(kCompletionOnce, -1, posts == 0 ? "a completion for " + what + ", never posted" : "a second completion for " + what);
        v.control = static_cast<long>(j);
        Values(v, "completions", posts, done);
      }
      if (c.status == dut::OpStatus::kSuccess && posts > 0) {
        Judged(kCompletionOrder);
        const auto& seq = order[{conn, recv, stream_of[key]}];
        for (size_t q = 0; q < seq.size() && seq[q] != c.wr_id; ++q) {
          if (completed.count({conn, recv, seq[q]})) continue;
          MonitorViolation& v = Violate(kCompletionOrder, -1,
                                        what + " completed successfully before wr_id " + Str(seq[q]) +
                                            ", posted earlier on the same stream, completed");
          v.control = static_cast<long>(j);
          Values(v, "completions of earlier posts", q + 1, q);
          break;
        }
      }
      completed.insert(key);
    }
    // MROCE-CMPL-011: what was outstanding when the connection entered ERROR, and what was posted to
    // it afterwards, completes (afterwards: WR_FLUSH_ERR, nothing sent) -- judged for each work
    // request the trace followed for 1 ms after the later of the error and its post.
    constexpr int64_t kFollow = 1'000'000;
    for (const auto& [key, at] : posted_at) {
      auto e = error_at.find(std::get<0>(key));
      if (e == error_at.end()) continue;
      auto d = first_done.find(key);
      const bool after = at.first > e->second.first;
      if (!after && d != first_done.end() && d->second.first <= e->second.first) continue;  // done before the error
      if (std::max(at.first, e->second.first) + kFollow > end) continue;
      Judged(kCompletionFlush);
      const std::string what = std::string(std::get<1>(key) ? "receive" : "work request") + " wr_id " + Str(std::get<2>(key));
      if (d == first_done.end()) {
        MonitorViolation& v = Violate(kCompletionFlush, -1,
                                      what + (after ? ", posted " + Str(at.first - e->second.first) + " ns after"
                                                    : ", outstanding when") +
                                          " the DUT reported its connection in ERROR, never completed (the trace ran " +
                                          Str(end - std::max(at.first, e->second.first)) + " ns longer)");
        v.control = static_cast<long>(at.second);
        continue;
      }
      if (after && ctl[d->second.second].status != dut::OpStatus::kFlushed) {
        MonitorViolation& v = Violate(kCompletionFlush, -1,
                                      what + ", posted after the DUT reported its connection in ERROR, completed " +
                                          std::string(dut::OpStatusName(ctl[d->second.second].status)) + ", not WR_FLUSH_ERR");
        v.control = static_cast<long>(d->second.second);
      }
    }
  }
};

}  // namespace

const std::vector<MonitorRule>& MonitorRules() { return Rules(); }

MonitorReport RunClauseMonitor(const RunRecord& rec) { return Monitor(rec).Run(); }

}  // namespace mroce::session
