#include "mroce/endpoint/quirks.h"
#include "mroce/endpoint/telemetry.h"

#include <gtest/gtest.h>

#include <set>

namespace mroce::ref {
namespace {

TEST(Quirks, AtLeastTwentyWithUniqueNames) {
  EXPECT_GE(AllQuirks().size(), 20u);
  std::set<std::string_view> names;
  for (size_t i = 0; i < AllQuirks().size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(AllQuirks()[i].quirk), i);
    EXPECT_FALSE(AllQuirks()[i].description.empty());
    names.insert(AllQuirks()[i].name);
  }
  EXPECT_EQ(names.size(), AllQuirks().size());
}

TEST(Quirks, ParseList) {
  auto q = Quirks::Parse("go_back_n, ignore_ecn");
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->Has(Quirk::kGoBackN));
  EXPECT_TRUE(q->Has(Quirk::kIgnoreEcn));
  EXPECT_FALSE(q->Has(Quirk::kSinglePath));
  EXPECT_EQ(q->ToString(), "go_back_n,ignore_ecn");
}

TEST(Quirks, EmptyAndUnknown) {
  EXPECT_TRUE(Quirks::Parse("")->Empty());
  auto bad = Quirks::Parse("go_back_n,nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("nope"), std::string::npos);
}

TEST(Telemetry, StableNames) {
  EXPECT_EQ(PathCounterName(PathCounter::kTxPkts), "tx_pkts");
  EXPECT_EQ(PathCounterName(PathCounter::kReintroductions), "reintroductions");
  EXPECT_EQ(PathRxCounterName(PathRxCounter::kBadEpochRx), "bad_epoch_rx");
  EXPECT_EQ(ConnCounterName(ConnCounter::kBadPathRx), "bad_path_rx");
  EXPECT_EQ(ConnCounterName(NackTxCounter(0x03)), "nack_tx_rnr");
  EXPECT_EQ(ConnCounterName(NackRxCounter(0x07)), "nack_rx_remote_op_error");
  EXPECT_EQ(EndpointCounterName(EndpointCounter::kInvalidConnRx), "invalid_conn_rx");
  ConnCounters c;
  c.Add(ConnCounter::kCrcErrors, 3);
  int seen = 0;
  ForEachCounter(c, [&](std::string_view name, uint64_t v) {
    if (name == "crc_errors") {
      EXPECT_EQ(v, 3u);
    }
    ++seen;
  });
  EXPECT_EQ(seen, static_cast<int>(ConnCounters::kSize));
}

}  // namespace
}  // namespace mroce::ref
