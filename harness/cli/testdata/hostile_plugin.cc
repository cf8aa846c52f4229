// Hostile DUT plugins for the isolation tests (run_test.cc, Isolation*): the example reference
// plugin, whose table is wrapped so that once it is asked to WRITE exactly 4321 bytes (the case
// basic.hostile.trigger of testdata/hostile-suite) it misbehaves as MROCE_HOSTILE selects:
//   1 segfault in post_write, 2 abort() in post_write (after a last word on stderr),
//   3 an endless loop in on_timer (a timer is armed at once so that on_timer is called),
//   4 next_deadline() = 0 forever.
// Every other case passes as with the reference.
#define mroce_dut_plugin_v1 mroce_example_reference_plugin_v1
#include "../../../dut-adapters/examples/reference_plugin.cc"
#undef mroce_dut_plugin_v1

#include <cstdlib>

#ifndef MROCE_HOSTILE
#error "MROCE_HOSTILE must select the misbehaviour"
#endif

namespace {

constexpr uint32_t kTriggerLength = 4321;
bool g_triggered = false;
mroce_dut_plugin g_inner{};

// Not instrumented by UBSan in the sanitizer build: a vendor's plugin is not, and its null store must
// reach the kernel as SIGSEGV (isolation_test.cc also turns off ASan's SEGV handler for the run).
__attribute__((no_sanitize("undefined"))) int HostilePostWrite(mroce_dut_instance* dut, uint32_t conn, uint16_t stream, uint32_t buffer_id, uint64_t offset,
                     uint32_t length, uint64_t remote_va, uint32_t rkey, uint64_t wr_id, int has_imm, uint32_t imm,
                     mroce_dut_time_ns now) {
  if (length == kTriggerLength) {
    g_triggered = true;
    if (MROCE_HOSTILE == 1) {
      std::fprintf(stderr, "hostile plugin: about to dereference null\n");
      std::fflush(stderr);
      volatile int* null = nullptr;
      *null = 1;
    }
    if (MROCE_HOSTILE == 2) {
      // Not UTF-8 on purpose: the harness must sanitize what it quotes.
      std::fprintf(stderr, "hostile plugin: giving up \xff\xfe here\n");
      std::fflush(stderr);
      std::abort();
    }
  }
  return g_inner.post_write(dut, conn, stream, buffer_id, offset, length, remote_va, rkey, wr_id, has_imm, imm, now);
}

void HostileOnTimer(mroce_dut_instance* dut, mroce_dut_time_ns now) {
  if (MROCE_HOSTILE == 3 && g_triggered) {
    for (;;) asm volatile("");  // spins: the compiler may not remove it
  }
  g_inner.on_timer(dut, now);
}

mroce_dut_time_ns HostileNextDeadline(mroce_dut_instance* dut) {
  if (MROCE_HOSTILE == 4 && g_triggered) return 0;
  if (MROCE_HOSTILE == 3 && g_triggered) return 1;
  return g_inner.next_deadline(dut);
}

}  // namespace

extern "C" MROCE_DUT_EXPORT const mroce_dut_plugin* mroce_dut_plugin_v1(void) {
  static const mroce_dut_plugin table = [] {
    g_inner = *mroce_example_reference_plugin_v1();
    mroce_dut_plugin p = g_inner;
    p.name = "hostile-plugin";
    p.post_write = HostilePostWrite;
    p.on_timer = HostileOnTimer;
    p.next_deadline = HostileNextDeadline;
    return p;
  }();
  return &table;
}
