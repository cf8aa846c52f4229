// The one grammar of durations, rates and sizes (quantity.h).
#include "mroce/impairment/quantity.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace mroce::impairment {
namespace {


std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// "12.5 us" -> 12.5 and "us". The number is digits with an optional fraction and exponent; no sign
// (a leading '-' sets *negative and fails, so that the caller can say so).
struct Split {
  double number = 0;
  std::string_view unit;
  bool negative = false;
};
bool SplitNumber(std::string_view text, Split* out) {
  std::string_view t = Trim(text);
  if (!t.empty() && t.front() == '-') {
    out->negative = true;
    return false;
  }
  size_t i = 0;
  bool digits = false;
  while (i < t.size() && IsDigit(t[i])) ++i, digits = true;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && IsDigit(t[i])) ++i, digits = true;
  }
  if (!digits) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    size_t j = i + 1;
    if (j < t.size() && (t[j] == '+' || t[j] == '-')) ++j;
    if (j < t.size() && IsDigit(t[j])) {
      while (j < t.size() && IsDigit(t[j])) ++j;
      i = j;
    }
  }
  auto [end, ec] = std::from_chars(t.data(), t.data() + i, out->number);
  if (ec != std::errc() || end != t.data() + i || !std::isfinite(out->number)) return false;
  out->unit = Trim(t.substr(i));
  return true;
}

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  return buf;
}

}  // namespace

int64_t DurationSpec::ToNanoseconds(int64_t rtt_ns) const {
  if (unit == Unit::kRtt) return static_cast<int64_t>(std::llround(value * static_cast<double>(rtt_ns)));
  return static_cast<int64_t>(std::llround(value));
}

std::string DurationSpec::ToString() const {
  if (unit == Unit::kRtt) return Number(value) + "rtt";
  struct Scale {
    double ns;
    const char* name;
  };
  static constexpr Scale kScales[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
  for (const Scale& s : kScales) {
    const double q = value / s.ns;
    if (value != 0 && std::fabs(q) >= 1 && std::fabs(q * 1000 - std::round(q * 1000)) < 1e-6) {
      return Number(q) + s.name;
    }
  }
  return Number(value) + "ns";
}

mroce::Result<DurationSpec> ParseDuration(std::string_view text) {
  Split s;
  if (!SplitNumber(text, &s)) {
    if (s.negative) return MakeError("duration", "a duration must not be negative, got " + Quoted(text));
    return MakeError("duration", "expected a duration such as 3rtt, 500ns, 10us, 1.5ms or 2s, got " + Quoted(text));
  }
  const std::string unit = Lower(s.unit);
  if (unit.empty()) {
    if (s.number == 0) return DurationSpec::Rtts(0);
    return MakeError("duration", Quoted(text) + " needs a unit (rtt, ns, us, ms or s), e.g. " + Number(s.number) +
                                     "rtt or " + Number(s.number) + "us: a bare number would be ambiguous");
  }
  if (unit == "rtt" || unit == "rtts") return DurationSpec::Rtts(s.number);
  struct Scale {
    const char* name;
    double ns;
  };
  static constexpr Scale kScales[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (const Scale& sc : kScales) {
    if (unit == sc.name) return DurationSpec::Nanoseconds(s.number * sc.ns);
  }
  return MakeError("duration", "unknown time unit " + Quoted(s.unit) + " in " + Quoted(text) + " (rtt, ns, us, ms, s)");
}

mroce::Result<sim::Bandwidth> ParseRate(std::string_view text) {
  Split s;
  if (!SplitNumber(text, &s)) {
    if (s.negative) return MakeError("rate", "a rate must be positive, got " + Quoted(text));
    return MakeError("rate", "expected a rate such as 100Gbps, 25G or 400Mbps, got " + Quoted(text));
  }
  std::string_view unit = s.unit;
  if (unit.empty()) {
    return MakeError("rate", Quoted(text) + " needs a unit (bps, Kbps, Mbps, Gbps or Tbps), e.g. " + Number(s.number) +
                                 "Gbps: a bare number would be ambiguous");
  }
  // Prefix, then "bps", "b/s" or nothing.
  double scale = 1;
  const char p = unit.front();
  if (p == 'k' || p == 'K') scale = 1e3;
  else if (p == 'm' || p == 'M') scale = 1e6;
  else if (p == 'g' || p == 'G') scale = 1e9;
  else if (p == 't' || p == 'T') scale = 1e12;
  std::string_view rest = scale == 1 ? unit : unit.substr(1);
  const bool bits = rest == "bps" || rest == "b/s";
  const bool bytes = rest == "Bps" || rest == "B/s";
  if (bytes) {
    return MakeError("rate", "rates are in bits per second: " + Quoted(text) + " would be bytes (write bps, Kbps, Mbps, Gbps, Tbps)");
  }
  if (!bits && !(scale != 1 && rest.empty())) {
    return MakeError("rate", "unknown rate unit " + Quoted(unit) + " in " + Quoted(text) + " (bps, Kbps, Mbps, Gbps, Tbps)");
  }
  const double bps = s.number * scale;
  if (!(bps >= 1)) return MakeError("rate", "a rate must be at least 1bps, got " + Quoted(text));
  if (bps > 9.0e18) return MakeError("rate", "rate " + Quoted(text) + " is too large");
  return sim::Bandwidth::BitsPerSecond(static_cast<int64_t>(std::llround(bps)));
}

mroce::Result<sim::ByteCount> ParseSize(std::string_view text) {
  Split s;
  if (!SplitNumber(text, &s)) {
    if (s.negative) return MakeError("size", "a size must not be negative, got " + Quoted(text));
    return MakeError("size", "expected a size such as 4096, 64B, 4KiB or 1MB, got " + Quoted(text));
  }
  struct Scale {
    const char* name;
    double bytes;
  };
  static constexpr Scale kScales[] = {{"", 1},      {"b", 1},        {"kb", 1e3},          {"mb", 1e6},
                                      {"gb", 1e9},  {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}};
  const std::string unit = Lower(s.unit);
  for (const Scale& sc : kScales) {
    if (unit != sc.name) continue;
    const double bytes = s.number * sc.bytes;
    if (bytes != std::floor(bytes) || bytes > 9.0e18) {
      return MakeError("size", "size " + Quoted(text) + " is not a whole number of bytes");
    }
    return static_cast<sim::ByteCount>(bytes);
  }
  return MakeError("size", "unknown size unit " + Quoted(s.unit) + " in " + Quoted(text) + " (B, KB, MB, GB, KiB, MiB, GiB)");
}

}  // namespace mroce::impairment
