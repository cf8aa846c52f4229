// mroce-refd: the reference endpoint behind the JSON-lines control protocol on UDP sockets.
#include "refd.h"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "mroce/dut/live_clock.h"
#include "mroce/dut/process_protocol.h"
#include "mroce/wire/frame_view.h"

namespace mroce::refd {

using dut::MonotonicNs;
using dut::jsonl::Fields;
using nlohmann::json;

namespace {

// A stable MAC for a peer known only by its IPv4 address (the kernel hides the real one).
wire::MacAddress MacOf(const wire::Ipv4Address& ip) { return {0x02, 0x52, ip[0], ip[1], ip[2], ip[3]}; }

uint32_t U32(const wire::Ipv4Address& a) {
  return static_cast<uint32_t>(a[0]) << 24 | static_cast<uint32_t>(a[1]) << 16 | static_cast<uint32_t>(a[2]) << 8 | a[3];
}
wire::Ipv4Address Ip(uint32_t v) {
  return {static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
}

}  // namespace

ref::Result<Fault> Fault::Parse(const std::string& text) {
  Fault f;
  const size_t eq = text.find('=');
  const std::string kind = text.substr(0, eq);
  if (kind == "crash-after-frames") f.kind = Kind::kCrash;
  else if (kind == "hang-after-frames") f.kind = Kind::kHang;
  else if (kind == "garbage-after-frames") f.kind = Kind::kGarbage;
  else if (kind == "reply-delay-us") f.kind = Kind::kReplyDelay;
  else {
    return ref::MakeError("refd.fault", "--fault '" + text +
                                            "': unknown fault (crash-after-frames=N, hang-after-frames=N, garbage-after-frames=N, "
                                            "reply-delay-us=N)");
  }
  const std::string n = eq == std::string::npos ? "" : text.substr(eq + 1);
  if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 12) {
    return ref::MakeError("refd.fault", "--fault '" + text + "': expected a number of " +
                                            (f.kind == Kind::kReplyDelay ? "microseconds" : "frames") + " after '='");
  }
  (f.kind == Kind::kReplyDelay ? f.reply_delay_us : f.after_frames) = std::stoull(n);
  return f;
}

Refd::Refd(Options options) : options_(std::move(options)), t0_(MonotonicNs()) {}

Refd::~Refd() = default;

int64_t Refd::Now() const { return MonotonicNs() - t0_; }

namespace {
// CPU time this thread has used (user + system), ns.
int64_t ThreadCpuNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

void Refd::NoteWork(int64_t wall_ns, int64_t cpu_ns) {
  if (started_) longest_stall_ns_ = std::max(longest_stall_ns_, wall_ns - cpu_ns);
}

void Refd::NoteWaitReturned(int64_t waited_ns, int64_t asked_ns) {
  if (started_) longest_stall_ns_ = std::max(longest_stall_ns_, waited_ns - asked_ns);
}

void Refd::Write(const json& j) {
  std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
  if (!delayed_.empty()) {  // behind a delayed reply (--fault reply-delay-us): keep the order
    delayed_.back().text += line;
    return;
  }
  out_ += line;
}

void Refd::ReleaseDelayed() {
  const int64_t now = MonotonicNs();
  while (!delayed_.empty() && delayed_.front().due_ns <= now) {
    out_ += delayed_.front().text;
    delayed_.pop_front();
  }
}

void Refd::FlushOut() {
  size_t done = 0;
  while (done < out_.size()) {
    const ssize_t n = ::write(out_fd_, out_.data() + done, out_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{out_fd_, POLLOUT, 0};
        ::poll(&p, 1, 100);
        continue;
      }
      quit_ = true;  // the harness went away
      break;
    }
    done += static_cast<size_t>(n);
  }
  out_.clear();
}

void Refd::Send(std::span<const uint8_t> frame, uint8_t plane) {
  if (plane >= udp_.size()) {
    ++send_errors_;
    return;
  }
  auto view = wire::FrameView::Locate(frame);
  if (!view.ok() || view->ip_version() != 4) {
    ++send_errors_;
    return;
  }
  wire::Ipv4Address dst{};
  std::memcpy(dst.data(), view->dst_addr().data(), 4);
  if (!udp_[plane]->SendFrame(frame, Ip(U32(dst) + plane_delta_[plane])).ok()) ++send_errors_;
}

void Refd::ReceiveOn(size_t plane) {
  udp_[plane]->Receive([this, plane](const dut::Datagram& d) { OnDatagram(static_cast<uint8_t>(plane), d); });
}

void Refd::OnDatagram(uint8_t plane, const dut::Datagram& d) {
  ++frames_rx_;
  // A datagram that waited in the socket (the host kept this process off the CPU while ppoll should
  // have returned) is a stall no timer of ours ran late for.
  if (started_) longest_stall_ns_ = std::max(longest_stall_ns_, d.waited_ns);
  const Fault& f = options_.fault;
  if (f.kind != Fault::Kind::kNone && f.kind != Fault::Kind::kReplyDelay && frames_rx_ > f.after_frames) {
    switch (f.kind) {
      case Fault::Kind::kCrash:
        std::fprintf(stderr, "mroce-refd: --fault crash-after-frames=%llu: aborting now\n",
                     static_cast<unsigned long long>(f.after_frames));
        std::abort();
      case Fault::Kind::kHang:
        std::fprintf(stderr, "mroce-refd: --fault hang-after-frames=%llu: hanging now\n",
                     static_cast<unsigned long long>(f.after_frames));
        while (true) std::this_thread::sleep_for(std::chrono::seconds(3600));
      case Fault::Kind::kGarbage:
        out_ += "\x01garbage from mroce-refd --fault {not json\n";
        FlushOut();
        options_.fault.kind = Fault::Kind::kNone;
        break;
      case Fault::Kind::kNone:
      case Fault::Kind::kReplyDelay:
        break;
    }
  }
  const wire::Ipv4Address src = Ip(U32(d.src) - plane_delta_[plane]);
  const std::vector<uint8_t> frame =
      dut::FrameFor(MacOf(src), config_.mac, src, config_.ip, d.sport, config_.udp_port, d.tos, d.payload);
  dut_->OnFrame(frame, plane, Now());
}

void Refd::FlushEvents() {
  if (!dut_) return;
  for (const dut::ConnEvent& e : dut_->PollEvents()) Write(dut::jsonl::ConnEventToJson(e));
  for (const dut::Completion& c : dut_->PollCompletions()) Write(dut::jsonl::CompletionEvent(c));
}

json Refd::Handle(const json& req) {
  Fields f(req, "request");
  const uint64_t id = f.U64("id");
  const std::string op = f.Str("op");
  if (!f.ok()) return dut::jsonl::ErrorReply(id, f.ToError("refd.request"));
  auto fail = [&](const ref::Error& e) { return dut::jsonl::ErrorReply(id, e); };
  auto ok = [&](json r = json::object()) {
    json reply = dut::jsonl::OkReply(id, std::move(r));
    reply["stall_ns"] = longest_stall_ns_;
    return reply;
  };
  auto status = [&](const ref::Status& s) { return s.ok() ? ok() : fail(s.error()); };

  if (op == "hello") {
    const uint64_t version = f.U64("version");
    if (!f.ok()) return fail(f.ToError());
    if (version != dut::jsonl::kProtocolVersion) {
      return fail(ref::MakeError("refd.version", "protocol version " + std::to_string(version) +
                                                     " is not supported (this daemon speaks " +
                                                     std::to_string(dut::jsonl::kProtocolVersion) + ")"));
    }
    dut::ReferenceDut probe(options_.quirks);
    dut::Capabilities caps = probe.Caps();
    caps.simulated_time = false;
    return ok({{"protocol", std::string(dut::jsonl::kProtocolName)},
               {"version", dut::jsonl::kProtocolVersion},
               {"identity", "mroce-refd " + probe.Identity()},
               {"caps", dut::jsonl::CapsToJson(caps)}});
  }
  if (op == "quit") {
    quit_ = true;
    return ok();
  }
  if (op == "reset") {
    dut_.reset();
    udp_.clear();
    started_ = false;
    longest_stall_ns_ = 0;
    return ok();
  }
  if (op == "start") {
    if (started_) return fail(ref::MakeError("refd.started", "start: already started (send reset first)"));
    auto cfg = dut::jsonl::HostConfigFromJson(req);
    if (!cfg.ok()) return fail(cfg.error());
    std::vector<wire::Ipv4Address> ips;
    if (const auto it = req.find("plane_ips"); it != req.end()) {
      if (!it->is_array() || it->size() != cfg.value().num_planes) {
        return fail(ref::MakeError("refd.request", "start.plane_ips: expected an array of num_planes (" +
                                                       std::to_string(cfg.value().num_planes) + ") addresses"));
      }
      for (size_t i = 0; i < it->size(); ++i) {
        auto ip = (*it)[i].is_string() ? dut::jsonl::ParseIpv4((*it)[i].get<std::string>())
                                       : ref::Result<wire::Ipv4Address>(ref::MakeError("", "not a string"));
        if (!ip.ok()) return fail(ref::MakeError("refd.request", "start.plane_ips[" + std::to_string(i) + "]: " + ip.error().message));
        ips.push_back(ip.value());
      }
      if (ips[0] != cfg.value().ip) return fail(ref::MakeError("refd.request", "start.plane_ips[0] must equal start.ip"));
    } else if (cfg.value().num_planes == 1) {
      ips.push_back(cfg.value().ip);
    } else {
      return fail(ref::MakeError("refd.request", "start: num_planes " + std::to_string(cfg.value().num_planes) +
                                                     " needs plane_ips (one address per plane)"));
    }
    std::vector<std::unique_ptr<dut::UdpIo>> socks;
    for (const auto& ip : ips) {
      auto io = dut::UdpIo::Open(ip, cfg.value().udp_port);
      if (!io.ok()) return fail(io.error());
      socks.push_back(std::move(io).value());
    }
    config_ = cfg.value();
    udp_ = std::move(socks);
    plane_delta_.clear();
    for (const auto& ip : ips) plane_delta_.push_back(U32(ip) - U32(ips[0]));
    dut_ = std::make_unique<dut::ReferenceDut>(options_.quirks);
    if (auto s = dut_->Start(config_, this); !s.ok()) {
      dut_.reset();
      udp_.clear();
      return fail(s.error());
    }
    started_ = true;
    return ok();
  }
  if (!started_) return fail(ref::MakeError("refd.not_started", op + ": send start first"));
  const int64_t now = Now();
  if (op == "alloc") {
    const uint64_t length = f.U64("length");
    const json* access = f.Arr("access");
    if (!f.ok()) return fail(f.ToError());
    auto a = dut::jsonl::AccessFromJson(*access);
    if (!a.ok()) return fail(a.error());
    auto b = dut_->AllocBuffer(length, a.value());
    if (!b.ok()) return fail(b.error());
    return ok({{"buffer", dut::jsonl::BufferToJson(b.value())}});
  }
  if (op == "write") {
    const uint64_t buffer = f.U64("buffer", UINT32_MAX);
    const uint64_t offset = f.U64("offset");
    const std::string data = f.Str("data");
    if (!f.ok()) return fail(f.ToError());
    auto bytes = dut::jsonl::Base64Decode(data);
    if (!bytes.ok()) return fail(ref::MakeError("refd.request", "write.data: " + bytes.error().message));
    return status(dut_->WriteBuffer(static_cast<uint32_t>(buffer), offset, bytes.value()));
  }
  if (op == "read") {
    const uint64_t buffer = f.U64("buffer", UINT32_MAX);
    const uint64_t offset = f.U64("offset");
    const uint64_t length = f.U64("length", dut::jsonl::kMaxLineBytes / 2);
    if (!f.ok()) return fail(f.ToError());
    auto bytes = dut_->ReadBuffer(static_cast<uint32_t>(buffer), offset, length);
    if (!bytes.ok()) return fail(bytes.error());
    return ok({{"data", dut::jsonl::Base64Encode(bytes.value())}});
  }
  if (op == "prepare") {
    const uint64_t index = f.U64("index", UINT32_MAX);
    if (!f.ok()) return fail(f.ToError());
    auto oob = dut_->PrepareConnection(static_cast<uint32_t>(index), now);
    if (!oob.ok()) return fail(oob.error());
    return ok({{"oob", dut::jsonl::OobToJson(oob.value())}});
  }
  if (op == "connect") {
    auto peer = dut::jsonl::PeerFromJson(req);
    if (!peer.ok()) return fail(peer.error());
    auto h = dut_->Connect(peer.value(), now);
    if (!h.ok()) return fail(h.error());
    return ok({{"conn", h.value()}});
  }
  if (op == "disconnect") {
    const uint64_t conn = f.U64("conn", UINT32_MAX);
    if (!f.ok()) return fail(f.ToError());
    return status(dut_->Disconnect(static_cast<dut::ConnHandle>(conn), now));
  }
  if (op == "post_recv" || op == "post_send" || op == "post_write" || op == "post_read") {
    const auto conn = static_cast<dut::ConnHandle>(f.U64("conn", UINT32_MAX));
    const auto stream = static_cast<uint16_t>(f.U64("stream", 65535));
    const auto buffer = static_cast<uint32_t>(f.U64("buffer", UINT32_MAX));
    const uint64_t offset = f.U64("offset");
    const auto length = static_cast<uint32_t>(f.U64("length", UINT32_MAX));
    const uint64_t wr_id = f.U64("wr_id");
    std::optional<uint32_t> imm;
    if (auto v = f.OptU64("imm", UINT32_MAX)) imm = static_cast<uint32_t>(*v);
    uint64_t remote_va = 0;
    uint32_t rkey = 0;
    if (op == "post_write" || op == "post_read") {
      remote_va = f.U64("remote_va");
      rkey = static_cast<uint32_t>(f.U64("rkey", UINT32_MAX));
    }
    if (!f.ok()) return fail(f.ToError());
    const dut::LocalSlice local{buffer, offset, length};
    const dut::RemoteSlice remote{remote_va, rkey};
    if (op == "post_recv") return status(dut_->PostRecv({conn, stream, local, wr_id}));
    if (op == "post_send") return status(dut_->PostSend({conn, stream, local, wr_id, imm}, now));
    if (op == "post_write") return status(dut_->PostWrite({conn, stream, local, remote, wr_id, imm}, now));
    return status(dut_->PostRead({conn, stream, local, remote, wr_id}, now));
  }
  if (op == "telemetry") {
    std::vector<dut::Counter> counters = dut_->Telemetry();
    uint64_t rx = 0, tx = 0;
    for (const auto& u : udp_) {
      rx += u->received();
      tx += u->sent();
    }
    counters.emplace_back("daemon.udp_rx", rx);
    counters.emplace_back("daemon.udp_tx", tx);
    counters.emplace_back("daemon.udp_send_errors", send_errors_);
    return ok({{"counters", dut::jsonl::CountersToJson(counters)}});
  }
  if (op == "state") {
    const auto b = dut_->StateBytes();
    return ok({{"bytes", b ? json(*b) : json(nullptr)}});
  }
  return fail(ref::MakeError("refd.op", "unknown op '" + op +
                                            "' (hello, start, alloc, write, read, prepare, connect, disconnect, "
                                            "post_recv, post_send, post_write, post_read, telemetry, state, reset, quit)"));
}

void Refd::HandleLine(std::string_view line) {
  if (line.empty()) return;
  auto req = dut::jsonl::ParseLine(line);
  if (!req.ok()) {
    // No id to answer: the error goes back with id 0 so the harness sees what it sent wrong.
    Write(dut::jsonl::ErrorReply(0, ref::MakeError("refd.request", req.error().message)));
    return;
  }
  const json reply = Handle(req.value());
  if (options_.fault.kind == Fault::Kind::kReplyDelay && started_) {
    // The request is carried out (its frames have left) and the daemon goes on serving its timers
    // and sockets; only the reply, and what is written after it, waits.
    delayed_.push_back({MonotonicNs() + static_cast<int64_t>(options_.fault.reply_delay_us) * 1000, ""});
    Write(reply);  // into delayed_.back()
    return;
  }
  Write(reply);
}

int Refd::Run(int in_fd, int out_fd) {
  out_fd_ = out_fd;
  std::string in;
  std::vector<char> buf(1 << 16);
  bool in_open = true;
  int64_t work_wall = MonotonicNs(), work_cpu = ThreadCpuNs();  // since the last wait returned
  // Whether the endpoint has a timer running: only then can the host keeping this process off the
  // CPU change what it sends (a late timer, a late ACK); before that (setting up buffers and the
  // connection request) a slow step stalls nothing, so it is not reported.
  auto armed = [this] { return dut_ && dut_->NextDeadline() != dut::kNever; };
  bool armed_work = false;
  while (!quit_ && in_open) {
    if (dut_) {
      if (dut_->NextDeadline() <= Now()) {
        // A timer is due: first take what already arrived (this process may have been descheduled
        // past the deadline with the ACKs waiting in the sockets), so a late wake-up is not a loss.
        for (size_t p = 0; p < udp_.size(); ++p) ReceiveOn(p);
        const int64_t now = Now();
        if (dut_->NextDeadline() <= now) dut_->OnTimer(now);
      }
    }
    FlushEvents();
    ReleaseDelayed();
    FlushOut();
    int64_t wait_ns = 100'000'000;
    if (dut_) {
      const dut::TimeNs next = dut_->NextDeadline();
      if (next != dut::kNever) wait_ns = std::clamp<int64_t>(next - Now(), 0, wait_ns);
    }
    if (!delayed_.empty()) wait_ns = std::clamp<int64_t>(delayed_.front().due_ns - MonotonicNs(), 0, wait_ns);
    std::vector<pollfd> fds{{in_fd, POLLIN, 0}};
    for (const auto& u : udp_) fds.push_back({u->fd(), POLLIN, 0});
    const timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
    const int64_t wait_start = MonotonicNs();
    const bool armed_wait = armed();
    if (armed_work || armed_wait) NoteWork(wait_start - work_wall, ThreadCpuNs() - work_cpu);
    const int n = ::ppoll(fds.data(), fds.size(), &ts, nullptr);
    work_wall = MonotonicNs();
    work_cpu = ThreadCpuNs();
    armed_work = armed();
    // A wait that outlasted its timeout returned late, whatever ended it (the timer, or input that
    // arrived while the daemon could not run: a stopped or starved process resumes into either).
    if (armed_wait) NoteWaitReturned(work_wall - wait_start, wait_ns);
    if (n < 0 && errno != EINTR) {
      std::fprintf(stderr, "mroce-refd: ppoll: %s\n", std::strerror(errno));
      return 3;
    }
    if (n <= 0) continue;
    for (size_t p = 0; p < udp_.size(); ++p) {
      if (fds[p + 1].revents & POLLIN) ReceiveOn(p);
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t r = ::read(in_fd, buf.data(), buf.size());
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) {
        in_open = false;
      } else {
        in.append(buf.data(), static_cast<size_t>(r));
      }
      size_t start = 0;
      while (!quit_) {
        const size_t nl = in.find('\n', start);
        if (nl == std::string::npos) break;
        HandleLine(std::string_view(in).substr(start, nl - start));
        start = nl + 1;
        FlushEvents();
      }
      in.erase(0, start);
      if (in.size() > dut::jsonl::kMaxLineBytes) {
        Write(dut::jsonl::ErrorReply(0, ref::MakeError("refd.request", "request line longer than " +
                                                                          std::to_string(dut::jsonl::kMaxLineBytes) + " bytes")));
        in.clear();
      }
    }
  }
  FlushEvents();
  for (Delayed& d : std::exchange(delayed_, {})) out_ += d.text;
  FlushOut();
  return 0;
}

}  // namespace mroce::refd
