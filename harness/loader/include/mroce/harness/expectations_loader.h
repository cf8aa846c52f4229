// Reads an expectations (waivers) YAML file:
//
//   expectations:
//     - test: "loss.sack.*"          # case id or glob
//       dut: "rocev2*"               # DUT identity glob
//       verdict: fail                # fail | inconclusive | error | skip
//       reason: "RoCEv2 has no SACK"
//       expires: 2025-12-31          # the waiver holds through that day
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mroce/harness/diagnostic.h"
#include "mroce/harness/expectations.h"

namespace mroce::harness {

[[nodiscard]] LoadResult<std::vector<Expectation>> LoadExpectationsFile(const std::string& path);
[[nodiscard]] LoadResult<std::vector<Expectation>> LoadExpectationsString(std::string_view yaml,
                                                                          const std::string& file_name);

}  // namespace mroce::harness
