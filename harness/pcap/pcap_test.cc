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
  {
    auto opened = Writer::Open(path);
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    auto& w = *opened;
    std::vector<uint8_t> a(60, 0xab), b(1500, 0x01);
    w->Write(1, a);
    w->Write(3'000'000'123, b);
    EXPECT_EQ(w->records_written(), 2u);
  }
  auto read = ReadAll(path);
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  const std::vector<Record>& recs = *read;
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
  auto r = Reader::Open(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->link_type(), DLT_EN10MB);
  EXPECT_TRUE((*r)->status().ok());
}

TEST(PcapTest, OpenFailuresCarryMessage) {
  auto w = Writer::Open("/nonexistent-dir/x.pcap");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, "pcap.create");
  EXPECT_NE(w.error().message.find("/nonexistent-dir/x.pcap"), std::string::npos);
  auto r = Reader::Open("/nonexistent-dir/x.pcap");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "pcap.open");
  EXPECT_NE(r.error().message.find("/nonexistent-dir/x.pcap"), std::string::npos);
  auto all = ReadAll("/nonexistent-dir/x.pcap");
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.error().code, "pcap.open");
}

TEST(PcapTest, SnapLengthTruncatesButKeepsOriginalLength) {
  const std::string path = TempPath("snap.pcap");
  {
    auto w = Writer::Open(path, 100);
    ASSERT_TRUE(w.ok());
    (*w)->Write(5, std::vector<uint8_t>(300, 7));
  }
  auto read = ReadAll(path);
  ASSERT_TRUE(read.ok());
  const std::vector<Record>& recs = *read;
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].bytes.size(), 100u);
  EXPECT_EQ(recs[0].original_length, 300u);
}

}  // namespace
}  // namespace mroce::pcap
