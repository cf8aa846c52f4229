// The suite digest: one SHA-256 over every case file of a suite and its clause catalog, so that a
// report names exactly the suite it judged, whatever directory that suite was checked out in.
//
//   sha256( for each case file, sorted by its suite-relative name:
//             "case " NAME "\n" SIZE "\n" BYTES "\n"
//           then, when there is a catalog:
//             "catalog\n" SIZE "\n" BYTES "\n" )
//
// NAME is the path below the suite directory with '/' separators (the file name alone when the
// suite is one case file); SIZE is decimal bytes. The catalog is named by its role, not its path,
// so a catalog found next to the suite and the same file given with --catalog give one digest.
#pragma once

#include <string>

#include "mroce/sim/result.h"

namespace mroce::campaign {

struct SuiteDigest {
  std::string sha256;  // "sha256:" and 64 lowercase hex digits
  int case_files = 0;  // Case files hashed.
  bool catalog = false;  // The catalog was hashed too.
};

// The digest of the suite at `suite` (a directory or one case file; its case files as the loader
// lists them) and of `catalog_path` (empty: no catalog). Errors name the file that could not be read.
[[nodiscard]] Result<SuiteDigest> DigestSuite(const std::string& suite, const std::string& catalog_path);

// SHA-256 of `bytes`, 64 lowercase hex digits.
[[nodiscard]] std::string Sha256Hex(std::string_view bytes);

}  // namespace mroce::campaign
