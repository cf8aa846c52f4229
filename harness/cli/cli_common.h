// Helpers shared by subcommands: finding and loading the suite and the clause catalog.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mroce/campaign/suite_run.h"
#include "mroce/harness/case.h"
#include "mroce/harness/catalog.h"

namespace mroce::cli {

// --suite default: $MROCE_SUITE, else the source tree's testcases/.
[[nodiscard]] std::string DefaultSuite();

// Whether `suite` is the source tree's testcases/ (the suite a command without --suite runs when
// $MROCE_SUITE is unset).
[[nodiscard]] bool IsBundledSuite(const std::string& suite);

// main() records argv[0] here before any command runs.
void SetProgramPath(const char* argv0);

// How a command printed for the user names this program so that it runs from the current
// directory: "mroce-cts" when it was found on PATH, else its path relative to the current directory
// when it lies below it ("build/harness/cli/mroce-cts"), else its absolute path.
[[nodiscard]] std::string ProgramForCommands();

// `text` as one shell word: unchanged when it only holds characters the shell leaves alone, else
// in single quotes.
[[nodiscard]] std::string ShellQuote(const std::string& text);

// The catalog path: `flag` when given; else <suite>/clauses.json, <suite>/../docs/spec/clauses.json,
// the source tree's docs/spec/clauses.json, the first that exists; empty when none does.
[[nodiscard]] std::string FindCatalog(const std::string& flag, const std::string& suite);

// Loads the catalog (when found) and the cases under `path` (campaign::LoadSuite); prints
// diagnostics to `err` and returns nullopt on any error.
std::optional<campaign::Suite> LoadSuite(const std::string& path, const std::string& catalog_flag, std::ostream& err);
// The same, the catalog apart (empty when none was found).
std::optional<std::vector<harness::Case>> LoadSuite(const std::string& path, const std::string& catalog_flag,
                                                    harness::Catalog* catalog, std::ostream& err);

}  // namespace mroce::cli
