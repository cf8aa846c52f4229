// Pipeline: a chain of impairment stages in canonical order, driven by the simulator.
//
// Stages are kept sorted by Position (equal positions keep insertion order):
//   blackhole -> targeted drop -> loss -> corrupt -> duplicate -> rate limit (+ECN) -> delay -> reorder
// A packet emitted with zero delay goes to the next stage at once; a delayed packet is parked in a
// reusable slot and handed on by a simulator event. Packets leaving the last stage go to the
// output callback; dropped packets go to the drop callback.
#ifndef MROCE_IMPAIRMENT_PIPELINE_H_
#define MROCE_IMPAIRMENT_PIPELINE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mroce/impairment/stage.h"
#include "mroce/sim/simulator.h"

namespace mroce::impairment {

class Pipeline : public sim::EventHandler {
 public:
  using Output = std::function<void(Packet&&, Time)>;
  using DropObserver = std::function<void(Packet&&, const Stage&, Time)>;

  Pipeline(sim::Simulator* sim, std::string name);
  ~Pipeline() override;

  // Adds a stage at its canonical position; returns it.
  Stage* Add(std::unique_ptr<Stage> stage);
  template <class S, class... Args>
  S* Emplace(Args&&... args) {
    return static_cast<S*>(Add(std::make_unique<S>(std::forward<Args>(args)...)));
  }
  void set_output(Output out) { output_ = std::move(out); }
  void set_drop_observer(DropObserver obs) { on_drop_ = std::move(obs); }
  // Source of ids for duplicates (defaults to a local counter starting at 1 << 62).
  void set_id_source(std::function<uint64_t()> source) { id_source_ = std::move(source); }

  // Feeds a packet into the first stage at sim->Now().
  void Push(Packet&& p);
  [[nodiscard]] bool empty() const { return stages_.empty(); }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::vector<std::unique_ptr<Stage>>& stages() const { return stages_; }
  [[nodiscard]] std::vector<StageStats> Stats() const;
  // One line per stage (StageStats::ToString).
  [[nodiscard]] std::string StatsString() const;
  // Packets parked in delay slots (in flight inside the pipeline).
  [[nodiscard]] size_t parked() const { return slots_.size() - free_slots_.size(); }

  void OnEvent(Time now, uint64_t arg) override;

 private:
  class StageEmitter;
  void Deliver(size_t stage_index, Packet&& p, Time now);
  void Park(size_t next_stage, Packet&& p, Time at);

  sim::Simulator* sim_;
  std::string name_;
  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<std::unique_ptr<StageEmitter>> emitters_;
  struct Slot {
    Packet packet;
    uint32_t next_stage = 0;
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  Output output_;
  DropObserver on_drop_;
  std::function<uint64_t()> id_source_;
  uint64_t local_ids_ = uint64_t{1} << 62;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_PIPELINE_H_
