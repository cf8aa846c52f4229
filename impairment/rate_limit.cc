#include "mroce/impairment/rate_limit.h"

namespace mroce::impairment {

RateLimitStage::RateLimitStage(std::string name, const Params& params, uint64_t run_seed)
    : Stage(std::move(name), params.match),
      params_(params),
      marker_(params.ecn, sim::Rng(run_seed, sim::ComponentId(this->name()))) {}

void RateLimitStage::OnPacket(Packet&& p, Time now, Emitter& out) {
  const auto bytes = static_cast<sim::ByteCount>(p.bytes.size());
  if (params_.capacity_bytes > 0 && queue_bytes_ + bytes > params_.capacity_bytes) {
    ++overflow_drops_;
    DropIt(std::move(p), now, out);
    return;
  }
  if (first_arrival_.IsInfinite()) first_arrival_ = now;
  if (params_.ecn.where == EcnConfig::Where::kEnqueue && marker_.Apply(p, queue_bytes_, fate_name(), now))
    ++marked_;
  queue_bytes_ += bytes;
  max_queue_bytes_ = std::max(max_queue_bytes_, queue_bytes_);
  queue_.push_back(Entry{std::move(p), now});
  if (!on_wire_) StartNext(now, out);
}

void RateLimitStage::StartNext(Time now, Emitter& out) {
  if (queue_.empty()) return;
  on_wire_.emplace(std::move(queue_.front()));
  queue_.pop_front();
  Packet& p = on_wire_->packet;
  queue_bytes_ -= static_cast<sim::ByteCount>(p.bytes.size());
  if (params_.ecn.where == EcnConfig::Where::kDequeue && marker_.Apply(p, queue_bytes_, fate_name(), now))
    ++marked_;
  const sim::ByteCount wire = static_cast<sim::ByteCount>(p.bytes.size()) + params_.overhead_bytes;
  wire_bytes_out_ += wire;
  wire_done_ = now + params_.rate.TransferTime(wire);
  out.RequestWakeup(wire_done_);
}

void RateLimitStage::OnWakeup(Time now, Emitter& out) {
  if (!on_wire_ || now < wire_done_) return;
  Entry e = std::move(*on_wire_);
  on_wire_.reset();
  const Duration waited = now - e.enqueued;
  sum_wait_ns_ += static_cast<double>(waited.nanos());
  last_departure_ = now;
  NoteFate(e.packet, FateKind::kRateLimited, static_cast<uint32_t>(std::min<int64_t>(waited.nanos(), 0xFFFFFFFF)), now);
  Pass(std::move(e.packet), Duration::Zero(), out);
  StartNext(now, out);
}

void RateLimitStage::FillStats(StageStats& s) const {
  s.kind = "rate-limit";
  const double active_s = first_arrival_.IsInfinite() ? 0.0 : (last_departure_ - first_arrival_).seconds();
  s.lines.push_back({"rate", "b/s", double(params_.rate.bits_per_second()),
                     active_s > 0 ? double(wire_bytes_out_) * 8.0 / active_s : 0.0});
  s.lines.push_back({"max queue", "B", double(params_.capacity_bytes), double(max_queue_bytes_), params_.capacity_bytes > 0});
  s.lines.push_back({"overflow drops", "packets", 0, double(overflow_drops_), false});
  s.lines.push_back({"mean sojourn", "ns", 0, packets_out_ ? sum_wait_ns_ / double(packets_out_) : 0.0, false});
  if (params_.ecn.mode != EcnConfig::Mode::kOff)
    s.lines.push_back({"CE marks", "packets", marker_.expected_marks, double(marker_.marks)});
}

}  // namespace mroce::impairment
