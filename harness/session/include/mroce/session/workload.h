// End-to-end runs: the DUT and reference peers exchange a case's workload through the impaired
// fabric of a Testbed.
//
// The runner opens the workload's connections (in band, or out of band for RoCEv2), registers and
// fills the buffers, posts every operation, runs until every expected completion arrived (or the
// case's timeout), samples the DUT's telemetry every RTT meanwhile, lets the fabric quiesce (late
// duplicates and double completions still count; the state size is sampled 1 ms after traffic
// stopped), and reads back every destination buffer. With one sender the DUT is host 0 and the
// peer host 1; with N senders (incast) the DUT is the receiver or one of the senders.
#pragma once

#include "mroce/harness/case.h"
#include "mroce/session/options.h"
#include "mroce/session/run_record.h"

namespace mroce::session {

// Runs the case's workload once; the record carries everything the checks need.
[[nodiscard]] RunRecord SimulateWorkload(const harness::Case& c, const SessionOptions& options);

}  // namespace mroce::session
