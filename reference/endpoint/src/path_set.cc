#include "mroce/endpoint/path_set.h"

namespace mroce::ref {
namespace {
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

PathSet::PathSet(int num_paths, int num_planes, uint64_t seed, RttConfig rtt_config, int port_order, int first_path)
    : rng_state_(seed), port_order_(port_order), next_port_(port_order < 0 ? 65535 : 49152), rr_(first_path % num_paths) {
  paths_.reserve(static_cast<size_t>(num_paths));
  for (int p = 0; p < num_paths; ++p) {
    paths_.emplace_back(static_cast<uint8_t>(p), static_cast<uint8_t>(p % num_planes), rtt_config);
  }
  for (int p = 0; p < num_paths; ++p) Reroll(p);
  for (Path& p : paths_) p.counters.Set(PathCounter::kEntropyRerolls, 0);  // initial choice is no re-roll
}

uint16_t PathSet::DrawPort() {
  if (port_order_ != 0) {
    const uint16_t port = next_port_;
    next_port_ = static_cast<uint16_t>(49152 + (next_port_ - 49152 + 16384 + port_order_) % 16384);
    return port;
  }
  return static_cast<uint16_t>(49152 + SplitMix64(rng_state_) % 16384);
}

void PathSet::Reroll(int path) {
  Path& target = paths_[static_cast<size_t>(path)];
  for (;;) {
    const uint16_t port = DrawPort();
    if (port == target.entropy) continue;
    bool taken = false;
    for (const Path& other : paths_) taken |= (&other != &target && other.entropy == port);
    if (taken) continue;
    target.entropy = port;
    target.counters.Add(PathCounter::kEntropyRerolls);
    return;
  }
}

std::optional<int> PathSet::Pick(const std::function<bool(const Path&)>& eligible,
                                 const std::function<int64_t(const Path&)>& available) {
  std::optional<int> best;
  int64_t best_avail = 0;
  const int n = size();
  for (int k = 0; k < n; ++k) {
    const int p = (rr_ + k) % n;
    const Path& path = paths_[static_cast<size_t>(p)];
    if (!eligible(path)) continue;
    const int64_t avail = available(path);
    if (!best || avail > best_avail) {
      best = p;
      best_avail = avail;
    }
  }
  if (best) rr_ = (*best + 1) % n;
  return best;
}

int PathSet::CountInState(PathState s) const {
  int n = 0;
  for (const Path& p : paths_) n += p.state() == s;
  return n;
}

}  // namespace mroce::ref
