// libFuzzer target: one raw Ethernet frame as a DUT's port may send it, through the dpdk adapter's
// receive classification (ClassifyWireFrame), then readdressed as the adapter readdresses frames
// (FrameView::set_ipv4_addrs) on a copy. Must never read or write outside the frame, crash or hang.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mroce/dut/udp_io.h"
#include "mroce/wire/frame_view.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> frame(data, size);
  const mroce::dut::WireFrame w = mroce::dut::ClassifyWireFrame(frame);
  if (w.kind == mroce::dut::WireFrame::Kind::kUdp) {
    // The payload lies within the frame.
    if (w.payload.data() < data || w.payload.data() + w.payload.size() > data + size) __builtin_trap();
  }
  std::vector<uint8_t> copy(data, data + size);
  auto v = mroce::wire::FrameView::Locate(std::span<uint8_t>(copy));
  if (v.ok() && v->ip_version() == 4) v->set_ipv4_addrs(mroce::wire::Ipv4Address{1, 2, 3, 4}, mroce::wire::Ipv4Address{5, 6, 7, 8});
  return 0;
}
