/* A stand-in vendor plugin: compiles against the exported header and exports the entry point. */
#include <mroce/dut/mroce_dut.h>

static const mroce_dut_plugin kTable = {
    .abi_version = MROCE_DUT_ABI_VERSION, .struct_size = sizeof(mroce_dut_plugin), .name = "vendor"};

MROCE_DUT_EXPORT const mroce_dut_plugin* mroce_dut_plugin_v1(void) { return &kTable; }
