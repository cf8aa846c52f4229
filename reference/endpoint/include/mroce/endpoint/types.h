// Basic types shared by every part of the reference endpoint: PSN serial arithmetic, and the
// project's time and result types.
#pragma once

#include <cstdint>

#include "mroce/sim/result.h"
#include "mroce/sim/units.h"
#include "mroce/verbs/memory_region_table.h"

namespace mroce::ref {

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

// Per-path packet sequence number, 32 bits, compared with RFC 1982 serial arithmetic.
using Psn = uint32_t;
[[nodiscard]] constexpr int32_t PsnDiff(Psn a, Psn b) { return static_cast<int32_t>(a - b); }
[[nodiscard]] constexpr bool PsnLt(Psn a, Psn b) { return PsnDiff(a, b) < 0; }
[[nodiscard]] constexpr bool PsnLe(Psn a, Psn b) { return PsnDiff(a, b) <= 0; }
[[nodiscard]] constexpr bool PsnGt(Psn a, Psn b) { return PsnDiff(a, b) > 0; }
[[nodiscard]] constexpr bool PsnGe(Psn a, Psn b) { return PsnDiff(a, b) >= 0; }

// Message sequence numbers use the same serial arithmetic.
using Msn = uint32_t;

using ConnId = uint32_t;

}  // namespace mroce::ref
