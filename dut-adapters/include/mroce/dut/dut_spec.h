// DutSpec: parses the --dut argument ("reference", "reference:quirk=A,quirk=B", "rocev2", ...) and
// builds the device it names.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mroce/dut/dut.h"

namespace mroce::dut {

struct DutSpec {
  std::string kind;  // "reference", "rocev2", ...
  std::vector<std::pair<std::string, std::string>> options;  // key=value, in the order given
  std::string text;  // as written by the user

  // Parses KIND[:key=value[,key=value...]]. Errors name the offending part.
  [[nodiscard]] static Result<DutSpec> Parse(std::string_view text);
  // Every value given for `key`, in order.
  [[nodiscard]] std::vector<std::string> Values(std::string_view key) const;
};

// Builds a fresh device for one test case (each case gets its own, so state never leaks).
[[nodiscard]] Result<std::unique_ptr<Dut>> MakeDut(const DutSpec& spec);
// Kinds built outside mroce_dut (dpdk: needs DPDK, dut-adapters/dpdk). The program registers them
// before it calls MakeDut; a kind MakeDut knows of but nobody registered says it was not built.
using DutKindFactory = Result<std::unique_ptr<Dut>> (*)(const DutSpec& spec);
void RegisterDutKind(const std::string& kind, DutKindFactory factory);
// The kinds MakeDut knows, for usage messages.
[[nodiscard]] std::vector<std::string> KnownDutKinds();

}  // namespace mroce::dut
