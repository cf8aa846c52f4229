// Test helpers shared by the CLI tests that read a run directory's report.json.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace mroce::cli::testing {

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// report.json without the fields that legitimately differ between runs (wall-clock times).
inline nlohmann::json Stable(const std::filesystem::path& dir) {
  nlohmann::json j = nlohmann::json::parse(Slurp(dir / "report.json"));
  j.erase("started_at");
  j.erase("finished_at");
  for (auto& t : j["tests"]) t.erase("duration_s");
  return j;
}

}  // namespace mroce::cli::testing
