// The test-case model: what a case file (testcases/*.yaml) says, after the loader has validated it.
//
// Format reference: docs/user-guide.md ("Writing test cases"); JSON Schema:
// testcases/schema/case.schema.json. Sessions consume this model; nothing here runs anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "mroce/harness/verdict.h"
#include "mroce/impairment/quantity.h"
#include "mroce/impairment/stage_config.h"

namespace mroce::harness {

// Where something was written: 1-based line and column (0 when unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  // "file:line:col" (parts that are unknown are left out).
  [[nodiscard]] std::string ToString() const;
  bool operator==(const SourceLocation&) const = default;
};

// A clause a case verifies, with the level it is verified at.
struct ClauseRef {
  std::string id;
  Level level = Level::kMust;
  bool operator==(const ClauseRef&) const = default;
};

// A span of time stated either in round-trip times of the case's topology (so the same case runs in
// simulated and in live time) or in absolute nanoseconds; written with the grammar of
// impairment/quantity.h.
using Duration = impairment::DurationSpec;

// The fabric a case runs on: `planes` parallel Clos planes, each with `spines` spines; every
// connection uses `paths` paths (UDP source ports) spread over the planes.
struct Topology {
  int planes = 1;
  int spines = 1;                            // Per plane.
  int paths = 1;                             // Per connection.
  int64_t link_rate_bps = 100'000'000'000;   // Host links, bits per second.
  int64_t spine_link_rate_bps = 0;           // Fabric links, bits per second; 0 = link_rate_bps.
  int64_t rtt_ns = impairment::kDefaultRttNs; // Base round-trip time without queueing, nanoseconds.
  int64_t mtu_bytes = 4096;                  // MetaRoCE payload per packet, bytes.
  bool operator==(const Topology&) const = default;
};

// When an impairment stage is active; without a schedule it is active for the whole run.
using Schedule = impairment::StageSchedule;

// One impairment stage (an `impairments:` item), validated by the loader against the stage kinds of
// impairment/ (stage_kind.h): kind, name ("<kind>#<index>" when not given), match, params, schedule.
struct ImpairmentSpec {
  impairment::StageConfig stage;
  SourceLocation where;
  bool operator==(const ImpairmentSpec&) const = default;
};

enum class Direction { kDutToPeer, kPeerToDut };
// "dut->peer", "peer->dut".
[[nodiscard]] std::string_view ToString(Direction d);

enum class OpKind { kWrite, kRead, kSend };
// "write", "read", "send".
[[nodiscard]] std::string_view ToString(OpKind k);

// `count` messages of `size_bytes` each, of one kind.
struct WorkloadOp {
  OpKind kind = OpKind::kWrite;
  int64_t size_bytes = 0;
  int64_t count = 1;
  std::optional<int> stream;   // Fixed stream; round-robin over the streams when absent.
  bool operator==(const WorkloadOp&) const = default;
};

// End-to-end workload: the DUT and the reference exchange these messages through the fabric.
// With senders > 1 that many reference senders all target one receiver (incast, fair share).
struct Workload {
  Direction direction = Direction::kDutToPeer;  // Who originates the ops.
  int connections = 1;
  int streams = 1;                               // Per connection.
  int senders = 1;
  std::vector<WorkloadOp> ops;
  bool operator==(const Workload&) const = default;
};

// A field value or pattern in a scripted step, e.g. `ack.epsn: 5`, `ch.psn: "$psn+1"`,
// `ack.rate_hint: ">0"`, `ch.flags.ar: [0, 1]`, `eth.dst: "02:00:00:00:00:01"`.
struct FieldPattern {
  enum class Kind {
    kAny,       // "*": present with any value
    kExact,     // 5, "0x10"
    kBytes,     // MAC, IPv4/IPv6 address, "hex:..." (byte-array fields)
    kRange,     // "lo..hi", ">x", ">=x", "<x", "<=x" (inclusive bounds in lo/hi)
    kMask,      // "value/mask": (actual & mask) == value
    kOneOf,     // [a, b, c]
    kNotEqual,  // "!=x"
    kVariable,  // "$name" or "$name+N"/"$name-N": binds on first use, must equal afterwards
  };
  Kind kind = Kind::kAny;
  uint64_t value = 0;      // kExact, kNotEqual, kMask (the value)
  uint64_t lo = 0, hi = 0; // kRange
  uint64_t mask = 0;       // kMask
  std::vector<uint64_t> values;  // kOneOf
  std::vector<uint8_t> bytes;    // kBytes
  std::string variable;          // kVariable (without '$')
  int64_t offset = 0;            // kVariable
  std::string text;              // As written, for messages.

  // Whether a scalar matches (kAny/kExact/kRange/kMask/kOneOf/kNotEqual; kVariable and kBytes
  // are resolved by the scripted peer).
  [[nodiscard]] bool MatchesScalar(uint64_t actual) const;
  // Literal values only (what an inject may carry): kExact, kBytes, kVariable.
  [[nodiscard]] bool IsLiteral() const {
    return kind == Kind::kExact || kind == Kind::kBytes || kind == Kind::kVariable;
  }
  bool operator==(const FieldPattern&) const = default;
};

using FieldPatterns = std::vector<std::pair<std::string, FieldPattern>>;  // In file order.

// The harness sends a frame at `at` (from the script's start), or `after` the previous step (for a
// step that must follow what an earlier one caused: an injected frame's arrival at the DUT). The
// frame is given by codec field
// names (missing fields take defaults, computed fields are filled) or by a Scapy expression
// evaluated in the embedded interpreter (for malformed frames).
struct InjectStep {
  Duration at;
  // From the previous step instead of the script's start (exactly one of at / after is written).
  // Against a live DUT an `after` in RTTs counts the live RTT: the time a frame takes there.
  std::optional<Duration> after;
  std::optional<int> path;   // Path index of the connection; the case's first path when absent.
  FieldPatterns frame;       // Literal values only.
  std::string scapy;         // Exactly one of frame / scapy is set.
  SourceLocation where;
  bool operator==(const InjectStep&) const = default;
};

// The DUT must send a frame matching `match` within `within` of the previous step (or, with
// absent: true, must send none in that window). Its response is also compared field by field with
// the reference endpoint's response to the same script, except the `free` fields (exact names or
// prefixes ending in '.').
struct ExpectStep {
  Duration within = Duration::Rtts(1);
  FieldPatterns match;
  std::vector<std::string> free;
  bool absent = false;
  // Consecutive unordered steps form a group whose frames may leave in any order: each is
  // matched from the group's start (its window too), never to a frame another step of the group
  // took; the script goes on after the group's latest match. For orders the spec leaves free
  // (segments of a message, the first path: MROCE-STRM-009).
  bool unordered = false;
  SourceLocation where;
  bool operator==(const ExpectStep&) const = default;
};

// Drives the DUT's control interface at `at` (or `after` the previous step, as an inject) so it has
// something to send or receive.
struct DutStep {
  enum class Action { kOpen, kWrite, kRead, kSend, kPostRecv, kClose };
  Duration at;
  std::optional<Duration> after;
  Action action = Action::kOpen;
  int64_t size_bytes = 0;
  int64_t count = 1;
  std::optional<int> stream;
  // A post the spec requires the DUT to refuse locally (MROCE-LIM-002): the step passes only when
  // every post of it returns an error.
  bool refused = false;
  // write or send with immediate data: WRITE_IMM (feature write_imm) or SEND_IMM (send_imm).
  std::optional<uint32_t> imm;
  SourceLocation where;
  bool operator==(const DutStep&) const = default;
};
// "open", "write", "read", "send", "post-recv", "close".
[[nodiscard]] std::string_view ToString(DutStep::Action a);

// A standing answer: from its place in the script to the script's end, the harness answers every
// DUT frame that matches `match` (sent after the last frame an earlier expect step matched) with
// `frame`, at once, at most `max` times. Variables of `match` that are not bound when a frame
// matches bind for that frame's answer only ("$seq" of each PROBE), so `frame` can echo them;
// bound ones must match. `frame` takes literal values like an inject. The answer goes on `path`,
// else on the answered frame's ch.path_id (path 0 for a frame without one). For exchanges whose
// length the spec leaves open (how many PROBE_ACKs reintroduce a path: MROCE-PATH-017).
struct RespondStep {
  FieldPatterns match;
  FieldPatterns frame;  // Literal values only.
  int max = 64;
  std::optional<int> path;
  SourceLocation where;
  bool operator==(const RespondStep&) const = default;
};

using ScriptStep = std::variant<InjectStep, ExpectStep, DutStep, RespondStep>;

// A named check (a pure function of the trace) with its parameters. `clauses` defaults to the
// case's clauses.
struct CheckSpec {
  std::string name;
  nlohmann::json params;   // Object (possibly empty); the check validates it.
  std::vector<ClauseRef> clauses;
  SourceLocation where;
  bool operator==(const CheckSpec&) const = default;
};

struct Timeouts {
  Duration total = Duration::Rtts(10'000);  // Whole case, from setup to last check.
  Duration quiesce = Duration::Rtts(10);    // Silence after the workload before judging.
  bool operator==(const Timeouts&) const = default;
};

enum class Style { kEndToEnd, kScripted };
// "end-to-end", "scripted".
[[nodiscard]] std::string_view ToString(Style s);

// The names a case may list in `requires`: the DUT features of the adapter guide (capabilities
// `features`), `simulated_time` (the case needs the harness's clock) and `raw_frames` (it injects
// Ethernet/IP/UDP header fields a kernel UDP socket would rewrite: NeedsRawFrames).
[[nodiscard]] const std::vector<std::string>& KnownRequirements();
// Whether injecting `field` (a codec field name) needs a data plane that carries whole frames:
// every Ethernet, IP and UDP header field except addresses, ports, ECN and DSCP.
[[nodiscard]] bool NeedsRawFrames(std::string_view field);

struct Case {
  std::string id;            // Stable dotted id, e.g. "loss.sack.exact-retransmit".
  std::string title;
  std::string description;
  std::vector<ClauseRef> clauses;
  std::vector<std::string> requires_caps;  // Capabilities the DUT must have (else skip).
  // Why the case needs the harness's simulated clock (required with simulated_time in requires):
  // the skip reason a live DUT gets.
  std::string simulated_time_reason;
  std::vector<std::string> tags;
  Topology topology;
  std::vector<ImpairmentSpec> impairments;
  Style style = Style::kEndToEnd;
  Workload workload;                   // kEndToEnd
  std::vector<ScriptStep> script;      // kScripted
  std::vector<CheckSpec> checks;
  Timeouts timeouts;
  SourceLocation where;                // The file, line 1.

  // The strongest level among the case's clauses (MAY when it has none).
  [[nodiscard]] Level level() const;
  // The optional features the case uses, read from its content (spec: a device is conformant for
  // the opcodes it implements): write, write_imm, send, send_imm, read from its workload, DUT steps
  // and injected opcodes; multipath when it has more than one path, multiplane for more than one
  // plane. Sorted. A case declares them in `requires` (a test holds the bundled suite to that).
  [[nodiscard]] std::vector<std::string> FeaturesUsed() const;
  // Category: the id up to its last dot ("loss.sack" for "loss.sack.exact-retransmit").
  [[nodiscard]] std::string category() const;
  bool operator==(const Case&) const = default;
};

// Rewrites the file of every source location of `c` (the case, its impairments, script steps and
// checks) as a path relative to `suite` (the suite directory, '/'-separated; the file name alone
// when `suite` is the case file itself), so that check names, `where` and reasons in reports are the
// same whichever directory the suite was checked out in. Loader diagnostics keep the path as given.
void MakeSourcesSuiteRelative(Case& c, const std::string& suite);

}  // namespace mroce::harness
