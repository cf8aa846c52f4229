#include "mroce/reports/merge.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "mroce/reports/run_dir.h"

namespace mroce::reports {

namespace fs = std::filesystem;

namespace {

// Two results of one case judge it alike: everything but what the wall clock or the invocation
// decides (duration, a live DUT's stall and attempts, the reproduce command, which names the
// program and suite paths of the machine that ran it).
bool SameJudgement(harness::TestResult a, harness::TestResult b) {
  for (harness::TestResult* t : {&a, &b}) {
    t->duration_s = 0;
    t->stall_ms = 0;
    t->attempts = 1;
    t->reproduce.clear();
  }
  return a == b;
}

}  // namespace

Result<harness::RunResult> MergeRuns(const std::vector<harness::RunResult>& shards) {
  if (shards.empty()) return MakeError("report.merge", "nothing to merge");
  harness::RunResult out = shards.front();
  out.tests.clear();
  out.clauses.clear();
  std::map<std::string, std::pair<const harness::TestResult*, size_t>> seen;
  for (size_t i = 0; i < shards.size(); ++i) {
    const harness::RunResult& s = shards[i];
    auto mismatch = [&](const std::string& what, const std::string& a, const std::string& b) {
      return MakeError("report.merge",
                       "shard " + std::to_string(i + 1) + ": " + what + " '" + b + "' differs from shard 1's '" + a + "'");
    };
    if (s.schema != out.schema) return mismatch("schema", out.schema, s.schema);
    if (s.suite_version != out.suite_version) return mismatch("suite version", out.suite_version, s.suite_version);
    if (s.tool_version != out.tool_version) return mismatch("tool version", out.tool_version, s.tool_version);
    if (s.suite_digest != out.suite_digest) return mismatch("suite digest", out.suite_digest, s.suite_digest);
    if (s.dut.identity != out.dut.identity) return mismatch("DUT identity", out.dut.identity, s.dut.identity);
    if (s.seed != out.seed) return mismatch("seed", std::to_string(out.seed), std::to_string(s.seed));
    if (s.selection.filter != out.selection.filter) return mismatch("filter", out.selection.filter, s.selection.filter);
    if (s.selection.shard_count != out.selection.shard_count) {
      return mismatch("shard count", std::to_string(out.selection.shard_count), std::to_string(s.selection.shard_count));
    }
    if (s.selection.suite_cases != out.selection.suite_cases) {
      return mismatch("suite size", std::to_string(out.selection.suite_cases), std::to_string(s.selection.suite_cases));
    }
    for (int shard : s.selection.shards) {
      if (i > 0 && std::find(out.selection.shards.begin(), out.selection.shards.end(), shard) != out.selection.shards.end()) {
        return MakeError("report.merge", "shard " + std::to_string(i + 1) + ": shard " + std::to_string(shard) + "/" +
                                             std::to_string(s.selection.shard_count) + " is given twice");
      }
      if (i > 0) out.selection.shards.push_back(shard);
    }
    if (!s.started_at.empty() && (out.started_at.empty() || s.started_at < out.started_at)) out.started_at = s.started_at;
    if (s.finished_at.empty() || out.finished_at.empty()) {
      out.finished_at.clear();
    } else if (s.finished_at > out.finished_at) {
      out.finished_at = s.finished_at;
    }
    out.incomplete = out.incomplete || s.incomplete;
    for (const harness::TestResult& t : s.tests) {
      auto [it, inserted] = seen.emplace(t.id, std::make_pair(&t, i));
      if (!inserted) {
        if (!SameJudgement(*it->second.first, t)) {
          return MakeError("report.merge", "case '" + t.id + "' has conflicting results in shard " +
                                               std::to_string(it->second.second + 1) + " and shard " +
                                               std::to_string(i + 1));
        }
        continue;
      }
      out.tests.push_back(t);
    }
    out.clauses.insert(out.clauses.end(), s.clauses.begin(), s.clauses.end());
  }
  std::sort(out.selection.shards.begin(), out.selection.shards.end());
  harness::Normalize(out);
  return out;
}

Status MergeRunDirs(const std::vector<std::string>& dirs, const std::string& out_dir) {
  std::vector<harness::RunResult> shards;
  for (const std::string& d : dirs) {
    auto run = ReadRun(d);
    if (!run.ok()) return run.error();
    shards.push_back(std::move(*run));
  }
  auto merged = MergeRuns(shards);
  if (!merged.ok()) return merged.error();
  std::error_code ec;
  fs::create_directories(fs::path(out_dir) / kEvidenceDir, ec);
  if (ec) return MakeError("file.write", out_dir + ": cannot create directory: " + ec.message());
  for (const std::string& d : dirs) {
    fs::path src = fs::path(d) / kEvidenceDir;
    if (!fs::is_directory(src, ec)) continue;
    if (fs::equivalent(src, fs::path(out_dir) / kEvidenceDir, ec)) continue;
    fs::copy(src, fs::path(out_dir) / kEvidenceDir,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec) return MakeError("file.write", src.string() + ": cannot copy evidence: " + ec.message());
  }
  return WriteRunDir(out_dir, std::move(*merged));
}

}  // namespace mroce::reports
