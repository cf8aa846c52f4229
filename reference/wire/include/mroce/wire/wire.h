// Umbrella header of mroce_wire, the MetaRoCE / RoCEv2 wire codec.
#pragma once

#include "mroce/wire/constants.h"
#include "mroce/wire/crc.h"
#include "mroce/wire/dump.h"
#include "mroce/wire/eth.h"
#include "mroce/wire/field_map.h"
#include "mroce/wire/frame.h"
#include "mroce/wire/frame_view.h"
#include "mroce/wire/ip.h"
#include "mroce/wire/meta.h"
#include "mroce/wire/result.h"
#include "mroce/wire/roce.h"
#include "mroce/wire/udp.h"
