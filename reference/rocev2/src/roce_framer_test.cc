#include "mroce/rocev2/roce_framer.h"

#include <gtest/gtest.h>

#include "mroce/wire/crc.h"

namespace mroce::rocev2 {
namespace {

FramerConfig TestConfig() {
  FramerConfig c;
  c.local = {{0x02, 0, 0, 0, 0, 1}, {10, 0, 0, 1}};
  c.remote = {{0x02, 0, 0, 0, 0, 2}, {10, 0, 0, 2}};
  c.udp_sport = 0xC123;
  return c;
}

TEST(RoceFramerTest, BuildsFrameTheCodecParsesWithValidIcrc) {
  RoceFramer framer(TestConfig());
  wire::RocePacket pkt;
  pkt.bth.opcode = wire::RoceOpcode::kWriteOnly;
  pkt.bth.dest_qp = 0x123456;
  pkt.bth.psn = 0xFFFFFF;
  pkt.bth.ack_req = true;
  pkt.reth = wire::Reth{0x1000, 0x77, 5};
  const uint8_t data[5] = {1, 2, 3, 4, 5};
  RoceFramer::SetPaddedPayload(pkt, data);
  EXPECT_EQ(pkt.bth.pad_count, 3);
  EXPECT_EQ(pkt.payload.size(), 8u);

  std::vector<uint8_t> bytes;
  framer.Build(pkt, bytes);
  auto f = wire::ParseFrame(bytes);  // verifies the IPv4 checksum and the ICRC
  ASSERT_TRUE(f.ok()) << f.error().ToString();
  ASSERT_NE(f->roce(), nullptr);
  EXPECT_EQ(f->udp.dport, 4791);
  EXPECT_EQ(f->udp.sport, 0xC123);
  EXPECT_EQ(f->roce()->bth.dest_qp, 0x123456u);
  EXPECT_EQ(f->roce()->bth.psn, 0xFFFFFFu);
  EXPECT_EQ(*f->roce()->reth, (wire::Reth{0x1000, 0x77, 5}));
  auto payload = RoceFramer::UnpaddedPayload(*f->roce());
  EXPECT_EQ(std::vector<uint8_t>(payload.begin(), payload.end()), std::vector<uint8_t>(data, data + 5));

  // Independent ICRC check over the IP packet.
  const size_t ip_off = wire::kEthHeaderSize;
  const uint32_t icrc = wire::RoceIcrc(std::span<const uint8_t>(bytes).subspan(ip_off));
  EXPECT_EQ(icrc, f->roce()->icrc);

  bytes[bytes.size() - 10] ^= 1;  // corrupt a payload byte
  auto bad = wire::ParseFrame(bytes);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "icrc");
}

TEST(RoceFramerTest, PadCountBeyondPayloadYieldsEmpty) {
  wire::RocePacket pkt;
  pkt.bth.pad_count = 3;
  pkt.payload = {1};
  EXPECT_TRUE(RoceFramer::UnpaddedPayload(pkt).empty());
}

}  // namespace
}  // namespace mroce::rocev2
