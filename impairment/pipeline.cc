#include "mroce/impairment/pipeline.h"

#include <algorithm>

namespace mroce::impairment {

namespace {
// Event argument layout: bit 63 set = stage wakeup (low bits: stage index); else slot index.
constexpr uint64_t kWakeupBit = uint64_t{1} << 63;
}  // namespace

class Pipeline::StageEmitter : public Emitter {
 public:
  StageEmitter(Pipeline* pipeline, size_t index) : pipeline_(pipeline), index_(index) {}
  void Emit(Packet&& p, Duration delay) override {
    if (delay <= Duration::Zero()) pipeline_->Deliver(index_ + 1, std::move(p), pipeline_->sim_->Now());
    else pipeline_->Park(index_ + 1, std::move(p), pipeline_->sim_->Now() + delay);
  }
  void Drop(Packet&& p) override { pipeline_->NotifyDrop(index_, std::move(p), pipeline_->sim_->Now()); }
  void RequestWakeup(Time at) override { pipeline_->ScheduleWakeup(index_, at); }
  uint64_t ReserveWakeup() override { return pipeline_->sim_->ReserveId(); }
  void RequestReservedWakeup(Time at, uint64_t ticket) override { pipeline_->ScheduleReservedWakeup(index_, at, ticket); }
  uint64_t NewPacketId() override { return pipeline_->NextPacketId(); }

 private:
  Pipeline* pipeline_;
  size_t index_;
};

Pipeline::Pipeline(sim::Simulator* sim, std::string name) : sim_(sim), name_(std::move(name)) {}
Pipeline::~Pipeline() = default;

void Pipeline::ScheduleWakeup(size_t stage_index, Time at) {
  sim_->Schedule(std::max(at, sim_->Now()), this, kWakeupBit | stage_index);
}

void Pipeline::ScheduleReservedWakeup(size_t stage_index, Time at, uint64_t ticket) {
  sim_->ScheduleReserved(at, ticket, this, kWakeupBit | stage_index);
}

Stage* Pipeline::Add(std::unique_ptr<Stage> stage) {
  Stage* raw = stage.get();
  auto it = std::upper_bound(stages_.begin(), stages_.end(), raw->position(),
                             [](Position pos, const std::unique_ptr<Stage>& s) { return pos < s->position(); });
  raw->fate_log_ = fate_log_;
  stages_.insert(it, std::move(stage));
  emitters_.clear();
  for (size_t i = 0; i < stages_.size(); ++i) emitters_.push_back(std::make_unique<StageEmitter>(this, i));
  return raw;
}

void Pipeline::set_fate_log(bool on) {
  fate_log_ = on;
  for (auto& s : stages_) s->fate_log_ = on;
}

void Pipeline::Push(Packet&& p) { Deliver(0, std::move(p), sim_->Now()); }

void Pipeline::Deliver(size_t stage_index, Packet&& p, Time now) {
  if (stage_index >= stages_.size()) {
    if (burst_output_) {
      Packet* one = &p;
      burst_output_(&one, 1, now);
    } else if (output_) {
      output_(std::move(p), now);
    }
    return;
  }
  stages_[stage_index]->Process(std::move(p), now, *emitters_[stage_index]);
}

void Pipeline::Park(size_t next_stage, Packet&& p, Time at) {
  Packet* h = Alloc();
  *h = std::move(p);
  ParkHandle(next_stage, h, at);
}

void Pipeline::ParkHandle(size_t next_stage, Packet* p, Time at) {
  ++parked_count_;
  if (batch_parking_ && open_batch_.event != 0 && open_batch_.event == sim_->last_scheduled() &&
      open_batch_.at == at && open_batch_.next_stage == next_stage) {
    // Its own event would directly follow the batch's last one at the same time: ride along.
    parked_[open_batch_.group].packets.push_back(p);
    return;
  }
  uint32_t group;
  if (!free_parked_.empty()) {
    group = free_parked_.back();
    free_parked_.pop_back();
  } else {
    group = static_cast<uint32_t>(parked_.size());
    parked_.emplace_back();
  }
  Parked& g = parked_[group];
  g.packets.push_back(p);
  g.next_stage = static_cast<uint32_t>(next_stage);
  const sim::EventId id = sim_->Schedule(at, this, group);
  if (batch_parking_) open_batch_ = OpenBatch{id, at, static_cast<uint32_t>(next_stage), group};
}

void Pipeline::ParkHandles(size_t next_stage, Packet* const* pkts, size_t n, Time at) {
  if (n == 0) return;
  ParkHandle(next_stage, pkts[0], at);
  if (!batch_parking_) {
    for (size_t i = 1; i < n; ++i) ParkHandle(next_stage, pkts[i], at);
    return;
  }
  // The first one opened (or joined) the batch the rest join.
  parked_[open_batch_.group].packets.insert(parked_[open_batch_.group].packets.end(), pkts + 1, pkts + n);
  parked_count_ += n - 1;
}

void Pipeline::OnEvent(Time now, uint64_t arg) {
  if (arg & kWakeupBit) {
    const size_t index = static_cast<size_t>(arg & ~kWakeupBit);
    stages_[index]->OnWakeup(now, *emitters_[index]);
    return;
  }
  // A batch that started running takes no more packets (conservatively: any running batch closes
  // the open one; a later park opens a new batch).
  open_batch_.event = 0;
  const auto group = static_cast<uint32_t>(arg);
  Parked& g = parked_[group];
  const size_t next = g.next_stage;
  parked_count_ -= g.packets.size();
  if (!batch_parking_) {
    Packet* p = g.packets.front();
    g.packets.clear();
    free_parked_.push_back(group);
    Deliver(next, std::move(*p), now);  // A stage that keeps it moves it out.
    pool_.Give(p);
    return;
  }
  // The batch goes on as one burst (its packets share the time and the next stage). The group
  // gets the burst buffer's old vector (capacity kept both ways).
  PacketList& in = BurstInput();
  in.swap(g.packets);
  free_parked_.push_back(group);
  RunBurst(next, now);
}

void Pipeline::PushBurst(Packet* const* pkts, size_t n) {
  PacketList& in = BurstInput();
  in.assign(pkts, pkts + n);
  RunBurst(0, sim_->Now());
}

PacketList& Pipeline::BurstInput() {
  if (burst_depth_ == burst_bufs_.size()) {
    burst_bufs_.push_back(std::make_unique<std::array<PacketList, 2>>());
    for (auto& v : *burst_bufs_.back()) v.reserve(512);
  }
  PacketList& in = (*burst_bufs_[burst_depth_])[0];
  in.clear();
  return in;
}

void Pipeline::RunBurst(size_t first_stage, Time now) {
  auto& bufs = *burst_bufs_[burst_depth_++];
  PacketList* cur = &bufs[0];
  PacketList* next = &bufs[1];
  for (size_t i = first_stage; i < stages_.size() && !cur->empty(); ++i) {
    next->clear();
    BurstOut out(this, i, next);
    stages_[i]->ProcessBurst(cur->data(), cur->size(), now, out);
    std::swap(cur, next);
  }
  if (burst_output_) {
    if (!cur->empty()) burst_output_(cur->data(), cur->size(), now);
  } else if (output_) {
    for (Packet* p : *cur) output_(std::move(*p), now);
  }
  pool_.Give(cur->data(), cur->size());
  cur->clear();
  --burst_depth_;
}

void Pipeline::DropHandle(size_t stage_index, Packet* p, Time now) {
  NotifyDrop(stage_index, std::move(*p), now);
  pool_.Give(p);
}

// ----- BurstOut -------------------------------------------------------------------------------

// The Emitter a per-packet stage sees inside a burst (BurstOut::RunOnPacket).
class BurstOut::Adapter final : public Emitter {
 public:
  Adapter(BurstOut* out, Packet* current) : out_(out), current_(current) {}
  void Emit(Packet&& q, Duration delay) override {
    Packet* h;
    if (&q == current_) {
      h = current_;
      current_used_ = true;
    } else {  // From the stage's own storage (a held packet, a copy).
      h = out_->Adopt(std::move(q));
    }
    if (delay > Duration::Zero()) out_->Park(h, delay);
    else out_->Pass(h);
  }
  void Drop(Packet&& q) override {
    Pipeline* pl = out_->pipeline_;
    if (&q == current_) {
      current_used_ = true;
      out_->Drop(current_);
    } else {  // From the stage's own storage.
      pl->NotifyDrop(out_->index_, std::move(q), pl->sim_->Now());
    }
  }
  void RequestWakeup(Time at) override { out_->RequestWakeup(at); }
  uint64_t ReserveWakeup() override { return out_->ReserveWakeup(); }
  void RequestReservedWakeup(Time at, uint64_t ticket) override { out_->RequestReservedWakeup(at, ticket); }
  uint64_t NewPacketId() override { return out_->NewPacketId(); }
  [[nodiscard]] bool current_used() const { return current_used_; }

 private:
  BurstOut* out_;
  Packet* current_;
  bool current_used_ = false;
};

void BurstOut::Park(Packet* p, Duration delay) {
  pipeline_->ParkHandle(index_ + 1, p, pipeline_->sim_->Now() + delay);
}

void BurstOut::ParkAll(Packet* const* pkts, size_t n, Duration delay) {
  pipeline_->ParkHandles(index_ + 1, pkts, n, pipeline_->sim_->Now() + delay);
}

void BurstOut::Drop(Packet* p) { pipeline_->DropHandle(index_, p, pipeline_->sim_->Now()); }

Packet* BurstOut::Copy(const Packet& p) {
  Packet* h = pipeline_->Alloc();
  *h = p;
  return h;
}

Packet* BurstOut::Adopt(Packet&& p) {
  Packet* h = pipeline_->Alloc();
  *h = std::move(p);
  return h;
}

void BurstOut::Release(Packet* p) { pipeline_->ReleasePacket(p); }

uint64_t BurstOut::NewPacketId() { return pipeline_->NextPacketId(); }

void BurstOut::RequestWakeup(Time at) { pipeline_->ScheduleWakeup(index_, at); }

uint64_t BurstOut::ReserveWakeup() { return pipeline_->sim_->ReserveId(); }

void BurstOut::RequestReservedWakeup(Time at, uint64_t ticket) {
  pipeline_->ScheduleReservedWakeup(index_, at, ticket);
}

void BurstOut::RunOnPacket(Stage& stage, Packet* p, Time now) {
  Adapter adapter(this, p);
  stage.OnPacket(std::move(*p), now, adapter);
  if (!adapter.current_used()) Release(p);  // The stage kept (moved out) the packet.
}

std::vector<StageStats> Pipeline::Stats() const {
  std::vector<StageStats> out;
  for (const auto& s : stages_) out.push_back(s->Stats());
  return out;
}

std::string Pipeline::StatsString() const {
  std::string s;
  for (const auto& st : Stats()) s += st.ToString() + "\n";
  return s;
}

}  // namespace mroce::impairment
