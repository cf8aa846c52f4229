// MemoryRegionTable: registered memory of one RoCEv2 endpoint, resolved by (key, va, length, access)
// with bounds and permission checks before any byte is read or placed.
#pragma once

#include <cstdint>
#include <vector>

#include "mroce/rocev2/types.h"

namespace mroce::rocev2 {

enum AccessFlags : uint32_t {
  kAccessLocalWrite = 1u << 0,
  kAccessRemoteWrite = 1u << 1,
  kAccessRemoteRead = 1u << 2,
};

struct MemoryRegion {
  uint64_t va = 0;      // virtual address the peer uses (deterministic, not the host pointer)
  uint32_t rkey = 0;
  uint32_t lkey = 0;    // equals rkey here
  uint64_t length = 0;  // bytes
  uint32_t access = 0;  // AccessFlags
};

class MemoryRegionTable {
 public:
  static constexpr size_t kMaxRegions = 4096;
  static constexpr uint64_t kFirstAutoVa = 0x10000000;
  static constexpr uint64_t kVaAlign = 4096;

  // Registers [buffer, buffer+length). Fails when the table is full or length is 0.
  Result<MemoryRegion> Register(uint8_t* buffer, uint64_t length, uint32_t access);
  Status Deregister(uint32_t key);

  // Resolves an access through `key` (rkey or lkey): the key must exist and carry `access`, and
  // [va, va+length) must lie inside the region. Returns the host pointer of va.
  [[nodiscard]] Result<uint8_t*> Resolve(uint32_t key, uint64_t va, uint64_t length,
                                         uint32_t access) const;

  [[nodiscard]] size_t size() const { return live_; }
  // Bytes of table state (not of the registered buffers).
  [[nodiscard]] size_t StateBytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    MemoryRegion mr;
    uint8_t* base = nullptr;
    uint32_t generation = 0;  // bumps on reuse so a stale key of a freed slot never matches
    bool live = false;
  };
  std::vector<Slot> slots_;
  size_t live_ = 0;
  uint64_t next_auto_va_ = kFirstAutoVa;
};

}  // namespace mroce::rocev2
