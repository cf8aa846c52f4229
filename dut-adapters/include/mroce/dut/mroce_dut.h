/* mroce_dut.h: the versioned C ABI through which a shared object (a vendor's software model, an RTL
 * simulation bridge, ...) is certified by mroce-cts in simulated time.
 *
 * A plugin exports one function, mroce_dut_plugin_v1(), returning a table of function pointers
 * (struct mroce_dut_plugin). The harness creates one instance per test case (plus short-lived ones
 * that it only asks for capabilities), starts it with its place in the fabric and a frame sink, and
 * from then on drives it: frames in (on_frame), timers (next_deadline / on_timer), control calls
 * that mirror the C++ `mroce::dut::Dut` interface, and optional telemetry.
 *
 * Rules (docs/adapter-guide.md has the long form):
 *  - Time is int64 nanoseconds of the harness's simulated clock, passed in with every call that can
 *    make the device act. It never goes backwards. A plugin never reads a real clock.
 *  - Frames are whole Ethernet frames without FCS. Frames leave only through the sink given to
 *    start(), and only from inside a call the harness made on that instance; the bytes are copied
 *    before send() returns.
 *  - Variable-length results (events, completions, telemetry, out-of-band info) come back through
 *    emit callbacks called before the op returns; pointers passed to a callback are valid only
 *    during that callback.
 *  - Calls on one instance never overlap (they may come from different threads over its life);
 *    different instances may be called concurrently, so per-process mutable state needs a lock.
 *  - Fallible ops return MROCE_DUT_OK (0) or a negative mroce_dut_status; last_error() then gives
 *    a human-readable message, valid until the next call on that instance.
 *
 * Versioning: abi_version is the major version (a mismatch is refused); struct_size is
 * sizeof(struct mroce_dut_plugin) as the plugin was compiled. New ops are only ever appended, so a
 * host reads the members a plugin's struct_size covers and treats the rest as absent (NULL).
 * Structs the host passes in carry their own struct_size for the same reason.
 *
 * Plain C99; usable from C and C++. Header-only: link nothing, include this file.
 */
#ifndef MROCE_DUT_H_
#define MROCE_DUT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Major version of this ABI. A host refuses a plugin whose abi_version differs. */
#define MROCE_DUT_ABI_VERSION 1u
/* Name of the entry point a plugin exports (dlsym). */
#define MROCE_DUT_ENTRY_POINT "mroce_dut_plugin_v1"
/* "No deadline": next_deadline() returns it when the device has no timer armed. */
#define MROCE_DUT_NEVER INT64_MAX

#if defined(_WIN32)
#define MROCE_DUT_EXPORT __declspec(dllexport)
#else
#define MROCE_DUT_EXPORT __attribute__((visibility("default")))
#endif

/* Simulated time, nanoseconds since the start of the test case. */
typedef int64_t mroce_dut_time_ns;

/* Result of a fallible op. */
typedef enum mroce_dut_status {
  MROCE_DUT_OK = 0,
  MROCE_DUT_ERR_INVALID = -1,     /* bad argument: unknown handle, buffer id, range, stream */
  MROCE_DUT_ERR_STATE = -2,       /* not allowed now (before start, after close, ...) */
  MROCE_DUT_ERR_RESOURCE = -3,    /* out of memory, queue full, too many connections */
  MROCE_DUT_ERR_UNSUPPORTED = -4, /* the device does not do this (optional feature) */
  MROCE_DUT_ERR_INTERNAL = -5     /* anything else: the message says what */
} mroce_dut_status;

typedef enum mroce_dut_protocol {
  MROCE_DUT_PROTOCOL_METAROCE = 0,
  MROCE_DUT_PROTOCOL_ROCEV2 = 1
} mroce_dut_protocol;

/* Memory access rights of a buffer (as verbs access flags). */
enum {
  MROCE_DUT_ACCESS_LOCAL_WRITE = 1u << 0,
  MROCE_DUT_ACCESS_REMOTE_WRITE = 1u << 1,
  MROCE_DUT_ACCESS_REMOTE_READ = 1u << 2
};

typedef enum mroce_dut_op {
  MROCE_DUT_OP_SEND = 0,
  MROCE_DUT_OP_WRITE = 1,
  MROCE_DUT_OP_READ = 2,
  MROCE_DUT_OP_RECV = 3,
  MROCE_DUT_OP_RECV_WRITE_IMM = 4
} mroce_dut_op;

/* Completion statuses (spec table 13.1); OTHER for a device-specific status. */
typedef enum mroce_dut_op_status {
  MROCE_DUT_WC_SUCCESS = 0,
  MROCE_DUT_WC_RETRY_EXCEEDED = 1,
  MROCE_DUT_WC_RNR_RETRY_EXCEEDED = 2,
  MROCE_DUT_WC_REMOTE_ACCESS = 3,
  MROCE_DUT_WC_LOCAL_LENGTH = 4,
  MROCE_DUT_WC_REMOTE_INVALID = 5,
  MROCE_DUT_WC_REMOTE_OP_ERROR = 6,
  MROCE_DUT_WC_FLUSHED = 7,
  MROCE_DUT_WC_REMOTE_ABORT = 8,
  MROCE_DUT_WC_RESOURCE = 9,
  MROCE_DUT_WC_CONNECT_TIMEOUT = 10,
  MROCE_DUT_WC_OTHER = 11
} mroce_dut_op_status;

/* Connection events (poll_events), per connection handle; `reason` is the protocol reason code or 0.
 *  ESTABLISHED  requester: a valid CONNECT_ACK arrived; responder: the first packet carrying its
 *               connection id arrived (spec table 5.5 rows 7 and 11).
 *  INCOMING     responder: a valid CONNECT_REQ waits for an accept decision of the device's own
 *               application. ABI 1 has no accept call: the harness logs INCOMING and otherwise ignores
 *               it, so a device certified through this ABI accepts valid requests by itself and
 *               reports ACCEPTED (spec table 5.5 row 2).
 *  REJECTED     requester: CONNECT_REJ arrived (reason = its CMH reason), or the requester refused the
 *               CONNECT_ACK (reason 0x03 INVALID_PARAMS, MROCE-CONN-008).
 *  TIMEOUT      requester: CONNECT_REQ unanswered after its retransmissions (MROCE-CONN-005).
 *  CLOSED       closed by either side (reason 0x10 NORMAL or 0x11 ERROR of the DISCONNECT).
 *  ERROR        the connection entered ERROR (MROCE-ERR-011).
 *  ACCEPTED     responder: the device accepted an incoming connection and takes receives on it from
 *               now on (ESTABLISHED may follow only with the first packet). */
typedef enum mroce_dut_event_kind {
  MROCE_DUT_EVENT_ESTABLISHED = 0,
  MROCE_DUT_EVENT_INCOMING = 1,
  MROCE_DUT_EVENT_REJECTED = 2,
  MROCE_DUT_EVENT_TIMEOUT = 3,
  MROCE_DUT_EVENT_CLOSED = 4,
  MROCE_DUT_EVENT_ERROR = 5,
  MROCE_DUT_EVENT_ACCEPTED = 6
} mroce_dut_event_kind;

/* What the device can do; test cases needing an absent feature get a SKIP verdict. */
typedef struct mroce_dut_capabilities {
  uint32_t struct_size;     /* set by the host: sizeof as the host knows it */
  uint8_t protocol;         /* mroce_dut_protocol */
  uint8_t in_band_connect;  /* 1: connection setup on the wire; 0: out of band (prepare_connection) */
  uint8_t max_paths;
  uint8_t max_planes;
  uint16_t max_streams;
  /* Comma-separated feature names, e.g. "write,write_imm,send,send_imm,read,multipath,telemetry";
   * "" for none. The string must stay valid for the instance's life. */
  const char* features;
} mroce_dut_capabilities;

/* Where the device sits in the fabric and what it may use, given at start(). */
typedef struct mroce_dut_host_config {
  uint32_t struct_size;
  uint8_t mac[6];
  uint8_t ipv4[4];        /* network order: {10, 0, 0, 1} is 10.0.0.1 (ABI 1 has no IPv6 address) */
  uint16_t udp_port;      /* MetaRoCE destination port the device listens on */
  uint8_t num_paths;      /* paths per connection the harness expects */
  uint8_t num_planes;     /* NIC ports: frames carry plane 0..num_planes-1 */
  uint16_t mtu;           /* MetaRoCE MTU: payload bytes per data packet, the CMH mtu the device
                           * requests (spec README "MTU"), not the IP MTU: 4096 gives 4184-byte
                           * IPv4 packets */
  uint16_t max_streams;
  uint64_t link_capacity_mbps; /* sum of the line rates of all planes (C of spec 10.3), Mb/s */
  uint64_t seed;          /* for any randomness (entropy, jitter): the same seed, the same bytes */
} mroce_dut_host_config;

/* Frames leave the device here. `frame` is valid only during the call; `plane` is the NIC port. */
typedef struct mroce_dut_frame_sink {
  void* ctx;
  void (*send)(void* ctx, const uint8_t* frame, size_t length, uint8_t plane);
} mroce_dut_frame_sink;

/* A device-side buffer registered for RDMA: the peer reaches it at [va, va + length) with rkey. */
typedef struct mroce_dut_buffer {
  uint32_t id;      /* the harness names the buffer by id in later calls */
  uint32_t rkey;
  uint64_t va;
  uint64_t length;  /* bytes */
} mroce_dut_buffer;

/* One name/value pair of out-of-band connection setup (protocols without an in-band handshake). */
typedef struct mroce_dut_oob_item {
  const char* name;
  uint64_t value;
} mroce_dut_oob_item;

typedef struct mroce_dut_peer {
  uint32_t struct_size;
  uint8_t mac[6];
  uint8_t ipv4[4];
  uint16_t udp_port;
  const mroce_dut_oob_item* oob;  /* NULL when oob_count is 0 (in-band protocols) */
  size_t oob_count;
} mroce_dut_peer;

typedef struct mroce_dut_event {
  uint8_t kind;     /* mroce_dut_event_kind */
  uint32_t conn;
  uint32_t reason;  /* protocol reason code, 0 when none */
} mroce_dut_event;

typedef struct mroce_dut_completion {
  uint64_t wr_id;
  uint32_t conn;
  uint16_t stream;
  uint8_t op;       /* mroce_dut_op */
  uint8_t status;   /* mroce_dut_op_status */
  uint32_t byte_len;
  uint8_t has_imm;
  uint32_t imm;
} mroce_dut_completion;

/* A key=value option from `--dut plugin:PATH.so,key=value,...`, in the order given. */
typedef struct mroce_dut_option {
  const char* key;
  const char* value;
} mroce_dut_option;

/* Emit callbacks: called zero or more times before the op returns. */
typedef void (*mroce_dut_emit_oob)(void* ctx, const char* name, uint64_t value);
typedef void (*mroce_dut_emit_event)(void* ctx, const mroce_dut_event* event);
typedef void (*mroce_dut_emit_completion)(void* ctx, const mroce_dut_completion* completion);
typedef void (*mroce_dut_emit_counter)(void* ctx, const char* name, uint64_t value);

/* One device instance; its layout is the plugin's own business. */
typedef struct mroce_dut_instance mroce_dut_instance;

typedef struct mroce_dut_plugin {
  uint32_t abi_version;  /* MROCE_DUT_ABI_VERSION */
  uint32_t struct_size;  /* sizeof(mroce_dut_plugin) as compiled into the plugin */
  const char* name;      /* short name for reports, e.g. "acme-nic-model" */
  const char* version;   /* the plugin's own version string */

  /* --- lifetime --- */
  /* Creates an instance. On failure returns NULL and writes a NUL-terminated message into
   * error[0..error_cap). Options the plugin does not know should be refused here. */
  mroce_dut_instance* (*create)(const mroce_dut_option* options, size_t option_count, char* error,
                                size_t error_cap);
  void (*destroy)(mroce_dut_instance* dut);
  /* Message of the last failed call on `dut`; valid until the next call on it. */
  const char* (*last_error)(mroce_dut_instance* dut);

  /* --- description --- */
  /* Names the implementation in reports (e.g. "acme-nic-model 2.1 fw=7"); valid for the
   * instance's life. NULL: the host uses `name`. */
  const char* (*identity)(mroce_dut_instance* dut);
  /* Fills *caps (the host set caps->struct_size and zeroed the rest). */
  int (*capabilities)(mroce_dut_instance* dut, mroce_dut_capabilities* caps);
  /* Called once, before anything below. *config and *sink are copied by the plugin as needed;
   * sink->ctx stays valid until destroy(). */
  int (*start)(mroce_dut_instance* dut, const mroce_dut_host_config* config,
               const mroce_dut_frame_sink* sink);

  /* --- memory (buffers live on the device side; the harness names them by id) --- */
  int (*alloc_buffer)(mroce_dut_instance* dut, uint64_t length, uint32_t access, mroce_dut_buffer* out);
  int (*write_buffer)(mroce_dut_instance* dut, uint32_t buffer_id, uint64_t offset, const uint8_t* bytes,
                      uint64_t length);
  int (*read_buffer)(mroce_dut_instance* dut, uint32_t buffer_id, uint64_t offset, uint8_t* out,
                     uint64_t length);

  /* --- connections --- */
  /* Optional (NULL for in-band protocols): the local half of connection `index`, for the peer. */
  int (*prepare_connection)(mroce_dut_instance* dut, uint32_t index, mroce_dut_time_ns now,
                            mroce_dut_emit_oob emit, void* ctx);
  int (*connect)(mroce_dut_instance* dut, const mroce_dut_peer* peer, mroce_dut_time_ns now,
                 uint32_t* conn_out);
  int (*disconnect)(mroce_dut_instance* dut, uint32_t conn, mroce_dut_time_ns now);
  /* Connection events since the last call. */
  int (*poll_events)(mroce_dut_instance* dut, mroce_dut_emit_event emit, void* ctx);

  /* --- work requests (local memory named by buffer id + offset) --- */
  int (*post_recv)(mroce_dut_instance* dut, uint32_t conn, uint16_t stream, uint32_t buffer_id,
                   uint64_t offset, uint32_t length, uint64_t wr_id);
  /* imm is used only when has_imm is nonzero. */
  int (*post_send)(mroce_dut_instance* dut, uint32_t conn, uint16_t stream, uint32_t buffer_id,
                   uint64_t offset, uint32_t length, uint64_t wr_id, int has_imm, uint32_t imm,
                   mroce_dut_time_ns now);
  int (*post_write)(mroce_dut_instance* dut, uint32_t conn, uint16_t stream, uint32_t buffer_id,
                    uint64_t offset, uint32_t length, uint64_t remote_va, uint32_t rkey, uint64_t wr_id,
                    int has_imm, uint32_t imm, mroce_dut_time_ns now);
  int (*post_read)(mroce_dut_instance* dut, uint32_t conn, uint16_t stream, uint32_t buffer_id,
                   uint64_t offset, uint32_t length, uint64_t remote_va, uint32_t rkey, uint64_t wr_id,
                   mroce_dut_time_ns now);
  /* Completions since the last call, in the order the device produced them. */
  int (*poll_completions)(mroce_dut_instance* dut, mroce_dut_emit_completion emit, void* ctx);

  /* --- data plane and time --- */
  void (*on_frame)(mroce_dut_instance* dut, const uint8_t* frame, size_t length, uint8_t plane,
                   mroce_dut_time_ns now);
  /* Earliest time the device wants on_timer(); MROCE_DUT_NEVER when idle. Must not change state. */
  mroce_dut_time_ns (*next_deadline)(mroce_dut_instance* dut);
  void (*on_timer)(mroce_dut_instance* dut, mroce_dut_time_ns now);

  /* --- telemetry (optional: NULL when the device exposes none) --- */
  /* Counters and gauges by the dotted names of spec chapter 17 ("conn.1.tx_pkts",
   * "endpoint.crc_errors"); state gauges as numbers (conn_state 0..6, path state 0..3, MROCE-TEL-001). */
  int (*telemetry)(mroce_dut_instance* dut, mroce_dut_emit_counter emit, void* ctx);
  /* Bytes of protocol state the whole instance holds now: all its connections plus state no
   * connection owns (memory regions, completion queue, rate-hint table, timers). Judged by growth
   * (MROCE-LIM-006, MROCE-LIM-007, MROCE-DUP-009); the per-connection bound of MROCE-LIM-005 is read
   * from the telemetry gauge conn.<id>.state_bytes. MROCE_DUT_ERR_UNSUPPORTED when the device cannot
   * tell. */
  int (*state_bytes)(mroce_dut_instance* dut, uint64_t* bytes_out);

  /* --- appended in ABI 1 (a plugin whose struct_size ends before it has it NULL) --- */
  /* The device's own attachment to NIC port `plane` reports link down (up = 0) or up again (up = 1)
   * at `now`, as a port would when its plane fails (a case's blackhole with link_down: true). The
   * device MAY move that plane's paths to FAILED at once (MROCE-PATH-013) and stops probing them
   * until the link is up (table 7.6 rows 6, 7 and 12); it may also ignore the call. Optional: NULL
   * when the device has no use for it. */
  void (*plane_link)(mroce_dut_instance* dut, uint8_t plane, uint8_t up, mroce_dut_time_ns now);
} mroce_dut_plugin;

/* The entry point: returns the plugin's static table (never NULL, never freed). */
typedef const mroce_dut_plugin* (*mroce_dut_plugin_entry)(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* MROCE_DUT_H_ */
