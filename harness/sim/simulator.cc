#include "mroce/sim/simulator.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace mroce::sim {

class Simulator::FunctionHandler : public EventHandler {
 public:
  explicit FunctionHandler(Simulator* sim) : sim_(sim) {}
  void OnEvent(Time now, uint64_t slot) override {
    // Move out first: the callback may schedule more functions and reuse the slot storage.
    std::function<void()> fn = std::move(sim_->fn_slots_[slot]);
    sim_->fn_slots_[slot] = nullptr;
    sim_->free_fn_slots_.push_back(static_cast<uint32_t>(slot));
    fn();
  }

 private:
  Simulator* sim_;
};

Simulator::Simulator() : fn_handler_(new FunctionHandler(this)) { heap_.reserve(1024); }
Simulator::~Simulator() { delete fn_handler_; }

void Simulator::Push(const Entry& e) {
  // Sift-up on a 4-ary heap: half the depth of a binary heap, and the 4 children of a node share
  // two cache lines, which makes Pop (the hot operation) markedly faster on large queues.
  size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    size_t parent = (i - 1) / 4;
    if (!Later(heap_[parent], e)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

Simulator::Entry Simulator::Pop() {
  Entry top = heap_.front();
  Entry last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n > 0) {
    size_t i = 0;
    while (true) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t c = first;
      const size_t last_child = std::min(first + 4, n);
      for (size_t j = first + 1; j < last_child; ++j)
        if (Later(heap_[c], heap_[j])) c = j;
      if (!Later(last, heap_[c])) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = last;
  }
  return top;
}

EventId Simulator::Schedule(Time at, EventHandler* handler, uint64_t arg) {
  // Always checked (also with NDEBUG): an event in the past would make the clock go back.
  if (at < now_ || handler == nullptr) [[unlikely]] {
    std::fprintf(stderr, "mroce::sim::Simulator: event scheduled in the past (at %lld ns, now %lld ns)\n",
                 static_cast<long long>(at.nanos()), static_cast<long long>(now_.nanos()));
    std::abort();
  }
  const uint64_t seq = next_seq_++;
  Push(Entry{at.nanos(), seq, handler, arg});
  return seq;
}

void Simulator::ScheduleReserved(Time at, EventId id, EventHandler* handler, uint64_t arg) {
  // Always checked: an id never reserved, or a place in the order already passed, would run the
  // event out of order.
  const bool passed = at < now_ || (at == now_ && events_run_ > 0 && last_run_time_ == now_ && id <= last_run_seq_);
  if (passed || id == 0 || id >= next_seq_ || handler == nullptr) [[unlikely]] {
    std::fprintf(stderr, "mroce::sim::Simulator: reserved event %llu scheduled out of order (at %lld ns, now %lld ns)\n",
                 static_cast<unsigned long long>(id), static_cast<long long>(at.nanos()),
                 static_cast<long long>(now_.nanos()));
    std::abort();
  }
  Push(Entry{at.nanos(), id, handler, arg});
}

EventId Simulator::Schedule(Time at, std::function<void()> fn) {
  uint32_t slot;
  if (!free_fn_slots_.empty()) {
    slot = free_fn_slots_.back();
    free_fn_slots_.pop_back();
    fn_slots_[slot] = std::move(fn);
  } else {
    slot = static_cast<uint32_t>(fn_slots_.size());
    fn_slots_.push_back(std::move(fn));
  }
  return Schedule(at, fn_handler_, slot);
}

void Simulator::Cancel(EventId id) {
  if (id == 0 || id >= next_seq_) return;
  auto it = std::lower_bound(cancelled_.begin(), cancelled_.end(), id);
  if (it == cancelled_.end() || *it != id) cancelled_.insert(it, id);
}

bool Simulator::Step(Time deadline) {
  while (!heap_.empty()) {
    if (heap_.front().time_ns > deadline.nanos()) return false;
    Entry e = Pop();
    if (!cancelled_.empty()) {
      auto it = std::lower_bound(cancelled_.begin(), cancelled_.end(), e.seq);
      if (it != cancelled_.end() && *it == e.seq) {
        cancelled_.erase(it);
        if (e.handler == fn_handler_) {  // Release the function slot of a cancelled callback.
          fn_slots_[e.arg] = nullptr;
          free_fn_slots_.push_back(static_cast<uint32_t>(e.arg));
        }
        continue;
      }
    }
    assert(e.time_ns >= now_.nanos() && "clock went back");
    now_ = Time::FromNanos(e.time_ns);
    last_run_time_ = now_;
    last_run_seq_ = e.seq;
    ++events_run_;
    e.handler->OnEvent(now_, e.arg);
    return true;
  }
  return false;
}

bool Simulator::RunUntil(const std::function<bool()>& done, Time deadline) {
  while (true) {
    if (done()) return true;
    if (!Step(deadline)) break;
  }
  if (done()) return true;
  if (!deadline.IsInfinite() && deadline > now_) now_ = deadline;
  return false;
}

void Simulator::RunUntilTime(Time t) {
  assert(t >= now_ && "RunUntilTime into the past");
  while (Step(t)) {
  }
  if (!t.IsInfinite() && t > now_) now_ = t;
}

}  // namespace mroce::sim
