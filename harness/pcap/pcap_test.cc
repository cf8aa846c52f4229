#include "mroce/pcap/pcap.h"

#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <cstdio>
#include <fstream>
#include <iterator>

namespace mroce::pcap {
namespace {

std::string TempPath(const char* name) {
  return std::string(::testing::TempDir()) + "/" + name;
}

TEST(PcapTest, RoundTripNanosecondTimestamps) {
  const std::string path = TempPath("roundtrip.pcap");
  Status st;
  {
    auto w = Writer::Open(path, &st);
    ASSERT_TRUE(w) << st.message;
    std::vector<uint8_t> a(60, 0xab), b(1500, 0x01);
    w->Write(1, a);
    w->Write(3'000'000'123, b);
    EXPECT_EQ(w->records_written(), 2u);
  }
  std::vector<Record> recs;
  ASSERT_TRUE(ReadAll(path, &recs, &st)) << st.message;
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].time_ns, 1);
  EXPECT_EQ(recs[0].bytes, std::vector<uint8_t>(60, 0xab));
  EXPECT_EQ(recs[1].time_ns, 3'000'000'123);
  EXPECT_EQ(recs[1].original_length, 1500u);
  // Nanosecond magic, little-endian file as written on this host.
  std::ifstream f(path, std::ios::binary);
  unsigned char magic[4];
  f.read(reinterpret_cast<char*>(magic), 4);
  EXPECT_EQ(magic[0] | magic[1] << 8 | magic[2] << 16 | static_cast<uint32_t>(magic[3]) << 24, 0xa1b23c4du);
  auto r = Reader::Open(path, &st);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->link_type(), DLT_EN10MB);
}

TEST(PcapTest, OpenFailuresCarryMessage) {
  Status st;
  EXPECT_FALSE(Writer::Open("/nonexistent-dir/x.pcap", &st));
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("/nonexistent-dir/x.pcap"), std::string::npos);
  EXPECT_FALSE(Reader::Open("/nonexistent-dir/x.pcap", &st));
  EXPECT_FALSE(st.ok);
}

TEST(PcapTest, SnapLengthTruncatesButKeepsOriginalLength) {
  const std::string path = TempPath("snap.pcap");
  Status st;
  {
    auto w = Writer::Open(path, &st, 100);
    ASSERT_TRUE(w);
    w->Write(5, std::vector<uint8_t>(300, 7));
  }
  std::vector<Record> recs;
  ASSERT_TRUE(ReadAll(path, &recs, &st));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].bytes.size(), 100u);
  EXPECT_EQ(recs[0].original_length, 300u);
}

}  // namespace
}  // namespace mroce::pcap
