// Selftest (see selftest.h).
#include "mroce/campaign/selftest.h"

#include <algorithm>
#include <map>

#include "mroce/endpoint/quirks.h"
#include "mroce/endpoint/variants.h"

namespace mroce::campaign {
namespace {

constexpr char kQuirkPrefix[] = "reference:quirk=";
constexpr char kVariantPrefix[] = "reference:variant=";

// The identity a variant's known-bug entries are matched against: "all" spelled out, so an entry
// for 'reference:variant=*segments_reverse*' also covers the combination.
std::string VariantIdentity(const std::string& name) {
  return kVariantPrefix + (name == "all" ? ref::Variants::AllCompatible().ToString() : name);
}

// The known-bug entry that explains a failure of case `id` under DUT identity `dut`, if any.
const harness::Expectation* Known(const std::vector<harness::Expectation>& known, const std::string& id,
                                  const std::string& dut, const std::string& today) {
  for (const harness::Expectation& e : known) {
    if (e.verdict != harness::Verdict::kFail || !harness::GlobMatch(e.test, id) || !harness::GlobMatch(e.dut, dut)) continue;
    if (!e.expires.empty() && e.expires < today) continue;  // expired: the failure counts again
    return &e;
  }
  return nullptr;
}

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
      return ref::MakeError("selftest.quirks", "--quirks: unknown quirk '" + q + "' (known: " + ref::KnownQuirkNames() + ")");
    }
  }
  if (spec.quirk_shards < 1 || spec.quirk_shard < 1 || spec.quirk_shard > spec.quirk_shards) {
    return ref::MakeError("selftest.quirk_shard", "--quirk-shard: shard " + std::to_string(spec.quirk_shard) + "/" +
                                                      std::to_string(spec.quirk_shards) + " does not exist (K/N with 1 <= K <= N)");
  }
  if (spec.quirk_shards > 1) {
    std::vector<std::string> mine;
    for (size_t i = 0; i < quirks.size(); ++i) {
      if (static_cast<int>(i % static_cast<size_t>(spec.quirk_shards)) == spec.quirk_shard - 1) mine.push_back(quirks[i]);
    }
    quirks = std::move(mine);
  }
  std::vector<std::string> variants;
  if (spec.run_variants) {
    for (const auto& v : ref::AllVariants()) {
      if (spec.variants.empty() || std::find(spec.variants.begin(), spec.variants.end(), v.name) != spec.variants.end()) {
        variants.emplace_back(v.name);
      }
    }
    for (const auto& v : spec.variants) {
      if (v != "all" && std::find(variants.begin(), variants.end(), v) == variants.end()) {
        return ref::MakeError("selftest.variants", "--variants: unknown variant '" + v + "' (known: all, " + ref::KnownVariantNames() + ")");
      }
    }
    if (spec.variants.empty() || std::find(spec.variants.begin(), spec.variants.end(), "all") != spec.variants.end()) {
      variants.emplace_back("all");
    }
  }
  const std::vector<uint64_t>& variant_seeds = spec.variant_seeds.empty() ? spec.seeds : spec.variant_seeds;
  const std::string today = spec.today.empty() ? harness::TodayUtc() : spec.today;

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
  for (const auto& v : variants) {
    for (uint64_t s : variant_seeds) {
      for (const harness::Case& c : suite.cases) {
        if (c.level() == harness::Level::kMust) tasks.push_back({&c, kVariantPrefix + v, s});
      }
    }
  }

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
  std::map<std::string, SelftestResult::Variant> by_variant;
  std::map<std::string, std::map<std::string, bool>> failed_case;  // variant -> case id -> failed (unexplained)
  std::map<std::string, std::map<std::string, std::string>> known_case;  // variant -> case id -> reason
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
    } else if (t.dut_spec.rfind(kVariantPrefix, 0) == 0) {
      const std::string name = t.dut_spec.substr(sizeof(kVariantPrefix) - 1);
      SelftestResult::Variant& var = by_variant[name];
      if (v == harness::Verdict::kError) ++var.error;
      if (v == harness::Verdict::kError || v == harness::Verdict::kFail) {
        const harness::Expectation* k = v == harness::Verdict::kFail ? Known(spec.known, t.test->id, VariantIdentity(name), today) : nullptr;
        if (k != nullptr) {
          known_case[name][t.test->id] = k->reason;
        } else {
          if (v == harness::Verdict::kFail) ++var.must_fail;
          failed_case[name][t.test->id] = true;
        }
      }
    } else if (v == harness::Verdict::kFail) {
      killed[t.dut_spec.substr(sizeof(kQuirkPrefix) - 1)].push_back(t.test->id);
    }
  }
  for (const auto& q : quirks) r.quirks.push_back({q, killed[q]});
  bool variants_ok = true;
  for (const auto& name : variants) {
    SelftestResult::Variant var = by_variant[name];
    var.name = name;
    for (const harness::Case& c : suite.cases) {
      if (failed_case[name].count(c.id) != 0) var.cases.push_back(c.id);
      if (auto it = known_case[name].find(c.id); it != known_case[name].end()) var.known.push_back(c.id + ": " + it->second);
      // A known entry for this exact variant whose case never failed: stale.
      if (c.level() != harness::Level::kMust || known_case[name].count(c.id) != 0 || failed_case[name].count(c.id) != 0) continue;
      const harness::Expectation* k = Known(spec.known, c.id, VariantIdentity(name), today);
      if (k != nullptr && !r.interrupted) var.stale.push_back(c.id + ": " + k->reason);
    }
    variants_ok = variants_ok && var.cases.empty() && var.error == 0 && var.stale.empty();
    r.variants.push_back(std::move(var));
  }
  r.ok = !r.interrupted && r.pristine.fail + r.pristine.error + r.pristine.inconclusive == 0 &&
         r.caught() == r.quirks.size() && r.rocev2.error == 0 && variants_ok;
  return r;
}

}  // namespace mroce::campaign
