// libFuzzer target: ParseRoce never crashes; accepted packets round-trip exactly; ICRC is total.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "mroce/wire/wire.h"

using namespace mroce::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  (void)RoceIcrc(in);  // any bytes: must stay in bounds
  auto p = ParseRoce(in);
  if (!p) {
    if (p.error().code.empty()) std::abort();
    return 0;
  }
  const auto out = SerializeRoce(*p);
  if (out != std::vector<uint8_t>(in.begin(), in.end())) std::abort();
  auto again = ParseRoce(out);
  if (!again || !(*again == *p)) std::abort();
  // Wrapped in a frame with computed fields it parses back with a valid ICRC.
  Frame f;
  f.ip = Ipv4Header{};
  f.udp.dport = kRoceUdpPort;
  f.l4 = *p;
  auto fr = ParseFrame(SerializeFrame(f));
  if (!fr || !(fr->roce()->bth == p->bth) || fr->roce()->payload != p->payload) std::abort();
  return 0;
}
