// Selftest: proves a suite's power with the campaign runner. The pristine reference endpoint must
// pass every case on several seeds; every quirk of the reference endpoint (a deliberate deviation
// from the spec) must fail at least one MUST case (the kill matrix, the recall half); every legal
// variant of the reference (another choice the spec allows), alone and all compatible ones
// together, must fail no MUST case on any seed (the precision half); the RoCEv2 baseline must run
// every case without a harness error. `mroce-cts selftest` prints it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mroce/campaign/campaign.h"
#include "mroce/campaign/suite_run.h"
#include "mroce/endpoint/types.h"
#include "mroce/harness/expectations.h"

namespace mroce::campaign {

struct SelftestSpec {
  std::vector<uint64_t> seeds = {1, 2, 3, 4, 5};  // of the pristine runs; the first seeds the others
  std::vector<std::string> quirks;                // empty: every quirk
  // Shard `quirk_shard` of `quirk_shards` (1-based): the quirks at positions p (in the list above,
  // or of every quirk) with p % quirk_shards == quirk_shard - 1. Lets a slow (sanitized) build
  // split the quirk runs over tests of their own, none near a time limit.
  int quirk_shard = 1;
  int quirk_shards = 1;
  std::vector<std::string> variants;              // empty: every variant, then "all" (the combination)
  bool run_variants = true;                       // the precision half
  std::vector<uint64_t> variant_seeds;            // empty: `seeds`
  // Known suite bugs: a variant's MUST failure matching an entry (test glob, dut glob such as
  // 'reference:variant=segments_reverse', verdict fail, unexpired) is listed as known, not counted;
  // an entry that no longer fails is stale and fails the selftest (so fixed cases leave the list).
  std::vector<harness::Expectation> known;
  std::string today;                              // "YYYY-MM-DD" for expiry; empty: TodayUtc()
};

struct SelftestResult {
  struct Pristine {
    std::vector<uint64_t> seeds;
    int fail = 0;
    int error = 0;
    int inconclusive = 0;
    std::vector<std::string> bad;  // "id (seed N): verdict: reason", task order
  };
  struct Quirk {
    std::string name;
    std::vector<std::string> killed_by;  // ids of the MUST cases that failed with it, suite order
  };
  struct Variant {
    std::string name;                  // a variant name, or "all"
    std::vector<std::string> cases;    // MUST cases that failed (any seed), suite order, unexplained
    std::vector<std::string> known;    // failed as a known suite bug lists ("id: reason")
    std::vector<std::string> stale;    // listed as known but passed on every seed
    int must_fail = 0;                 // failing (case, seed) runs, unexplained
    int error = 0;                     // error runs (never explained)
  };
  struct Baseline {
    int pass = 0;
    int fail = 0;
    int error = 0;
  };
  Pristine pristine;
  std::vector<Quirk> quirks;
  std::vector<Variant> variants;
  Baseline rocev2;
  size_t cases = 0;
  bool interrupted = false;  // stopped before every run was made: nothing is proven
  // The pristine runs all passed, every quirk was caught, no variant failed a MUST case (beyond the
  // known list) nor left a stale entry, the baseline had no error, not interrupted.
  bool ok = false;

  [[nodiscard]] size_t caught() const;  // quirks with at least one killing case
};

// Errors: an empty suite, no seed, an unknown quirk name. Evidence is never written.
[[nodiscard]] ref::Result<SelftestResult> RunSelftest(const Suite& suite, const SelftestSpec& spec,
                                                      const Options& options);

}  // namespace mroce::campaign
