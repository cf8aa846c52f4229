// DigestSuite (see suite_digest.h).
#include "mroce/campaign/suite_digest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "mroce/campaign/sha256.h"
#include "mroce/harness/case_loader.h"

namespace mroce::campaign {
namespace {

namespace fs = std::filesystem;

Result<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError("suite.digest", path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void AddEntry(Sha256& h, std::string_view header, std::string_view bytes) {
  h.Update(header);
  h.Update("\n" + std::to_string(bytes.size()) + "\n");
  h.Update(bytes);
  h.Update("\n");
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.HexDigest();
}

Result<SuiteDigest> DigestSuite(const std::string& suite, const std::string& catalog_path) {
  auto files = harness::ListCaseFiles(suite);
  if (!files.ok()) return files.error();
  std::error_code ec;
  const bool one_file = !fs::is_directory(suite, ec);
  // Names relative to the suite, '/'-separated, sorted by that name (not by the absolute path).
  std::vector<std::pair<std::string, std::string>> named;
  for (const std::string& f : files.value()) {
    const std::string name =
        one_file ? fs::path(f).filename().generic_string() : fs::path(f).lexically_relative(suite).generic_string();
    named.emplace_back(name, f);
  }
  std::sort(named.begin(), named.end());
  Sha256 h;
  SuiteDigest out;
  for (const auto& [name, path] : named) {
    auto bytes = ReadAll(path);
    if (!bytes.ok()) return bytes.error();
    AddEntry(h, "case " + name, bytes.value());
    ++out.case_files;
  }
  if (!catalog_path.empty()) {
    auto bytes = ReadAll(catalog_path);
    if (!bytes.ok()) return bytes.error();
    AddEntry(h, "catalog", bytes.value());
    out.catalog = true;
  }
  out.sha256 = "sha256:" + h.HexDigest();
  return out;
}

}  // namespace mroce::campaign
