/* mroce_skeleton_plugin: the smallest complete mroce_dut.h plugin, in plain C. It loads, keeps
 * buffers, counts the frames it is given and answers that it supports nothing optional, so every
 * case that needs a feature is a SKIP and the others fail cleanly with "not implemented". A vendor
 * starts from this file and replaces each op's body with calls into their model.
 *
 *   mroce-cts run --dut plugin:/path/libmroce_skeleton_plugin.so,label=my-model
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mroce/dut/mroce_dut.h"

/* One device instance. Put the model's handle here; the harness creates one per test case. */
struct mroce_dut_instance {
  char identity[128];          /* reported as the DUT's name */
  char error[256];             /* message of the last failed call, for last_error() */
  int started;
  mroce_dut_host_config config; /* MAC, IPv4, port, paths, planes, MTU, seed given at start */
  mroce_dut_frame_sink sink;    /* where frames to the wire go: sink.send(sink.ctx, ...) */
  uint64_t frames_rx;           /* frames the harness delivered */
  /* Buffers: host-visible memory the harness fills and reads back by id. A real device registers
   * them with its memory translation table and hands out its own va/rkey. */
  struct {
    uint8_t* bytes;
    uint64_t length;
  } buffers[64];
  uint32_t buffer_count;
};

/* Records a message for last_error() and returns the status. */
static int fail(mroce_dut_instance* d, int status, const char* what) {
  snprintf(d->error, sizeof d->error, "%s", what);
  return status;
}

/* Options come from --dut plugin:PATH,key=value: refuse unknown ones so typos do not pass silently. */
static mroce_dut_instance* skeleton_create(const mroce_dut_option* options, size_t count, char* error,
                                           size_t error_cap) {
  mroce_dut_instance* d = (mroce_dut_instance*)calloc(1, sizeof *d);
  size_t i;
  if (d == NULL) {
    snprintf(error, error_cap, "out of memory");
    return NULL;
  }
  snprintf(d->identity, sizeof d->identity, "skeleton");
  for (i = 0; i < count; ++i) {
    if (strcmp(options[i].key, "label") == 0) {
      snprintf(d->identity, sizeof d->identity, "skeleton:%s", options[i].value);
    } else {
      snprintf(error, error_cap, "unknown option '%s' (known: label)", options[i].key);
      free(d);
      return NULL;
    }
  }
  return d;
}

/* Free everything the instance owns; the harness makes no call on it afterwards. */
static void skeleton_destroy(mroce_dut_instance* d) {
  uint32_t i;
  for (i = 0; i < d->buffer_count; ++i) free(d->buffers[i].bytes);
  free(d);
}

static const char* skeleton_last_error(mroce_dut_instance* d) { return d->error; }

static const char* skeleton_identity(mroce_dut_instance* d) { return d->identity; }

/* Be honest: a feature listed here is one the suite will test. "" means nothing optional. */
static int skeleton_capabilities(mroce_dut_instance* d, mroce_dut_capabilities* caps) {
  (void)d;
  caps->protocol = MROCE_DUT_PROTOCOL_METAROCE;
  caps->in_band_connect = 1;
  caps->max_paths = 1;
  caps->max_planes = 1;
  caps->max_streams = 1;
  caps->features = "";
  return MROCE_DUT_OK;
}

/* Bring the model up with its addresses. Keep the sink: frames leave through it, and only from
 * inside a call the harness made (on_frame, on_timer, connect, post_*). */
static int skeleton_start(mroce_dut_instance* d, const mroce_dut_host_config* config,
                          const mroce_dut_frame_sink* sink) {
  if (d->started) return fail(d, MROCE_DUT_ERR_STATE, "start called twice");
  d->config = *config;
  d->sink = *sink;
  d->started = 1;
  return MROCE_DUT_OK;
}

static int skeleton_alloc_buffer(mroce_dut_instance* d, uint64_t length, uint32_t access, mroce_dut_buffer* out) {
  (void)access; /* a real device checks remote access against these rights */
  if (d->buffer_count == sizeof d->buffers / sizeof d->buffers[0]) {
    return fail(d, MROCE_DUT_ERR_RESOURCE, "no more than 64 buffers");
  }
  d->buffers[d->buffer_count].bytes = (uint8_t*)calloc(1, length ? length : 1);
  if (d->buffers[d->buffer_count].bytes == NULL) return fail(d, MROCE_DUT_ERR_RESOURCE, "out of memory");
  d->buffers[d->buffer_count].length = length;
  out->id = d->buffer_count;
  out->va = 0x10000000ull * (d->buffer_count + 1); /* the address the peer uses in WRITE/READ */
  out->rkey = 0x100 + d->buffer_count;             /* the key the peer presents */
  out->length = length;
  ++d->buffer_count;
  return MROCE_DUT_OK;
}

/* Bounds-checked view of [offset, offset + length) of buffer `id`, or NULL with an error. */
static uint8_t* skeleton_slice(mroce_dut_instance* d, uint32_t id, uint64_t offset, uint64_t length) {
  if (id >= d->buffer_count) {
    fail(d, MROCE_DUT_ERR_INVALID, "unknown buffer id");
    return NULL;
  }
  if (offset > d->buffers[id].length || length > d->buffers[id].length - offset) {
    fail(d, MROCE_DUT_ERR_INVALID, "range outside buffer");
    return NULL;
  }
  return d->buffers[id].bytes + offset;
}

static int skeleton_write_buffer(mroce_dut_instance* d, uint32_t id, uint64_t offset, const uint8_t* bytes,
                                 uint64_t length) {
  uint8_t* p = skeleton_slice(d, id, offset, length);
  if (p == NULL) return MROCE_DUT_ERR_INVALID;
  if (length) memcpy(p, bytes, length);
  return MROCE_DUT_OK;
}

static int skeleton_read_buffer(mroce_dut_instance* d, uint32_t id, uint64_t offset, uint8_t* out,
                                uint64_t length) {
  const uint8_t* p = skeleton_slice(d, id, offset, length);
  if (p == NULL) return MROCE_DUT_ERR_INVALID;
  if (length) memcpy(out, p, length);
  return MROCE_DUT_OK;
}

/* Open a connection to `peer`: a MetaRoCE device sends CONNECT_REQ through the sink now and
 * reports MROCE_DUT_EVENT_ESTABLISHED from poll_events once the peer accepts. */
static int skeleton_connect(mroce_dut_instance* d, const mroce_dut_peer* peer, mroce_dut_time_ns now,
                            uint32_t* conn_out) {
  (void)peer;
  (void)now;
  (void)conn_out;
  return fail(d, MROCE_DUT_ERR_UNSUPPORTED, "skeleton: connections are not implemented");
}

static int skeleton_disconnect(mroce_dut_instance* d, uint32_t conn, mroce_dut_time_ns now) {
  (void)conn;
  (void)now;
  return fail(d, MROCE_DUT_ERR_INVALID, "skeleton: no such connection");
}

/* Report connection events that happened since the last call, one emit() each. */
static int skeleton_poll_events(mroce_dut_instance* d, mroce_dut_emit_event emit, void* ctx) {
  (void)d;
  (void)emit;
  (void)ctx;
  return MROCE_DUT_OK;
}

/* Work requests name local memory by buffer id + offset; a device resolves them with
 * skeleton_slice() (or its own translation) and queues them on stream `stream` of `conn`. */
static int skeleton_post_recv(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id,
                              uint64_t offset, uint32_t length, uint64_t wr_id) {
  (void)conn; (void)stream; (void)id; (void)offset; (void)length; (void)wr_id;
  return fail(d, MROCE_DUT_ERR_UNSUPPORTED, "skeleton: receives are not implemented");
}

static int skeleton_post_send(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id,
                              uint64_t offset, uint32_t length, uint64_t wr_id, int has_imm, uint32_t imm,
                              mroce_dut_time_ns now) {
  (void)conn; (void)stream; (void)id; (void)offset; (void)length; (void)wr_id; (void)has_imm; (void)imm;
  (void)now;
  return fail(d, MROCE_DUT_ERR_UNSUPPORTED, "skeleton: SEND is not implemented");
}

static int skeleton_post_write(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id,
                               uint64_t offset, uint32_t length, uint64_t remote_va, uint32_t rkey,
                               uint64_t wr_id, int has_imm, uint32_t imm, mroce_dut_time_ns now) {
  (void)conn; (void)stream; (void)id; (void)offset; (void)length; (void)remote_va; (void)rkey; (void)wr_id;
  (void)has_imm; (void)imm; (void)now;
  return fail(d, MROCE_DUT_ERR_UNSUPPORTED, "skeleton: WRITE is not implemented");
}

static int skeleton_post_read(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id,
                              uint64_t offset, uint32_t length, uint64_t remote_va, uint32_t rkey,
                              uint64_t wr_id, mroce_dut_time_ns now) {
  (void)conn; (void)stream; (void)id; (void)offset; (void)length; (void)remote_va; (void)rkey; (void)wr_id;
  (void)now;
  return fail(d, MROCE_DUT_ERR_UNSUPPORTED, "skeleton: READ is not implemented");
}

/* Report finished work requests since the last call, in order per stream, exactly once each. */
static int skeleton_poll_completions(mroce_dut_instance* d, mroce_dut_emit_completion emit, void* ctx) {
  (void)d;
  (void)emit;
  (void)ctx;
  return MROCE_DUT_OK;
}

/* A frame from the wire on NIC port `plane` at time `now`: parse it, act, and send any answer
 * through d->sink before returning. */
static void skeleton_on_frame(mroce_dut_instance* d, const uint8_t* frame, size_t length, uint8_t plane,
                              mroce_dut_time_ns now) {
  (void)frame; (void)length; (void)plane; (void)now;
  ++d->frames_rx;
}

/* The earliest retransmission, ACK or probe timer the model has armed. */
static mroce_dut_time_ns skeleton_next_deadline(mroce_dut_instance* d) {
  (void)d;
  return MROCE_DUT_NEVER;
}

/* Called at (or after) the time next_deadline() gave: fire every timer due by `now`. */
static void skeleton_on_timer(mroce_dut_instance* d, mroce_dut_time_ns now) {
  (void)d;
  (void)now;
}

/* Counters by the dotted names of spec chapter 17; checks match on the last component. */
static int skeleton_telemetry(mroce_dut_instance* d, mroce_dut_emit_counter emit, void* ctx) {
  emit(ctx, "endpoint.rx_frames", d->frames_rx);
  return MROCE_DUT_OK;
}

static int skeleton_state_bytes(mroce_dut_instance* d, uint64_t* bytes_out) {
  *bytes_out = sizeof *d;
  return MROCE_DUT_OK;
}

/* The table, filled in ABI order. struct_size lets a newer host see which ops exist. */
static const mroce_dut_plugin kSkeleton = {
    MROCE_DUT_ABI_VERSION,
    sizeof(mroce_dut_plugin),
    "skeleton",
    "0.1",
    skeleton_create,
    skeleton_destroy,
    skeleton_last_error,
    skeleton_identity,
    skeleton_capabilities,
    skeleton_start,
    skeleton_alloc_buffer,
    skeleton_write_buffer,
    skeleton_read_buffer,
    NULL, /* prepare_connection: only for out-of-band connection setup */
    skeleton_connect,
    skeleton_disconnect,
    skeleton_poll_events,
    skeleton_post_recv,
    skeleton_post_send,
    skeleton_post_write,
    skeleton_post_read,
    skeleton_poll_completions,
    skeleton_on_frame,
    skeleton_next_deadline,
    skeleton_on_timer,
    skeleton_telemetry,
    skeleton_state_bytes,
};

MROCE_DUT_EXPORT const mroce_dut_plugin* mroce_dut_plugin_v1(void) { return &kSkeleton; }
