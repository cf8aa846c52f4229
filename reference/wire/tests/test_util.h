// Test helpers for mroce_wire: seeded random packet generators and vector file loading.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mroce/wire/wire.h"

namespace mroce::wire::testing {

// Seed for random tests: $MROCE_TEST_SEED if set, else a fixed default. Tests print it on failure.
uint64_t TestSeed();

class RandomPackets {
 public:
  explicit RandomPackets(uint64_t seed) : rng_(seed) {}
  uint64_t Bits(unsigned n);  // uniform in [0, 2^n)
  std::vector<uint8_t> Payload(size_t max_len);
  Opcode KnownOpcode();
  MetaPacket Meta(bool reserved_nonzero);  // random known-opcode packet, computed fields filled
  RocePacket Roce();                       // RC opcode, consistent extension headers
  Frame AnyFrame();                        // Meta, RoCE or raw, IPv4 or IPv6, maybe VLAN/padding
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

struct Vector {
  std::string file;
  int line = 0;
  std::string comment;  // the "# ..." line before it
  std::vector<uint8_t> bytes;
};
// All frames of tests/vectors/*.hex.
std::vector<Vector> LoadVectors();

}  // namespace mroce::wire::testing
