// Merging shards (`--shard I/N` runs) into one run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mroce/harness/results.h"

namespace mroce::reports {

// Shards must agree on schema, suite version, DUT identity and seed (else error). Tests are united;
// a case id present in several shards must have identical results there (else error naming the
// id). started_at is the earliest, finished_at the latest (empty if any shard has none);
// incomplete if any shard is.
[[nodiscard]] std::optional<harness::RunResult> MergeRuns(const std::vector<harness::RunResult>& shards,
                                                          std::string* error);

// Reads DIR/report.json of each shard, merges, copies each shard's evidence/ into OUT/evidence/
// (same relative paths), and writes OUT's reports.
bool MergeRunDirs(const std::vector<std::string>& dirs, const std::string& out_dir, std::string* error);

}  // namespace mroce::reports
