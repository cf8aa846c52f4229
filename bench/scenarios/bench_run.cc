// BenchRun (see bench_run.h).
#include "mroce/bench/bench_run.h"

#include <chrono>
#include <ostream>

#include "mroce/dut/dut_spec.h"

namespace mroce::bench {
namespace {

// Forwards everything to the device but its telemetry counters (StateBytes still answers).
class QuietDut final : public dut::Dut {
 public:
  explicit QuietDut(std::unique_ptr<dut::Dut> d) : d_(std::move(d)) {}
  std::string Identity() const override { return d_->Identity(); }
  dut::Capabilities Caps() const override { return d_->Caps(); }
  dut::Status Start(const dut::HostConfig& c, dut::FrameSink* s) override { return d_->Start(c, s); }
  dut::Result<dut::Buffer> AllocBuffer(uint64_t len, uint32_t access) override { return d_->AllocBuffer(len, access); }
  dut::Status WriteBuffer(uint32_t id, uint64_t off, std::span<const uint8_t> b) override {
    return d_->WriteBuffer(id, off, b);
  }
  dut::Result<std::vector<uint8_t>> ReadBuffer(uint32_t id, uint64_t off, uint64_t len) override {
    return d_->ReadBuffer(id, off, len);
  }
  dut::Result<dut::OobInfo> PrepareConnection(uint32_t index, dut::TimeNs now) override {
    return d_->PrepareConnection(index, now);
  }
  dut::Result<dut::ConnHandle> Connect(const dut::PeerInfo& p, dut::TimeNs now) override { return d_->Connect(p, now); }
  dut::Status Disconnect(dut::ConnHandle c, dut::TimeNs now) override { return d_->Disconnect(c, now); }
  std::vector<dut::ConnEvent> PollEvents() override { return d_->PollEvents(); }
  dut::Status PostRecv(const dut::RecvRequest& wr) override { return d_->PostRecv(wr); }
  dut::Status PostSend(const dut::SendRequest& wr, dut::TimeNs now) override { return d_->PostSend(wr, now); }
  dut::Status PostWrite(const dut::WriteRequest& wr, dut::TimeNs now) override { return d_->PostWrite(wr, now); }
  dut::Status PostRead(const dut::ReadRequest& wr, dut::TimeNs now) override { return d_->PostRead(wr, now); }
  std::vector<dut::Completion> PollCompletions() override { return d_->PollCompletions(); }
  void OnFrame(std::span<const uint8_t> f, uint8_t plane, dut::TimeNs now) override { d_->OnFrame(f, plane, now); }
  dut::TimeNs NextDeadline() const override { return d_->NextDeadline(); }
  void OnTimer(dut::TimeNs now) override { d_->OnTimer(now); }
  std::optional<uint64_t> StateBytes() override { return d_->StateBytes(); }

 private:
  std::unique_ptr<dut::Dut> d_;
};

}  // namespace

harness::Case MakeCase(const std::string& id, const harness::Topology& t, const harness::Workload& w,
                       double timeout_rtts) {
  harness::Case c;
  c.id = id;
  c.title = id;
  c.topology = t;
  c.workload = w;
  c.timeouts.total = harness::Duration::Rtts(timeout_rtts);
  c.timeouts.quiesce = harness::Duration::Rtts(2);
  return c;
}

harness::WorkloadOp Writes(int64_t size, int64_t count) {
  harness::WorkloadOp op;
  op.kind = harness::OpKind::kWrite;
  op.size_bytes = size;
  op.count = count;
  return op;
}

Run Simulate(const harness::Case& c, const Protocol& p, const BenchOptions& o, int telemetry_interval_rtts) {
  session::SessionOptions so;
  so.telemetry_interval_rtts = telemetry_interval_rtts;
  so.seed = o.seed;
  so.dut_spec = p.dut;
  so.write_evidence = false;
  const std::string spec_text = p.dut;
  so.make_dut = [spec_text]() -> dut::Result<std::unique_ptr<dut::Dut>> {
    auto spec = dut::DutSpec::Parse(spec_text);
    if (!spec.ok()) return spec.error();
    auto d = dut::MakeDut(spec.value());
    if (!d.ok()) return d.error();
    return std::unique_ptr<dut::Dut>(std::make_unique<QuietDut>(std::move(d).value()));
  };
  const auto t0 = std::chrono::steady_clock::now();
  Run r;
  r.rec = session::Simulate(c, so);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rec.trace.Analyze();
  if (o.progress) {
    *o.progress << "  " << c.id << " [" << p.name << "]: " << r.wall_seconds << " s host, "
                << r.rec.fabric.sim_events << " events"
                << (r.rec.harness_error.empty() ? "" : ", setup error: " + r.rec.harness_error)
                << (r.rec.dut_error.empty() ? "" : ", DUT error: " + r.rec.dut_error) << "\n";
    o.progress->flush();
  }
  return r;
}

}  // namespace mroce::bench
