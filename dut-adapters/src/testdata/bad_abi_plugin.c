/* A plugin built for an ABI version this host does not speak: loading it must be refused. */
#include "mroce/dut/mroce_dut.h"

static const mroce_dut_plugin kTable = {
    .abi_version = 99u, .struct_size = sizeof(mroce_dut_plugin), .name = "bad-abi", .version = "0"};

MROCE_DUT_EXPORT const mroce_dut_plugin* mroce_dut_plugin_v1(void) { return &kTable; }
