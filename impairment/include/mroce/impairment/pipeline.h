// Pipeline: a chain of impairment stages in canonical order, driven by the simulator.
//
// Stages are kept sorted by Position (equal positions keep insertion order):
//   blackhole -> targeted drop -> loss -> corrupt -> duplicate -> rate limit (+ECN) -> delay -> reorder
// A packet emitted with zero delay goes to the next stage at once; a delayed packet is parked in a
// reusable slot and handed on by a simulator event. Packets leaving the last stage go to the
// output callback; dropped packets go to the drop callback.
//
// Batched parking (opt-in, set_batch_parking): a packet parked for the same time and next stage
// as the packet parked just before it, with no other simulator event scheduled in between, joins
// that packet's event instead of getting its own. Those events would have had consecutive
// (time, sequence) keys, so they would have run back to back in the same order: every stage sees
// the same packets in the same order at the same times (same decisions, same statistics). What
// differs is only the simulator's bookkeeping: fewer events (events_run, pending), and a
// RunUntil predicate is not checked between the packets of one batch. Used by the DPDK bridge,
// where a received burst is parked by the delay stage at one time; off by default (simulated
// runs keep one event per packet).
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
  // See the header comment. Set before the first packet.
  void set_batch_parking(bool on) { batch_parking_ = on; }

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
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  struct Slot {
    Packet packet;
    uint32_t next_stage = 0;
    uint32_t next_in_batch = kNoSlot;  // Batched parking: the next slot delivered by the same event.
  };
  std::vector<Slot> slots_;
  bool batch_parking_ = false;
  // Batched parking: the batch last scheduled (event id 0: none open).
  struct OpenBatch {
    sim::EventId event = 0;
    Time at;
    uint32_t next_stage = 0;
    uint32_t last_slot = kNoSlot;
  } open_batch_;
  std::vector<uint32_t> free_slots_;
  Output output_;
  DropObserver on_drop_;
  std::function<uint64_t()> id_source_;
  uint64_t local_ids_ = uint64_t{1} << 62;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_PIPELINE_H_
