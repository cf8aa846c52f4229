// Case selection (see selection.h).
#include "mroce/campaign/selection.h"

#include <charconv>

#include "mroce/harness/expectations.h"

namespace mroce::campaign {
namespace {

// A decimal number filling all of `text`.
std::optional<int> ParseDecimal(std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Shard> Shard::Parse(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto index = ParseDecimal(text.substr(0, slash));
  const auto count = ParseDecimal(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *index < 1 || *index > *count) return std::nullopt;
  return Shard{*index, *count};
}

std::string Shard::ToString() const { return std::to_string(index) + "/" + std::to_string(count); }

std::vector<const harness::Case*> SelectCases(const std::vector<harness::Case>& suite, std::string_view filter,
                                              Shard shard) {
  std::vector<const harness::Case*> selected;
  size_t position = 0;
  for (const harness::Case& c : suite) {
    if (!filter.empty() && !harness::GlobMatch(filter, c.id)) continue;
    if (shard.Contains(position++)) selected.push_back(&c);
  }
  return selected;
}

}  // namespace mroce::campaign
