// libFuzzer target: ParseMeta / ParseCommonHeader never crash; accepted packets round-trip exactly.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "mroce/wire/wire.h"

using namespace mroce::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  auto ch = ParseCommonHeader(in, 7);
  if (ch.ok() != (size >= kCommonHeaderSize)) std::abort();
  for (bool verify : {true, false}) {
    auto p = ParseMeta(in, 7, verify);
    if (!p) {
      if (p.error().code.empty() || p.error().offset < 7) std::abort();
      continue;
    }
    if (!ch || !(p->ch == *ch)) std::abort();
    const auto out = SerializeMeta(*p, {.fill_payload_len = false, .fill_crc = false});
    if (out != std::vector<uint8_t>(in.begin(), in.end())) std::abort();
    auto again = ParseMeta(out, 0, verify);
    if (!again || !(*again == *p)) std::abort();
    auto from_map = MetaFromFieldMap(ToFieldMap(*p));
    if (!from_map || !(*from_map == *p)) std::abort();
    // A freshly computed CRC always verifies.
    if (!ParseMeta(SerializeMeta(*p))) std::abort();
    (void)DumpMeta(*p);
  }
  return 0;
}
