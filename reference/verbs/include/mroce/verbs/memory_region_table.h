// MemoryRegionTable: registered memory, resolved by (key, va, length, access) with bounds and
// permission checks before any byte is read or placed. One implementation for both endpoints (the
// MetaRoCE reference and the RoCEv2 baseline): the verbs-level objects are the same in both. The VA a region exposes is never the host pointer:
// it comes from a per-table counter (or the caller), so packets are byte-identical between runs
// whatever the allocator and ASLR do; the table maps VA -> host pointer internally.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mroce/sim/result.h"

namespace mroce::verbs {

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
  // Automatic VAs: the first region starts here; each next one starts at the previous region's
  // end rounded up to 4 KiB plus a 4 KiB unmapped gap (so an off-by-one never lands in a neighbour).
  static constexpr uint64_t kFirstAutoVa = 0x10000000;
  static constexpr uint64_t kVaAlign = 4096;

  // Register [buffer, buffer+length) at virtual address `va` (0 = next automatic VA). Fails when
  // the table is full, length is 0, or [va, va+length) overflows or overlaps a live region.
  Result<MemoryRegion> Register(uint8_t* buffer, uint64_t length, uint32_t access, uint64_t va = 0);
  Status Deregister(uint32_t rkey);

  // Resolve an access through `rkey` (an rkey or an lkey: they are equal): the key must exist, carry
  // `access`, and (unless skip_bounds)
  // [va, va+length) must lie inside the region without 64-bit overflow (MROCE-PLACE-001). Returns
  // the host pointer of va.
  [[nodiscard]] Result<uint8_t*> Resolve(uint32_t rkey, uint64_t va, uint64_t length, uint32_t access,
                                         bool skip_bounds = false) const;

  [[nodiscard]] size_t size() const { return live_; }
  [[nodiscard]] size_t StateBytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    MemoryRegion mr;
    uint8_t* base = nullptr;
    uint32_t generation = 0;  // bumps on reuse so a stale rkey of a freed slot never matches
    bool live = false;
  };
  std::vector<Slot> slots_;
  size_t live_ = 0;
  uint64_t next_auto_va_ = kFirstAutoVa;
};

}  // namespace mroce::verbs
