// The packet that moves through the fabric: real frame bytes plus simulation metadata and fate log.
#ifndef MROCE_IMPAIRMENT_PACKET_H_
#define MROCE_IMPAIRMENT_PACKET_H_

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mroce/sim/units.h"

namespace mroce::impairment {

using sim::Duration;
using sim::Time;

// Which way a frame travels between the device under test and its peer.
enum class Direction : uint8_t { kDutToPeer = 0, kPeerToDut = 1 };
[[nodiscard]] const char* DirectionName(Direction d);

// What happened to a packet at one stage/queue. A packet's fate log lists these in order.
enum class FateKind : uint8_t {
  kDropped,     // Removed (loss, targeted drop, blackhole, queue overflow, no route).
  kMarked,      // ECN CE set.
  kDuplicated,  // This packet was duplicated (on the original) / is a duplicate (on the copy).
  kCorrupted,   // One bit flipped; detail = bit offset from the start of the frame.
  kDelayed,     // Held for extra time; detail = nanoseconds (saturating at 2^32-1).
  kReordered,   // Held back by a reorder stage; detail = displacement in packets.
  kRateLimited, // Queued behind a rate limiter; detail = queueing delay in ns (saturating).
};
[[nodiscard]] const char* FateKindName(FateKind k);

struct FateNote {
  const char* stage;  // Name of the stage/queue (owned by it; outlives the run's trace).
  FateKind kind;
  uint32_t detail;
  int64_t time_ns;
};

// The inline fate log of a packet: the first kCapacity notes (no allocation), later ones counted.
// Only the first size() entries are read or copied; the storage past them is left unset on purpose
// (the DPDK bridge builds a Packet per frame, and zeroing 144 bytes each time showed in profiles).
class FateLog {
 public:
  static constexpr int kCapacity = 6;
  FateLog() {}  // NOLINT(modernize-use-equals-default): `= default` would not leave notes_ unset.
  FateLog(const FateLog& o) : size_(o.size_), dropped_(o.dropped_) { std::copy_n(o.notes_, size_, notes_); }
  FateLog& operator=(const FateLog& o) {
    size_ = o.size_;
    dropped_ = o.dropped_;
    std::copy_n(o.notes_, size_, notes_);
    return *this;
  }
  void Add(const FateNote& n) {
    if (size_ < kCapacity) notes_[size_++] = n;
    else if (dropped_ < 255) ++dropped_;
  }
  void Clear() { size_ = dropped_ = 0; }
  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  // Notes that did not fit (saturating at 255).
  [[nodiscard]] int dropped() const { return dropped_; }
  const FateNote& operator[](int i) const { return notes_[i]; }
  [[nodiscard]] const FateNote* begin() const { return notes_; }
  [[nodiscard]] const FateNote* end() const { return notes_ + size_; }

 private:
  uint8_t size_ = 0;
  uint8_t dropped_ = 0;
  FateNote notes_[kCapacity];
};

// The frame bytes of a Packet: owned (a byte vector), borrowed (Borrow: a driver's buffer, such
// as the rte_mbuf a frame arrived in, which the driver keeps alive and unchanged while the packet
// lives) or deferred (Defer: the driver's handle and a function that borrows or copies the bytes
// on first use, so a packet no stage reads never has its buffer touched). Reads and in-place edits
// (a CE mark, a flipped bit) go to whichever it is, so a stage edits a borrowed frame where it
// lies; anything that changes the size, and every copy, owns. Every accessor (const ones too)
// resolves a deferred frame first.
class FrameBytes {
 public:
  using value_type = uint8_t;
  using iterator = uint8_t*;
  using const_iterator = const uint8_t*;
  // Makes `bytes` (deferred, nothing else set) borrow or own the frame behind `handle`.
  using Resolver = void (*)(void* handle, FrameBytes* bytes);

  FrameBytes() = default;
  FrameBytes(std::vector<uint8_t> v) : owned_(std::move(v)) {}  // NOLINT(google-explicit-constructor)
  FrameBytes(std::initializer_list<uint8_t> v) : owned_(v) {}
  FrameBytes(const FrameBytes& o) : owned_(o.begin(), o.end()) {}  // A copy owns its bytes.
  FrameBytes(FrameBytes&& o) noexcept
      : owned_(std::move(o.owned_)), ext_(o.ext_), ext_size_(o.ext_size_), resolver_(o.resolver_) {
    o.ext_ = nullptr;
    o.resolver_ = nullptr;
  }
  FrameBytes& operator=(const FrameBytes& o) {
    if (this != &o) {
      const uint8_t* first = o.begin();  // Resolves o first.
      owned_.assign(first, first + o.size());  // Reuses this buffer's capacity.
      ext_ = nullptr;
      resolver_ = nullptr;
    }
    return *this;
  }
  FrameBytes& operator=(FrameBytes&& o) noexcept {
    if (this == &o) return *this;
    owned_ = std::move(o.owned_);
    ext_ = o.ext_;
    ext_size_ = o.ext_size_;
    resolver_ = o.resolver_;
    o.ext_ = nullptr;
    o.resolver_ = nullptr;
    return *this;
  }
  FrameBytes& operator=(std::vector<uint8_t> v) {
    owned_ = std::move(v);
    ext_ = nullptr;
    resolver_ = nullptr;
    return *this;
  }

  // Refers to data[0..n) instead of owning bytes (the owned buffer keeps its capacity for later).
  void Borrow(uint8_t* data, size_t n) {
    if (data == nullptr) {  // Nothing to refer to: an empty owned frame.
      clear();
      return;
    }
    ext_ = data;
    ext_size_ = n;
    resolver_ = nullptr;
  }
  // The frame is behind `handle` (non-null): the first access calls resolve(handle, this), which
  // must Borrow or assign the bytes (and may not access them before).
  void Defer(Resolver resolve, void* handle) {
    ext_ = static_cast<uint8_t*>(handle);
    resolver_ = resolve;
  }
  // Not resolved yet (no accessor has run since Defer).
  [[nodiscard]] bool deferred() const { return resolver_ != nullptr; }
  // For a loop about to read several packets' frames: starts loading what the next step reads
  // (a deferred frame: its handle's memory, what the resolver reads; else the first bytes). For a
  // deferred frame: Prefetch, later Resolve (as any access would), Prefetch again for the bytes.
  void Prefetch() const {
    __builtin_prefetch(resolver_ != nullptr ? static_cast<const void*>(ext_) : static_cast<const void*>(data()));
  }
  void Resolve() const {
    if (resolver_ != nullptr) ResolveDeferred();
  }
  [[nodiscard]] bool borrowed() const {
    Resolve();
    return ext_ != nullptr;
  }

  [[nodiscard]] uint8_t* data() {
    Resolve();
    return ext_ != nullptr ? ext_ : owned_.data();
  }
  [[nodiscard]] const uint8_t* data() const {
    Resolve();
    return ext_ != nullptr ? ext_ : owned_.data();
  }
  [[nodiscard]] size_t size() const {
    Resolve();
    return ext_ != nullptr ? ext_size_ : owned_.size();
  }
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] size_t capacity() const { return owned_.capacity(); }
  uint8_t* begin() { return data(); }
  uint8_t* end() { return data() + size(); }
  [[nodiscard]] const uint8_t* begin() const { return data(); }
  [[nodiscard]] const uint8_t* end() const { return data() + size(); }
  uint8_t& operator[](size_t i) { return data()[i]; }
  const uint8_t& operator[](size_t i) const { return data()[i]; }
  operator std::span<const uint8_t>() const { return {data(), size()}; }  // NOLINT(google-explicit-constructor)
  operator std::span<uint8_t>() { return {data(), size()}; }              // NOLINT(google-explicit-constructor)
  [[nodiscard]] std::vector<uint8_t> ToVector() const { return {begin(), end()}; }

  // These own the result (a borrowed frame is copied first where its bytes are kept).
  template <class It>
  void assign(It first, It last) {
    ext_ = nullptr;
    resolver_ = nullptr;
    owned_.assign(first, last);
  }
  void resize(size_t n) {
    Own();
    owned_.resize(n);
  }
  void clear() {
    ext_ = nullptr;
    resolver_ = nullptr;
    owned_.clear();
  }

  friend bool operator==(const FrameBytes& a, const FrameBytes& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const FrameBytes& a, const std::vector<uint8_t>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  void ResolveDeferred() const {
    const Resolver resolve = resolver_;
    void* handle = ext_;
    resolver_ = nullptr;
    ext_ = nullptr;
    owned_.clear();
    // Resolving fills in what the frame is; it does not change it (hence const).
    resolve(handle, const_cast<FrameBytes*>(this));
  }
  void Own() {
    Resolve();
    if (ext_ == nullptr) return;
    owned_.assign(ext_, ext_ + ext_size_);
    ext_ = nullptr;
  }
  // Mutable: a const access resolves a deferred frame.
  mutable std::vector<uint8_t> owned_;
  mutable uint8_t* ext_ = nullptr;  // Borrowed bytes; deferred: the handle (nullptr: owned_).
  mutable size_t ext_size_ = 0;
  mutable Resolver resolver_ = nullptr;  // Deferred until the first access.
};

// Header fields the stages match on, read once through mroce::wire::FrameView (see frame_info.cc).
struct PacketInfo {
  bool parsed = false;     // Info() ran.
  bool ip = false;         // Ethernet/IP/UDP located.
  bool meta = false;       // MetaRoCE common header present (UDP dport 4797).
  uint8_t ip_version = 0;
  uint8_t ecn = 0;
  uint16_t sport = 0;
  uint16_t dport = 0;
  uint8_t opcode = 0;
  uint16_t flags = 0;      // CH.flags.
  uint8_t path_id = 0;
  uint32_t psn = 0;
  uint32_t conn_id = 0;
  bool has_stream = false;  // Data opcode with a MEH.
  uint16_t stream_id = 0;
  uint32_t meta_offset = 0;  // Offset of the MetaRoCE CH in the frame.
  uint32_t meta_end = 0;     // One past the CRC trailer (IP end).
};

// Fills *out with the header fields of a whole Ethernet frame (what Packet::Info() returns for these
// bytes); in place, so hot paths copy no result.
void ParsePacketInfo(std::span<const uint8_t> frame, PacketInfo* out);

// Packet::dst_host of a frame the fabric could not route.
inline constexpr uint16_t kNoHost = 0xFFFF;

// Field order is for the DPDK bridge's hot path (64-byte aligned, 5 cache lines): building,
// passing and transmitting a packet touches only the first two lines (the fields read or written per
// packet, the fate log's count and first note); the rest of the notes and the parsed headers follow.
struct alignas(64) Packet {
  FrameBytes bytes;        // Whole Ethernet frame (no FCS).
  // Opaque handle of the driver that fed the packet in (the DPDK bridge: the rte_mbuf the frame
  // arrived in, reused on transmit). Stages never read it; a copy (duplicate) copies it too, so
  // the driver treats it as owned by the original only (is_duplicate == false).
  void* opaque = nullptr;
  uint64_t id = 0;         // Unique within a run (duplicates get a fresh id).
  Direction direction = Direction::kDutToPeer;
  uint8_t plane = 0;       // Plane = NIC port of the sending host.
  bool is_duplicate = false;
  bool ce_marked = false;  // CE set by the fabric.
  bool corrupted = false;

 private:
  mutable bool info_valid_ = false;  // info_ holds this frame's fields (here: on the first line).

 public:
  uint16_t src_host = 0;
  uint64_t origin_id = 0;  // Id of the packet this one was duplicated from (== id for originals).
  Time ingress;            // When it entered the fabric/pipeline.
  uint16_t dst_host = 0;
  uint32_t ecmp_hash = 0;  // Fabric: CRC-32 of the 5-tuple (see fabric.h).

  FateLog notes;  // What happened to it, in order.

  void Note(const char* stage, FateKind kind, uint32_t detail, Time now) {
    notes.Add(FateNote{stage, kind, detail, now.nanos()});
  }
  // Parsed header fields (parsed on first call, cached).
  const PacketInfo& Info() const {
    if (!info_valid_) ParseInfo();
    return info_;
  }
  // Forget cached fields (after editing bytes other than through the helpers below).
  void InvalidateInfo() { info_valid_ = false; }
  // Sets CE through FrameView (IPv4 checksum kept valid). Returns false for Not-ECT packets.
  bool MarkCe();
  // Makes a pooled packet a fresh original, every field set once (the DPDK bridge does this per
  // frame): no bytes (the buffer keeps its capacity), no fate notes, no flags.
  void Renew(uint64_t new_id, Time at, Direction dir, uint16_t from_host, uint16_t to_host, void* handle) {
    bytes.clear();
    opaque = handle;
    id = origin_id = new_id;
    direction = dir;
    plane = 0;
    is_duplicate = ce_marked = corrupted = false;
    info_valid_ = false;
    src_host = from_host;
    dst_host = to_host;
    ingress = at;
    ecmp_hash = 0;
    notes.Clear();
  }
  // Clears everything for reuse from a pool; keeps the byte buffer's capacity.
  void Reset() { Renew(0, Time::Zero(), Direction::kDutToPeer, 0, 0, nullptr); }
  // "dropped by loss@x, marked by q3" style summary of the fate log.
  [[nodiscard]] std::string FateString() const;

 private:
  void ParseInfo() const;
  mutable PacketInfo info_;
};

// Reused Packet objects with stable addresses (a pipeline's burst-path and parked packets, a
// reorder stage's held ones). Made kChunk at a time, side by side: fewer pages and cache sets than
// one allocation each (which showed in the DPDK bridge's profile). Take() returns a packet as its
// last user left it (its byte buffer keeps its capacity); Give() returns one.
class PacketPool {
 public:
  Packet* Take() {
    if (free_.empty()) [[unlikely]] Grow();
    Packet* p = free_.back();
    free_.pop_back();
    return p;
  }
  void Give(Packet* p) { free_.push_back(p); }
  void Give(Packet* const* pkts, size_t n) { free_.insert(free_.end(), pkts, pkts + n); }
  // The packet the Take call `ahead` calls from now will return (nullptr: not known yet), for
  // prefetching it.
  [[nodiscard]] const Packet* Upcoming(size_t ahead) const {
    return ahead < free_.size() ? free_[free_.size() - 1 - ahead] : nullptr;
  }
  // Packets made so far (a high-water mark in kChunk steps, not a leak).
  [[nodiscard]] size_t made() const { return chunks_.size() * kChunk; }

 private:
  static constexpr size_t kChunk = 32;
  void Grow();
  std::vector<std::unique_ptr<Packet[]>> chunks_;
  std::vector<Packet*> free_;
};

}  // namespace mroce::impairment

#endif  // MROCE_IMPAIRMENT_PACKET_H_
