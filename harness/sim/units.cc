#include "mroce/sim/units.h"

#include <cstdio>

namespace mroce::sim {

std::string Duration::ToString() const {
  if (IsInfinite()) return "inf";
  char buf[48];
  const int64_t a = ns_ < 0 ? -ns_ : ns_;
  if (a >= 1000'000'000) std::snprintf(buf, sizeof buf, "%.6fs", seconds());
  else if (a >= 1000'000) std::snprintf(buf, sizeof buf, "%.3fms", static_cast<double>(ns_) * 1e-6);
  else if (a >= 1000) std::snprintf(buf, sizeof buf, "%.3fus", micros());
  else std::snprintf(buf, sizeof buf, "%lldns", static_cast<long long>(ns_));
  return buf;
}

std::string Time::ToString() const {
  if (IsInfinite()) return "t=inf";
  return "t=" + Duration::Nanos(ns_).ToString();
}

std::string Bandwidth::ToString() const {
  char buf[48];
  if (bps_ >= 1000'000'000) std::snprintf(buf, sizeof buf, "%gGb/s", static_cast<double>(bps_) * 1e-9);
  else if (bps_ >= 1000'000) std::snprintf(buf, sizeof buf, "%gMb/s", static_cast<double>(bps_) * 1e-6);
  else std::snprintf(buf, sizeof buf, "%lldb/s", static_cast<long long>(bps_));
  return buf;
}

}  // namespace mroce::sim
