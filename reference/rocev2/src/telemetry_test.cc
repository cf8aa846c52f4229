#include "mroce/rocev2/telemetry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mroce::rocev2 {
namespace {

TEST(TelemetryTest, EveryCounterHasAUniqueName) {
  std::set<std::string> names;
  Counters c;
  c.ForEach([&](std::string_view name, uint64_t) {
    EXPECT_NE(name, "?");
    names.insert(std::string(name));
  });
  EXPECT_EQ(names.size(), Counters::kSize);
  EXPECT_EQ(CounterName(Counter::kOutOfSeqRx), "out_of_seq_rx");
  EXPECT_EQ(CounterName(Counter::kIcrcErrors), "icrc_errors");
}

TEST(TelemetryTest, AddAndSum) {
  Counters a, b;
  a.Add(Counter::kRetransmits, 3);
  b.Add(Counter::kRetransmits);
  b.Add(Counter::kTxPkts, 5);
  a += b;
  EXPECT_EQ(a.Get(Counter::kRetransmits), 4u);
  EXPECT_EQ(a.Get(Counter::kTxPkts), 5u);
}

}  // namespace
}  // namespace mroce::rocev2
