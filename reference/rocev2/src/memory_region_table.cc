#include "mroce/rocev2/memory_region_table.h"

#include <string>

namespace mroce::rocev2 {

// key = generation << 12 | slot index (12 bits: kMaxRegions = 4096); generation starts at 1 so key 0
// is never valid.
namespace {
constexpr uint32_t kIndexBits = 12;
constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
}  // namespace

Result<MemoryRegion> MemoryRegionTable::Register(uint8_t* buffer, uint64_t length, uint32_t access) {
  if (buffer == nullptr || length == 0) return MakeError("mr.invalid", "empty memory region");
  size_t index = slots_.size();
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i].live) {
      index = i;
      break;
    }
  }
  if (index == slots_.size()) {
    if (slots_.size() >= kMaxRegions) {
      return MakeError("limit.memory_regions",
                       "memory region table full (" + std::to_string(kMaxRegions) + ")");
    }
    slots_.emplace_back();
  }
  Slot& s = slots_[index];
  s.generation = (s.generation + 1) & ((1u << (32 - kIndexBits)) - 1);
  if (s.generation == 0) s.generation = 1;
  s.live = true;
  s.base = buffer;
  // Never the host pointer (ASLR would make every run's packets differ): VAs come from a counter,
  // each region at the previous one's end rounded up to 4 KiB plus a 4 KiB gap.
  s.mr.va = next_auto_va_;
  next_auto_va_ = (s.mr.va + length + kVaAlign - 1) / kVaAlign * kVaAlign + kVaAlign;
  s.mr.rkey = s.generation << kIndexBits | static_cast<uint32_t>(index);
  s.mr.lkey = s.mr.rkey;
  s.mr.length = length;
  s.mr.access = access;
  ++live_;
  return s.mr;
}

Status MemoryRegionTable::Deregister(uint32_t key) {
  const size_t index = key & kIndexMask;
  if (index >= slots_.size() || !slots_[index].live || slots_[index].mr.rkey != key) {
    return MakeError("mr.unknown", "no memory region with key " + std::to_string(key));
  }
  slots_[index].live = false;
  --live_;
  return OkStatus();
}

Result<uint8_t*> MemoryRegionTable::Resolve(uint32_t key, uint64_t va, uint64_t length,
                                            uint32_t access) const {
  const size_t index = key & kIndexMask;
  if (index >= slots_.size() || !slots_[index].live || slots_[index].mr.rkey != key) {
    return MakeError("access.key", "unknown key " + std::to_string(key));
  }
  const Slot& s = slots_[index];
  if ((s.mr.access & access) != access) {
    return MakeError("access.permission", "key " + std::to_string(key) + " lacks access bits " +
                                              std::to_string(access & ~s.mr.access));
  }
  // Overflow-safe: va >= start, length <= region, va - start <= region - length.
  if (va < s.mr.va || length > s.mr.length || va - s.mr.va > s.mr.length - length) {
    return MakeError("access.bounds", "range [" + std::to_string(va) + ", +" + std::to_string(length) +
                                          ") outside region of key " + std::to_string(key));
  }
  return s.base + (va - s.mr.va);
}

}  // namespace mroce::rocev2
