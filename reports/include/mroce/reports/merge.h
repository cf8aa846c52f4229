// Merging shards (`--shard I/N` runs) into one run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mroce/harness/results.h"
#include "mroce/sim/result.h"

namespace mroce::reports {

using mroce::Result;
using mroce::Status;

// Shards must agree on schema, suite version, tool version, suite digest, DUT identity, seed,
// filter, shard count and suite size (else error). Tests are united; a case id present in several
// shards must have identical results there, apart from duration, live stall and attempts and the
// reproduce command (else error naming the id); the first shard's is kept. started_at is the earliest, finished_at the latest (empty if any shard has none);
// incomplete if any shard is.
// Error code "report.merge".
[[nodiscard]] Result<harness::RunResult> MergeRuns(const std::vector<harness::RunResult>& shards);

// Reads DIR/report.json of each shard, merges, copies each shard's evidence/ into OUT/evidence/
// (same relative paths), and writes OUT's reports.
[[nodiscard]] Status MergeRunDirs(const std::vector<std::string>& dirs, const std::string& out_dir);

}  // namespace mroce::reports
