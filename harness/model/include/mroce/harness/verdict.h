// Verdicts and requirement levels: the vocabulary every check, test result and report shares.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace mroce::harness {

// Outcome of a check or a test case.
//   pass          the DUT did what the clause asks
//   fail          the DUT violated the clause (the evidence says how)
//   inconclusive  the run could not show either (e.g. the impairment never hit the case's target)
//   error         harness or infrastructure fault: says nothing about the DUT
//   skip          the DUT lacks a capability the case requires
enum class Verdict { kPass, kFail, kInconclusive, kError, kSkip };

inline constexpr Verdict kAllVerdicts[] = {Verdict::kPass, Verdict::kFail, Verdict::kInconclusive,
                                           Verdict::kError, Verdict::kSkip};

// "pass", "fail", "inconclusive", "error", "skip".
[[nodiscard]] std::string_view ToString(Verdict v);
[[nodiscard]] std::optional<Verdict> ParseVerdict(std::string_view s);

// Combines two verdicts with precedence error > fail > inconclusive > pass > skip: skip is the
// identity, so a combination is skip only when every input is skip.
[[nodiscard]] Verdict Combine(Verdict a, Verdict b);
// Combination of all; skip for an empty list.
[[nodiscard]] Verdict Combine(std::span<const Verdict> verdicts);

// True for verdicts that gate: fail, inconclusive, error.
[[nodiscard]] inline bool IsBad(Verdict v) {
  return v == Verdict::kFail || v == Verdict::kInconclusive || v == Verdict::kError;
}

// Requirement level of a spec clause (RFC 2119).
enum class Level { kMust, kShould, kMay };

// "MUST", "SHOULD", "MAY".
[[nodiscard]] std::string_view ToString(Level l);
[[nodiscard]] std::optional<Level> ParseLevel(std::string_view s);
// The stronger of two levels (MUST > SHOULD > MAY).
[[nodiscard]] Level Strongest(Level a, Level b);

}  // namespace mroce::harness
