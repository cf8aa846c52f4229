#include "mroce/rocev2/memory_region_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace mroce::rocev2 {
namespace {

TEST(MemoryRegionTableTest, ResolvesInsideBounds) {
  std::vector<uint8_t> buf(100);
  MemoryRegionTable t;
  auto mr = t.Register(buf.data(), buf.size(), kAccessRemoteWrite | kAccessRemoteRead);
  ASSERT_TRUE(mr.ok());
  auto p = t.Resolve(mr->rkey, mr->va + 10, 90, kAccessRemoteWrite);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, buf.data() + 10);
}

TEST(MemoryRegionTableTest, RejectsOutOfBoundsPermissionAndUnknownKey) {
  std::vector<uint8_t> buf(100);
  MemoryRegionTable t;
  auto mr = t.Register(buf.data(), buf.size(), kAccessRemoteRead);
  ASSERT_TRUE(mr.ok());
  EXPECT_EQ(t.Resolve(mr->rkey, mr->va + 10, 91, kAccessRemoteRead).error().code, "access.bounds");
  EXPECT_EQ(t.Resolve(mr->rkey, mr->va - 1, 1, kAccessRemoteRead).error().code, "access.bounds");
  EXPECT_EQ(t.Resolve(mr->rkey, mr->va, 1, kAccessRemoteWrite).error().code, "access.permission");
  EXPECT_EQ(t.Resolve(mr->rkey + 1, mr->va, 1, kAccessRemoteRead).error().code, "access.key");
  EXPECT_FALSE(t.Register(nullptr, 0, 0).ok());
}

TEST(MemoryRegionTableTest, StaleKeyAfterReuseNeverMatches) {
  std::vector<uint8_t> buf(8);
  MemoryRegionTable t;
  auto a = t.Register(buf.data(), buf.size(), kAccessRemoteRead);
  ASSERT_TRUE(t.Deregister(a->rkey).ok());
  auto b = t.Register(buf.data(), buf.size(), kAccessRemoteRead);
  EXPECT_NE(a->rkey, b->rkey);
  EXPECT_FALSE(t.Resolve(a->rkey, a->va, 1, kAccessRemoteRead).ok());
  EXPECT_TRUE(t.Resolve(b->rkey, b->va, 1, kAccessRemoteRead).ok());
  EXPECT_EQ(t.size(), 1u);
}

}  // namespace
}  // namespace mroce::rocev2
