#include "cli_common.h"

#include <cstdlib>
#include <filesystem>

namespace mroce::cli {

namespace fs = std::filesystem;

std::string DefaultSuite() {
  if (const char* env = std::getenv("MROCE_SUITE"); env != nullptr && *env != '\0') return env;
  return MROCE_DEFAULT_SUITE;
}

bool IsBundledSuite(const std::string& suite) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(suite, ec);
  if (ec) return false;
  const fs::path b = fs::weakly_canonical(MROCE_DEFAULT_SUITE, ec);
  return !ec && a == b;
}

namespace {
std::string g_argv0;
}  // namespace

void SetProgramPath(const char* argv0) { g_argv0 = argv0 == nullptr ? "" : argv0; }

std::string ProgramForCommands() {
  // Found on PATH (no '/' in argv[0]): the same name finds it again.
  if (g_argv0.empty() || g_argv0.find('/') == std::string::npos) return "mroce-cts";
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) exe = fs::absolute(g_argv0, ec);
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    const fs::path rel = exe.lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") {
      const std::string r = rel.generic_string();
      return r.find('/') == std::string::npos ? "./" + r : r;  // a bare name would be looked up on PATH
    }
  }
  return exe.string();
}

std::string ShellQuote(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                             "0123456789_./:=+,@%-") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string FindCatalog(const std::string& flag, const std::string& suite) {
  if (!flag.empty()) return flag;
  if (std::string near = campaign::FindCatalogNear(suite); !near.empty()) return near;
  std::error_code ec;
  if (fs::is_regular_file(MROCE_DEFAULT_CATALOG, ec)) return fs::path(MROCE_DEFAULT_CATALOG).lexically_normal().string();
  return "";
}

std::optional<campaign::Suite> LoadSuite(const std::string& path, const std::string& catalog_flag, std::ostream& err) {
  auto suite = campaign::LoadSuite(path, FindCatalog(catalog_flag, path));
  if (!suite.ok()) {
    err << suite.error().message;
    return std::nullopt;
  }
  return std::move(suite).value();
}

std::optional<std::vector<harness::Case>> LoadSuite(const std::string& path, const std::string& catalog_flag,
                                                    harness::Catalog* catalog, std::ostream& err) {
  auto suite = LoadSuite(path, catalog_flag, err);
  if (!suite) return std::nullopt;
  *catalog = std::move(suite->catalog);
  return std::move(suite->cases);
}

}  // namespace mroce::cli
