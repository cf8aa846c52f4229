// The JSON-lines codecs: round trips, and errors that name the field a DUT got wrong.
#include "mroce/dut/process_protocol.h"

#include <gtest/gtest.h>

namespace mroce::dut::jsonl {
namespace {

TEST(ProcessProtocolTest, Base64RoundTripsEveryLengthAndRejectsJunk) {
  for (size_t n = 0; n < 12; ++n) {
    std::vector<uint8_t> b(n);
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(i * 37 + 250);
    const std::string e = Base64Encode(b);
    EXPECT_EQ(e.size() % 4, 0u);
    auto d = Base64Decode(e);
    ASSERT_TRUE(d.ok()) << e;
    EXPECT_EQ(d.value(), b);
  }
  EXPECT_EQ(Base64Encode(std::vector<uint8_t>{'M', 'a', 'n'}), "TWFu");
  EXPECT_EQ(Base64Encode(std::vector<uint8_t>{'M'}), "TQ==");
  auto bad = Base64Decode("TW!u");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("offset 2"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(Base64Decode("TWF").ok());
  EXPECT_FALSE(Base64Decode("T=Fu").ok());
  EXPECT_FALSE(Base64Decode("TQ=u").ok());
}

TEST(ProcessProtocolTest, LinesMustBeJsonObjects) {
  EXPECT_TRUE(ParseLine(R"({"id":1,"ok":true})").ok());
  auto arr = ParseLine("[1,2]");
  ASSERT_FALSE(arr.ok());
  EXPECT_NE(arr.error().message.find("not an object"), std::string::npos);
  auto junk = ParseLine("hello\x01world");
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().message.find("not JSON: 'hello\\x01world'"), std::string::npos) << junk.error().message;
}

TEST(ProcessProtocolTest, CompletionRoundTripsAndErrorsNameTheField) {
  Completion c;
  c.wr_id = 0xFFFF'FFFF'FFFF'FFF0ull;  // 64-bit ids survive JSON exactly
  c.conn = 3;
  c.stream = 2;
  c.op = OpKind::kRecvWriteImm;
  c.status = OpStatus::kRemoteAccess;
  c.byte_len = 4096;
  c.imm = 0xabcdef01u;
  auto back = CompletionFromJson(json::parse(CompletionEvent(c).dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back.value().wr_id, c.wr_id);
  EXPECT_EQ(back.value().op, c.op);
  EXPECT_EQ(back.value().status, c.status);
  EXPECT_EQ(back.value().imm, c.imm);

  json j = CompletionEvent(c);
  j["status"] = "fine";
  auto s = CompletionFromJson(j);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "completion.status: unknown status 'fine'");
  j = CompletionEvent(c);
  j["byte_len"] = -1;
  EXPECT_EQ(CompletionFromJson(j).error().message, "completion.byte_len: expected an unsigned integer, got -1");
  j = CompletionEvent(c);
  j.erase("wr_id");
  EXPECT_EQ(CompletionFromJson(j).error().message, "completion.wr_id: missing");
  j = CompletionEvent(c);
  j["stream"] = 70000;
  EXPECT_EQ(CompletionFromJson(j).error().message, "completion.stream: 70000 is above the maximum 65535");
}

TEST(ProcessProtocolTest, HostConfigCapsAndPeersRoundTrip) {
  HostConfig h;
  h.mac = {0x02, 0xab, 0, 0, 0, 9};
  h.ip = {127, 101, 7, 1};
  h.num_paths = 8;
  h.seed = 0x1234'5678'9abc'def0ull;
  auto back = HostConfigFromJson(HostConfigToJson(h));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back.value().mac, h.mac);
  EXPECT_EQ(back.value().ip, h.ip);
  EXPECT_EQ(back.value().seed, h.seed);
  json bad = HostConfigToJson(h);
  bad["ip"] = "127.101.7";
  EXPECT_NE(HostConfigFromJson(bad).error().message.find("start.ip: IPv4 address '127.101.7' is not a.b.c.d"), std::string::npos);

  Capabilities caps;
  caps.max_paths = 16;
  caps.features = {"write", "read"};
  auto cb = CapsFromJson(CapsToJson(caps));
  ASSERT_TRUE(cb.ok());
  EXPECT_TRUE(cb.value().Has("read"));
  EXPECT_FALSE(cb.value().simulated_time);
  json cj = CapsToJson(caps);
  cj["protocol"] = "infiniband";
  EXPECT_NE(CapsFromJson(cj).error().message.find("unknown protocol 'infiniband'"), std::string::npos);

  PeerInfo p{{2, 0, 0, 0, 0, 2}, {10, 0, 0, 2}, 4797, {{"qpn", 17}}};
  auto pb = PeerFromJson(PeerToJson(p));
  ASSERT_TRUE(pb.ok());
  EXPECT_EQ(pb.value().oob, p.oob);
  EXPECT_FALSE(AccessFromJson(json::array({"remote_write", "execute"})).ok());
  EXPECT_EQ(AccessFromJson(AccessToJson(kAccessRemoteRead | kAccessLocalWrite)).value(), kAccessRemoteRead | kAccessLocalWrite);
  EXPECT_FALSE(ParseMac("02:00:00:00:00:zz").ok());
}

}  // namespace
}  // namespace mroce::dut::jsonl
