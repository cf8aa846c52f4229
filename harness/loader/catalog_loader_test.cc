#include "mroce/harness/catalog_loader.h"

#include <gtest/gtest.h>

namespace mroce::harness {
namespace {

TEST(CatalogLoader, LoadsAndSorts) {
  auto r = LoadCatalogFile(std::string(MROCE_LOADER_TESTDATA) + "/catalog.json");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  ASSERT_EQ(r.value.clauses().size(), 5u);
  EXPECT_EQ(r.value.clauses().front().id, "MR-CC-2");
  const CatalogClause* c = r.value.Find("MR-SACK-3");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->level, Level::kMust);
  EXPECT_EQ(c->section, "7.3");
  EXPECT_EQ(r.value.Find("MR-NOPE"), nullptr);
}

TEST(CatalogLoader, Errors) {
  EXPECT_FALSE(LoadCatalogString("{", "c.json").ok());
  EXPECT_FALSE(LoadCatalogString("{\"clauses\": 3}", "c.json").ok());
  auto r = LoadCatalogString(R"({"clauses":[{"id":"A","level":"MUST"},{"id":"A","level":"MAY"},{"id":"B","level":"must"}]})", "c.json");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].key, "clauses[1].id");
  EXPECT_EQ(r.errors[1].key, "clauses[2].level");
}

}  // namespace
}  // namespace mroce::harness
