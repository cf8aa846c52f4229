// ProcessDut: a DUT in another process, JSON lines on its stdin/stdout, MetaRoCE on UDP sockets.
#include "mroce/dut/process_dut.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "mroce/dut/live_clock.h"
#include "mroce/dut/process_protocol.h"
#include "mroce/wire/frame_view.h"

extern char** environ;

namespace mroce::dut {

using nlohmann::json;

namespace {

uint32_t ToU32(const wire::Ipv4Address& a) {
  return static_cast<uint32_t>(a[0]) << 24 | static_cast<uint32_t>(a[1]) << 16 | static_cast<uint32_t>(a[2]) << 8 | a[3];
}

wire::Ipv4Address FromU32(uint32_t v) {
  return {static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
}

// A loopback block no other case of this or a concurrent run is using: 127.X.Y.0 with room for
// 8 planes (Y .. Y+7).
wire::Ipv4Address LoopbackBlock() {
  static std::atomic<uint32_t> counter{0};
  const uint32_t c = counter.fetch_add(1);
  const uint32_t pid = static_cast<uint32_t>(::getpid());
  const uint32_t x = 100 + (pid * 7 + c / 32) % 150;
  return {127, static_cast<uint8_t>(x), static_cast<uint8_t>((c % 32) * 8), 0};
}

bool ParseInt(std::string_view s, int64_t lo, int64_t hi, int64_t* out) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const int64_t v = std::stoll(std::string(s));
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

Result<ProcessDut::Options> ProcessDut::ParseSpec(std::string_view text) {
  Options o;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const size_t eq = item.find('=');
    const std::string_view key = eq == std::string_view::npos ? std::string_view() : item.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (key == "net") {
      auto ip = jsonl::ParseIpv4(value);
      if (!ip.ok()) return MakeError("dut.spec", "process: net=" + std::string(value) + ": " + ip.error().message);
      o.net = ip.value();
    } else if (key == "timeout_ms") {
      int64_t v = 0;
      if (!ParseInt(value, 10, 3'600'000, &v)) {
        return MakeError("dut.spec", "process: timeout_ms=" + std::string(value) + ": expected milliseconds 10..3600000");
      }
      o.timeout_ms = static_cast<int>(v);
    } else if (key == "tick_us") {
      int64_t v = 0;
      if (!ParseInt(value, 1, 10'000, &v)) {
        return MakeError("dut.spec", "process: tick_us=" + std::string(value) + ": expected microseconds 1..10000");
      }
      o.tick_ns = v * 1000;
    } else {
      break;  // the command starts here
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  o.command = std::string(rest);
  if (o.command.find_first_not_of(" \t") == std::string::npos) {
    return MakeError("dut.spec", "process: no command (process:[net=A.B.C.D,][timeout_ms=N,][tick_us=N,]COMMAND)");
  }
  return o;
}

Result<std::unique_ptr<ProcessDut>> ProcessDut::Create(const Options& options) {
  std::unique_ptr<ProcessDut> d(new ProcessDut(options));
  if (auto s = d->Spawn(); !s.ok()) return s.error();
  auto hello = d->Request("hello", {{"version", jsonl::kProtocolVersion}});
  if (!hello.ok()) {
    return MakeError("dut.process", "'" + options.command + "': hello: " + (d->failure_.empty() ? hello.error().message : d->failure_));
  }
  const json& h = hello.value();
  jsonl::Fields f(h, "hello reply");
  d->identity_ = f.Str("identity");
  const json* caps = f.Obj("caps");
  if (!f.ok()) return MakeError("dut.protocol", "'" + options.command + "': " + f.error());
  auto c = jsonl::CapsFromJson(*caps);
  if (!c.ok()) return MakeError("dut.protocol", "'" + options.command + "': hello reply." + c.error().message);
  d->caps_ = std::move(c).value();
  d->caps_.simulated_time = false;
  // Kernel UDP sockets carry only the UDP payload; a data plane of its own (DPDK ethdev) the frame.
  d->caps_.raw_frames = options.data_plane != nullptr;
  d->caps_.max_planes = std::min<uint8_t>(d->caps_.max_planes, std::min<uint8_t>(options.max_planes, 8));
  return d;
}

Status ProcessDut::Spawn() {
  ::signal(SIGPIPE, SIG_IGN);  // a dead DUT must show as an error, not kill the harness
  char path[] = "/tmp/mroce-dut-stderr-XXXXXX";
  const int err_fd = ::mkstemp(path);
  if (err_fd < 0) return MakeError("dut.process", std::string("cannot create the stderr file: ") + std::strerror(errno));
  stderr_path_ = path;
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(err_fd);
    return MakeError("dut.process", std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  sigaddset(&def, SIGINT);
  sigaddset(&def, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &def);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  // A simple command replaces the shell (so its own exit status and signal are what we see).
  std::string cmd = options_.command;
  if (cmd.find_first_of(";&|<>()$`\n") == std::string::npos) cmd = "exec " + cmd;
  char* argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), cmd.data(), nullptr};
  const int rc = posix_spawn(&pid_, "/bin/sh", &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_fd);
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  if (rc != 0) {
    pid_ = -1;
    return MakeError("dut.process", "cannot start '" + options_.command + "': " + std::strerror(rc));
  }
  ::fcntl(to_child_, F_SETFL, O_NONBLOCK);
  ::fcntl(from_child_, F_SETFL, O_NONBLOCK);
  return OkStatus();
}

ProcessDut::~ProcessDut() {
  if (pid_ > 0 && exit_status_ < 0) {
    if (to_child_ >= 0 && failure_.empty()) {
      const std::string quit = "{\"id\":0,\"op\":\"quit\"}\n";
      [[maybe_unused]] ssize_t n = ::write(to_child_, quit.data(), quit.size());
    }
    if (to_child_ >= 0) ::close(to_child_);
    to_child_ = -1;
    // A well-behaved daemon exits when its input ends; give it a moment, then stop it.
    for (int i = 0; i < 50 && exit_status_ < 0; ++i) {
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) exit_status_ = st;
      else ::usleep(2000);
    }
    ::kill(-pid_, SIGKILL);
    if (exit_status_ < 0) {
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  } else if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // whatever the shell left behind
  }
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  if (!stderr_path_.empty()) ::unlink(stderr_path_.c_str());
}

std::string ProcessDut::ExitText() const {
  if (exit_status_ < 0) return "is still running";
  if (WIFEXITED(exit_status_)) {
    const int code = WEXITSTATUS(exit_status_);
    std::string t = "exited with status " + std::to_string(code);
    // A shell reports a child killed by signal N as 128 + N.
    if (code > 128 && code < 128 + 32) t += " (a shell's way of saying: killed by signal " + std::to_string(code - 128) + ", " + ::strsignal(code - 128) + ")";
    return t;
  }
  if (WIFSIGNALED(exit_status_)) {
    const int sig = WTERMSIG(exit_status_);
    return "was killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  return "ended (status " + std::to_string(exit_status_) + ")";
}

std::string ProcessDut::StderrTail() const {
  std::ifstream in(stderr_path_, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!all.empty() && (all.back() == '\n' || all.back() == ' ')) all.pop_back();
  if (all.empty()) return "";
  size_t start = all.size() > 600 ? all.size() - 600 : 0;
  std::string tail = all.substr(start);
  for (char& c : tail) {
    if (c == '\n') c = '|';
    else if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return "; its stderr ends: \"" + std::string(start > 0 ? "..." : "") + tail + "\"";
}

void ProcessDut::SetFailure(const std::string& why) {
  if (!failure_.empty()) return;
  // Stop it for good: a failed DUT must not act on the rest of the case.
  if (pid_ > 0 && exit_status_ < 0) {
    ::kill(-pid_, SIGKILL);
    int st = 0;
    if (::waitpid(pid_, &st, 0) == pid_) exit_status_ = st;
  }
  failure_ = "DUT process '" + options_.command + "' " + why + StderrTail();
}

bool ProcessDut::ReadControl(int timeout_ms) {
  if (!failure_.empty()) return false;
  pollfd p{from_child_, POLLIN, 0};
  const int n = ::poll(&p, 1, timeout_ms);
  if (n <= 0) return true;
  char buf[1 << 16];
  while (true) {
    const ssize_t r = ::read(from_child_, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;  // EAGAIN: all read
    }
    if (r == 0) {
      // End of its output: it exited (or closed stdout). Reap it to say how.
      int st = 0;
      for (int i = 0; i < 500 && exit_status_ < 0; ++i) {
        if (::waitpid(pid_, &st, WNOHANG) == pid_) exit_status_ = st;
        else ::usleep(1000);
      }
      SetFailure(exit_status_ >= 0 ? ExitText() : "closed its stdout");
      return false;
    }
    in_.append(buf, static_cast<size_t>(r));
  }
  size_t start = 0;
  while (failure_.empty()) {
    const size_t nl = in_.find('\n', start);
    if (nl == std::string::npos) break;
    HandleLine(std::string_view(in_).substr(start, nl - start));
    start = nl + 1;
  }
  in_.erase(0, start);
  if (in_.size() > jsonl::kMaxLineBytes) SetFailure("wrote a line longer than " + std::to_string(jsonl::kMaxLineBytes) + " bytes");
  return failure_.empty();
}

void ProcessDut::HandleLine(std::string_view line) {
  if (line.empty()) return;
  auto j = jsonl::ParseLine(line);
  if (!j.ok()) {
    SetFailure("broke the control protocol: " + j.error().message);
    return;
  }
  const json& o = j.value();
  if (auto ev = o.find("event"); ev != o.end()) {
    const std::string kind = ev->is_string() ? ev->get<std::string>() : "";
    if (kind == "completion") {
      auto c = jsonl::CompletionFromJson(o);
      if (!c.ok()) return SetFailure("broke the control protocol: " + c.error().message);
      completions_.push_back(c.value());
    } else if (kind == "conn") {
      auto e = jsonl::ConnEventFromJson(o);
      if (!e.ok()) return SetFailure("broke the control protocol: " + e.error().message);
      events_.push_back(e.value());
    } else {
      SetFailure("broke the control protocol: unknown event " + ev->dump());
    }
    return;
  }
  jsonl::Fields f(o, "reply");
  const uint64_t id = f.U64("id");
  if (!f.ok()) return SetFailure("broke the control protocol: " + f.error() + " in " + o.dump().substr(0, 120));
  if (id == 0 || id >= next_id_ || replies_.count(id) != 0) {
    SetFailure("broke the control protocol: reply to unknown request id " + std::to_string(id) + ": " + o.dump().substr(0, 160));
    return;
  }
  replies_[id] = o;
}

Result<json> ProcessDut::Request(const std::string& op, json args) {
  if (!failure_.empty()) return MakeError("dut.failed", failure_);
  const uint64_t id = next_id_++;
  // Until the DUT has been asked to send (a post_send, post_write or post_read), it has nothing in
  // flight that a blocked harness could stall: setup requests (alloc, write...) count as service.
  // From then on a request blocks the simulation while the DUT's clock runs: stall time. So does a
  // connect or disconnect itself: the DUT sends and times its CONNECT_REQ or DISCONNECT at once,
  // and the frames it sends while the harness waits for the reply are read only afterwards, all
  // at once (a slow reply compresses their spacing on the simulated clock).
  if (op == "post_send" || op == "post_write" || op == "post_read") sending_ = true;
  const bool times_itself = op == "connect" || op == "disconnect";
  struct Served {
    sim::WallClockDriver& clock;
    bool count;
    ~Served() {
      if (count && clock.started()) clock.MarkServed();
    }
  } served{clock_, !sending_ && !times_itself};
  args["id"] = id;
  args["op"] = op;
  const std::string line = args.dump() + "\n";
  const int64_t deadline = MonotonicNs() + static_cast<int64_t>(options_.timeout_ms) * 1'000'000;
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(to_child_, line.data() + done, line.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      const int64_t left = (deadline - MonotonicNs()) / 1'000'000;
      if (left <= 0) {
        SetFailure("did not read its control input ('" + op + "') within " + std::to_string(options_.timeout_ms) + " ms");
        return MakeError("dut.failed", failure_);
      }
      pollfd p{to_child_, POLLOUT, 0};
      ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 100)));
      ReadControl(0);  // it may be blocked writing to us
      if (!failure_.empty()) return MakeError("dut.failed", failure_);
      continue;
    }
    ReadControl(50);  // EPIPE: it is gone; say how
    SetFailure("closed its control input");
    return MakeError("dut.failed", failure_);
  }
  while (replies_.count(id) == 0) {
    const int64_t left = (deadline - MonotonicNs()) / 1'000'000;
    if (left <= 0) {
      SetFailure("did not answer '" + op + "' within " + std::to_string(options_.timeout_ms) + " ms (hung?)");
      return MakeError("dut.failed", failure_);
    }
    if (!ReadControl(static_cast<int>(std::min<int64_t>(left, 1000)))) return MakeError("dut.failed", failure_);
  }
  json reply = std::move(replies_[id]);
  replies_.erase(id);
  const auto ok = reply.find("ok");
  if (ok == reply.end() || !ok->is_boolean()) {
    SetFailure("broke the control protocol: reply to '" + op + "' has no boolean 'ok': " + reply.dump().substr(0, 160));
    return MakeError("dut.failed", failure_);
  }
  if (!ok->get<bool>()) {
    const json& e = reply.contains("error") ? reply["error"] : json();
    const std::string code = e.is_object() && e.contains("code") && e["code"].is_string() ? e["code"].get<std::string>() : "dut.error";
    const std::string msg = e.is_object() && e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>()
                                                                                               : reply.dump().substr(0, 160);
    return MakeError(code, msg);
  }
  // Optional: the starvation the DUT saw itself (a loaded host), so that the verdict of a run it
  // could not keep up with is not a FAIL (RunCase reruns it and says inconclusive).
  if (const auto s = reply.find("stall_ns"); s != reply.end() && s->is_number_unsigned()) {
    reported_stall_ns_ = std::max<TimeNs>(
        reported_stall_ns_, static_cast<TimeNs>(std::min<uint64_t>(s->get<uint64_t>(), uint64_t{1} << 62)));
  }
  return reply;
}

wire::Ipv4Address ProcessDut::Real(uint8_t plane, const wire::Ipv4Address& virtual_ip) const {
  const uint32_t n = static_cast<uint32_t>(virtual_ip[2]) << 8 | virtual_ip[3];
  return FromU32(ToU32(net_) + (static_cast<uint32_t>(plane) << 8) + n);
}

std::optional<std::pair<uint8_t, wire::Ipv4Address>> ProcessDut::Virtual(const wire::Ipv4Address& real_ip) const {
  const uint32_t off = ToU32(real_ip) - ToU32(net_);
  const uint32_t plane = off >> 8, n = off & 0xFF;
  if (n == 0 || plane >= config_.num_planes) return std::nullopt;
  return std::make_pair(static_cast<uint8_t>(plane), wire::Ipv4Address{10, 0, 0, static_cast<uint8_t>(n)});
}

Status ProcessDut::Start(const HostConfig& config, FrameSink* sink) {
  config_ = config;
  sink_ = sink;
  net_ = options_.net ? *options_.net : LoopbackBlock();
  HostConfig on_wire = config;
  on_wire.ip = Real(0, config.ip);
  json start = jsonl::HostConfigToJson(on_wire);
  json ips = json::array();
  for (uint8_t p = 0; p < config.num_planes; ++p) ips.push_back(jsonl::Ipv4ToString(Real(p, config.ip)));
  start["plane_ips"] = ips;
  DataPlaneConfig dp;
  dp.udp_port = config.udp_port;
  dp.num_planes = config.num_planes;
  for (uint8_t p = 0; p < config.num_planes; ++p) dp.dut_ips.push_back(Real(p, config.ip));
  if (options_.data_plane) {
    auto d = options_.data_plane(dp);
    if (!d.ok()) return d.error();
    data_ = std::move(d).value();
  } else {
    data_ = std::make_unique<UdpDataPlane>(dp);
  }
  auto r = Request("start", std::move(start));
  if (!r.ok()) return r.error();
  return OkStatus();
}

Status ProcessDut::AddPeer(uint8_t plane, const wire::Ipv4Address& virtual_ip) {
  const uint32_t n = static_cast<uint32_t>(virtual_ip[2]) << 8 | virtual_ip[3];
  if (n == 0 || n > 254) {
    return MakeError("dut.hosts", "host " + jsonl::Ipv4ToString(virtual_ip) + ": a process DUT reaches at most 253 peers");
  }
  if (data_ == nullptr) return MakeError("dut.state", "the DUT was not started");
  auto s = data_->AddPeer(plane, Real(plane, virtual_ip));
  if (!s.ok()) return MakeError(s.error().code, "harness side of peer " + jsonl::Ipv4ToString(virtual_ip) + ": " + s.error().message);
  RebuildWaitFds();
  return OkStatus();
}

void ProcessDut::RebuildWaitFds() {
  const std::vector<int> data_fds = data_ ? data_->ReadFds() : std::vector<int>{};
  std::vector<int> fds;
  if (!data_fds.empty()) {  // a polled data plane (ethdev) has none: the driver spins
    fds.push_back(from_child_);
    fds.insert(fds.end(), data_fds.begin(), data_fds.end());
  }
  clock_.SetWaitFds(fds);
}

Result<Buffer> ProcessDut::AllocBuffer(uint64_t length, uint32_t access) {
  auto r = Request("alloc", {{"length", length}, {"access", jsonl::AccessToJson(access)}});
  if (!r.ok()) return r.error();
  const json* b = r.value().contains("buffer") ? &r.value()["buffer"] : nullptr;
  if (b == nullptr) {
    SetFailure("broke the control protocol: reply to 'alloc' has no 'buffer'");
    return MakeError("dut.failed", failure_);
  }
  auto buf = jsonl::BufferFromJson(*b);
  if (!buf.ok()) {
    SetFailure("broke the control protocol: reply to 'alloc': " + buf.error().message);
    return MakeError("dut.failed", failure_);
  }
  return buf.value();
}

Status ProcessDut::WriteBuffer(uint32_t buffer_id, uint64_t offset, std::span<const uint8_t> bytes) {
  auto r = Request("write", {{"buffer", buffer_id}, {"offset", offset}, {"data", jsonl::Base64Encode(bytes)}});
  if (!r.ok()) return r.error();
  return OkStatus();
}

Result<std::vector<uint8_t>> ProcessDut::ReadBuffer(uint32_t buffer_id, uint64_t offset, uint64_t length) {
  auto r = Request("read", {{"buffer", buffer_id}, {"offset", offset}, {"length", length}});
  if (!r.ok()) return r.error();
  jsonl::Fields f(r.value(), "read reply");
  const std::string data = f.Str("data");
  std::string problem = f.error();
  if (f.ok()) {
    auto bytes = jsonl::Base64Decode(data);
    if (bytes.ok() && bytes.value().size() == length) return std::move(bytes).value();
    problem = bytes.ok() ? "read reply.data: " + std::to_string(bytes.value().size()) + " bytes, asked for " + std::to_string(length)
                         : "read reply.data: " + bytes.error().message;
  }
  SetFailure("broke the control protocol: " + problem);
  return MakeError("dut.failed", failure_);
}

Result<OobInfo> ProcessDut::PrepareConnection(uint32_t index, TimeNs now) {
  auto r = Request("prepare", {{"index", index}});
  if (!r.ok()) return r.error();
  auto oob = jsonl::OobFromJson(r.value().contains("oob") ? r.value()["oob"] : json::array());
  if (!oob.ok()) {
    SetFailure("broke the control protocol: prepare reply." + oob.error().message);
    return MakeError("dut.failed", failure_);
  }
  return oob.value();
}

Result<ConnHandle> ProcessDut::Connect(const PeerInfo& peer, TimeNs now) {
  for (uint8_t p = 0; p < config_.num_planes; ++p) {
    if (auto s = AddPeer(p, peer.ip); !s.ok()) return s.error();
  }
  PeerInfo on_wire = peer;
  on_wire.ip = Real(0, peer.ip);
  auto r = Request("connect", jsonl::PeerToJson(on_wire));
  if (!r.ok()) return r.error();
  jsonl::Fields f(r.value(), "connect reply");
  const uint64_t conn = f.U64("conn", UINT32_MAX);
  if (!f.ok()) {
    SetFailure("broke the control protocol: " + f.error());
    return MakeError("dut.failed", failure_);
  }
  return static_cast<ConnHandle>(conn);
}

Status ProcessDut::Disconnect(ConnHandle conn, TimeNs now) {
  auto r = Request("disconnect", {{"conn", conn}});
  return r.ok() ? OkStatus() : Status(r.error());
}

std::vector<ConnEvent> ProcessDut::PollEvents() { return std::exchange(events_, {}); }
std::vector<Completion> ProcessDut::PollCompletions() { return std::exchange(completions_, {}); }

namespace {
json PostArgs(ConnHandle conn, uint16_t stream, const LocalSlice& local, uint64_t wr_id) {
  return json{{"conn", conn}, {"stream", stream}, {"buffer", local.buffer_id},
              {"offset", local.offset}, {"length", local.length}, {"wr_id", wr_id}};
}
}  // namespace

Status ProcessDut::PostRecv(const RecvRequest& wr) {
  auto r = Request("post_recv", PostArgs(wr.conn, wr.stream, wr.local, wr.wr_id));
  return r.ok() ? OkStatus() : Status(r.error());
}

Status ProcessDut::PostSend(const SendRequest& wr, TimeNs now) {
  json a = PostArgs(wr.conn, wr.stream, wr.local, wr.wr_id);
  if (wr.imm) a["imm"] = *wr.imm;
  auto r = Request("post_send", std::move(a));
  return r.ok() ? OkStatus() : Status(r.error());
}

Status ProcessDut::PostWrite(const WriteRequest& wr, TimeNs now) {
  json a = PostArgs(wr.conn, wr.stream, wr.local, wr.wr_id);
  a["remote_va"] = wr.remote.va;
  a["rkey"] = wr.remote.rkey;
  if (wr.imm) a["imm"] = *wr.imm;
  auto r = Request("post_write", std::move(a));
  return r.ok() ? OkStatus() : Status(r.error());
}

Status ProcessDut::PostRead(const ReadRequest& wr, TimeNs now) {
  json a = PostArgs(wr.conn, wr.stream, wr.local, wr.wr_id);
  a["remote_va"] = wr.remote.va;
  a["rkey"] = wr.remote.rkey;
  auto r = Request("post_read", std::move(a));
  return r.ok() ? OkStatus() : Status(r.error());
}

void ProcessDut::OnFrame(std::span<const uint8_t> frame, uint8_t plane, TimeNs now) {
  if (!failure_.empty() || data_ == nullptr) return;
  // The same frame in on-wire addresses: peer -> DUT on this plane, its checksums adjusted for the
  // new addresses (a bad one the case injected stays bad).
  std::vector<uint8_t> out(frame.begin(), frame.end());
  auto view = wire::FrameView::Locate(std::span<uint8_t>(out));
  if (!view.ok() || view->ip_version() != 4) return;  // nothing the kernel could carry
  wire::Ipv4Address src{};
  std::memcpy(src.data(), view->src_addr().data(), 4);
  if (plane >= config_.num_planes) return;
  if (auto s = AddPeer(plane, src); !s.ok()) return SetFailure("cannot be reached: " + s.error().message);
  view->set_ipv4_addrs(Real(plane, src), Real(plane, config_.ip));
  (void)data_->Send(plane, out);  // errors counted by the data plane; the protocol recovers from loss
}

size_t ProcessDut::DrainData() {
  if (data_ == nullptr) return 0;
  return data_->Poll([&](const WireDatagram& d) {
    if (sink_ == nullptr || d.plane >= config_.num_planes) return;
    if (d.src != Real(d.plane, config_.ip)) return;  // not from the DUT's port on this plane
    const auto where = Virtual(d.dst);
    if (!where || where->first != d.plane) return;
    const wire::Ipv4Address peer = where->second;
    const wire::MacAddress peer_mac{0x02, 0, 0, 0, peer[2], peer[3]};
    const std::vector<uint8_t> frame = FrameFor(config_.mac, peer_mac, config_.ip, peer, d.sport, d.dport, d.tos, d.payload);
    sink_->Send(frame, d.plane);
  });
}

TimeNs ProcessDut::NextDeadline() const { return failure_.empty() ? next_tick_ : kNever; }

void ProcessDut::OnTimer(TimeNs now) {
  if (!failure_.empty()) return;
  if (!clock_.started()) clock_.Start(sim::Time::FromNanos(now));
  // The simulated clock is held at this tick until the wall clock reaches it; the DUT is served
  // meanwhile. When the harness is behind (a busy simulation), ticks come back to back and the DUT
  // is still served; a long wall gap between two ticks is a stall the DUT saw (LongestStall()).
  clock_.WaitUntil(sim::Time::FromNanos(now), [this](sim::Time) {
    using Service = sim::WallClockDriver::Service;
    if (!ReadControl(0)) return Service::kReturn;
    return DrainData() > 0 ? Service::kBusy : Service::kIdle;
  });
  if (!failure_.empty()) return;
  next_tick_ = now + options_.tick_ns;
}

std::vector<Counter> ProcessDut::Telemetry() {
  auto r = Request("telemetry");
  if (!r.ok()) return {};
  auto c = jsonl::CountersFromJson(r.value().contains("counters") ? r.value()["counters"] : json());
  if (!c.ok()) {
    SetFailure("broke the control protocol: " + c.error().message);
    return {};
  }
  return std::move(c).value();
}

std::optional<uint64_t> ProcessDut::StateBytes() {
  auto r = Request("state");
  if (!r.ok()) return std::nullopt;
  const json& b = r.value().contains("bytes") ? r.value()["bytes"] : json();
  if (b.is_number_unsigned()) return b.get<uint64_t>();
  return std::nullopt;
}

}  // namespace mroce::dut
