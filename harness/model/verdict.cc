#include "mroce/harness/verdict.h"

namespace mroce::harness {
namespace {

// Higher wins when combining.
int Rank(Verdict v) {
  switch (v) {
    case Verdict::kSkip: return 0;
    case Verdict::kPass: return 1;
    case Verdict::kInconclusive: return 2;
    case Verdict::kFail: return 3;
    case Verdict::kError: return 4;
  }
  return 4;
}

}  // namespace

std::string_view ToString(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kError: return "error";
    case Verdict::kSkip: return "skip";
  }
  return "error";
}

std::optional<Verdict> ParseVerdict(std::string_view s) {
  for (Verdict v : kAllVerdicts) {
    if (ToString(v) == s) return v;
  }
  return std::nullopt;
}

Verdict Combine(Verdict a, Verdict b) { return Rank(a) >= Rank(b) ? a : b; }

Verdict Combine(std::span<const Verdict> verdicts) {
  Verdict out = Verdict::kSkip;
  for (Verdict v : verdicts) out = Combine(out, v);
  return out;
}

std::string_view ToString(Level l) {
  switch (l) {
    case Level::kMust: return "MUST";
    case Level::kShould: return "SHOULD";
    case Level::kMay: return "MAY";
  }
  return "MAY";
}

std::optional<Level> ParseLevel(std::string_view s) {
  if (s == "MUST") return Level::kMust;
  if (s == "SHOULD") return Level::kShould;
  if (s == "MAY") return Level::kMay;
  return std::nullopt;
}

Level Strongest(Level a, Level b) { return static_cast<int>(a) <= static_cast<int>(b) ? a : b; }

}  // namespace mroce::harness
