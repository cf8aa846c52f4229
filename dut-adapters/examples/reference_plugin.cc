// mroce_example_reference_plugin: the MetaRoCE reference endpoint served through the C ABI of
// mroce_dut.h, as a vendor would serve a software model. The endpoint is linked in statically;
// only the entry point is exported.
//
//   mroce-cts run --dut plugin:/path/libmroce_example_reference_plugin.so[,quirk=NAME...][,variant=NAME...]
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mroce/dut/mroce_dut.h"
#include "mroce/endpoint/endpoint.h"

namespace {

using mroce::ref::Endpoint;

// The endpoint's output, forwarded to the harness's sink.
class SinkBridge final : public mroce::ref::FrameSink {
 public:
  explicit SinkBridge(mroce_dut_frame_sink sink) : sink_(sink) {}
  void Send(std::span<const uint8_t> frame, uint8_t plane) override {
    sink_.send(sink_.ctx, frame.data(), frame.size(), plane);
  }

 private:
  mroce_dut_frame_sink sink_;
};

struct Region {
  std::vector<uint8_t> bytes;
  mroce::ref::MemoryRegion mr;
};

}  // namespace

// The instance: the opaque type of the ABI, defined by the plugin.
struct mroce_dut_instance {
  mroce::ref::Quirks quirks;
  mroce::ref::Variants variants;
  std::string identity;
  std::string error;  // last_error()
  std::unique_ptr<SinkBridge> bridge;
  std::unique_ptr<Endpoint> endpoint;
  std::vector<std::unique_ptr<Region>> regions;  // index = buffer id; stable addresses
};

namespace {

int Fail(mroce_dut_instance* d, int rc, std::string message) {
  d->error = std::move(message);
  return rc;
}

template <typename T>
int Fail(mroce_dut_instance* d, const mroce::ref::Result<T>& r) {
  return Fail(d, MROCE_DUT_ERR_INVALID, r.error().code + ": " + r.error().message);
}

// Local memory named by buffer id + offset, bounds checked.
uint8_t* Slice(mroce_dut_instance* d, uint32_t id, uint64_t offset, uint64_t length) {
  if (id >= d->regions.size()) {
    Fail(d, MROCE_DUT_ERR_INVALID, "unknown buffer id " + std::to_string(id));
    return nullptr;
  }
  auto& bytes = d->regions[id]->bytes;
  if (offset > bytes.size() || length > bytes.size() - offset) {
    Fail(d, MROCE_DUT_ERR_INVALID, "range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                       ") outside buffer " + std::to_string(id) + " of " +
                                       std::to_string(bytes.size()) + " bytes");
    return nullptr;
  }
  return bytes.data() + offset;
}

uint8_t MapOp(mroce::ref::CompletionOp op) {
  using mroce::ref::CompletionOp;
  switch (op) {
    case CompletionOp::kSend: return MROCE_DUT_OP_SEND;
    case CompletionOp::kWrite: return MROCE_DUT_OP_WRITE;
    case CompletionOp::kRead: return MROCE_DUT_OP_READ;
    case CompletionOp::kRecv: return MROCE_DUT_OP_RECV;
    case CompletionOp::kRecvWriteImm: return MROCE_DUT_OP_RECV_WRITE_IMM;
  }
  return MROCE_DUT_OP_SEND;
}

uint8_t MapStatus(mroce::ref::CompletionStatus s) {
  using mroce::ref::CompletionStatus;
  switch (s) {
    case CompletionStatus::kSuccess: return MROCE_DUT_WC_SUCCESS;
    case CompletionStatus::kRetryExceeded: return MROCE_DUT_WC_RETRY_EXCEEDED;
    case CompletionStatus::kRnrRetryExceeded: return MROCE_DUT_WC_RNR_RETRY_EXCEEDED;
    case CompletionStatus::kRemoteAccess: return MROCE_DUT_WC_REMOTE_ACCESS;
    case CompletionStatus::kLocalLength: return MROCE_DUT_WC_LOCAL_LENGTH;
    case CompletionStatus::kRemoteInvalid: return MROCE_DUT_WC_REMOTE_INVALID;
    case CompletionStatus::kRemoteOpError: return MROCE_DUT_WC_REMOTE_OP_ERROR;
    case CompletionStatus::kFlushed: return MROCE_DUT_WC_FLUSHED;
    case CompletionStatus::kRemoteAbort: return MROCE_DUT_WC_REMOTE_ABORT;
    case CompletionStatus::kResource: return MROCE_DUT_WC_RESOURCE;
    case CompletionStatus::kConnectTimeout: return MROCE_DUT_WC_CONNECT_TIMEOUT;
  }
  return MROCE_DUT_WC_OTHER;
}

uint8_t MapEvent(mroce::ref::ConnEventKind k) {
  using mroce::ref::ConnEventKind;
  switch (k) {
    case ConnEventKind::kEstablished: return MROCE_DUT_EVENT_ESTABLISHED;
    case ConnEventKind::kIncoming: return MROCE_DUT_EVENT_INCOMING;
    case ConnEventKind::kRejected: return MROCE_DUT_EVENT_REJECTED;
    case ConnEventKind::kConnectTimeout: return MROCE_DUT_EVENT_TIMEOUT;
    case ConnEventKind::kClosed: return MROCE_DUT_EVENT_CLOSED;
    case ConnEventKind::kError: return MROCE_DUT_EVENT_ERROR;
    case ConnEventKind::kAccepted: return MROCE_DUT_EVENT_ACCEPTED;
  }
  return MROCE_DUT_EVENT_ERROR;
}

// --- ops ---

mroce_dut_instance* Create(const mroce_dut_option* options, size_t count, char* error, size_t cap) {
  auto d = std::make_unique<mroce_dut_instance>();
  for (size_t i = 0; i < count; ++i) {
    const std::string key = options[i].key;
    if (key == "variant") {
      auto v = mroce::ref::Variants::Parse(options[i].value);
      if (!v.ok()) {
        std::snprintf(error, cap, "%s", v.error().message.c_str());
        return nullptr;
      }
      d->variants = v.value();
      continue;
    }
    if (key != "quirk") {
      std::snprintf(error, cap, "unknown option '%s' (known: quirk, variant)", options[i].key);
      return nullptr;
    }
    auto q = mroce::ref::Quirks::Parse(options[i].value);
    if (!q.ok()) {
      std::snprintf(error, cap, "%s", q.error().message.c_str());
      return nullptr;
    }
    for (const auto& info : mroce::ref::AllQuirks()) {
      if (q.value().Has(info.quirk)) d->quirks.Set(info.quirk);
    }
  }
  d->identity = "example-reference-plugin";
  if (!d->quirks.Empty()) d->identity += ":quirk=" + d->quirks.ToString();
  if (!d->variants.Empty()) d->identity += ":variant=" + d->variants.ToString();
  return d.release();
}

void Destroy(mroce_dut_instance* d) { delete d; }

const char* LastError(mroce_dut_instance* d) { return d->error.c_str(); }

const char* Identity(mroce_dut_instance* d) { return d->identity.c_str(); }

int Capabilities(mroce_dut_instance*, mroce_dut_capabilities* caps) {
  caps->protocol = MROCE_DUT_PROTOCOL_METAROCE;
  caps->in_band_connect = 1;
  caps->max_paths = 64;
  caps->max_planes = 8;
  caps->max_streams = 1024;
  caps->features = "write,write_imm,send,send_imm,read,multipath,multiplane,telemetry,state_bytes,rate_hint,ecn";
  return MROCE_DUT_OK;
}

int Start(mroce_dut_instance* d, const mroce_dut_host_config* config, const mroce_dut_frame_sink* sink) {
  if (d->endpoint) return Fail(d, MROCE_DUT_ERR_STATE, "start called twice");
  mroce::ref::EndpointConfig ec;
  std::memcpy(ec.mac.data(), config->mac, 6);
  std::memcpy(ec.ip.data(), config->ipv4, 4);
  ec.udp_port = config->udp_port;
  ec.num_paths = config->num_paths;
  ec.num_planes = config->num_planes;
  ec.mtu = config->mtu;
  ec.max_streams = config->max_streams;
  ec.link_capacity_mbps = config->link_capacity_mbps;
  ec.seed = config->seed;
  ec.quirks = d->quirks;
  ec.variants = d->variants;
  d->bridge = std::make_unique<SinkBridge>(*sink);
  d->endpoint = std::make_unique<Endpoint>(ec, d->bridge.get());
  return MROCE_DUT_OK;
}

int AllocBuffer(mroce_dut_instance* d, uint64_t length, uint32_t access, mroce_dut_buffer* out) {
  if (!d->endpoint) return Fail(d, MROCE_DUT_ERR_STATE, "alloc_buffer before start");
  auto region = std::make_unique<Region>();
  region->bytes.assign(length, 0);
  auto mr = d->endpoint->RegisterMemory(region->bytes.data(), length, access);
  if (!mr.ok()) return Fail(d, mr);
  region->mr = mr.value();
  out->id = static_cast<uint32_t>(d->regions.size());
  out->va = region->mr.va;
  out->rkey = region->mr.rkey;
  out->length = length;
  d->regions.push_back(std::move(region));
  return MROCE_DUT_OK;
}

int WriteBuffer(mroce_dut_instance* d, uint32_t id, uint64_t offset, const uint8_t* bytes, uint64_t length) {
  uint8_t* p = Slice(d, id, offset, length);
  if (p == nullptr) return MROCE_DUT_ERR_INVALID;
  if (length != 0) std::memcpy(p, bytes, length);
  return MROCE_DUT_OK;
}

int ReadBuffer(mroce_dut_instance* d, uint32_t id, uint64_t offset, uint8_t* out, uint64_t length) {
  const uint8_t* p = Slice(d, id, offset, length);
  if (p == nullptr) return MROCE_DUT_ERR_INVALID;
  if (length != 0) std::memcpy(out, p, length);
  return MROCE_DUT_OK;
}

int Connect(mroce_dut_instance* d, const mroce_dut_peer* peer, mroce_dut_time_ns now, uint32_t* conn) {
  if (!d->endpoint) return Fail(d, MROCE_DUT_ERR_STATE, "connect before start");
  mroce::ref::PeerAddress pa;
  std::memcpy(pa.mac.data(), peer->mac, 6);
  std::memcpy(pa.ip.data(), peer->ipv4, 4);
  pa.udp_port = peer->udp_port;
  auto c = d->endpoint->Connect(pa, mroce::ref::ConnectOptions{}, now);
  if (!c.ok()) return Fail(d, c);
  *conn = static_cast<uint32_t>(c.value());
  return MROCE_DUT_OK;
}

int Disconnect(mroce_dut_instance* d, uint32_t conn, mroce_dut_time_ns now) {
  if (!d->endpoint) return Fail(d, MROCE_DUT_ERR_STATE, "disconnect before start");
  auto s = d->endpoint->Disconnect(conn, now);
  return s.ok() ? MROCE_DUT_OK : Fail(d, s);
}

int PollEvents(mroce_dut_instance* d, mroce_dut_emit_event emit, void* ctx) {
  if (!d->endpoint) return MROCE_DUT_OK;
  for (const auto& e : d->endpoint->PollEvents()) {
    const mroce_dut_event ev{MapEvent(e.kind), e.conn, e.reason};
    emit(ctx, &ev);
  }
  return MROCE_DUT_OK;
}

int PostRecv(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id, uint64_t offset, uint32_t length,
             uint64_t wr_id) {
  uint8_t* p = Slice(d, id, offset, length);
  if (p == nullptr) return MROCE_DUT_ERR_INVALID;
  auto s = d->endpoint->PostRecv(conn, stream, p, length, wr_id);
  return s.ok() ? MROCE_DUT_OK : Fail(d, s);
}

std::optional<uint32_t> Imm(int has_imm, uint32_t imm) {
  return has_imm ? std::optional<uint32_t>(imm) : std::nullopt;
}

int PostSend(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id, uint64_t offset, uint32_t length,
             uint64_t wr_id, int has_imm, uint32_t imm, mroce_dut_time_ns now) {
  uint8_t* p = Slice(d, id, offset, length);
  if (p == nullptr) return MROCE_DUT_ERR_INVALID;
  auto s = d->endpoint->PostSend(conn, stream, p, length, wr_id, Imm(has_imm, imm), now);
  return s.ok() ? MROCE_DUT_OK : Fail(d, s);
}

int PostWrite(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id, uint64_t offset, uint32_t length,
              uint64_t remote_va, uint32_t rkey, uint64_t wr_id, int has_imm, uint32_t imm, mroce_dut_time_ns now) {
  uint8_t* p = Slice(d, id, offset, length);
  if (p == nullptr) return MROCE_DUT_ERR_INVALID;
  auto s = d->endpoint->PostWrite(conn, stream, p, length, remote_va, rkey, wr_id, Imm(has_imm, imm), now);
  return s.ok() ? MROCE_DUT_OK : Fail(d, s);
}

int PostRead(mroce_dut_instance* d, uint32_t conn, uint16_t stream, uint32_t id, uint64_t offset, uint32_t length,
             uint64_t remote_va, uint32_t rkey, uint64_t wr_id, mroce_dut_time_ns now) {
  uint8_t* p = Slice(d, id, offset, length);
  if (p == nullptr) return MROCE_DUT_ERR_INVALID;
  auto s = d->endpoint->PostRead(conn, stream, p, length, remote_va, rkey, wr_id, now);
  return s.ok() ? MROCE_DUT_OK : Fail(d, s);
}

int PollCompletions(mroce_dut_instance* d, mroce_dut_emit_completion emit, void* ctx) {
  if (!d->endpoint) return MROCE_DUT_OK;
  for (const auto& c : d->endpoint->PollCompletions()) {
    mroce_dut_completion out{};
    out.wr_id = c.wr_id;
    out.conn = c.conn;
    out.stream = c.stream;
    out.op = MapOp(c.op);
    out.status = MapStatus(c.status);
    out.byte_len = c.byte_len;
    out.has_imm = c.has_imm ? 1 : 0;
    out.imm = c.imm;
    emit(ctx, &out);
  }
  return MROCE_DUT_OK;
}

void OnFrame(mroce_dut_instance* d, const uint8_t* frame, size_t length, uint8_t plane, mroce_dut_time_ns now) {
  if (d->endpoint) d->endpoint->OnFrame(std::span<const uint8_t>(frame, length), plane, now);
}

mroce_dut_time_ns NextDeadline(mroce_dut_instance* d) {
  return d->endpoint ? d->endpoint->NextDeadline() : MROCE_DUT_NEVER;
}

void OnTimer(mroce_dut_instance* d, mroce_dut_time_ns now) {
  if (d->endpoint) d->endpoint->OnTimer(now);
}

void PlaneLink(mroce_dut_instance* d, uint8_t plane, uint8_t up, mroce_dut_time_ns now) {
  if (d->endpoint) d->endpoint->OnPlaneLink(plane, up != 0, now);
}

int Telemetry(mroce_dut_instance* d, mroce_dut_emit_counter emit, void* ctx) {
  if (!d->endpoint) return MROCE_DUT_OK;
  d->endpoint->ForEachTelemetry([&](std::string_view name, uint64_t v) {
    const std::string n(name);  // NUL-terminated for the C callback
    emit(ctx, n.c_str(), v);
  });
  return MROCE_DUT_OK;
}

int StateBytes(mroce_dut_instance* d, uint64_t* bytes) {
  if (!d->endpoint) return Fail(d, MROCE_DUT_ERR_STATE, "state_bytes before start");
  *bytes = d->endpoint->StateBytes();
  return MROCE_DUT_OK;
}

mroce_dut_plugin MakeTable() {
  mroce_dut_plugin p{};
  p.abi_version = MROCE_DUT_ABI_VERSION;
  p.struct_size = sizeof(mroce_dut_plugin);
  p.name = "example-reference-plugin";
  p.version = "1";
  p.create = Create;
  p.destroy = Destroy;
  p.last_error = LastError;
  p.identity = Identity;
  p.capabilities = Capabilities;
  p.start = Start;
  p.alloc_buffer = AllocBuffer;
  p.write_buffer = WriteBuffer;
  p.read_buffer = ReadBuffer;
  p.prepare_connection = nullptr;  // connection setup is in band
  p.connect = Connect;
  p.disconnect = Disconnect;
  p.poll_events = PollEvents;
  p.post_recv = PostRecv;
  p.post_send = PostSend;
  p.post_write = PostWrite;
  p.post_read = PostRead;
  p.poll_completions = PollCompletions;
  p.on_frame = OnFrame;
  p.next_deadline = NextDeadline;
  p.on_timer = OnTimer;
  p.telemetry = Telemetry;
  p.state_bytes = StateBytes;
  p.plane_link = PlaneLink;
  return p;
}

}  // namespace

extern "C" MROCE_DUT_EXPORT const mroce_dut_plugin* mroce_dut_plugin_v1(void) {
  static const mroce_dut_plugin table = MakeTable();
  return &table;
}
