// libFuzzer target: ParseFrame never crashes, and accepted frames re-serialize to the same bytes and
// re-parse to the same Frame (also through FieldMap and FrameView).
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <vector>

#include "mroce/wire/wire.h"

using namespace mroce::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  for (bool verify : {true, false}) {
    ParseOptions opts;
    opts.verify_crc = verify;
    opts.verify_ip_checksum = verify;
    auto f = ParseFrame(in, opts);
    if (!f) {
      if (f.error().code.empty()) std::abort();
      continue;
    }
    const std::vector<uint8_t> out = SerializeFrame(*f, SerializeOptions::Exact());
    if (out != std::vector<uint8_t>(in.begin(), in.end())) {
      std::fprintf(stderr, "re-serialization differs\n%s", DumpFrame(*f).c_str());
      std::abort();
    }
    auto again = ParseFrame(out, opts);
    if (!again || !(*again == *f)) std::abort();
    auto from_map = FromFieldMap(ToFieldMap(*f));
    if (!from_map || !(*from_map == *f)) std::abort();
    (void)DumpFrame(*f);
    auto view = FrameView::Locate(in);
    if (!view || view->dport() != f->udp.dport || view->ecn() != f->ecn()) std::abort();
    // Building with computed fields always yields a frame that parses with full verification.
    auto fresh = ParseFrame(SerializeFrame(*f), ParseOptions{.verify_udp_checksum = true});
    if (!fresh) {
      std::fprintf(stderr, "%s\n", fresh.error().ToString().c_str());
      std::abort();
    }
  }
  return 0;
}
