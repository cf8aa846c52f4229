// Loads and validates test-case YAML files into the Case model.
//
// Every mistake is reported with file:line:column and the key path: unknown keys, wrong types,
// missing required keys, bad levels, malformed durations/sizes/rates/patterns, clause ids absent
// from the catalog (when one is given), impairments that the stage kinds of impairment/ refuse
// (kind, parameters, match keys, schedule: impairment/stage_yaml.h), and duplicate case ids across
// a directory (naming both files). Loading continues after an error so one pass reports all of a
// file's problems. Durations, sizes and rates use the grammar of impairment/quantity.h.
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
#include "mroce/sim/result.h"

namespace mroce::harness {

struct LoaderOptions {
  const Catalog* catalog = nullptr;          // Clause ids and levels must match it when set.
  // When non-empty, names outside these sets are errors (filled by the harness from its check
  // registry and the codec's field tables). Stage kinds are always checked (impairment/stage_kind.h).
  std::set<std::string> known_checks;
  std::set<std::string> known_fields;
  // Parameter schemas of the checks by name: a case's check parameters are validated against them
  // (unknown, missing, wrong type, out of range, nan), each error at the value's location.
  std::map<std::string, std::vector<ParamSpec>> check_params;
  // Checks that judge an end-to-end workload (its planned messages, memory or senders): an error in
  // a scripted case, which has none.
  std::set<std::string> workload_checks;
};

// `file_name` is used in diagnostics only.
[[nodiscard]] LoadResult<Case> LoadCaseString(std::string_view yaml, const std::string& file_name,
                                              const LoaderOptions& options = {});
[[nodiscard]] LoadResult<Case> LoadCaseFile(const std::string& path, const LoaderOptions& options = {});

// The case files of a suite: `path` itself when it is a file, else every *.yaml / *.yml under it
// (recursively; hidden entries skipped), sorted by path. The error says why a directory could not
// be listed.
[[nodiscard]] Result<std::vector<std::string>> ListCaseFiles(const std::string& path);

// Every case file of `dir` (ListCaseFiles), sorted by case id.
// Duplicate ids are an error naming both files.
[[nodiscard]] LoadResult<std::vector<Case>> LoadCaseDir(const std::string& dir,
                                                        const LoaderOptions& options = {});

// A file or a directory.
[[nodiscard]] LoadResult<std::vector<Case>> LoadCases(const std::string& path,
                                                      const LoaderOptions& options = {});

// Field values and patterns of scripted steps (see FieldPattern); `quoted` when the YAML scalar
// was quoted (a quoted number is still a number). Error code "case.pattern", the message quotes the
// text and says what was expected.
[[nodiscard]] Result<FieldPattern> ParsePattern(std::string_view text);

}  // namespace mroce::harness
