// SuiteRun: what `mroce-cts run` and mroce.run do with the campaign runner. Load a suite, plan a
// run (one DUT, one seed, the cases a filter and a shard select), execute it, and get the report:
// results in suite order, clause table, waivers applied.
//
//   auto suite = LoadSuite(dir, catalog);         // cases + catalog, names checked
//   auto plan = PlanRun(suite.value(), spec);     // DUT checked, cases selected, report header
//   ... write plan.run (incomplete) ...
//   ExecutedRun done = ExecuteRun(plan.value(), options);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mroce/campaign/campaign.h"
#include "mroce/campaign/selection.h"
#include "mroce/endpoint/types.h"
#include "mroce/harness/case.h"
#include "mroce/harness/catalog.h"
#include "mroce/harness/expectations.h"
#include "mroce/harness/results.h"

namespace mroce::campaign {

// A loaded suite: its cases (sorted by id) and its clause catalog (empty when it has none).
struct Suite {
  std::string path;  // as given to LoadSuite
  std::vector<harness::Case> cases;
  harness::Catalog catalog;
  std::string digest;  // "sha256:..." of its case files and catalog (suite_digest.h)
};

// Loads the catalog at `catalog_path` (empty: none) and the cases under `path` (a directory, or one
// case file), knowing the harness's check and stage names: a misspelt one is a load error. The
// error's message is the loader's diagnostics, one "file:line:col: key: message" per line. The
// suite's digest is taken too.
[[nodiscard]] ref::Result<Suite> LoadSuite(const std::string& path, const std::string& catalog_path);

// The catalog that goes with the suite at `suite`: <dir>/clauses.json, else
// <dir>/../docs/spec/clauses.json (dir: the suite directory, or a case file's); empty when neither is.
[[nodiscard]] std::string FindCatalogNear(const std::string& suite);

struct RunSpec {
  std::string dut_spec = "reference";  // --dut syntax
  uint64_t seed = 1;
  std::string filter;                  // case id glob; empty: every case
  Shard shard;
  std::vector<harness::Expectation> waivers;
  std::string suite_version;           // report.json's suite_version
};

struct RunPlan {
  // The report so far: DUT identity and description, seed, start time; no test yet, incomplete.
  harness::RunResult run;
  std::vector<Task> tasks;  // one per selected case, suite order
  std::vector<harness::Expectation> waivers;
  const harness::Catalog* catalog = nullptr;  // the suite's, when it has one
};

// Checks the DUT spec (one device is built, for its identity) and selects the cases. Errors name
// the bad spec or the device's refusal, or say that no case matched. `suite` outlives the plan.
[[nodiscard]] ref::Result<RunPlan> PlanRun(const Suite& suite, const RunSpec& spec);

struct ExecutedRun {
  // The finished report: every result obtained, in suite order (a stopped run keeps them all and
  // is `incomplete`), the clause table, the waivers applied as of today (UTC).
  harness::RunResult run;
  size_t planned = 0;    // cases the plan selected
  Outcome campaign;      // workers, wall time, whether (and by which signal) it was stopped; no results
};

// Runs the plan's tasks (options.session gives run_dir, evidence and stall limits).
[[nodiscard]] ExecutedRun ExecuteRun(const RunPlan& plan, const Options& options);

}  // namespace mroce::campaign
