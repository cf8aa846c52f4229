#include "mroce/verbs/memory_region_table.h"

#include <string>

namespace mroce::verbs {

// rkey = generation << 12 | slot index (12 bits: kMaxRegions = 4096); generation starts at 1 so
// rkey 0 is never valid.
namespace {
constexpr uint32_t kIndexBits = 12;
constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
}  // namespace

Result<MemoryRegion> MemoryRegionTable::Register(uint8_t* buffer, uint64_t length, uint32_t access,
                                                 uint64_t va) {
  if (buffer == nullptr || length == 0) return MakeError("mr.invalid", "empty memory region");
  const bool auto_va = va == 0;
  if (auto_va) va = next_auto_va_;
  if (va + length < va) return MakeError("mr.va", "region [va, va+length) overflows 64 bits");
  for (const Slot& other : slots_) {
    if (other.live && va < other.mr.va + other.mr.length && other.mr.va < va + length) {
      return MakeError("mr.va", "region overlaps the region of rkey " + std::to_string(other.mr.rkey));
    }
  }
  size_t index = slots_.size();
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i].live) {
      index = i;
      break;
    }
  }
  if (index == slots_.size()) {
    if (slots_.size() >= kMaxRegions) {
      return MakeError("limit.memory_regions", "memory region table full (" + std::to_string(kMaxRegions) + ")");
    }
    slots_.emplace_back();
  }
  Slot& s = slots_[index];
  s.generation = (s.generation + 1) & ((1u << (32 - kIndexBits)) - 1);
  if (s.generation == 0) s.generation = 1;
  s.live = true;
  s.base = buffer;
  s.mr.va = va;
  if (auto_va) {
    const uint64_t end = (va + length + kVaAlign - 1) / kVaAlign * kVaAlign;
    next_auto_va_ = end + kVaAlign;
  }
  s.mr.rkey = s.generation << kIndexBits | static_cast<uint32_t>(index);
  s.mr.lkey = s.mr.rkey;
  s.mr.length = length;
  s.mr.access = access;
  ++live_;
  return s.mr;
}

Status MemoryRegionTable::Deregister(uint32_t rkey) {
  const size_t index = rkey & kIndexMask;
  if (index >= slots_.size() || !slots_[index].live || slots_[index].mr.rkey != rkey) {
    return MakeError("mr.unknown", "no memory region with rkey " + std::to_string(rkey));
  }
  slots_[index].live = false;
  --live_;
  return OkStatus();
}

Result<uint8_t*> MemoryRegionTable::Resolve(uint32_t rkey, uint64_t va, uint64_t length, uint32_t access,
                                            bool skip_bounds) const {
  const size_t index = rkey & kIndexMask;
  if (index >= slots_.size() || !slots_[index].live || slots_[index].mr.rkey != rkey) {
    return MakeError("access.rkey", "unknown rkey " + std::to_string(rkey));
  }
  const Slot& s = slots_[index];
  if ((s.mr.access & access) != access) {
    return MakeError("access.permission", "rkey " + std::to_string(rkey) + " lacks access bits " +
                                              std::to_string(access & ~s.mr.access));
  }
  if (!skip_bounds) {
    // Overflow-safe: va >= start, length <= region, va - start <= region - length.
    if (va < s.mr.va || length > s.mr.length || va - s.mr.va > s.mr.length - length) {
      return MakeError("access.bounds", "range [" + std::to_string(va) + ", +" + std::to_string(length) +
                                            ") outside region of rkey " + std::to_string(rkey));
    }
  }
  return s.base + (va - s.mr.va);
}

}  // namespace mroce::verbs
