// ns-3 (3.37) twin of mroce-fabric-bench: the same topology and traffic with point-to-point links.
//
// Per plane a two-tier Clos: hosts_per_leaf hosts per leaf, S spines; each host has one
// point-to-point NIC per plane (100 Gb/s, 1 us), leaves connect to every spine (400 Gb/s, 1 us).
// Every host sends, on every plane, constant-rate UDP frames round-robin to every other host
// (UdpClient per destination at load x line rate / (hosts-1)), 16 source ports spread by routing
// with per-packet random ECMP (ns-3 global routing has no 5-tuple hash). A frame-hop is a frame
// received at the far end of a link (PointToPointNetDevice MacRx + promiscuous-free counting).
//
// Usage: mroce-fabric-bench-ns3 [--hosts=16] [--planes=2] [--spines=4] [--hostsPerLeaf=4]
//                               [--load=0.4] [--payload=1024] [--durationUs=1000]
#include <ctime>
#include <cstdio>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;

static uint64_t g_hops = 0;
static void OnPhyRxEnd(Ptr<const Packet>) { ++g_hops; }

static double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int main(int argc, char** argv) {
  uint32_t hosts = 16, planes = 2, spines = 4, hostsPerLeaf = 4, payload = 1024;
  double load = 0.4;
  uint64_t durationUs = 1000;
  CommandLine cmd;
  cmd.AddValue("hosts", "hosts", hosts);
  cmd.AddValue("planes", "planes", planes);
  cmd.AddValue("spines", "spines per plane", spines);
  cmd.AddValue("hostsPerLeaf", "hosts per leaf", hostsPerLeaf);
  cmd.AddValue("load", "offered load per host NIC (fraction of 100 Gb/s)", load);
  cmd.AddValue("payload", "UDP payload bytes", payload);
  cmd.AddValue("durationUs", "simulated sending time in microseconds", durationUs);
  cmd.Parse(argc, argv);

  Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));
  const uint32_t leaves = (hosts + hostsPerLeaf - 1) / hostsPerLeaf;

  NodeContainer hostNodes;
  hostNodes.Create(hosts);
  std::vector<NodeContainer> leafNodes(planes), spineNodes(planes);
  InternetStackHelper stack;
  stack.Install(hostNodes);
  for (uint32_t p = 0; p < planes; ++p) {
    leafNodes[p].Create(leaves);
    spineNodes[p].Create(spines);
    stack.Install(leafNodes[p]);
    stack.Install(spineNodes[p]);
  }

  PointToPointHelper hostLink, fabricLink;
  hostLink.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
  hostLink.SetChannelAttribute("Delay", StringValue("1us"));
  hostLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("20000p"));
  fabricLink.SetDeviceAttribute("DataRate", StringValue("400Gbps"));
  fabricLink.SetChannelAttribute("Delay", StringValue("1us"));
  fabricLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("20000p"));

  Ipv4AddressHelper addr;
  // hostAddr[p][h]: host h's address on plane p (the destination for plane-p traffic).
  std::vector<std::vector<Ipv4Address>> hostAddr(planes, std::vector<Ipv4Address>(hosts));
  uint32_t subnet = 0;
  auto nextBase = [&subnet]() {
    char buf[32];
    std::snprintf(buf, sizeof buf, "10.%u.%u.0", (subnet >> 8) & 0xff, subnet & 0xff);
    ++subnet;
    return std::string(buf);
  };
  for (uint32_t p = 0; p < planes; ++p) {
    for (uint32_t h = 0; h < hosts; ++h) {
      NetDeviceContainer d = hostLink.Install(hostNodes.Get(h), leafNodes[p].Get(h / hostsPerLeaf));
      addr.SetBase(nextBase().c_str(), "255.255.255.0");
      Ipv4InterfaceContainer ifc = addr.Assign(d);
      hostAddr[p][h] = ifc.GetAddress(0);
    }
    for (uint32_t l = 0; l < leaves; ++l)
      for (uint32_t s = 0; s < spines; ++s) {
        NetDeviceContainer d = fabricLink.Install(leafNodes[p].Get(l), spineNodes[p].Get(s));
        addr.SetBase(nextBase().c_str(), "255.255.255.0");
        addr.Assign(d);
      }
  }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  // Frame = payload + UDP 8 + IPv4 20 + PPP 2; line-rate gap per host NIC at `load`, split over
  // the (hosts - 1) destinations, each destination one UdpClient.
  const double frameBits = (payload + 8 + 20 + 2 + 24) * 8.0;  // +24 B overhead like the twin.
  const double perHostPps = load * 100e9 / frameBits;
  const double perFlowGapS = (hosts - 1) / perHostPps;
  const Time stop = MicroSeconds(durationUs);
  for (uint32_t p = 0; p < planes; ++p)
    for (uint32_t dst = 0; dst < hosts; ++dst) {
      const uint16_t port = static_cast<uint16_t>(9 + p);  // One server per plane on each host.
      UdpServerHelper server(port);
      ApplicationContainer sa = server.Install(hostNodes.Get(dst));
      (void)sa;
      for (uint32_t src = 0; src < hosts; ++src) {
        if (src == dst) continue;
        UdpClientHelper client(hostAddr[p][dst], port);
        client.SetAttribute("MaxPackets", UintegerValue(0xFFFFFFFF));
        client.SetAttribute("Interval", TimeValue(Seconds(perFlowGapS)));
        client.SetAttribute("PacketSize", UintegerValue(payload));
        ApplicationContainer ca = client.Install(hostNodes.Get(src));
        ca.Start(NanoSeconds((src * planes + p) * 37 + dst * 11));
        ca.Stop(stop);
      }
    }
  Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/MacRx",
                                MakeCallback(&OnPhyRxEnd));

  Simulator::Stop(stop + MilliSeconds(1));
  const double c0 = CpuSeconds();
  Simulator::Run();
  const double cpu = CpuSeconds() - c0;
  Simulator::Destroy();
  std::printf("ns3-flood: hosts=%u planes=%u spines=%u leaves=%u load=%.2f payload=%uB sim=%lluus\n", hosts, planes,
              spines, leaves, load, payload, static_cast<unsigned long long>(durationUs));
  std::printf("frame-hops %llu cpu %.3f s\n", static_cast<unsigned long long>(g_hops), cpu);
  std::printf("RESULT ns3 frame_hops_per_cpu_second %.0f\n", cpu > 0 ? g_hops / cpu : 0.0);
  return 0;
}
