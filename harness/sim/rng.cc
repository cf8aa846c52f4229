#include "mroce/sim/rng.h"

#include <cmath>
#include <numbers>

namespace mroce::sim {

uint64_t Rng::UniformInt(uint64_t lo, uint64_t hi) {
  const uint64_t range = hi - lo + 1;
  if (range == 0) return NextU64();  // Full 64-bit range.
  const unsigned __int128 m = static_cast<unsigned __int128>(NextU64()) * range;
  return lo + static_cast<uint64_t>(m >> 64);
}

double Rng::Exponential(double mean) {
  // 1 - U is in (0, 1], so the log is finite.
  return -mean * std::log(1.0 - Uniform01());
}

double Rng::Normal(double mean, double stddev) {
  const double u1 = 1.0 - Uniform01();  // (0, 1]
  const double u2 = Uniform01();
  const double r = std::sqrt(-2.0 * std::log(u1));
  return mean + stddev * r * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::Pareto(double scale, double shape) {
  const double u = 1.0 - Uniform01();  // (0, 1]
  return scale / std::pow(u, 1.0 / shape);
}

}  // namespace mroce::sim
