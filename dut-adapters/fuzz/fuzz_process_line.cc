// libFuzzer target: one line a DUT process writes on its control channel, through every decoder the
// process adapter applies to it (docs/process-protocol.md). Must never crash, hang or leak; errors
// are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mroce/dut/process_protocol.h"

using namespace mroce::dut::jsonl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  (void)Base64Decode(line);
  (void)ParseMac(line);
  (void)ParseIpv4(line);
  auto j = ParseLine(line);
  if (!j.ok()) return 0;
  const json& o = j.value();
  (void)CompletionFromJson(o);
  (void)ConnEventFromJson(o);
  (void)HostConfigFromJson(o);
  (void)PeerFromJson(o);
  (void)BufferFromJson(o);
  for (const char* key : {"caps", "buffer", "counters", "oob", "access", "data"}) {
    auto it = o.find(key);
    if (it == o.end()) continue;
    (void)CapsFromJson(*it);
    (void)BufferFromJson(*it);
    (void)CountersFromJson(*it);
    (void)OobFromJson(*it);
    (void)AccessFromJson(*it);
    if (it->is_string()) (void)Base64Decode(it->get<std::string>());
  }
  Fields f(o, "reply");
  (void)f.U64("id");
  (void)f.Str("op");
  (void)f.Bool("ok", false);
  (void)f.Obj("error", false);
  return 0;
}
