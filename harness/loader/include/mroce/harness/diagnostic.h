// Diagnostics of the loaders: where (file:line:column), which key, what is wrong.
#pragma once

#include <string>
#include <vector>

#include "mroce/harness/case.h"

namespace mroce::harness {

struct Diagnostic {
  SourceLocation where;
  std::string key;       // Key path: "impairments[1].schedule.at"; empty for the whole file.
  std::string message;
  // "cases/a.yaml:12:7: impairments[1].schedule.at: expected a duration such as 3rtt or 10us"
  [[nodiscard]] std::string ToString() const;
};

// The value of a load, plus every problem found (the value is unusable when errors is non-empty).
template <class T>
struct LoadResult {
  T value{};
  std::vector<Diagnostic> errors;
  [[nodiscard]] bool ok() const { return errors.empty(); }
  // One diagnostic per line.
  [[nodiscard]] std::string ErrorText() const {
    std::string out;
    for (const Diagnostic& d : errors) out += d.ToString() + "\n";
    return out;
  }
};

}  // namespace mroce::harness
