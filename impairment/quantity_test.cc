// The one grammar of durations, rates and sizes.
#include "mroce/impairment/quantity.h"

#include <gtest/gtest.h>

namespace mroce::impairment {
namespace {

std::string Error(const mroce::Result<DurationSpec>& r) { return r.ok() ? "" : r.error().message; }

TEST(QuantityTest, DurationsTakeAUnit) {
  EXPECT_EQ(ParseDuration("3rtt").value(), DurationSpec::Rtts(3));
  EXPECT_EQ(ParseDuration("2.5 rtt").value(), DurationSpec::Rtts(2.5));
  EXPECT_EQ(ParseDuration("4rtts").value(), DurationSpec::Rtts(4));
  EXPECT_EQ(ParseDuration("500ns").value(), DurationSpec::Nanoseconds(500));
  EXPECT_EQ(ParseDuration("10us").value(), DurationSpec::Nanoseconds(10'000));
  EXPECT_EQ(ParseDuration("1.5ms").value(), DurationSpec::Nanoseconds(1'500'000));
  EXPECT_EQ(ParseDuration("2s").value(), DurationSpec::Nanoseconds(2e9));
  EXPECT_EQ(ParseDuration("1e3us").value(), DurationSpec::Nanoseconds(1e6));
  EXPECT_EQ(ParseDuration("10US").value(), DurationSpec::Nanoseconds(10'000));
  EXPECT_EQ(ParseDuration("0").value().ToNanoseconds(12345), 0);  // Zero needs no unit.
  EXPECT_EQ(ParseDuration("4rtt")->ToNanoseconds(10'000), 40'000);
  EXPECT_EQ(ParseDuration("2.5rtt")->ToNanoseconds(3), 8);  // Rounded to the nearest nanosecond.
}

TEST(QuantityTest, ABareDurationIsRefusedNamingTheUnits) {
  const std::string e = Error(ParseDuration("20"));
  EXPECT_NE(e.find("'20' needs a unit (rtt, ns, us, ms or s)"), std::string::npos) << e;
  EXPECT_NE(e.find("ambiguous"), std::string::npos) << e;
  EXPECT_NE(Error(ParseDuration("2 weeks")).find("unknown time unit 'weeks' in '2 weeks'"), std::string::npos);
  EXPECT_NE(Error(ParseDuration("-1us")).find("must not be negative"), std::string::npos);
  EXPECT_NE(Error(ParseDuration("fast")).find("expected a duration such as 3rtt"), std::string::npos);
  EXPECT_FALSE(ParseDuration("us").ok());
  EXPECT_FALSE(ParseDuration(".nan").ok());
  EXPECT_FALSE(ParseDuration("nanus").ok());
  EXPECT_FALSE(ParseDuration("").ok());
}

TEST(QuantityTest, DurationToStringUsesTheLargestExactUnit) {
  EXPECT_EQ(DurationSpec::Rtts(5).ToString(), "5rtt");
  EXPECT_EQ(DurationSpec::Nanoseconds(2'000'000).ToString(), "2ms");
  EXPECT_EQ(DurationSpec::Nanoseconds(2'500).ToString(), "2.5us");
  EXPECT_EQ(DurationSpec::Nanoseconds(999).ToString(), "999ns");
}

TEST(QuantityTest, RatesAreBitsPerSecondWithAUnit) {
  EXPECT_EQ(ParseRate("100Gbps")->bits_per_second(), 100'000'000'000);
  EXPECT_EQ(ParseRate("25G")->bits_per_second(), 25'000'000'000);
  EXPECT_EQ(ParseRate("25Gb/s")->bits_per_second(), 25'000'000'000);
  EXPECT_EQ(ParseRate("400Mbps")->bits_per_second(), 400'000'000);
  EXPECT_EQ(ParseRate("1.5Tbps")->bits_per_second(), 1'500'000'000'000);
  EXPECT_EQ(ParseRate("10Kbps")->bits_per_second(), 10'000);
  EXPECT_EQ(ParseRate("10 bps")->bits_per_second(), 10);
  auto bare = ParseRate("100000");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.error().message.find("needs a unit (bps, Kbps, Mbps, Gbps or Tbps)"), std::string::npos);
  auto bytes = ParseRate("10GBps");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("bits per second"), std::string::npos);
  EXPECT_FALSE(ParseRate("0G").ok());
  EXPECT_FALSE(ParseRate("-1Gbps").ok());
  EXPECT_FALSE(ParseRate("10 furlongs").ok());
}

TEST(QuantityTest, SizesAreBytes) {
  EXPECT_EQ(ParseSize("4096").value(), 4096);  // A bare size is bytes: nothing else it could be.
  EXPECT_EQ(ParseSize("64B").value(), 64);
  EXPECT_EQ(ParseSize("4KiB").value(), 4096);
  EXPECT_EQ(ParseSize("1MiB").value(), 1 << 20);
  EXPECT_EQ(ParseSize("1GiB").value(), 1 << 30);
  EXPECT_EQ(ParseSize("4KB").value(), 4000);
  EXPECT_EQ(ParseSize("1.5MB").value(), 1'500'000);
  EXPECT_EQ(ParseSize("0").value(), 0);
  EXPECT_FALSE(ParseSize("1.5B").ok());
  EXPECT_FALSE(ParseSize("-4").ok());
  EXPECT_NE(ParseSize("4 parsecs").error().message.find("(B, KB, MB, GB, KiB, MiB, GiB)"), std::string::npos);
}

}  // namespace
}  // namespace mroce::impairment
