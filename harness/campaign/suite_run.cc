// SuiteRun (see suite_run.h).
#include "mroce/campaign/suite_run.h"

#include <ctime>
#include <filesystem>

#include "mroce/campaign/suite_digest.h"
#include "mroce/campaign/tool_version.h"
#include "mroce/dut/dut_spec.h"
#include "mroce/harness/case_loader.h"
#include "mroce/harness/catalog_loader.h"
#include "mroce/session/checks.h"

namespace mroce::campaign {
namespace {

namespace fs = std::filesystem;

std::string NowRfc3339() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

ref::Result<Suite> LoadSuite(const std::string& path, const std::string& catalog_path) {
  Suite suite;
  suite.path = path;
  harness::LoaderOptions options;
  for (const session::CheckInfo& c : session::AllChecks()) {
    options.known_checks.insert(c.name);
    options.check_params[c.name] = c.params;
    if (c.workload_only) options.workload_checks.insert(c.name);
  }
  if (!catalog_path.empty()) {
    auto loaded = harness::LoadCatalogFile(catalog_path);
    if (!loaded.ok()) return ref::MakeError("suite.catalog", loaded.ErrorText());
    suite.catalog = std::move(loaded.value);
    options.catalog = &suite.catalog;
  }
  auto cases = harness::LoadCases(path, options);
  if (!cases.ok()) return ref::MakeError("suite.cases", cases.ErrorText());
  suite.cases = std::move(cases.value);
  for (harness::Case& c : suite.cases) harness::MakeSourcesSuiteRelative(c, path);
  auto digest = DigestSuite(path, catalog_path);
  if (!digest.ok()) return digest.error();
  suite.digest = digest.value().sha256;
  return suite;
}

std::string FindCatalogNear(const std::string& suite) {
  std::error_code ec;
  const fs::path base = fs::is_directory(suite, ec) ? fs::path(suite) : fs::path(suite).parent_path();
  for (const fs::path& p : {base / "clauses.json", base / ".." / "docs" / "spec" / "clauses.json"}) {
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  }
  return "";
}

ref::Result<RunPlan> PlanRun(const Suite& suite, const RunSpec& spec) {
  auto parsed = dut::DutSpec::Parse(spec.dut_spec);
  if (!parsed.ok()) return parsed.error();
  auto probe = dut::MakeDut(parsed.value());
  if (!probe.ok()) return probe.error();
  RunPlan plan;
  for (const harness::Case* c : SelectCases(suite.cases, spec.filter, spec.shard)) {
    plan.tasks.push_back(Task{c, spec.dut_spec, spec.seed});
  }
  if (plan.tasks.empty()) {
    return ref::MakeError("run.selection",
                          "no case in '" + suite.path + "' matches" +
                              (spec.filter.empty() ? std::string() : " --filter '" + spec.filter + "'") +
                              (spec.shard == Shard{} ? std::string() : " in shard " + spec.shard.ToString()));
  }
  harness::RunResult& run = plan.run;
  run.suite_version = spec.suite_version;
  run.tool_version = ToolVersion();
  run.suite_digest = suite.digest;
  run.dut.identity = probe.value()->Identity();
  run.dut.description = std::string(dut::ProtocolName(probe.value()->Caps().protocol)) + " device, --dut " + spec.dut_spec;
  run.seed = spec.seed;
  run.selection.filter = spec.filter;
  if (spec.shard.count > 1) {
    run.selection.shard_count = spec.shard.count;
    run.selection.shards = {spec.shard.index};
  }
  run.selection.suite_cases = static_cast<int>(suite.cases.size());
  run.started_at = NowRfc3339();
  run.incomplete = true;  // until every selected case has a result
  plan.waivers = spec.waivers;
  plan.catalog = suite.catalog.empty() ? nullptr : &suite.catalog;
  return plan;
}

ExecutedRun ExecuteRun(const RunPlan& plan, const Options& options) {
  ExecutedRun done;
  done.planned = plan.tasks.size();
  Options o = options;
  if (o.session.catalog == nullptr) o.session.catalog = plan.catalog;
  done.campaign = RunTasks(plan.tasks, o);
  harness::RunResult& run = done.run;
  run = plan.run;
  for (auto& r : done.campaign.results) {
    if (r) run.tests.push_back(std::move(*r));
  }
  done.campaign.results.clear();
  run.incomplete = run.tests.size() != plan.tasks.size();
  run.finished_at = run.incomplete ? "" : NowRfc3339();
  run.clauses = harness::BuildClauseTable(run.tests, plan.catalog);
  harness::Normalize(run);
  harness::ApplyExpectations(run, plan.waivers, harness::TodayUtc());
  return done;
}

}  // namespace mroce::campaign
