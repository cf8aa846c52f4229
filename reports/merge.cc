#include "mroce/reports/merge.h"

#include <filesystem>
#include <map>

#include "mroce/reports/run_dir.h"

namespace mroce::reports {

namespace fs = std::filesystem;

std::optional<harness::RunResult> MergeRuns(const std::vector<harness::RunResult>& shards, std::string* error) {
  if (shards.empty()) {
    *error = "nothing to merge";
    return std::nullopt;
  }
  harness::RunResult out = shards.front();
  out.tests.clear();
  out.clauses.clear();
  std::map<std::string, std::pair<const harness::TestResult*, size_t>> seen;
  for (size_t i = 0; i < shards.size(); ++i) {
    const harness::RunResult& s = shards[i];
    auto mismatch = [&](const std::string& what, const std::string& a, const std::string& b) {
      *error = "shard " + std::to_string(i + 1) + ": " + what + " '" + b + "' differs from shard 1's '" + a + "'";
      return std::nullopt;
    };
    if (s.schema != out.schema) return mismatch("schema", out.schema, s.schema);
    if (s.suite_version != out.suite_version) return mismatch("suite version", out.suite_version, s.suite_version);
    if (s.dut.identity != out.dut.identity) return mismatch("DUT identity", out.dut.identity, s.dut.identity);
    if (s.seed != out.seed) return mismatch("seed", std::to_string(out.seed), std::to_string(s.seed));
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
        if (!(*it->second.first == t)) {
          *error = "case '" + t.id + "' has conflicting results in shard " + std::to_string(it->second.second + 1) +
                   " and shard " + std::to_string(i + 1);
          return std::nullopt;
        }
        continue;
      }
      out.tests.push_back(t);
    }
    out.clauses.insert(out.clauses.end(), s.clauses.begin(), s.clauses.end());
  }
  harness::Normalize(out);
  return out;
}

bool MergeRunDirs(const std::vector<std::string>& dirs, const std::string& out_dir, std::string* error) {
  std::vector<harness::RunResult> shards;
  for (const std::string& d : dirs) {
    auto run = ReadRun(d, error);
    if (!run) return false;
    shards.push_back(std::move(*run));
  }
  auto merged = MergeRuns(shards, error);
  if (!merged) return false;
  std::error_code ec;
  fs::create_directories(fs::path(out_dir) / kEvidenceDir, ec);
  if (ec) {
    *error = out_dir + ": cannot create directory: " + ec.message();
    return false;
  }
  for (const std::string& d : dirs) {
    fs::path src = fs::path(d) / kEvidenceDir;
    if (!fs::is_directory(src, ec)) continue;
    if (fs::equivalent(src, fs::path(out_dir) / kEvidenceDir, ec)) continue;
    fs::copy(src, fs::path(out_dir) / kEvidenceDir,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec) {
      *error = src.string() + ": cannot copy evidence: " + ec.message();
      return false;
    }
  }
  return WriteRunDir(out_dir, std::move(*merged), error);
}

}  // namespace mroce::reports
