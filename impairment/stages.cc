#include "mroce/impairment/stages.h"

#include <algorithm>
#include <cmath>

namespace mroce::impairment {

namespace {
uint32_t PathKey(const Packet& p) {
  const PacketInfo& i = p.Info();
  return static_cast<uint32_t>(p.direction) << 24 | static_cast<uint32_t>(p.plane) << 16 | i.sport;
}
uint32_t SaturateU32(int64_t v) { return v < 0 ? 0 : (v > 0xFFFFFFFFLL ? 0xFFFFFFFFu : static_cast<uint32_t>(v)); }
}  // namespace

// ----- DelayStage ------------------------------------------------------------------------------

DelayStage::DelayStage(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())) {}

double DelayStage::ConfiguredMeanNs() const {
  const double base = static_cast<double>(params_.base.nanos());
  switch (params_.distribution) {
    case Distribution::kConstant: return base;
    case Distribution::kUniform: return base + params_.jitter_ns / 2;
    case Distribution::kNormal: return base;  // Truncation at 0 biases this up when sd ~ base.
    case Distribution::kPareto:
      return params_.pareto_shape > 1 ? base + params_.pareto_shape * params_.jitter_ns / (params_.pareto_shape - 1)
                                       : INFINITY;
  }
  return base;
}

void DelayStage::OnPacket(Packet&& p, Time now, Emitter& out) {
  if (params_.distribution == Distribution::kConstant) {
    // Departures are now + base and `now` never goes back: no packet can pass an earlier one, so
    // neither the order-preserving nor the reordering bookkeeping below could change anything.
    sum_delay_ns_ += static_cast<double>(params_.base.nanos());
    if (params_.base > Duration::Zero())
      NoteFate(p, FateKind::kDelayed, SaturateU32(params_.base.nanos()), now);
    Pass(std::move(p), params_.base, out);
    return;
  }
  double d = static_cast<double>(params_.base.nanos());
  switch (params_.distribution) {
    case Distribution::kConstant: break;  // Handled above.
    case Distribution::kUniform: d += rng_.Uniform(0, params_.jitter_ns); break;
    case Distribution::kNormal: d = std::max(0.0, d + rng_.Normal(0, params_.jitter_ns)); break;
    case Distribution::kPareto: d += rng_.Pareto(params_.jitter_ns, params_.pareto_shape); break;
  }
  Time depart = now + Duration::Nanos(static_cast<int64_t>(std::llround(d)));
  const uint32_t key = params_.scope == Scope::kPerPath ? PathKey(p) : 0;
  if (params_.order_preserving) {
    auto [it, inserted] = last_departure_.try_emplace(key, depart);
    if (!inserted) {
      depart = std::max(depart, it->second);
      it->second = depart;
    }
  } else {
    auto [it, inserted] = max_departure_.try_emplace(key, depart);
    if (!inserted) {
      if (depart < it->second) ++reordered_;
      else it->second = depart;
    }
  }
  const Duration delay = depart - now;
  sum_delay_ns_ += static_cast<double>(delay.nanos());
  if (delay > Duration::Zero()) NoteFate(p, FateKind::kDelayed, SaturateU32(delay.nanos()), now);
  Pass(std::move(p), delay, out);
}

void DelayStage::OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) {
  if (params_.distribution != Distribution::kConstant) {
    Stage::OnBurst(in, n, now, out);
    return;
  }
  // What OnPacket does for a constant delay, per pointer.
  const Duration base = params_.base;
  sum_delay_ns_ += static_cast<double>(base.nanos()) * static_cast<double>(n);
  const uint32_t detail = SaturateU32(base.nanos());
  if (base > Duration::Zero() && fate_log()) {
    for (size_t i = 0; i < n; ++i) in[i]->Note(name().c_str(), FateKind::kDelayed, detail, now);
  }
  PassAll(in, n, base, out);
}

void DelayStage::FillStats(StageStats& s) const {
  static const char* kNames[] = {"delay.constant", "delay.uniform", "delay.normal", "delay.pareto"};
  s.kind = kNames[static_cast<int>(params_.distribution)];
  s.lines.push_back({"mean delay", "ns", ConfiguredMeanNs(), considered_ ? sum_delay_ns_ / double(considered_) : 0.0});
  s.lines.push_back({"reordered", "packets", 0, double(reordered_), false});
}

// ----- ReorderStage ----------------------------------------------------------------------------

ReorderStage::ReorderStage(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())) {
  if (params_.k == 0) params_.k = 1;
  if (params_.every == 0) params_.every = 1;
  threshold_ = sim::Rng::BernoulliThreshold(params_.probability);
}

uint32_t ReorderStage::ScopeKey(const Packet& p) const {
  return params_.scope == Scope::kPerPath ? PathKey(p) : 0;
}

void ReorderStage::OnPacket(Packet&& p, Time now, Emitter& out) {
  // Nothing held (the common case): no scope lookup, and the headers are parsed for the key only if
  // this packet is the one selected to be held.
  auto it = held_.end();
  if (!held_.empty()) it = held_.find(ScopeKey(p));
  if (it != held_.end()) {
    // Another packet of the scope passes the held one.
    Pass(std::move(p), Duration::Zero(), out);
    if (Packet* due = CountPassed(it, now)) {
      Pass(std::move(*due), Duration::Zero(), out);
      store_.Give(due);
    }
    return;
  }
  if (Select()) {
    const Time deadline = now + params_.max_hold;
    const uint32_t key = ScopeKey(p);
    held_.emplace(key, Held{Keep(std::move(p)), 0, deadline});
    AskWakeup(deadline, out);
    return;
  }
  Pass(std::move(p), Duration::Zero(), out);
}

Packet* ReorderStage::CountPassed(std::unordered_map<uint32_t, Held>::iterator it, Time now) {
  Held& h = it->second;
  if (++h.passed < params_.k) return nullptr;
  ++displaced_;
  displacement_sum_ += h.passed;
  NoteFate(*h.packet, FateKind::kReordered, h.passed, now);
  Packet* due = h.packet;
  held_.erase(it);
  return due;
}

void ReorderStage::OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) {
  // OnPacket over pointers: a passing packet is handed on as it is; only a held one is moved
  // (into held_, and back into a pipeline packet when it is released). The loop's state (draw
  // index, candidate count, write position) stays in registers; the rarer steps are calls.
  uint64_t index = rng_.index();
  uint32_t since = since_selectable_;
  const uint32_t every = params_.every;
  const uint64_t threshold = threshold_;
  PassWriter pass(this, out, 2 * n);  // Each packet passes, and may release a held one.
  if (!held_.empty()) LoadFrames(in, n);
  for (size_t i = 0; i < n; ++i) {
    Packet* p = in[i];
    if (!held_.empty()) [[unlikely]] {
      Packet* released = nullptr;
      if (PassesHeld(p, now, out, &released)) {
        pass.Pass(p);
        if (released != nullptr) pass.Pass(released);
        continue;
      }
    }
    // Select(), on the local state.
    if (++since >= every) {
      since = 0;
      if (rng_.BernoulliBelowAt(index++, threshold)) [[unlikely]] {
        Hold(p, now, out);
        LoadFrames(in + i + 1, n - i - 1);
        continue;
      }
    }
    pass.Pass(p);
  }
  pass.Done();
  rng_.set_index(index);
  since_selectable_ = since;
}

void ReorderStage::LoadFrames(Packet* const* pkts, size_t n) const {
  if (params_.scope != Scope::kPerPath) return;  // The key is not in the frame.
  n = std::min<size_t>(n, 2 * params_.k + 2);  // Enough for a held packet to be passed k times.
  for (size_t i = 0; i < n; ++i) pkts[i]->bytes.Prefetch();
  for (size_t i = 0; i < n; ++i) {
    pkts[i]->bytes.Resolve();
    pkts[i]->bytes.Prefetch();
  }
}

bool ReorderStage::PassesHeld(Packet* p, Time now, BurstOut& out, Packet** released) {
  auto it = held_.find(ScopeKey(*p));
  if (it == held_.end()) return false;
  if (Packet* due = CountPassed(it, now)) {
    *released = out.Adopt(std::move(*due));
    store_.Give(due);
  }
  return true;
}

void ReorderStage::Hold(Packet* p, Time now, BurstOut& out) {
  const Time deadline = now + params_.max_hold;
  const uint32_t key = ScopeKey(*p);
  held_.emplace(key, Held{Keep(std::move(*p)), 0, deadline});
  out.Release(p);
  AskWakeup(deadline, out);
}

void ReorderStage::OnWakeup(Time now, Emitter& out) {
  // The pending wake-up (wakeups_'s first) has come (else this one is spurious, and the pending one
  // stays as it is).
  const bool pending_came = !wakeups_.empty() && wakeups_.front().at <= now;
  if (pending_came) wakeups_.pop_front();
  // Release, in key order (deterministic), every held packet whose deadline has come.
  std::vector<uint32_t> due;
  Time earliest = Time::Infinite();  // Deadline of the first packet still held.
  for (auto& [key, h] : held_) {
    if (h.deadline <= now) due.push_back(key);
    else earliest = std::min(earliest, h.deadline);
  }
  std::sort(due.begin(), due.end());
  for (uint32_t key : due) {
    auto it = held_.find(key);
    ++flushed_;
    displacement_sum_ += it->second.passed;
    Packet* slot = it->second.packet;
    if (it->second.passed > 0) NoteFate(*slot, FateKind::kReordered, it->second.passed, now);
    held_.erase(it);
    Pass(std::move(*slot), Duration::Zero(), out);
    store_.Give(slot);
  }
  if (!pending_came) return;
  // Forget the wake-ups that would release nothing: before the first deadline still held, and
  // before any packet held from now on can be due (now + max_hold). Then ask for the next one.
  const Time first_new_deadline = now + params_.max_hold;
  while (!wakeups_.empty() && wakeups_.front().at < earliest && wakeups_.front().at < first_new_deadline)
    wakeups_.pop_front();
  if (!wakeups_.empty()) out.RequestReservedWakeup(wakeups_.front().at, wakeups_.front().ticket);
}

void ReorderStage::FillStats(StageStats& s) const {
  s.kind = params_.scope == Scope::kPerPath ? "reorder.displacement.per-path" : "reorder.displacement.across-paths";
  const uint64_t released = displaced_ + flushed_;
  s.lines.push_back({"displacement", "packets", double(params_.k), released ? double(displacement_sum_) / double(released) : 0.0});
  s.lines.push_back({"displaced", "packets", 0, double(displaced_), false});
  s.lines.push_back({"flushed at max_hold", "packets", 0, double(flushed_), false});
}

// ----- DuplicateStage --------------------------------------------------------------------------

DuplicateStage::DuplicateStage(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())),
      threshold_(sim::Rng::BernoulliThreshold(params.probability)) {}

void DuplicateStage::MakeCopy(Packet& original, Packet& copy, uint64_t copy_id, Time now) {
  copy.id = copy_id;
  copy.origin_id = original.id;
  copy.is_duplicate = true;
  NoteFate(original, FateKind::kDuplicated, 0, now);
  NoteFate(copy, FateKind::kDuplicated, 1, now);
}

void DuplicateStage::OnPacket(Packet&& p, Time now, Emitter& out) {
  Duration delay;
  if (p.is_duplicate || !Decide(&delay)) {  // Never duplicate a duplicate.
    Pass(std::move(p), Duration::Zero(), out);
    return;
  }
  Packet copy = p;  // Copies bytes: duplication is the one stage that must allocate.
  MakeCopy(p, copy, out.NewPacketId(), now);
  Pass(std::move(p), Duration::Zero(), out);
  Pass(std::move(copy), delay, out);
}

void DuplicateStage::OnBurst(Packet* const* in, size_t n, Time now, BurstOut& out) {
  // Decide's draws with the loop's state in registers (draw index, write position); the copy
  // itself is a call.
  uint64_t index = rng_.index();
  const uint64_t threshold = threshold_;
  size_t copies_in = 0;  // Duplicates arriving (never duplicated, not counted as originals).
  PassWriter pass(this, out, 2 * n);
  for (size_t i = 0; i < n; ++i) {
    Packet* p = in[i];
    pass.Pass(p);
    if (p->is_duplicate) {
      ++copies_in;
      continue;
    }
    if (!rng_.BernoulliBelowAt(index++, threshold)) continue;
    rng_.set_index(index);  // The copy's jitter is the next draw.
    if (Packet* copy = Duplicate(p, now, out)) pass.Pass(copy);  // Right behind its original.
    index = rng_.index();
  }
  pass.Done();
  rng_.set_index(index);
  originals_ += n - copies_in;
}

Packet* DuplicateStage::Duplicate(Packet* p, Time now, BurstOut& out) {
  ++duplicated_;
  Duration delay = params_.copy_delay;
  if (params_.copy_jitter > Duration::Zero())
    delay += Duration::Nanos(static_cast<int64_t>(rng_.UniformInt(0, static_cast<uint64_t>(params_.copy_jitter.nanos() - 1))));
  Packet* copy = out.Copy(*p);  // A pipeline packet: reuses a byte buffer.
  MakeCopy(*p, *copy, out.NewPacketId(), now);
  if (delay <= Duration::Zero()) return copy;
  Pass(copy, delay, out);  // Parked (counted there).
  return nullptr;
}

void DuplicateStage::FillStats(StageStats& s) const {
  s.kind = "duplicate";
  s.lines.push_back({"duplication", "%", params_.probability, originals_ ? double(duplicated_) / double(originals_) : 0.0});
}

// ----- CorruptStage ----------------------------------------------------------------------------

CorruptStage::CorruptStage(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())) {}

void CorruptStage::OnPacket(Packet&& p, Time now, Emitter& out) {
  const PacketInfo& i = p.Info();
  if (!i.meta || i.meta_end <= i.meta_offset || !rng_.Bernoulli(params_.probability)) {
    Pass(std::move(p), Duration::Zero(), out);
    return;
  }
  const uint64_t first_bit = uint64_t{i.meta_offset} * 8;
  const uint64_t bit = rng_.UniformInt(first_bit, uint64_t{i.meta_end} * 8 - 1);
  p.bytes[bit / 8] ^= static_cast<uint8_t>(0x80u >> (bit % 8));
  p.corrupted = true;
  p.InvalidateInfo();
  ++corrupted_;
  NoteFate(p, FateKind::kCorrupted, static_cast<uint32_t>(bit), now);
  Pass(std::move(p), Duration::Zero(), out);
}

void CorruptStage::FillStats(StageStats& s) const {
  s.kind = "corrupt.bitflip";
  s.lines.push_back({"corruption", "%", params_.probability, considered_ ? double(corrupted_) / double(considered_) : 0.0});
}

// ----- BlackholeStage --------------------------------------------------------------------------

BlackholeStage::BlackholeStage(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match), params_(params), rng_(run_seed, sim::ComponentId(this->name())) {}

double BlackholeStage::DropProbability(Time now) const {
  double prob = 0.0;
  for (const Failure& f : params_.schedule) {
    if (now >= f.fail_at && now < f.restore_at) return 1.0;
    if (f.recovery > Duration::Zero() && now >= f.restore_at && now < f.restore_at + f.recovery) {
      const double frac = static_cast<double>((now - f.restore_at).nanos()) / static_cast<double>(f.recovery.nanos());
      prob = std::max(prob, 1.0 - frac);
    }
  }
  return prob;
}

void BlackholeStage::OnPacket(Packet&& p, Time now, Emitter& out) {
  const double prob = DropProbability(now);
  if (prob >= 1.0) {
    ++in_window_;
    DropIt(std::move(p), now, out);
    return;
  }
  if (prob > 0.0) {
    ++in_recovery_;
    expected_recovery_drops_ += prob;
    if (rng_.Bernoulli(prob)) {
      ++recovery_drops_;
      DropIt(std::move(p), now, out);
      return;
    }
  }
  Pass(std::move(p), Duration::Zero(), out);
}

void BlackholeStage::FillStats(StageStats& s) const {
  s.kind = "blackhole";
  s.lines.push_back({"loss in failure windows", "%", in_window_ ? 1.0 : 0.0, in_window_ ? 1.0 : 0.0});
  s.lines.push_back({"recovery drops", "packets", expected_recovery_drops_, double(recovery_drops_)});
}

}  // namespace mroce::impairment
