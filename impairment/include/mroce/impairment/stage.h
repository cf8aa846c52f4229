// The impairment stage interface, the packet match filter and configured-vs-achieved statistics.
#ifndef MROCE_IMPAIRMENT_STAGE_H_
#define MROCE_IMPAIRMENT_STAGE_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mroce/impairment/packet.h"
#include "mroce/sim/rng.h"

namespace mroce::impairment {

// Canonical order of stages in a Pipeline (lower runs first). Why this order: a failed link loses
// everything before anything else can act; targeted and random drops decide which packets exist;
// corruption and duplication alter survivors; the rate limiter/queue (and its ECN marker) sees the
// traffic that actually reaches it; delay/jitter and reordering act on what leaves the queue.
enum class Position : uint8_t {
  kBlackhole = 10,
  kTargetedDrop = 20,
  kLoss = 30,
  kCorrupt = 40,
  kDuplicate = 50,
  kRateLimit = 60,  // Includes ECN marking (a property of the queue).
  kDelay = 70,
  kReorder = 80,
};
[[nodiscard]] const char* PositionName(Position p);

// Which packets a stage acts on; an unset field matches anything. Packets that do not match pass
// through the stage untouched (and are not counted as "considered"). Written as `match:` in cases
// and profiles (match_keys.h).
struct Match {
  std::optional<Direction> direction;
  std::optional<uint8_t> plane;
  std::optional<uint8_t> path_id;    // MetaRoCE CH.path_id.
  std::optional<uint16_t> sport;     // UDP source port (path entropy).
  std::optional<uint8_t> opcode;     // MetaRoCE CH.opcode.
  std::optional<uint16_t> stream_id; // MEH.stream_id (data opcodes only).
  std::optional<uint32_t> psn;       // CH.psn.
  std::optional<bool> rtx;           // CH.flags RTX.
  bool metaroce_only = false;        // Only MetaRoCE packets.
  [[nodiscard]] bool Matches(const Packet& p) const;
  [[nodiscard]] bool IsAny() const;
  [[nodiscard]] bool IsAnyHeaderField() const;
  [[nodiscard]] std::string ToString() const;
  bool operator==(const Match&) const = default;
};

// One configured-vs-achieved figure. unit "%" prints value*100 with 2 decimals.
struct StatLine {
  std::string metric;     // "loss", "mean burst length", "CE marks", ...
  std::string unit;       // "%", "packets", "ns", "B", ...
  double configured = 0;
  double achieved = 0;
  bool has_configured = true;
};

struct StageStats {
  std::string stage;          // Stage instance name.
  std::string kind;           // "loss.bernoulli", ...
  uint64_t packets_in = 0;    // Every packet the stage saw.
  uint64_t considered = 0;    // Packets matching the stage's Match.
  uint64_t packets_out = 0;   // Emitted (duplicates included).
  uint64_t dropped = 0;
  uint64_t marked = 0;
  uint64_t duplicated = 0;
  uint64_t corrupted = 0;
  std::vector<StatLine> lines;
  // "loss@a (loss.bernoulli): configured loss 1.00%, achieved 0.98% over 100000 packets"
  [[nodiscard]] std::string ToString() const;
  [[nodiscard]] const StatLine* Line(const std::string& metric) const;
};

// Where a stage sends its output. Implemented by Pipeline.
class Emitter {
 public:
  virtual ~Emitter() = default;
  // The packet continues to the next stage after `delay` (>= 0).
  virtual void Emit(Packet&& p, Duration delay) = 0;
  // The stage removed the packet (it has already noted kDropped in the fate log).
  virtual void Drop(Packet&& p) = 0;
  // Asks for OnWakeup(at) (spurious wakeups must be tolerated).
  virtual void RequestWakeup(Time at) = 0;
  // For a stage that keeps one wake-up pending instead of one per request: reserves the place in
  // event order a RequestWakeup now would take (a ticket), for RequestReservedWakeup later (at a
  // time no earlier than the wake-up running or last run). The defaults (for emitters outside a
  // pipeline) do not order: no ticket, a plain wake-up.
  virtual uint64_t ReserveWakeup() { return 0; }
  virtual void RequestReservedWakeup(Time at, uint64_t ticket) { RequestWakeup(at); }
  // A fresh packet id (for duplicates).
  virtual uint64_t NewPacketId() = 0;
};

class Pipeline;
class Stage;

// A list of pipeline packets (the burst path's buffers). Growing it leaves the new slots
// uninitialised (BurstOut::BeginPass reserves room that is written before it is read).
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // Default-initialised: a pointer is left as it is.
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using PacketList = std::vector<Packet*, UninitialisedAllocator<Packet*>>;

// Where a stage sends the output of a burst (Stage::OnBurst): the burst path of Pipeline, which the
// DPDK bridge drives. Packets are the pipeline's own (Pipeline::NewPacket) and are handed on as
// pointers, never moved; a stage that keeps one moves it out (the pipeline then reuses the object).
// Every packet a stage is given ends in exactly one of Pass, Park, Drop (or is moved out by a
// per-packet stage, see RunOnPacket).
class BurstOut {
 public:
  // The packet continues to the next stage at this burst's time (after the stage returns).
  void Pass(Packet* p) { next_->push_back(p); }
  // Pass for a loop (Stage::PassWriter): room for `max` more passed packets, written in order from
  // the returned pointer; EndPass(one past the last written) ends it. In between, no Pass (Park,
  // Drop, Copy, Adopt and Release are fine).
  [[nodiscard]] Packet** BeginPass(size_t max) {
    const size_t used = next_->size();
    next_->resize(used + max);
    return next_->data() + used;
  }
  void EndPass(Packet** end) { next_->resize(static_cast<size_t>(end - next_->data())); }
  // The packet continues to the next stage after `delay` > 0 (parked in the pipeline).
  void Park(Packet* p, Duration delay);
  // Park for each of pkts[0..n), in order, in one call.
  void ParkAll(Packet* const* pkts, size_t n, Duration delay);
  // The stage removed the packet (kDropped already noted): the drop observer sees it, then it is freed.
  void Drop(Packet* p);
  // A new pipeline packet holding a copy of `p` (for duplicates).
  Packet* Copy(const Packet& p);
  // A pipeline packet holding `p` (moved in): for a packet the stage releases from its own storage.
  Packet* Adopt(Packet&& p);
  // The stage moved the packet out of `p` (to hold it): the pipeline reuses the object.
  void Release(Packet* p);
  [[nodiscard]] uint64_t NewPacketId();
  void RequestWakeup(Time at);
  // As Emitter's.
  [[nodiscard]] uint64_t ReserveWakeup();
  void RequestReservedWakeup(Time at, uint64_t ticket);
  // Runs the per-packet Stage::OnPacket of `stage` on `p`, routing what it emits here (the
  // default Stage::OnBurst): emitting `p` itself passes the pointer on; a packet the stage emits
  // from its own storage is moved into a pipeline packet; if the stage keeps `p` (moves it out),
  // the pipeline packet is freed.
  void RunOnPacket(Stage& stage, Packet* p, Time now);

 private:
  friend class Pipeline;
  class Adapter;
  BurstOut(Pipeline* pipeline, size_t index, PacketList* next)
      : pipeline_(pipeline), index_(index), next_(next) {}
  Pipeline* pipeline_;
  size_t index_;  // Of the stage whose output this is.
  PacketList* next_;
};

class Stage {
 public:
  Stage(std::string name, Match match)
      : name_(std::move(name)), match_(std::move(match)), match_all_(match_.IsAny()) {}
  virtual ~Stage() = default;
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const Match& match() const { return match_; }
  [[nodiscard]] virtual Position position() const = 0;
  // Takes a packet at `now`; emits zero or more packets (with delays) through `out`.
  void Process(Packet&& p, Time now, Emitter& out) {
    ++packets_in_;
    if (!match_all_ && !match_.Matches(p)) {
      ++packets_out_;
      out.Emit(std::move(p), Duration::Zero());
      return;
    }
    ++considered_;
    OnPacket(std::move(p), now, out);
  }
  // The burst form of Process: packets in[0..n) all arrive at `now`, in this order. Each stage
  // sees the same packets in the same order at the same times as through Process, so it takes the
  // same decisions and keeps the same statistics (a stage overriding OnBurst must keep that).
  // Packets that do not match pass on in their place; runs of matching ones go to OnBurst.
  void ProcessBurst(Packet* const* in, size_t n, Time now, BurstOut& out) {
    packets_in_ += n;
    if (match_all_) {
      considered_ += n;
      OnBurst(in, n, now, out);
      return;
    }
    size_t run = 0;  // Start of the current run of matching packets.
    for (size_t i = 0; i < n; ++i) {
      if (match_.Matches(*in[i])) continue;
      if (i > run) {
        considered_ += i - run;
        OnBurst(in + run, i - run, now, out);
      }
      ++packets_out_;
      out.Pass(in[i]);
      run = i + 1;
    }
    if (n > run) {
      considered_ += n - run;
      OnBurst(in + run, n - run, now, out);
    }
  }
  virtual void OnWakeup(Time now, Emitter& out) {}
  [[nodiscard]] StageStats Stats() const;

 protected:
  // A packet that matched. Implementations count through the helpers below.
  virtual void OnPacket(Packet&& p, Time now, Emitter& out) = 0;
  // Matching packets of a burst (see ProcessBurst). The default runs OnPacket on each one
  // (BurstOut::RunOnPacket); stages on the DPDK hot path override it with a loop over pointers.
  virtual void OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) {
    for (size_t i = 0; i < n; ++i) out.RunOnPacket(*this, in[i], now);
  }
  // Stage-specific kind and configured-vs-achieved lines.
  virtual void FillStats(StageStats& s) const = 0;

  void Pass(Packet&& p, Duration delay, Emitter& out) {
    ++packets_out_;
    out.Emit(std::move(p), delay);
  }
  // Adds to the packet's fate log, unless the pipeline keeps none (Pipeline::set_fate_log).
  void NoteFate(Packet& p, FateKind kind, uint32_t detail, Time now) const {
    if (fate_log_) p.Note(name_.c_str(), kind, detail, now);
  }
  [[nodiscard]] bool fate_log() const { return fate_log_; }
  // The stage's name for a fate note, nullptr when no notes are kept.
  [[nodiscard]] const char* fate_name() const { return fate_log_ ? name_.c_str() : nullptr; }
  void DropIt(Packet&& p, Time now, Emitter& out) {
    ++dropped_;
    NoteFate(p, FateKind::kDropped, 0, now);
    out.Drop(std::move(p));
  }
  // The same for OnBurst (counted alike).
  void Pass(Packet* p, Duration delay, BurstOut& out) {
    ++packets_out_;
    if (delay > Duration::Zero()) out.Park(p, delay);
    else out.Pass(p);
  }
  void PassAll(Packet* const* pkts, size_t n, Duration delay, BurstOut& out) {
    packets_out_ += n;
    if (delay > Duration::Zero()) {
      out.ParkAll(pkts, n, delay);
    } else {
      Packet** w = out.BeginPass(n);
      std::copy_n(pkts, n, w);
      out.EndPass(w + n);
    }
  }
  // Passes packets from an OnBurst loop with the counter and the write position in registers (Pass
  // through BurstOut updates both in memory every time, a store-to-load chain per packet): room
  // for up to `max` packets; Done() (required) hands them on and counts them.
  class PassWriter {
   public:
    PassWriter(Stage* stage, BurstOut& out, size_t max)
        : stage_(stage), out_(out), begin_(out.BeginPass(max)), w_(begin_) {}
    void Pass(Packet* p) { *w_++ = p; }
    void Done() {
      stage_->packets_out_ += static_cast<uint64_t>(w_ - begin_);
      out_.EndPass(w_);
    }

   private:
    Stage* stage_;
    BurstOut& out_;
    Packet** begin_;
    Packet** w_;
  };
  void DropIt(Packet* p, Time now, BurstOut& out) {
    ++dropped_;
    NoteFate(*p, FateKind::kDropped, 0, now);
    out.Drop(p);
  }

  uint64_t packets_in_ = 0;
  uint64_t considered_ = 0;
  uint64_t packets_out_ = 0;
  uint64_t dropped_ = 0;
  uint64_t marked_ = 0;
  uint64_t duplicated_ = 0;
  uint64_t corrupted_ = 0;

 private:
  friend class BurstOut;
  friend class Pipeline;  // Sets fate_log_.
  std::string name_;
  bool fate_log_ = true;
  Match match_;
  bool match_all_;  // match_.IsAny(): no per-packet check.
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_STAGE_H_
