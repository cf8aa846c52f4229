// The dpdk adapter's spec parser, and its ethdev data plane on a net_ring port (a loopback: what
// the data plane transmits, the test reads back; what the test transmits, the data plane receives).
#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <unistd.h>

#include <cstring>

#include "mroce/dut/dpdk_dut.h"
#include "mroce/impairment/dpdk/eal.h"

namespace mroce::dut::dpdk {
namespace {

namespace eal = mroce::impairment::dpdk;

TEST(DpdkSpec, DevargsAndEalArgumentsMayHoldCommasAndTheCommandComesLast) {
  auto o = ParseSpec("port=net_af_packet0,iface=veth0,framesz=8192,eal=-l 0,1 --in-memory,net=198.18.0.0,"
                     "dut_mac=02:AA:bb:cc:dd:0e,timeout_ms=900,control=ip netns exec ns mroce-refd --quirk a,b=c");
  ASSERT_TRUE(o.ok()) << o.error().message;
  ASSERT_EQ(o.value().ports.size(), 1u);
  EXPECT_EQ(o.value().ports[0], "net_af_packet0,iface=veth0,framesz=8192");
  EXPECT_EQ(o.value().eal, "-l 0,1 --in-memory");
  EXPECT_EQ(*o.value().process.net, (wire::Ipv4Address{198, 18, 0, 0}));
  EXPECT_EQ(*o.value().dut_mac, (wire::MacAddress{0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0x0e}));
  EXPECT_EQ(o.value().process.timeout_ms, 900);
  EXPECT_EQ(o.value().process.command, "ip netns exec ns mroce-refd --quirk a,b=c");
  EXPECT_EQ(o.value().process.max_planes, 1);
}

TEST(DpdkSpec, OnePortPerPlane) {
  auto o = ParseSpec("port0=net_ring0,port1=net_ring1,net=10.9.0.0,control=d");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o.value().ports, (std::vector<std::string>{"net_ring0", "net_ring1"}));
  EXPECT_EQ(o.value().process.max_planes, 2);
  EXPECT_FALSE(o.value().dut_mac.has_value());
}

TEST(DpdkSpec, ErrorsNameTheProblem) {
  auto msg = [](std::string_view s) { auto o = ParseSpec(s); return o.ok() ? std::string("parsed") : o.error().message; };
  EXPECT_NE(msg("port=net_ring0,net=10.9.0.0").find("no control command"), std::string::npos);
  EXPECT_NE(msg("port=net_ring0,control=d").find("net=A.B.C.D is required"), std::string::npos);
  EXPECT_NE(msg("net=10.9.0.0,control=d").find("no port"), std::string::npos);
  EXPECT_NE(msg("port1=net_ring1,net=10.9.0.0,control=d").find("port0 missing"), std::string::npos);
  EXPECT_NE(msg("iface=x,port=net_ring0,net=10.9.0.0,control=d").find("'iface=x' is not an option"), std::string::npos);
  EXPECT_NE(msg("port=net_ring0,net=10.9.0.0,dut_mac=02:00,control=d").find("dut_mac=02:00"), std::string::npos);
  EXPECT_NE(msg("port=net_ring0,net=10.9.0.300,control=d").find("net="), std::string::npos);
  EXPECT_NE(msg("port=a,port=b,net=10.9.0.0,control=d").find("twice"), std::string::npos);
}

rte_mempool* g_pool = nullptr;

// The EAL and the test pool, started once per process.
mroce::Status EalUp() {
  static int state = 0;
  static mroce::Status status;
  if (state == 0) {
    const std::vector<std::string> args = {"--no-huge", "--no-pci", "-m", "256", "--file-prefix",
                                           "mroce-dut-dpdk-test-" + std::to_string(getpid()), "--log-level", "*:error"};
    status = eal::InitEal("mroce_dut_dpdk_test", args);
    state = status.ok() ? 1 : -1;
    if (state == 1) {
      auto pool = eal::CreatePool("mroce_dut_dpdk_test", 2047, 9300);
      if (pool.ok()) {
        g_pool = *pool;
      } else {
        status = pool.error();
        state = -1;
      }
    }
  }
  return status;
}

const wire::Ipv4Address kDut{198, 18, 0, 1}, kPeer{198, 18, 0, 2}, kOther{198, 18, 0, 9};
const wire::MacAddress kDutMac{0x02, 0xd0, 0, 0, 0, 1};

class EthdevTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const mroce::Status eal_up = EalUp();
    if (!eal_up.ok()) GTEST_SKIP() << "DPDK EAL did not start: " << eal_up.error().message;
    static int instance = 0;
    auto opened = eal::OpenPort("net_ring_dut" + std::to_string(++instance), g_pool);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    port_ = *opened;
    opened_ = true;
    rte_ether_addr a{};
    rte_eth_macaddr_get(port_, &a);
    std::memcpy(port_mac_.data(), a.addr_bytes, 6);
    config_.udp_port = 4797;
    config_.num_planes = 1;
    config_.dut_ips = {kDut};
  }
  void TearDown() override {
    if (!opened_) return;
    Read();
    eal::ClosePort(port_);
  }
  void Inject(const std::vector<uint8_t>& f) {
    rte_mbuf* m = rte_pktmbuf_alloc(g_pool);
    ASSERT_NE(m, nullptr);
    std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(f.size())), f.data(), f.size());
    ASSERT_EQ(rte_eth_tx_burst(port_, 0, &m, 1), 1);
  }
  std::vector<std::vector<uint8_t>> Read() {
    std::vector<std::vector<uint8_t>> out;
    rte_mbuf* b[32];
    for (uint16_t n; (n = rte_eth_rx_burst(port_, 0, b, 32)) > 0;) {
      for (uint16_t i = 0; i < n; ++i) {
        const uint8_t* d = rte_pktmbuf_mtod(b[i], const uint8_t*);
        out.emplace_back(d, d + rte_pktmbuf_data_len(b[i]));
      }
      rte_pktmbuf_free_bulk(b, n);
    }
    return out;
  }
  static std::vector<uint8_t> Arp(uint16_t op, const wire::MacAddress& sha, const wire::Ipv4Address& spa,
                                  const wire::Ipv4Address& tpa) {
    std::vector<uint8_t> f(60, 0);
    std::memset(f.data(), 0xff, 6);
    std::memcpy(&f[6], sha.data(), 6);
    f[12] = 0x08, f[13] = 0x06, f[15] = 1, f[16] = 0x08, f[18] = 6, f[19] = 4, f[21] = static_cast<uint8_t>(op);
    std::memcpy(&f[22], sha.data(), 6);
    std::memcpy(&f[28], spa.data(), 4);
    std::memcpy(&f[38], tpa.data(), 4);
    return f;
  }
  uint16_t port_ = 0;
  bool opened_ = false;
  wire::MacAddress port_mac_{};
  DataPlaneConfig config_;
  const std::vector<uint8_t> payload_ = {1, 2, 3, 4, 5, 6, 7, 8, 9};
};

TEST_F(EthdevTest, FramesToTheDutGetThePortsAndTheDutsMacs) {
  EthdevDataPlane dp(config_, {port_}, g_pool, kDutMac);
  ASSERT_TRUE(dp.AddPeer(0, kPeer).ok());
  const auto frame = FrameFor({0x02, 0, 0, 0, 0, 2}, {0x02, 0, 0, 0, 0, 1}, kPeer, kDut, 51234, 4797, 0x2a, payload_);
  ASSERT_TRUE(dp.Send(0, frame).ok());
  const auto got = Read();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(std::equal(kDutMac.begin(), kDutMac.end(), got[0].begin()));
  EXPECT_TRUE(std::equal(port_mac_.begin(), port_mac_.end(), got[0].begin() + 6));
  EXPECT_TRUE(std::equal(frame.begin() + 12, frame.end(), got[0].begin() + 12));  // IP, UDP, payload untouched
  EXPECT_EQ(dp.sent(), 1u);
}

TEST_F(EthdevTest, AnswersArpForPeersOnlyAndHandsBackDatagramsToPeers) {
  EthdevDataPlane dp(config_, {port_}, g_pool, kDutMac);
  ASSERT_TRUE(dp.AddPeer(0, kPeer).ok());
  Inject(Arp(1, kDutMac, kDut, kPeer));
  Inject(Arp(1, kDutMac, kDut, kOther));
  Inject(FrameFor(kDutMac, port_mac_, kDut, kPeer, 50000, 4797, 0x03, payload_));
  Inject(FrameFor(kDutMac, port_mac_, kDut, kOther, 50000, 4797, 0, payload_));  // not a peer
  Inject(FrameFor(kDutMac, port_mac_, kDut, kPeer, 50000, 4791, 0, payload_));   // not MetaRoCE's port
  std::vector<WireDatagram> seen;
  std::vector<std::vector<uint8_t>> payloads;
  EXPECT_EQ(dp.Poll([&](const WireDatagram& d) {
    seen.push_back(d);
    payloads.emplace_back(d.payload.begin(), d.payload.end());
  }), 1u);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].plane, 0);
  EXPECT_EQ(seen[0].src, kDut);
  EXPECT_EQ(seen[0].dst, kPeer);
  EXPECT_EQ(seen[0].sport, 50000);
  EXPECT_EQ(seen[0].dport, 4797);
  EXPECT_EQ(seen[0].tos, 0x03);
  EXPECT_EQ(payloads[0], payload_);
  const auto replies = Read();
  ASSERT_EQ(replies.size(), 1u) << "one ARP reply, for the peer only";
  const auto& r = replies[0];
  EXPECT_TRUE(std::equal(kDutMac.begin(), kDutMac.end(), r.begin()));
  EXPECT_EQ(r[12], 0x08);
  EXPECT_EQ(r[13], 0x06);
  EXPECT_EQ(r[21], 2);  // reply
  EXPECT_TRUE(std::equal(port_mac_.begin(), port_mac_.end(), r.begin() + 22));  // sha: the harness's port
  EXPECT_TRUE(std::equal(kPeer.begin(), kPeer.end(), r.begin() + 28));
  EXPECT_TRUE(std::equal(kDutMac.begin(), kDutMac.end(), r.begin() + 32));
  EXPECT_TRUE(std::equal(kDut.begin(), kDut.end(), r.begin() + 38));
  EXPECT_EQ(dp.arp_replies(), 1u);
}

TEST_F(EthdevTest, ADatagramWithOneVlanTagIsHandedBackAsAnUntaggedOne) {
  EthdevDataPlane dp(config_, {port_}, g_pool, kDutMac);
  ASSERT_TRUE(dp.AddPeer(0, kPeer).ok());
  std::vector<uint8_t> tagged = FrameFor(kDutMac, port_mac_, kDut, kPeer, 50001, 4797, 0x02, payload_);
  const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};  // TPID, VLAN 5
  tagged.insert(tagged.begin() + 12, tag, tag + 4);
  Inject(tagged);
  std::vector<uint8_t> double_tagged = tagged;
  double_tagged.insert(double_tagged.begin() + 12, tag, tag + 4);
  Inject(double_tagged);  // two tags: not MetaRoCE (MROCE-ENC-001)
  std::vector<WireDatagram> seen;
  std::vector<uint8_t> payload;
  EXPECT_EQ(dp.Poll([&](const WireDatagram& d) {
    seen.push_back(d);
    payload.assign(d.payload.begin(), d.payload.end());
  }), 1u);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].src, kDut);
  EXPECT_EQ(seen[0].dst, kPeer);
  EXPECT_EQ(seen[0].sport, 50001);
  EXPECT_EQ(seen[0].tos, 0x02);
  EXPECT_EQ(payload, payload_);
}

TEST_F(EthdevTest, WithoutDutMacAsksByArpAndSendsWhatWaitedOnceAnswered) {
  EthdevDataPlane dp(config_, {port_}, g_pool, std::nullopt);
  ASSERT_TRUE(dp.AddPeer(0, kPeer).ok());
  const auto frame = FrameFor({0x02, 0, 0, 0, 0, 2}, {0x02, 0, 0, 0, 0, 1}, kPeer, kDut, 51234, 4797, 0, payload_);
  ASSERT_TRUE(dp.Send(0, frame).ok());
  auto got = Read();
  ASSERT_EQ(got.size(), 1u) << "an ARP request, the frame waits";
  EXPECT_EQ(got[0][21], 1);
  EXPECT_TRUE(std::equal(kPeer.begin(), kPeer.end(), got[0].begin() + 28));
  EXPECT_TRUE(std::equal(kDut.begin(), kDut.end(), got[0].begin() + 38));
  std::vector<uint8_t> reply = Arp(2, kDutMac, kDut, kPeer);
  Inject(reply);
  dp.Poll([](const WireDatagram&) {});
  got = Read();
  ASSERT_EQ(got.size(), 1u) << "the waiting frame";
  EXPECT_TRUE(std::equal(kDutMac.begin(), kDutMac.end(), got[0].begin()));
  EXPECT_TRUE(std::equal(frame.begin() + 12, frame.end(), got[0].begin() + 12));
}

}  // namespace
}  // namespace mroce::dut::dpdk
