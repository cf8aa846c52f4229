// Selftest (see selftest.h).
#include "mroce/campaign/selftest.h"

#include <algorithm>
#include <map>

#include "mroce/endpoint/quirks.h"

namespace mroce::campaign {
namespace {

constexpr char kQuirkPrefix[] = "reference:quirk=";

}  // namespace

size_t SelftestResult::caught() const {
  return static_cast<size_t>(std::count_if(quirks.begin(), quirks.end(), [](const Quirk& q) { return !q.killed_by.empty(); }));
}

ref::Result<SelftestResult> RunSelftest(const Suite& suite, const SelftestSpec& spec, const Options& options) {
  if (suite.cases.empty()) return ref::MakeError("selftest.suite", "the suite '" + suite.path + "' has no cases");
  if (spec.seeds.empty()) return ref::MakeError("selftest.seeds", "--seeds needs at least one seed");
  std::vector<std::string> quirks;
  for (const auto& q : ref::AllQuirks()) {
    if (spec.quirks.empty() || std::find(spec.quirks.begin(), spec.quirks.end(), q.name) != spec.quirks.end()) {
      quirks.emplace_back(q.name);
    }
  }
  for (const auto& q : spec.quirks) {
    if (std::find(quirks.begin(), quirks.end(), q) == quirks.end()) {
      return ref::MakeError("selftest.quirks", "--quirks: unknown quirk '" + q + "'");
    }
  }

  // One flat task list: pristine x seeds, every quirk x MUST cases (first seed), RoCEv2 x all cases.
  const uint64_t seed = spec.seeds.front();
  std::vector<Task> tasks;
  for (uint64_t s : spec.seeds) {
    for (const harness::Case& c : suite.cases) tasks.push_back({&c, "reference", s});
  }
  for (const auto& q : quirks) {
    for (const harness::Case& c : suite.cases) {
      if (c.level() == harness::Level::kMust) tasks.push_back({&c, kQuirkPrefix + q, seed});
    }
  }
  for (const harness::Case& c : suite.cases) tasks.push_back({&c, "rocev2", seed});

  Options o = options;
  o.session.write_evidence = false;
  o.session.run_dir.clear();
  if (o.session.catalog == nullptr) o.session.catalog = &suite.catalog;
  Outcome outcome = RunTasks(tasks, o);

  SelftestResult r;
  r.pristine.seeds = spec.seeds;
  r.cases = suite.cases.size();
  r.interrupted = outcome.interrupted;
  std::map<std::string, std::vector<std::string>> killed;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!outcome.results[i]) continue;
    const Task& t = tasks[i];
    const harness::TestResult& res = *outcome.results[i];
    const harness::Verdict v = res.verdict;
    if (t.dut_spec == "reference") {
      r.pristine.fail += v == harness::Verdict::kFail;
      r.pristine.error += v == harness::Verdict::kError;
      r.pristine.inconclusive += v == harness::Verdict::kInconclusive;
      if (harness::IsBad(v)) {
        r.pristine.bad.push_back(t.test->id + " (seed " + std::to_string(t.seed) + "): " +
                                 std::string(harness::ToString(v)) + ": " + res.reason);
      }
    } else if (t.dut_spec == "rocev2") {
      r.rocev2.error += v == harness::Verdict::kError;
      r.rocev2.fail += v == harness::Verdict::kFail;
      r.rocev2.pass += v == harness::Verdict::kPass;
    } else if (v == harness::Verdict::kFail) {
      killed[t.dut_spec.substr(sizeof(kQuirkPrefix) - 1)].push_back(t.test->id);
    }
  }
  for (const auto& q : quirks) r.quirks.push_back({q, killed[q]});
  r.ok = !r.interrupted && r.pristine.fail + r.pristine.error + r.pristine.inconclusive == 0 &&
         r.caught() == r.quirks.size() && r.rocev2.error == 0;
  return r;
}

}  // namespace mroce::campaign
