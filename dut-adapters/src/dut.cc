// Names of the Dut interface's enums and the capability lookup.
#include "mroce/dut/dut.h"

#include <algorithm>

namespace mroce::dut {

std::string_view ProtocolName(Protocol p) {
  switch (p) {
    case Protocol::kMetaRoce: return "metaroce";
    case Protocol::kRocev2: return "rocev2";
  }
  return "unknown";
}

bool Capabilities::Has(std::string_view feature) const {
  if (feature == "simulated_time") return simulated_time;  // cases that need the harness's clock
  if (feature == "raw_frames") return raw_frames;  // cases that inject their own Ethernet/IP/UDP headers
  return std::find(features.begin(), features.end(), feature) != features.end();
}

std::string_view OpKindName(OpKind k) {
  switch (k) {
    case OpKind::kSend: return "send";
    case OpKind::kWrite: return "write";
    case OpKind::kRead: return "read";
    case OpKind::kRecv: return "recv";
    case OpKind::kRecvWriteImm: return "recv_write_imm";
  }
  return "unknown";
}

std::string_view OpStatusName(OpStatus s) {
  switch (s) {
    case OpStatus::kSuccess: return "success";
    case OpStatus::kRetryExceeded: return "retry_exceeded";
    case OpStatus::kRnrRetryExceeded: return "rnr_retry_exceeded";
    case OpStatus::kRemoteAccess: return "remote_access";
    case OpStatus::kLocalLength: return "local_length";
    case OpStatus::kRemoteInvalid: return "remote_invalid";
    case OpStatus::kRemoteOpError: return "remote_op_error";
    case OpStatus::kFlushed: return "flushed";
    case OpStatus::kRemoteAbort: return "remote_abort";
    case OpStatus::kResource: return "resource";
    case OpStatus::kConnectTimeout: return "connect_timeout";
    case OpStatus::kOther: return "other";
  }
  return "unknown";
}

std::string_view ConnEventKindName(ConnEventKind k) {
  switch (k) {
    case ConnEventKind::kEstablished: return "established";
    case ConnEventKind::kIncoming: return "incoming";
    case ConnEventKind::kRejected: return "rejected";
    case ConnEventKind::kTimeout: return "timeout";
    case ConnEventKind::kClosed: return "closed";
    case ConnEventKind::kError: return "error";
    case ConnEventKind::kAccepted: return "accepted";
  }
  return "unknown";
}

}  // namespace mroce::dut
