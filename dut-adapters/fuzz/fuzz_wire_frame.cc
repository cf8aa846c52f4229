// libFuzzer target: one raw Ethernet frame as a DUT's port may send it, through the dpdk adapter's
// receive classification (ClassifyWireFrame), and Readdress on a copy at the offsets it found. Must
// never read or write outside the frame, crash or hang.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mroce/dut/udp_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> frame(data, size);
  const mroce::dut::WireFrame w = mroce::dut::ClassifyWireFrame(frame);
  if (w.kind == mroce::dut::WireFrame::Kind::kUdp) {
    // The payload lies within the frame and ends where the UDP length says.
    if (w.payload.data() < data || w.payload.data() + w.payload.size() > data + size) __builtin_trap();
    std::vector<uint8_t> copy(data, data + size);
    const size_t udp = static_cast<size_t>(w.payload.data() - data) - 8;
    const size_t l3 = size > 18 && data[12] == 0x81 && data[13] == 0x00 ? 18 : 14;
    mroce::dut::Readdress(copy, l3, udp, w.dst, w.src);
  }
  // Offsets from the input itself, wherever they point.
  if (size >= 2) {
    std::vector<uint8_t> copy(data, data + size);
    mroce::dut::Readdress(copy, data[0], data[1], {1, 2, 3, 4}, {5, 6, 7, 8});
  }
  return 0;
}
