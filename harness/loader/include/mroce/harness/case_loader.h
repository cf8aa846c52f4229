// Loads and validates test-case YAML files into the Case model.
//
// Every mistake is reported with file:line:column and the key path: unknown keys, wrong types,
// missing required keys, bad levels, malformed durations/sizes/rates/patterns, clause ids absent
// from the catalog (when one is given), and duplicate case ids across a directory (naming both
// files). Loading continues after an error so one pass reports all of a file's problems.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mroce/harness/case.h"
#include "mroce/harness/catalog.h"
#include "mroce/harness/diagnostic.h"
#include "mroce/harness/param_spec.h"

namespace mroce::harness {

struct LoaderOptions {
  const Catalog* catalog = nullptr;          // Clause ids and levels must match it when set.
  // When non-empty, names outside these sets are errors (filled by the harness from its check
  // registry, the impairment stage factory and the codec's field tables).
  std::set<std::string> known_checks;
  std::set<std::string> known_stages;
  std::set<std::string> known_fields;
  // Parameter schemas of the checks by name: a case's check parameters are validated against them
  // (unknown, missing, wrong type, out of range, nan), each error at the value's location.
  std::map<std::string, std::vector<ParamSpec>> check_params;
};

// `file_name` is used in diagnostics only.
[[nodiscard]] LoadResult<Case> LoadCaseString(std::string_view yaml, const std::string& file_name,
                                              const LoaderOptions& options = {});
[[nodiscard]] LoadResult<Case> LoadCaseFile(const std::string& path, const LoaderOptions& options = {});

// An impairment profile (`mroce-cts impair --profile`): a mapping with `impairments:`, a list with
// exactly the item syntax of a case's `impairments:` (stage, name, match, params, schedule), and an
// optional `rtt:` (a duration with a time unit) giving the RTT that durations in RTTs mean (default
// 10us, as for a case without topology.rtt). Errors name file:line:column and the key path.
struct ImpairmentProfile {
  std::vector<ImpairmentSpec> impairments;
  int64_t rtt_ns = Topology{}.rtt_ns;
};
[[nodiscard]] LoadResult<ImpairmentProfile> LoadImpairmentProfileString(std::string_view yaml, const std::string& file_name,
                                                                        const LoaderOptions& options = {});
[[nodiscard]] LoadResult<ImpairmentProfile> LoadImpairmentProfileFile(const std::string& path,
                                                                      const LoaderOptions& options = {});

// Every *.yaml / *.yml under `dir` (recursively; hidden entries skipped), sorted by case id.
// Duplicate ids are an error naming both files.
[[nodiscard]] LoadResult<std::vector<Case>> LoadCaseDir(const std::string& dir,
                                                        const LoaderOptions& options = {});

// A file or a directory.
[[nodiscard]] LoadResult<std::vector<Case>> LoadCases(const std::string& path,
                                                      const LoaderOptions& options = {});

// Value parsers shared with the other loaders; nullopt (and *error set) when malformed.
// Durations: "3rtt" (also "3 rtt", "3rtts"), "500ns", "10us", "1.5ms", "2s"; a bare number is RTTs.
[[nodiscard]] std::optional<Duration> ParseDuration(std::string_view text, std::string* error);
// Sizes in bytes: 4096, "4KiB", "1MiB", "1GiB", "4KB" (1000), "1MB", "64B".
[[nodiscard]] std::optional<int64_t> ParseSize(std::string_view text, std::string* error);
// Rates in bits per second: "100Gbps", "25G", "400Mbps", "10bps"; a bare number is bits/s.
[[nodiscard]] std::optional<int64_t> ParseRate(std::string_view text, std::string* error);
// Field values and patterns of scripted steps (see FieldPattern); `quoted` when the YAML scalar
// was quoted (a quoted number is still a number).
[[nodiscard]] std::optional<FieldPattern> ParsePattern(std::string_view text, std::string* error);

}  // namespace mroce::harness
