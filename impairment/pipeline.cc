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
  void Drop(Packet&& p) override {
    if (pipeline_->on_drop_) pipeline_->on_drop_(std::move(p), *pipeline_->stages_[index_], pipeline_->sim_->Now());
  }
  void RequestWakeup(Time at) override {
    pipeline_->sim_->Schedule(std::max(at, pipeline_->sim_->Now()), pipeline_, kWakeupBit | index_);
  }
  uint64_t NewPacketId() override {
    return pipeline_->id_source_ ? pipeline_->id_source_() : pipeline_->local_ids_++;
  }

 private:
  Pipeline* pipeline_;
  size_t index_;
};

Pipeline::Pipeline(sim::Simulator* sim, std::string name) : sim_(sim), name_(std::move(name)) {}
Pipeline::~Pipeline() = default;

Stage* Pipeline::Add(std::unique_ptr<Stage> stage) {
  Stage* raw = stage.get();
  auto it = std::upper_bound(stages_.begin(), stages_.end(), raw->position(),
                             [](Position pos, const std::unique_ptr<Stage>& s) { return pos < s->position(); });
  stages_.insert(it, std::move(stage));
  emitters_.clear();
  for (size_t i = 0; i < stages_.size(); ++i) emitters_.push_back(std::make_unique<StageEmitter>(this, i));
  return raw;
}

void Pipeline::Push(Packet&& p) { Deliver(0, std::move(p), sim_->Now()); }

void Pipeline::Deliver(size_t stage_index, Packet&& p, Time now) {
  if (stage_index >= stages_.size()) {
    if (output_) output_(std::move(p), now);
    return;
  }
  stages_[stage_index]->Process(std::move(p), now, *emitters_[stage_index]);
}

void Pipeline::Park(size_t next_stage, Packet&& p, Time at) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.packet = std::move(p);
  s.next_stage = static_cast<uint32_t>(next_stage);
  s.next_in_batch = kNoSlot;
  if (batch_parking_ && open_batch_.event != 0 && open_batch_.event == sim_->last_scheduled() &&
      open_batch_.at == at && open_batch_.next_stage == next_stage) {
    // Its own event would directly follow the batch's last one at the same time: ride along.
    slots_[open_batch_.last_slot].next_in_batch = slot;
    open_batch_.last_slot = slot;
    return;
  }
  const sim::EventId id = sim_->Schedule(at, this, slot);
  if (batch_parking_) open_batch_ = OpenBatch{id, at, static_cast<uint32_t>(next_stage), slot};
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
  auto slot = static_cast<uint32_t>(arg);
  while (slot != kNoSlot) {
    Slot& s = slots_[slot];
    Packet p = std::move(s.packet);
    const size_t next = s.next_stage;
    const uint32_t following = s.next_in_batch;
    free_slots_.push_back(slot);
    Deliver(next, std::move(p), now);  // May park (and grow slots_): `s` is not used after this.
    slot = following;
  }
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
