// Verbs-like work requests of the RoCEv2 baseline: SEND, RDMA WRITE, RDMA READ and receives.
#pragma once

#include <cstdint>

namespace mroce::rocev2 {

// A local buffer: [addr, addr+length) inside a memory region registered with `lkey`.
struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;  // bytes
  uint32_t lkey = 0;
};

enum class WrOpcode : uint8_t { kSend, kWrite, kRead };

struct SendWr {
  uint64_t wr_id = 0;
  WrOpcode opcode = WrOpcode::kSend;
  Sge local;                 // SEND/WRITE: source; READ: destination (needs local write access)
  uint64_t remote_addr = 0;  // WRITE/READ: the peer's virtual address
  uint32_t rkey = 0;         // WRITE/READ: the peer's memory key
};

struct RecvWr {
  uint64_t wr_id = 0;
  Sge local;  // destination of an incoming SEND (needs local write access)
};

}  // namespace mroce::rocev2
