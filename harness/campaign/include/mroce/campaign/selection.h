// Which cases a campaign runs: the suite's cases whose id matches a glob, then one shard of them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mroce/harness/case.h"

namespace mroce::campaign {

// Shard I of N (1-based): the cases at positions p (suite order, after the filter) with
// p % N == I - 1, so the N shards of a suite cover every case exactly once (`mroce-cts merge`
// joins their runs).
struct Shard {
  int index = 1;
  int count = 1;

  // "I/N" with 1 <= I <= N, both decimal; nullopt for anything else.
  [[nodiscard]] static std::optional<Shard> Parse(std::string_view text);
  [[nodiscard]] std::string ToString() const;  // "I/N"
  [[nodiscard]] bool Contains(size_t position) const {
    return position % static_cast<size_t>(count) == static_cast<size_t>(index - 1);
  }
  bool operator==(const Shard&) const = default;
};

// The cases of `suite` (in its order) whose id matches the glob `filter` (fnmatch; empty: every
// case), then those of them in `shard`.
[[nodiscard]] std::vector<const harness::Case*> SelectCases(const std::vector<harness::Case>& suite,
                                                           std::string_view filter, Shard shard = {});

}  // namespace mroce::campaign
