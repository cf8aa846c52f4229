// The codec's results: mroce::Result<T> and Status (harness/sim's one error vocabulary). A failed
// parse or field-map conversion is an Error whose code names the field that failed ("ack.sack",
// "ip4.checksum", "crc") and whose offset is that field's byte offset from the start of the buffer
// the caller handed in (plus any base_offset it passed): see mroce::FieldError.
#pragma once

#include "mroce/sim/result.h"

namespace mroce::wire {

using mroce::Error;
using mroce::FieldError;
using mroce::Result;
using mroce::Status;

}  // namespace mroce::wire
