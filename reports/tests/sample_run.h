// A RunResult with one of everything, shared by the report tests.
#pragma once

#include "mroce/harness/results.h"

namespace mroce::reports::testing {

harness::RunResult SampleRun();

}  // namespace mroce::reports::testing
