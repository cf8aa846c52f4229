// `mroce-cts selftest`: proves the suite's power. The pristine reference endpoint must pass every
// case on several seeds; every quirk of the reference endpoint (a deliberate deviation from the
// spec) must be caught by at least one MUST case (recall); every legal variant (another choice the
// spec allows), alone and combined, must fail no MUST case (precision); the RoCEv2 baseline must
// run the whole suite without a harness error. The campaign library runs it (campaign::RunSelftest); this file prints
// the kill matrix (quirk -> cases that failed), or JSON for machines.
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "command.h"
#include "mroce/campaign/selftest.h"
#include "mroce/harness/expectations.h"
#include "mroce/harness/expectations_loader.h"

namespace mroce::cli {
namespace {

class SelftestCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    suite_ = DefaultSuite();
    sub.add_option("--suite", suite_, "Suite directory")->capture_default_str();
    sub.add_option("--seeds", spec_.seeds, "Seeds of the pristine runs")->delimiter(',')->capture_default_str();
    sub.add_option("--quirks", spec_.quirks, "Only these quirks (default: every quirk)")->delimiter(',');
    sub.add_option("--quirk-shard", shard_, "Only shard K of N of the quirks (K/N: every N-th quirk from the K-th)")
        ->check([](const std::string& v) -> std::string {
          int k = 0, n = 0;
          char slash = 0;
          std::istringstream in(v);
          if ((in >> k >> slash >> n) && slash == '/' && in.peek() == EOF && n >= 1 && k >= 1 && k <= n) return {};
          return "--quirk-shard: '" + v + "' is not K/N with 1 <= K <= N";
        });
    sub.add_option("--variants", spec_.variants, "Only these legal variants ('all' = the combination; default: each, then all)")
        ->delimiter(',');
    sub.add_option("--variant-seeds", spec_.variant_seeds, "Seeds of the variant runs (default: --seeds)")->delimiter(',');
    sub.add_flag("--no-variants", no_variants_, "Skip the precision half (legal variants)");
    sub.add_option("--known", known_, "Known suite bugs (expectations YAML): variant failures listed there are reported, not counted");
    sub.add_option("--jobs,-j", jobs_, "Cases run in parallel (0 = one per core)")->capture_default_str();
    sub.add_option("--catalog", catalog_, "Clause catalog (clauses.json); found next to the suite by default");
    sub.add_flag("--json", json_, "Print the result as JSON");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    const auto suite = LoadSuite(suite_, catalog_, err);
    if (!suite) return harness::kExitUsage;
    spec_.run_variants = !no_variants_;
    if (!shard_.empty()) {
      char slash = 0;
      std::istringstream(shard_) >> spec_.quirk_shard >> slash >> spec_.quirk_shards;
    }
    if (!known_.empty()) {
      auto known = harness::LoadExpectationsFile(known_);
      if (!known.ok()) {
        err << "mroce-cts selftest: error: " << known.ErrorText() << "\n";
        return harness::kExitUsage;
      }
      spec_.known = known.value;
    }
    campaign::Options options;
    options.jobs = jobs_;
    const auto result = campaign::RunSelftest(*suite, spec_, options);
    if (!result.ok()) {
      err << "mroce-cts selftest: error: " << result.error().message << "\n";
      return harness::kExitUsage;
    }
    const campaign::SelftestResult& r = result.value();
    const int status = r.interrupted ? harness::kExitHarnessError : r.ok ? harness::kExitOk : harness::kExitUnexpected;
    if (r.interrupted) err << "mroce-cts selftest: interrupted: the counts below are of the runs made before\n";

    if (json_) {
      nlohmann::ordered_json j;
      j["pristine"] = {{"seeds", r.pristine.seeds},
                       {"fail", r.pristine.fail},
                       {"error", r.pristine.error},
                       {"inconclusive", r.pristine.inconclusive}};
      j["quirks"] = nlohmann::ordered_json::array();
      for (const auto& q : r.quirks) j["quirks"].push_back({{"name", q.name}, {"killed_by", q.killed_by}});
      j["variants"] = nlohmann::ordered_json::array();
      for (const auto& v : r.variants) {
        j["variants"].push_back({{"name", v.name},
                                 {"must_fail", v.must_fail},
                                 {"error", v.error},
                                 {"cases", v.cases},
                                 {"known", v.known},
                                 {"stale", v.stale}});
      }
      j["rocev2"] = {{"pass", r.rocev2.pass}, {"fail", r.rocev2.fail}, {"error", r.rocev2.error}};
      j["cases"] = r.cases;
      j["ok"] = r.ok;
      out << j.dump(2) << "\n";
      return status;
    }
    out << "pristine reference on " << r.pristine.seeds.size() << " seed(s) x " << r.cases << " cases: fail "
        << r.pristine.fail << ", error " << r.pristine.error << ", inconclusive " << r.pristine.inconclusive << "\n";
    for (const auto& b : r.pristine.bad) out << "  " << b << "\n";
    out << "\nkill matrix (quirk -> MUST cases that failed):\n";
    for (const auto& q : r.quirks) {
      const auto& k = q.killed_by;
      out << "  " << std::left << std::setw(28) << q.name
          << (k.empty() ? "SURVIVED" : std::to_string(k.size()) + " case(s):");
      for (size_t i = 0; i < k.size() && i < 4; ++i) out << " " << k[i];
      if (k.size() > 4) out << " ...";
      out << "\n";
    }
    if (!r.variants.empty()) {
      out << "\nlegal variants (variant -> MUST cases that failed; must be none):\n";
      for (const auto& v : r.variants) {
        out << "  " << std::left << std::setw(28) << v.name;
        if (v.cases.empty() && v.error == 0) out << "ok";
        if (!v.cases.empty()) out << v.cases.size() << " case(s):";
        for (size_t i = 0; i < v.cases.size() && i < 4; ++i) out << " " << v.cases[i];
        if (v.cases.size() > 4) out << " ...";
        if (v.error > 0) out << " (" << v.error << " error run(s))";
        if (!v.known.empty()) out << "  [" << v.known.size() << " known suite bug(s)]";
        out << "\n";
        for (const auto& s : v.stale) out << "    stale known entry (the case passes now: remove it): " << s << "\n";
      }
    }
    out << "\nrocev2 baseline: pass " << r.rocev2.pass << ", fail " << r.rocev2.fail << ", error " << r.rocev2.error << "\n";
    out << "\nselftest: " << (r.ok ? "OK" : "FAILED") << " (" << r.caught() << "/" << r.quirks.size() << " quirks caught";
    if (spec_.quirk_shards > 1) out << ", quirk shard " << spec_.quirk_shard << "/" << spec_.quirk_shards;
    out << ")\n";
    return status;
  }

 private:
  std::string suite_;
  campaign::SelftestSpec spec_;
  int jobs_ = 0;
  std::string catalog_;
  bool json_ = false;
  bool no_variants_ = false;
  std::string shard_;
  std::string known_;
};

}  // namespace

std::unique_ptr<Command> MakeSelftestCommand() { return std::make_unique<SelftestCommand>(); }

}  // namespace mroce::cli
