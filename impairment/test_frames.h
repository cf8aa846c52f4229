// Test helpers: MetaRoCE frames built with the codec's SerializeFrame.
#ifndef MROCE_IMPAIRMENT_TEST_FRAMES_H_
#define MROCE_IMPAIRMENT_TEST_FRAMES_H_

#include <cstdint>
#include <vector>

#include "mroce/impairment/packet.h"
#include "mroce/wire/wire.h"

namespace mroce::impairment::testing {

struct FrameSpec {
  uint32_t src_ip = 0x0a000001;  // 10.0.0.1
  uint32_t dst_ip = 0x0a000002;
  uint16_t sport = 49152;
  wire::Opcode opcode = wire::Opcode::kWrite;
  uint8_t path_id = 0;
  uint32_t psn = 0;
  uint16_t flags = 0;
  uint16_t stream_id = 0;
  size_t payload = 64;
  uint8_t ecn = wire::kEcnEct0;
};

std::vector<uint8_t> MakeFrame(const FrameSpec& spec);
// An ACK on `path_id` with `epsn` and SACK bits (relative to epsn + 1).
std::vector<uint8_t> MakeAck(uint8_t path_id, uint32_t epsn, const std::vector<int>& sack_bits = {});
Packet MakePacket(uint64_t id, const FrameSpec& spec);

}  // namespace mroce::impairment::testing

#endif  // MROCE_IMPAIRMENT_TEST_FRAMES_H_
