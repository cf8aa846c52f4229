// Counter-based random numbers keyed by (run seed, component id, draw index).
//
// Draw i of component c in run s is a pure function hash(s, c, i) (SplitMix64 finaliser over a
// keyed counter), so one component's draws never depend on how other components' events
// interleave, on burst sizes or on threads. Each stage/queue owns one stream by component id.
#ifndef MROCE_SIM_RNG_H_
#define MROCE_SIM_RNG_H_

#include <cstdint>
#include <string_view>

namespace mroce::sim {

// Stable 64-bit id for a named component ("loss@host0.egress"): FNV-1a 64 of the name.
[[nodiscard]] constexpr uint64_t ComponentId(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// SplitMix64 finaliser (Stafford variant 13): a bijective 64-bit mixer.
[[nodiscard]] constexpr uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng() : Rng(0, 0) {}
  Rng(uint64_t run_seed, uint64_t component_id)
      : seed_(run_seed), component_(component_id),
        key_(Mix64(Mix64(run_seed + 0x9e3779b97f4a7c15ULL) ^ (component_id * 0xd1342543de82ef95ULL + 1))) {}

  // The draw with index `index`, without advancing (pure function of seed, component, index).
  [[nodiscard]] uint64_t At(uint64_t index) const { return Mix64(key_ + (index + 1) * 0x9e3779b97f4a7c15ULL); }
  // Next raw 64-bit draw; advances the draw index by one.
  uint64_t NextU64() { return At(index_++); }
  // Uniform in [0, 1) with 53 bits of precision.
  double Uniform01() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  // Uniform in [lo, hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform01(); }
  // Uniform integer in [lo, hi] (inclusive); Lemire's multiply-shift (bias < 2^-64 * range).
  uint64_t UniformInt(uint64_t lo, uint64_t hi);
  // True with probability p (p <= 0: never draws true, p >= 1: always true; one draw either way).
  // Exactly Uniform01() < p, compared as integers: Uniform01() is x * 2^-53 for the integer
  // x = NextU64() >> 11, both sides scale by 2^53 without rounding, and for an integer x,
  // x < t <=> x < ceil(t). (Saves the int-to-double conversion on the draw's critical path.)
  bool Bernoulli(double p) { return BernoulliBelow(BernoulliThreshold(p)); }
  // Bernoulli(p) given BernoulliThreshold(p), for callers that draw with one p many times.
  bool BernoulliBelow(uint64_t threshold) { return (NextU64() >> 11) < threshold; }
  // BernoulliBelow as the draw with index `index`, not advancing: for a hot loop that keeps the
  // index in a local (a register, also across calls the loop makes) and set_index()es it back.
  [[nodiscard]] bool BernoulliBelowAt(uint64_t index, uint64_t threshold) const { return (At(index) >> 11) < threshold; }
  // ceil(p * 2^53), clamped to [0, 2^53] (NaN: 0, never true, as Uniform01() < NaN).
  [[nodiscard]] static uint64_t BernoulliThreshold(double p) {
    if (!(p > 0.0)) return 0;
    if (p >= 1.0) return uint64_t{1} << 53;
    const double t = p * 0x1.0p53;
    const auto floor_t = static_cast<uint64_t>(t);
    return floor_t + (static_cast<double>(floor_t) < t ? 1 : 0);
  }
  // Exponential with the given mean.
  double Exponential(double mean);
  // Normal (Box-Muller; two draws per value, no cached state so a draw is a function of its index).
  double Normal(double mean, double stddev);
  // Pareto type I: scale x_m > 0 (minimum value), shape alpha > 0. Mean = alpha*x_m/(alpha-1).
  double Pareto(double scale, double shape);

  [[nodiscard]] uint64_t seed() const { return seed_; }
  [[nodiscard]] uint64_t component() const { return component_; }
  // Number of draws taken so far (for record and replay).
  [[nodiscard]] uint64_t index() const { return index_; }
  void set_index(uint64_t index) { index_ = index; }

 private:
  uint64_t seed_;
  uint64_t component_;
  uint64_t key_;
  uint64_t index_ = 0;
};

// Seeds a case derives from its run seed, one function per use, so that every runner (end-to-end,
// scripted, benchmarks) gives a part the same seed and no file keeps its own copy of the mixing.
namespace seeds {

// One SplitMix64 step: the finaliser over x plus the golden gamma.
[[nodiscard]] constexpr uint64_t SplitMix(uint64_t x) { return Mix64(x + 0x9e3779b97f4a7c15ULL); }
// The fabric's ECMP hash key.
[[nodiscard]] constexpr uint32_t Ecmp(uint64_t run_seed) { return static_cast<uint32_t>(SplitMix(run_seed)); }
// The seed handed to the device at `host` (HostConfig::seed).
[[nodiscard]] constexpr uint64_t Host(uint64_t run_seed, int host) {
  return SplitMix(run_seed * 1000003ULL + static_cast<uint64_t>(host));
}
// Start state of the byte pattern of workload message `message` (a function of seed and message
// only, so a misplaced packet shows in the read-back).
[[nodiscard]] constexpr uint64_t MessagePattern(uint64_t run_seed, uint64_t message) {
  return SplitMix(run_seed ^ SplitMix(message + 1));
}
// Start state of the scripted peer's DUT buffer contents.
[[nodiscard]] constexpr uint64_t ScriptBuffer(uint64_t run_seed) { return SplitMix(run_seed ^ 0x5c21); }

// Fills `size` bytes from a pattern state: each 8 bytes are the next SplitMix step, little endian.
constexpr void FillPattern(uint8_t* out, uint64_t size, uint64_t state) {
  for (uint64_t i = 0; i < size; i += 8) {
    state = SplitMix(state);
    for (uint64_t b = 0; b < 8 && i + b < size; ++b) out[i + b] = static_cast<uint8_t>(state >> (8 * b));
  }
}

}  // namespace seeds

}  // namespace mroce::sim

#endif  // MROCE_SIM_RNG_H_
