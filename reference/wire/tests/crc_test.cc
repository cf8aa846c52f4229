// Known answers for CRC-32, the RoCEv2 ICRC (Scapy oracle) and the IPv4 header checksum.
#include "mroce/wire/crc.h"

#include <gtest/gtest.h>

#include "mroce/wire/wire.h"

namespace mroce::wire {
namespace {

std::vector<uint8_t> Hex(std::string_view h) { return ParseHex(h).value(); }

TEST(Crc32Test, CheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(Crc32({reinterpret_cast<const uint8_t*>(s.data()), s.size()}), 0xCBF43926u);
  EXPECT_EQ(Crc32({}), 0u);
}

TEST(Crc32Test, UpdateIsIncremental) {
  const std::vector<uint8_t> b = Hex("0102030405060708090a");
  EXPECT_EQ(Crc32Update(Crc32(std::span(b).first(4)), std::span(b).subspan(4)), Crc32(b));
}

// Frames built by scapy.contrib.roce (BTH.compute_icrc) with the ICRC as the last 4 bytes.
struct IcrcCase {
  const char* name;
  const char* hex;
};
const IcrcCase kScapyFrames[] = {
    // SEND_ONLY, TOS 0x6b (DSCP 26, CE), TTL 17, FECN set, AckReq, payload "hello".
    {"send_only_ce_fecn",
     "0200000000020200000000010800456b0031000040001111554f0a0000010a000002c00012b7001d00000400ffff80"
     "0000118000010068656c6c6f4d164350"},
    // WRITE_ONLY with RETH (va 0xdeadbeef, rkey 0x1234, len 4) and "DATA".
    {"write_only_reth",
     "02000000000202000000000108004502004000014000401126a80a0000010a000002c35012b7002c00000a00ffff00"
     "00001200abcdef00000000deadbeef000012340000000444415441f0e52eb9"},
    // ACK with AETH syndrome 0x1f msn 3.
    {"ack_aeth",
     "02000000000102000000000208004502003000014000401126b80a0000020a000001c35112b7001c00001100ffff00"
     "000034000000071f000003517cafbd"},
};

TEST(RoceIcrcTest, MatchesScapyOracle) {
  for (const auto& c : kScapyFrames) {
    SCOPED_TRACE(c.name);
    const auto f = Hex(c.hex);
    const auto ip = std::span(f).subspan(kEthHeaderSize);
    const uint32_t want = uint32_t{f[f.size() - 4]} | uint32_t{f[f.size() - 3]} << 8 |
                          uint32_t{f[f.size() - 2]} << 16 | uint32_t{f[f.size() - 1]} << 24;
    EXPECT_EQ(RoceIcrc(ip), want);
    auto parsed = ParseFrame(f);
    ASSERT_TRUE(parsed) << parsed.error().ToString();
    EXPECT_EQ(SerializeFrame(*parsed), f);  // UDP checksum 0 and ICRC recomputed identically
  }
}

TEST(RoceIcrcTest, IgnoresMaskedFields) {
  auto f = Hex(kScapyFrames[0].hex);
  const auto ip = std::span(f).subspan(kEthHeaderSize);
  const uint32_t base = RoceIcrc(ip);
  f[kEthHeaderSize + 1] ^= 0xFF;   // TOS
  f[kEthHeaderSize + 8] ^= 0x01;   // TTL
  f[kEthHeaderSize + 10] ^= 0x55;  // IP checksum
  f[kEthHeaderSize + 20 + 6] = 0x12;  // UDP checksum
  f[kEthHeaderSize + 28 + 4] ^= 0xC0;  // FECN/BECN
  EXPECT_EQ(RoceIcrc(ip), base);
  f[kEthHeaderSize + 28 + 11] ^= 1;  // PSN is covered
  EXPECT_NE(RoceIcrc(ip), base);
}

TEST(RoceIcrcTest, Ipv6MasksTrafficClassFlowLabelHopLimit) {
  Frame fr;
  fr.eth.ethertype = kEtherTypeIpv6;
  fr.ip = Ipv6Header{};
  fr.udp.dport = kRoceUdpPort;
  fr.l4 = RocePacket{};
  auto bytes = SerializeFrame(fr);
  const auto ip = std::span(bytes).subspan(kEthHeaderSize);
  const uint32_t base = RoceIcrc(ip);
  bytes[kEthHeaderSize + 0] ^= 0x0F;
  bytes[kEthHeaderSize + 1] ^= 0xFF;
  bytes[kEthHeaderSize + 3] ^= 0x77;
  bytes[kEthHeaderSize + 7] ^= 0x3F;
  EXPECT_EQ(RoceIcrc(ip), base);
  bytes[kEthHeaderSize + 8] ^= 1;  // source address is covered
  EXPECT_NE(RoceIcrc(ip), base);
}

TEST(RoceIcrcTest, TooShortIsZero) {
  std::vector<uint8_t> b(20 + 8 + 12 + 3, 0x45);
  EXPECT_EQ(RoceIcrc(b), 0u);
  EXPECT_EQ(RoceIcrc({}), 0u);
}

TEST(Ipv4ChecksumTest, KnownAnswer) {
  // RFC 1071 style example (Wikipedia "IPv4 header checksum").
  const auto h = Hex("450000730000400040110000c0a80001c0a800c7");
  EXPECT_EQ(Ipv4HeaderChecksum(h), 0xb861);
  auto h2 = Hex("45000073000040004011b861c0a80001c0a800c7");
  EXPECT_EQ(Ipv4HeaderChecksum(h2), 0xb861);  // its own checksum field is ignored
}

TEST(UdpChecksumTest, Ipv4KnownAnswerFromScapy) {
  // scapy: IP(src=1.2.3.4,dst=5.6.7.8)/UDP(sport=1234,dport=4791)/BTH(opcode=4,dqpn=0x12,psn=7)/"abcd"
  const auto f = Hex("02fc0000000502fc000000010800450000300001000040116aa9010203040506070804d212b7001c8470"
                     "0400ffff00000012000000076162636427b26317");
  auto parsed = ParseFrame(f, ParseOptions{.verify_udp_checksum = true});
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_EQ(parsed->udp.checksum, 0x8470);
  EXPECT_EQ(SerializeFrame(*parsed, SerializeOptions::Exact()), f);
}

}  // namespace
}  // namespace mroce::wire
