// Testbed: the simulated world one case runs in, whatever its style: the simulator (the only
// clock), the fabric built from the case's topology, the recorder that writes every frame event
// into the run's trace, the DUT-side tap (pcap + JSON-lines evidence), the case's impairment stages
// at each plane's ingress, and the devices attached to hosts through DutPorts.
//
//   host 0 = DUT ──NIC port per plane── Clos plane(s) ── hosts 1..N (reference peers or the script)
//
// Every pair of hosts crosses the spines (one host per leaf), so ECMP and planes matter; each link
// hop takes rtt/8 (four links each way). Seeds of the fabric and of every device derive from the
// run seed (sim::seeds), so the same seed gives the same bytes in both styles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mroce/dut/dut.h"
#include "mroce/harness/case.h"
#include "mroce/impairment/fabric.h"
#include "mroce/impairment/tap.h"
#include "mroce/session/dut_port.h"
#include "mroce/session/options.h"
#include "mroce/session/run_record.h"
#include "mroce/sim/simulator.h"

namespace mroce::session {

class Testbed {
 public:
  // `rec` receives the trace and the evidence paths; it outlives the test bed. `evidence_suffix`
  // names the pcap: evidence/<case id><suffix>.pcap (the reference's run of a script: ".reference").
  Testbed(const harness::Case& c, const SessionOptions& options, RunRecord* rec, int num_hosts,
          std::string evidence_suffix = "");
  ~Testbed();
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  // Builds the fabric, the recorder, the tap and the stages. false: rec->harness_error says why.
  [[nodiscard]] bool Build();

  // What the device at `host` is told at Start (addresses, paths, planes, MTU, capacity, seed).
  [[nodiscard]] dut::HostConfig HostConfigFor(int host, uint16_t max_streams) const;
  // Attaches `dev` to `host` (a DutPort: fabric sink and timer) and starts it with HostConfigFor.
  // A device that refuses Start is returned as the error; the device stays attached.
  [[nodiscard]] dut::Status Attach(int host, std::unique_ptr<dut::Dut> dev, uint16_t max_streams);
  // The host only watches: frames delivered to it are recorded and discarded (the scripted peer).
  void Watch(int host);

  [[nodiscard]] dut::Dut& Device(int host) { return *ports_[Slot(host)]->dut(); }
  [[nodiscard]] DutPort& Port(int host) { return *ports_[Slot(host)]; }
  // Why the device at `host` failed (its port's timer guard first, then the device's own
  // Failure()); empty while it has not.
  [[nodiscard]] std::string DeviceFailure(int host) {
    const std::string& port = ports_[Slot(host)]->Failure();
    return port.empty() ? Device(host).Failure() : port;
  }
  // DeviceFailure(host) is non-empty, without building the device's text (asked per event).
  [[nodiscard]] bool DeviceFailed(int host) { return !ports_[Slot(host)]->Failure().empty() || Device(host).Failed(); }
  [[nodiscard]] bool Attached(int host) const;

  // Takes the device's connection events and completions, records them in the trace (events
  // first, then completions, stamped now) and hands them back.
  void Poll(int host, std::vector<dut::ConnEvent>* events, std::vector<dut::Completion>* completions);
  // Records the device's telemetry and state size now.
  void SampleTelemetry(int host);
  // End of the run: fabric and stage statistics into the record, evidence flushed to disk.
  void Finish();

  [[nodiscard]] sim::Simulator& sim() { return sim_; }
  [[nodiscard]] impairment::Fabric& fabric() { return *fabric_; }
  [[nodiscard]] int64_t now_ns() const { return sim_.Now().nanos(); }

 private:
  [[nodiscard]] size_t Slot(int host) const;
  [[nodiscard]] bool AddStages();
  // Tells every attached device that `plane`'s link went down or up, and records it in the trace.
  void SignalLink(uint8_t plane, bool up);

  const harness::Case& case_;
  const SessionOptions& options_;
  RunRecord* rec_;
  int num_hosts_;
  std::string evidence_suffix_;
  sim::Simulator sim_;
  std::unique_ptr<impairment::Fabric> fabric_;
  std::unique_ptr<impairment::FabricObserver> recorder_;
  std::unique_ptr<impairment::Tap> tap_;
  // Devices outlive their ports (a port calls its device until it is destroyed).
  std::vector<std::unique_ptr<dut::Dut>> devices_;
  std::vector<std::unique_ptr<DutPort>> ports_;
  std::vector<int> hosts_;  // Host of ports_[i].
};

}  // namespace mroce::session
