// Basic types of the RoCEv2 baseline endpoint: queue pair numbers, and the project's
// time and result types.
#pragma once

#include <cstdint>

#include "mroce/sim/result.h"
#include "mroce/sim/units.h"
#include "mroce/verbs/memory_region_table.h"

namespace mroce::rocev2 {

// Time (ns, mroce::TimeNs) and results (mroce::Result, Status, Error): the project's one vocabulary.
using mroce::kMicrosecond;
using mroce::kMillisecond;
using mroce::kNever;
using mroce::TimeNs;
using mroce::Error;
using mroce::MakeError;
using mroce::Ok;
using mroce::OkStatus;
using mroce::Result;
using mroce::Status;

// The verbs-level memory region table is shared with the other endpoint (reference/verbs).
using verbs::AccessFlags;
using verbs::kAccessLocalWrite;
using verbs::kAccessRemoteRead;
using verbs::kAccessRemoteWrite;
using verbs::MemoryRegion;
using verbs::MemoryRegionTable;

// Queue pair number, 24 bits on the wire.
using Qpn = uint32_t;

}  // namespace mroce::rocev2
