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
// runs keep one event per packet). A batch continues as a burst (below).
//
// Burst path (PushBurst; the DPDK bridge): packets are the pipeline's own objects (NewPacket: kept
// and reused, so their byte buffers keep their capacity), passed between stages as pointers and
// parked as pointers. A burst goes through one stage at a time (Stage::ProcessBurst): each stage
// sees the same packets in the same order at the same time as if they had been pushed one by one,
// so every stage takes the same decisions and keeps the same statistics. What can differ from
// Push is the interleaving *between* stages: the drop observer and the output see a burst stage
// by stage, packets that two stages park for the same instant are handed on in the order the
// stages parked them (burst order) rather than packet by packet, and with two duplicating stages
// the copies' fresh ids are numbered stage by stage. (pipeline_test.cc BurstPathTest checks both:
// exactly the per-packet output for loss, duplicate, constant delay and reorder; the same
// decisions, statistics and output set for every stage kind.)
#ifndef MROCE_IMPAIRMENT_PIPELINE_H_
#define MROCE_IMPAIRMENT_PIPELINE_H_

#include <array>
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
  // Packets leaving the last stage a burst at a time (a packet the per-packet path outputs comes
  // alone). They stay the pipeline's: read or edit them, do not keep the pointers.
  using BurstOutput = std::function<void(Packet* const*, size_t, Time)>;

  Pipeline(sim::Simulator* sim, std::string name);
  ~Pipeline() override;

  // Adds a stage at its canonical position; returns it.
  Stage* Add(std::unique_ptr<Stage> stage);
  template <class S, class... Args>
  S* Emplace(Args&&... args) {
    return static_cast<S*>(Add(std::make_unique<S>(std::forward<Args>(args)...)));
  }
  void set_output(Output out) { output_ = std::move(out); }
  // Replaces set_output (for the burst path's user).
  void set_burst_output(BurstOutput out) { burst_output_ = std::move(out); }
  void set_drop_observer(DropObserver obs) { on_drop_ = std::move(obs); }
  // Source of ids for duplicates (defaults to a local counter starting at 1 << 62).
  void set_id_source(std::function<uint64_t()> source) { id_source_ = std::move(source); }
  // See the header comment. Set before the first packet.
  void set_batch_parking(bool on) { batch_parking_ = on; }
  // Off: the stages add no notes to packets' fate logs (Packet::notes stays empty; decisions and
  // statistics are the same). For a user that never reads them (the DPDK bridge). On by default.
  void set_fate_log(bool on);

  // Feeds a packet into the first stage at sim->Now().
  void Push(Packet&& p);
  // Burst path (see the header comment). A packet owned by the pipeline, reset (Packet::Renew
  // with these values), to fill in and hand to PushBurst (or ReleasePacket); the pointer stays
  // valid until then.
  Packet* NewPacket(uint64_t id = 0, Time ingress = Time::Zero(), Direction direction = Direction::kDutToPeer,
                    uint16_t src_host = 0, uint16_t dst_host = 0, void* opaque = nullptr) {
    Packet* p = Alloc();
    p->Renew(id, ingress, direction, src_host, dst_host, opaque);
    return p;
  }
  void ReleasePacket(Packet* p) { pool_.Give(p); }
  // The packet the NewPacket call `ahead` calls from now will most likely return (nullptr: none
  // known yet), for prefetching it.
  [[nodiscard]] const Packet* UpcomingPacket(size_t ahead) const {
    return pool_.Upcoming(ahead);
  }
  // Feeds pkts[0..n), all from NewPacket, into the first stage at sim->Now(); the pipeline owns
  // them again afterwards (the output and drop callbacks get them as Packet&&, then they are reused).
  void PushBurst(Packet* const* pkts, size_t n);
  [[nodiscard]] bool empty() const { return stages_.empty(); }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::vector<std::unique_ptr<Stage>>& stages() const { return stages_; }
  [[nodiscard]] std::vector<StageStats> Stats() const;
  // One line per stage (StageStats::ToString).
  [[nodiscard]] std::string StatsString() const;
  // Packets parked in delay slots (in flight inside the pipeline).
  [[nodiscard]] size_t parked() const { return parked_count_; }
  // Packet objects the pipeline has made for NewPacket/parking (a high-water mark, not a leak).
  [[nodiscard]] size_t packets_made() const { return pool_.made(); }

  void OnEvent(Time now, uint64_t arg) override;

 private:
  friend class BurstOut;
  class StageEmitter;
  void Deliver(size_t stage_index, Packet&& p, Time now);
  void Park(size_t next_stage, Packet&& p, Time at);
  void ParkHandle(size_t next_stage, Packet* p, Time at);
  Packet* Alloc() { return pool_.Take(); }
  // Parks pkts[0..n) for the same time and next stage (one group with batched parking).
  void ParkHandles(size_t next_stage, Packet* const* pkts, size_t n, Time at);
  // The input buffer of a burst at the current nesting depth; RunBurst runs it.
  PacketList& BurstInput();
  void RunBurst(size_t first_stage, Time now);
  void DropHandle(size_t stage_index, Packet* p, Time now);
  // What both emitters (per packet and per burst) do for a stage.
  void NotifyDrop(size_t stage_index, Packet&& p, Time now) {
    if (on_drop_) on_drop_(std::move(p), *stages_[stage_index], now);
  }
  void ScheduleWakeup(size_t stage_index, Time at);
  // `ticket` from sim_->ReserveId().
  void ScheduleReservedWakeup(size_t stage_index, Time at, uint64_t ticket);
  uint64_t NextPacketId() { return id_source_ ? id_source_() : local_ids_++; }

  sim::Simulator* sim_;
  std::string name_;
  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<std::unique_ptr<StageEmitter>> emitters_;
  // Parked packets: one group per simulator event (one packet, or a batch with batched parking);
  // groups and their vectors are reused.
  struct Parked {
    PacketList packets;  // From pool_.
    uint32_t next_stage = 0;
  };
  std::vector<Parked> parked_;
  std::vector<uint32_t> free_parked_;
  size_t parked_count_ = 0;
  bool batch_parking_ = false;
  bool fate_log_ = true;
  // Batched parking: the group last scheduled (event id 0: none open).
  struct OpenBatch {
    sim::EventId event = 0;
    Time at;
    uint32_t next_stage = 0;
    uint32_t group = 0;
  } open_batch_;
  // Packet objects with stable addresses (parked packets and the burst path's packets).
  PacketPool pool_;
  // Burst path: an input and an output buffer per nesting depth (an output callback may push again).
  std::vector<std::unique_ptr<std::array<PacketList, 2>>> burst_bufs_;
  size_t burst_depth_ = 0;
  Output output_;
  BurstOutput burst_output_;
  DropObserver on_drop_;
  std::function<uint64_t()> id_source_;
  uint64_t local_ids_ = uint64_t{1} << 62;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_PIPELINE_H_
