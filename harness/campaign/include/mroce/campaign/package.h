// Certification packages: one file a vendor hands a lab, holding a run directory and a manifest
// that lets the lab check nothing was changed and that the run is a conformance claim.
//
//   NAME.tar.zst            (POSIX tar, zstd; NAME is the output file's name without .tar.zst)
//     NAME/manifest.json    {"schema": "mroce-cts/package/v1", "packaged_by": tool version,
//                            "run": {suite_digest, suite_version, tool_version, dut, seed,
//                                    selection, incomplete, summary} (copied from report.json),
//                            "files": [{"path", "size", "sha256"}, ...] (sorted by path)}
//     NAME/SHA256SUMS       the same digests in `sha256sum -c` form
//     NAME/report.json, report.html, junit.xml, evidence/..., every other regular file of the run
//
// Packaging is deterministic: the same run directory gives the same bytes (entries sorted, owner
// 0, modes 0644/0755, every time stamp the run's finished_at).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mroce/sim/result.h"

namespace mroce::campaign {

inline constexpr char kPackageSchema[] = "mroce-cts/package/v1";

struct PackageSummary {
  std::string path;    // The package written.
  std::string name;    // Its top directory.
  int files = 0;       // Run files in it (manifest and SHA256SUMS not counted).
  uint64_t bytes = 0;  // Their total size.
  // The run's claim, from its report.json.
  bool conformant = false;
  bool partial = false;
  bool incomplete = false;
  std::string suite_digest;
};

// Packs every regular file below `run_dir` (which must hold a readable report.json) into `out`
// (a name ending in .tar.zst). Errors name the file: a missing or unreadable report.json, a symbolic
// link or special file in the run, an output that exists (unless `overwrite`), a write failure
// (the partial output is removed).
[[nodiscard]] Result<PackageSummary> WritePackage(const std::string& run_dir, const std::string& out,
                                                  bool overwrite = false);

struct PackageCheck {
  std::string name;  // The package's top directory.
  int files = 0;     // Files the manifest lists.
  uint64_t bytes = 0;
  // Integrity: each entry names the file and what is wrong with it. Empty: the package is intact
  // (every listed file present with its size and SHA-256, nothing unlisted, SHA256SUMS and the
  // manifest's copy of report.json agreeing with report.json).
  std::vector<std::string> problems;
  // The claim, from the package's report.json.
  bool conformant = false;
  bool partial = false;
  bool incomplete = false;
  std::vector<std::string> partial_reasons;
  std::string suite_digest;
  std::string tool_version;  // The tool that ran the suite.
  std::string dut;           // The DUT's identity.
  int must_pass = 0, must_total = 0, total = 0;
};

// Reads the package at `path` once, hashing every file as it streams by (nothing but the manifest
// and report.json is held in memory). An error means it is not a readable package (not a zstd tar,
// no manifest.json, a manifest that is not one); a readable but altered package is a PackageCheck
// with problems.
[[nodiscard]] Result<PackageCheck> CheckPackage(const std::string& path);

}  // namespace mroce::campaign
