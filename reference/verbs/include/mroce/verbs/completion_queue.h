// CompletionQueue<C>: work completions handed to the application, bounded, in delivery order. One
// implementation for both endpoints; each endpoint defines its own completion record C (the
// MetaRoCE reference's carries connection, stream and MSN; the RoCEv2 baseline's the QP number).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace mroce::verbs {

template <class C>
class CompletionQueue {
 public:
  explicit CompletionQueue(size_t capacity = 65536) : capacity_(capacity) {}

  // Returns false (and counts an overflow) when full: the completion is lost, as on a verbs CQ
  // overrun, which is reported rather than grown without bound.
  bool Push(const C& c) {
    if (q_.size() >= capacity_) {
      ++overflows_;
      return false;
    }
    q_.push_back(c);
    return true;
  }
  // Up to `max` completions, oldest first.
  std::vector<C> Poll(size_t max = SIZE_MAX) {
    std::vector<C> out;
    while (!q_.empty() && out.size() < max) {
      out.push_back(q_.front());
      q_.pop_front();
    }
    return out;
  }
  [[nodiscard]] size_t size() const { return q_.size(); }
  [[nodiscard]] size_t capacity() const { return capacity_; }
  [[nodiscard]] uint64_t overflows() const { return overflows_; }
  // Bytes of queued completions (the queue object itself is counted by its owner).
  [[nodiscard]] size_t StateBytes() const { return q_.size() * sizeof(C); }

 private:
  size_t capacity_;
  std::deque<C> q_;
  uint64_t overflows_ = 0;
};

}  // namespace mroce::verbs
