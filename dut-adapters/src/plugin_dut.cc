// PluginDut: loads a mroce_dut.h plugin with dlopen and maps Dut calls onto its ops table.
#include "plugin_dut.h"

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>

namespace mroce::dut {

// One loaded shared object and a copy of its ops table, padded with NULLs past its struct_size.
class PluginLibrary {
 public:
  PluginLibrary(std::string path, void* handle, const mroce_dut_plugin& ops)
      : path_(std::move(path)), handle_(handle), ops_(ops) {}
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const mroce_dut_plugin& ops() const { return ops_; }

 private:
  std::string path_;
  void* handle_;  // never dlclose()d: instances and static destructors of the plugin may outlive us
  mroce_dut_plugin ops_;
};

namespace {

std::string Prefix(const std::string& path) { return "plugin '" + path + "': "; }

// The ops a device cannot do without, by name for the error message.
struct RequiredOp {
  const char* name;
  bool (*present)(const mroce_dut_plugin&);
};
#define MROCE_REQUIRED(op) RequiredOp{#op, [](const mroce_dut_plugin& p) { return p.op != nullptr; }}
const RequiredOp kRequired[] = {
    MROCE_REQUIRED(create),       MROCE_REQUIRED(destroy),     MROCE_REQUIRED(capabilities),
    MROCE_REQUIRED(start),        MROCE_REQUIRED(alloc_buffer), MROCE_REQUIRED(write_buffer),
    MROCE_REQUIRED(read_buffer),  MROCE_REQUIRED(connect),     MROCE_REQUIRED(disconnect),
    MROCE_REQUIRED(poll_events),  MROCE_REQUIRED(post_recv),   MROCE_REQUIRED(post_send),
    MROCE_REQUIRED(post_write),   MROCE_REQUIRED(post_read),   MROCE_REQUIRED(poll_completions),
    MROCE_REQUIRED(on_frame),     MROCE_REQUIRED(next_deadline), MROCE_REQUIRED(on_timer),
};
#undef MROCE_REQUIRED

Result<std::shared_ptr<const PluginLibrary>> Open(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const PluginLibrary>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second;

  // RTLD_LOCAL: the plugin's own copies of anything (a statically linked reference endpoint, say)
  // never interpose on the host's, nor the other way round.
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return MakeError("plugin.dlopen", Prefix(path) + "dlopen failed: " + (why ? why : "unknown reason") +
                                          " (give a path to a .so built against mroce_dut.h; a name without"
                                          " '/' is searched on LD_LIBRARY_PATH)");
  }
  dlerror();
  void* sym = dlsym(handle, MROCE_DUT_ENTRY_POINT);
  if (sym == nullptr) {
    const char* err = dlerror();
    const std::string why = err != nullptr ? err : "symbol is NULL";  // copied: dlclose frees dlerror's text
    dlclose(handle);
    return MakeError("plugin.entry", Prefix(path) + "no entry point " MROCE_DUT_ENTRY_POINT ": " + why +
                                         " (export it with MROCE_DUT_EXPORT and extern \"C\")");
  }
  auto entry = reinterpret_cast<mroce_dut_plugin_entry>(sym);
  const mroce_dut_plugin* table = entry();
  if (table == nullptr) {
    dlclose(handle);
    return MakeError("plugin.entry", Prefix(path) + MROCE_DUT_ENTRY_POINT "() returned NULL");
  }
  if (table->abi_version != MROCE_DUT_ABI_VERSION) {
    const uint32_t v = table->abi_version;
    dlclose(handle);
    return MakeError("plugin.abi", Prefix(path) + "ABI version " + std::to_string(v) +
                                       ", but this mroce-cts speaks ABI version " +
                                       std::to_string(MROCE_DUT_ABI_VERSION) +
                                       " (rebuild the plugin against this mroce-cts's mroce_dut.h)");
  }
  constexpr size_t kMinSize = offsetof(mroce_dut_plugin, on_timer) + sizeof(mroce_dut_plugin::on_timer);
  if (table->struct_size < kMinSize) {
    const uint32_t got = table->struct_size;
    dlclose(handle);
    return MakeError("plugin.abi", Prefix(path) + "ops table struct_size " + std::to_string(got) +
                                       " is smaller than the " + std::to_string(kMinSize) +
                                       " bytes ABI version 1 requires (set struct_size = sizeof(mroce_dut_plugin))");
  }
  // Members a newer plugin appended are ignored; members an older plugin lacks stay NULL.
  mroce_dut_plugin ops;
  std::memset(&ops, 0, sizeof ops);
  std::memcpy(&ops, table, std::min<size_t>(table->struct_size, sizeof ops));
  for (const RequiredOp& r : kRequired) {
    if (!r.present(ops)) {
      dlclose(handle);
      return MakeError("plugin.abi", Prefix(path) + "required op '" + r.name + "' is NULL in the ops table");
    }
  }
  auto lib = std::make_shared<const PluginLibrary>(path, handle, ops);
  loaded.emplace(path, lib);
  return lib;
}

OpKind MapOp(uint8_t op) {
  switch (op) {
    case MROCE_DUT_OP_SEND: return OpKind::kSend;
    case MROCE_DUT_OP_WRITE: return OpKind::kWrite;
    case MROCE_DUT_OP_READ: return OpKind::kRead;
    case MROCE_DUT_OP_RECV: return OpKind::kRecv;
    case MROCE_DUT_OP_RECV_WRITE_IMM: return OpKind::kRecvWriteImm;
  }
  return OpKind::kSend;
}

OpStatus MapStatus(uint8_t s) {
  return s <= MROCE_DUT_WC_OTHER ? static_cast<OpStatus>(s) : OpStatus::kOther;
}

ConnEventKind MapEvent(uint8_t k) {
  switch (k) {
    case MROCE_DUT_EVENT_ESTABLISHED: return ConnEventKind::kEstablished;
    case MROCE_DUT_EVENT_INCOMING: return ConnEventKind::kIncoming;
    case MROCE_DUT_EVENT_REJECTED: return ConnEventKind::kRejected;
    case MROCE_DUT_EVENT_TIMEOUT: return ConnEventKind::kTimeout;
    case MROCE_DUT_EVENT_CLOSED: return ConnEventKind::kClosed;
    case MROCE_DUT_EVENT_ERROR: return ConnEventKind::kError;
    case MROCE_DUT_EVENT_ACCEPTED: return ConnEventKind::kAccepted;
  }
  return ConnEventKind::kError;
}

// The C enums are numbered like the C++ ones; keep them in step.
static_assert(static_cast<int>(OpStatus::kOther) == MROCE_DUT_WC_OTHER);
static_assert(static_cast<int>(OpStatus::kConnectTimeout) == MROCE_DUT_WC_CONNECT_TIMEOUT);
static_assert(static_cast<int>(kAccessRemoteRead) == MROCE_DUT_ACCESS_REMOTE_READ);

}  // namespace

std::string_view PluginStatusName(int rc) {
  switch (rc) {
    case MROCE_DUT_OK: return "MROCE_DUT_OK";
    case MROCE_DUT_ERR_INVALID: return "MROCE_DUT_ERR_INVALID";
    case MROCE_DUT_ERR_STATE: return "MROCE_DUT_ERR_STATE";
    case MROCE_DUT_ERR_RESOURCE: return "MROCE_DUT_ERR_RESOURCE";
    case MROCE_DUT_ERR_UNSUPPORTED: return "MROCE_DUT_ERR_UNSUPPORTED";
    case MROCE_DUT_ERR_INTERNAL: return "MROCE_DUT_ERR_INTERNAL";
  }
  return "unknown status";
}

Result<std::unique_ptr<PluginDut>> PluginDut::Create(const std::string& path, const Options& options) {
  auto lib = Open(path);
  if (!lib.ok()) return lib.error();
  std::vector<mroce_dut_option> opts;
  opts.reserve(options.size());
  for (const auto& [k, v] : options) opts.push_back({k.c_str(), v.c_str()});
  char err[512] = {0};
  mroce_dut_instance* inst = lib.value()->ops().create(opts.data(), opts.size(), err, sizeof err);
  if (inst == nullptr) {
    err[sizeof err - 1] = '\0';
    return MakeError("plugin.create", Prefix(path) + "create failed: " + (err[0] ? err : "no reason given"));
  }
  return std::unique_ptr<PluginDut>(new PluginDut(std::move(lib).value(), inst));
}

PluginDut::PluginDut(std::shared_ptr<const PluginLibrary> lib, mroce_dut_instance* inst)
    : lib_(std::move(lib)), inst_(inst) {}

PluginDut::~PluginDut() { ops().destroy(inst_); }

const mroce_dut_plugin& PluginDut::ops() const { return lib_->ops(); }

Error PluginDut::Fail(const char* op, int rc) const {
  std::string why;
  if (ops().last_error != nullptr) {
    const char* m = ops().last_error(inst_);
    if (m != nullptr) why = m;
  }
  if (why.empty()) why = std::string(PluginStatusName(rc));
  return MakeError(std::string("plugin.") + op, std::string(op) + ": " + why);
}

std::string PluginDut::Identity() const {
  if (ops().identity != nullptr) {
    if (const char* id = ops().identity(inst_); id != nullptr && id[0] != '\0') return id;
  }
  if (ops().name != nullptr && ops().name[0] != '\0') return ops().name;
  return "plugin:" + lib_->path();
}

Capabilities PluginDut::Caps() const {
  mroce_dut_capabilities c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  Capabilities out;
  out.simulated_time = true;
  if (ops().capabilities(inst_, &c) != MROCE_DUT_OK) {
    out.features.clear();  // a device that cannot describe itself is run for nothing optional
    return out;
  }
  out.protocol = c.protocol == MROCE_DUT_PROTOCOL_ROCEV2 ? Protocol::kRocev2 : Protocol::kMetaRoce;
  out.in_band_connect = c.in_band_connect != 0;
  out.max_paths = c.max_paths;
  out.max_planes = c.max_planes;
  out.max_streams = c.max_streams;
  if (c.features != nullptr) {
    std::string_view rest = c.features;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string_view f = rest.substr(0, comma);
      while (!f.empty() && f.front() == ' ') f.remove_prefix(1);
      while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
      if (!f.empty()) out.features.emplace_back(f);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return out;
}

void PluginDut::SinkThunk(void* ctx, const uint8_t* frame, size_t length, uint8_t plane) {
  auto* self = static_cast<PluginDut*>(ctx);
  if (self->sink_ != nullptr) self->sink_->Send(std::span<const uint8_t>(frame, length), plane);
}

Status PluginDut::Start(const HostConfig& config, FrameSink* sink) {
  if (sink_ != nullptr) return MakeError("dut.started", "Start() called twice");
  if (sink == nullptr) return MakeError("dut.sink", "Start() needs a frame sink");
  mroce_dut_host_config hc;
  std::memset(&hc, 0, sizeof hc);
  hc.struct_size = sizeof hc;
  std::memcpy(hc.mac, config.mac.data(), 6);
  std::memcpy(hc.ipv4, config.ip.data(), 4);
  hc.udp_port = config.udp_port;
  hc.num_paths = config.num_paths;
  hc.num_planes = config.num_planes;
  hc.mtu = config.mtu;
  hc.max_streams = config.max_streams;
  hc.link_capacity_mbps = config.link_capacity_mbps;
  hc.seed = config.seed;
  const mroce_dut_frame_sink s{this, &PluginDut::SinkThunk};
  sink_ = sink;
  if (int rc = ops().start(inst_, &hc, &s); rc != MROCE_DUT_OK) {
    sink_ = nullptr;
    return Fail("start", rc);
  }
  return OkStatus();
}

Result<Buffer> PluginDut::AllocBuffer(uint64_t length, uint32_t access) {
  mroce_dut_buffer b{};
  if (int rc = ops().alloc_buffer(inst_, length, access, &b); rc != MROCE_DUT_OK) return Fail("alloc_buffer", rc);
  return Buffer{b.id, b.va, b.rkey, b.length};
}

Status PluginDut::WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) {
  if (int rc = ops().write_buffer(inst_, buffer_id, offset, bytes.data(), bytes.size()); rc != MROCE_DUT_OK) {
    return Fail("write_buffer", rc);
  }
  return OkStatus();
}

Result<std::vector<uint8_t>> PluginDut::ReadBuffer(uint32_t buffer_id, uint64_t offset, uint64_t length) {
  std::vector<uint8_t> out(length);
  if (int rc = ops().read_buffer(inst_, buffer_id, offset, out.data(), length); rc != MROCE_DUT_OK) {
    return Fail("read_buffer", rc);
  }
  return out;
}

Result<OobInfo> PluginDut::PrepareConnection(uint32_t index, TimeNs now) {
  OobInfo out;
  if (ops().prepare_connection == nullptr) return out;  // in-band protocol
  auto emit = [](void* ctx, const char* name, uint64_t value) {
    static_cast<OobInfo*>(ctx)->emplace_back(name ? name : "", value);
  };
  if (int rc = ops().prepare_connection(inst_, index, now, emit, &out); rc != MROCE_DUT_OK) {
    return Fail("prepare_connection", rc);
  }
  return out;
}

Result<ConnHandle> PluginDut::Connect(const PeerInfo& peer, TimeNs now) {
  std::vector<mroce_dut_oob_item> oob;
  for (const auto& [k, v] : peer.oob) oob.push_back({k.c_str(), v});
  mroce_dut_peer p;
  std::memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  std::memcpy(p.mac, peer.mac.data(), 6);
  std::memcpy(p.ipv4, peer.ip.data(), 4);
  p.udp_port = peer.udp_port;
  p.oob = oob.empty() ? nullptr : oob.data();
  p.oob_count = oob.size();
  uint32_t conn = 0;
  if (int rc = ops().connect(inst_, &p, now, &conn); rc != MROCE_DUT_OK) return Fail("connect", rc);
  return static_cast<ConnHandle>(conn);
}

Status PluginDut::Disconnect(ConnHandle conn, TimeNs now) {
  if (int rc = ops().disconnect(inst_, conn, now); rc != MROCE_DUT_OK) return Fail("disconnect", rc);
  return OkStatus();
}

std::vector<ConnEvent> PluginDut::PollEvents() {
  std::vector<ConnEvent> out;
  auto emit = [](void* ctx, const mroce_dut_event* e) {
    static_cast<std::vector<ConnEvent>*>(ctx)->push_back({MapEvent(e->kind), e->conn, e->reason});
  };
  ops().poll_events(inst_, emit, &out);
  return out;
}

// The work-request structs map onto the C ABI's flat parameter lists (mroce_dut.h, ABI version 1).
Status PluginDut::PostRecv(const RecvRequest& wr) {
  if (int rc = ops().post_recv(inst_, wr.conn, wr.stream, wr.local.buffer_id, wr.local.offset, wr.local.length,
                               wr.wr_id);
      rc != MROCE_DUT_OK) {
    return Fail("post_recv", rc);
  }
  return OkStatus();
}

Status PluginDut::PostSend(const SendRequest& wr, TimeNs now) {
  if (int rc = ops().post_send(inst_, wr.conn, wr.stream, wr.local.buffer_id, wr.local.offset, wr.local.length,
                               wr.wr_id, wr.imm.has_value() ? 1 : 0, wr.imm.value_or(0), now);
      rc != MROCE_DUT_OK) {
    return Fail("post_send", rc);
  }
  return OkStatus();
}

Status PluginDut::PostWrite(const WriteRequest& wr, TimeNs now) {
  if (int rc = ops().post_write(inst_, wr.conn, wr.stream, wr.local.buffer_id, wr.local.offset, wr.local.length,
                                wr.remote.va, wr.remote.rkey, wr.wr_id, wr.imm.has_value() ? 1 : 0,
                                wr.imm.value_or(0), now);
      rc != MROCE_DUT_OK) {
    return Fail("post_write", rc);
  }
  return OkStatus();
}

Status PluginDut::PostRead(const ReadRequest& wr, TimeNs now) {
  if (int rc = ops().post_read(inst_, wr.conn, wr.stream, wr.local.buffer_id, wr.local.offset, wr.local.length,
                               wr.remote.va, wr.remote.rkey, wr.wr_id, now);
      rc != MROCE_DUT_OK) {
    return Fail("post_read", rc);
  }
  return OkStatus();
}

std::vector<Completion> PluginDut::PollCompletions() {
  std::vector<Completion> out;
  auto emit = [](void* ctx, const mroce_dut_completion* c) {
    Completion d;
    d.wr_id = c->wr_id;
    d.conn = c->conn;
    d.stream = c->stream;
    d.op = MapOp(c->op);
    d.status = MapStatus(c->status);
    d.byte_len = c->byte_len;
    if (c->has_imm) d.imm = c->imm;
    static_cast<std::vector<Completion>*>(ctx)->push_back(d);
  };
  ops().poll_completions(inst_, emit, &out);
  return out;
}

void PluginDut::OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) {
  ops().on_frame(inst_, frame.data(), frame.size(), plane, now);
}

TimeNs PluginDut::NextDeadline() const { return ops().next_deadline(inst_); }

void PluginDut::OnTimer(TimeNs now) { ops().on_timer(inst_, now); }

void PluginDut::OnPlaneLink(uint8_t plane, bool up, TimeNs now) {
  if (ops().plane_link != nullptr) ops().plane_link(inst_, plane, up ? 1 : 0, now);
}

std::vector<Counter> PluginDut::Telemetry() {
  std::vector<Counter> out;
  if (ops().telemetry == nullptr) return out;
  auto emit = [](void* ctx, const char* name, uint64_t value) {
    static_cast<std::vector<Counter>*>(ctx)->emplace_back(name ? name : "", value);
  };
  ops().telemetry(inst_, emit, &out);
  return out;
}

std::optional<uint64_t> PluginDut::StateBytes() {
  if (ops().state_bytes == nullptr) return std::nullopt;
  uint64_t bytes = 0;
  if (ops().state_bytes(inst_, &bytes) != MROCE_DUT_OK) return std::nullopt;
  return bytes;
}

}  // namespace mroce::dut
