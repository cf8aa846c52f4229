#include "mroce/verbs/memory_region_table.h"

#include <gtest/gtest.h>

namespace mroce::verbs {
namespace {

TEST(MemoryRegionTable, ResolveInsideRegion) {
  MemoryRegionTable t;
  std::vector<uint8_t> buf(100);
  auto mr = t.Register(buf.data(), buf.size(), kAccessRemoteWrite);
  ASSERT_TRUE(mr.ok());
  auto p = t.Resolve(mr->rkey, mr->va + 10, 90, kAccessRemoteWrite);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, buf.data() + 10);
}

TEST(MemoryRegionTable, BoundsChecked) {
  MemoryRegionTable t;
  std::vector<uint8_t> buf(100);
  auto mr = t.Register(buf.data(), buf.size(), kAccessRemoteWrite);
  EXPECT_EQ(t.Resolve(mr->rkey, mr->va + 10, 91, kAccessRemoteWrite).error().code, "access.bounds");
  EXPECT_EQ(t.Resolve(mr->rkey, mr->va - 1, 1, kAccessRemoteWrite).error().code, "access.bounds");
  EXPECT_EQ(t.Resolve(mr->rkey, ~0ull, 2, kAccessRemoteWrite).error().code, "access.bounds");
  EXPECT_TRUE(t.Resolve(mr->rkey, mr->va + 10, 91, kAccessRemoteWrite, /*skip_bounds=*/true).ok());
}

TEST(MemoryRegionTable, PermissionAndRkeyChecked) {
  MemoryRegionTable t;
  std::vector<uint8_t> buf(100);
  auto mr = t.Register(buf.data(), buf.size(), kAccessRemoteRead);
  EXPECT_EQ(t.Resolve(mr->rkey, mr->va, 1, kAccessRemoteWrite).error().code, "access.permission");
  EXPECT_EQ(t.Resolve(mr->rkey + 1, mr->va, 1, kAccessRemoteRead).error().code, "access.rkey");
}

TEST(MemoryRegionTable, DeregisteredRkeyNeverMatchesReusedSlot) {
  MemoryRegionTable t;
  std::vector<uint8_t> a(10), b(10);
  auto m1 = t.Register(a.data(), a.size(), kAccessRemoteWrite);
  ASSERT_TRUE(t.Deregister(m1->rkey).ok());
  auto m2 = t.Register(b.data(), b.size(), kAccessRemoteWrite);
  EXPECT_NE(m1->rkey, m2->rkey);
  EXPECT_FALSE(t.Resolve(m1->rkey, m2->va, 1, kAccessRemoteWrite).ok());
}

}  // namespace
}  // namespace mroce::verbs
