// PathSet: the connection's paths as a group: entropy allocation (distinct UDP source ports,
// deterministic from a seed) and the sprayer that picks the path for each new packet.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "mroce/endpoint/path.h"

namespace mroce::ref {

class PathSet {
 public:
  // `seed` makes entropy choices reproducible.
  // port_order 0 draws entropy at random from the seed; +1 / -1 hands out 49152 upward / 65535
  // downward in turn (variants entropy_sequential / entropy_descending). first_path: where the
  // sprayer's round-robin starts.
  PathSet(int num_paths, int num_planes, uint64_t seed, RttConfig rtt_config, int port_order = 0, int first_path = 0);

  [[nodiscard]] int size() const { return static_cast<int>(paths_.size()); }
  Path& operator[](int i) { return paths_[static_cast<size_t>(i)]; }
  const Path& operator[](int i) const { return paths_[static_cast<size_t>(i)]; }
  std::vector<Path>& paths() { return paths_; }

  // New entropy for `path`: differs from its previous value and every other path's current value
  // (MROCE-PATH-003).
  void Reroll(int path);

  // Sprayer: among paths for which `eligible(path)` holds, the one with the largest available
  // window (`available(path)` bytes), ties broken round-robin: new data goes to ACTIVE paths in
  // proportion to their free window (MROCE-PATH-023).
  std::optional<int> Pick(const std::function<bool(const Path&)>& eligible,
                          const std::function<int64_t(const Path&)>& available);

  [[nodiscard]] int CountInState(PathState s) const;

 private:
  uint16_t DrawPort();

  std::vector<Path> paths_;
  uint64_t rng_state_;
  int port_order_ = 0;
  uint16_t next_port_ = 0;  // port_order != 0: the next port in turn
  int rr_ = 0;
};

}  // namespace mroce::ref
