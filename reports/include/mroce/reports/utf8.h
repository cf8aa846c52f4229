// Text a DUT produced (its stderr, identity, error messages, a quoted control line) may hold bytes
// that are not UTF-8. Every report writer passes such text through here: invalid sequences become
// U+FFFD, so report.json stays valid JSON and junit.xml well-formed XML whatever the DUT sent.
#pragma once

#include <string>
#include <string_view>

namespace mroce::reports {

// `s` with every byte that does not start a complete, shortest-form UTF-8 sequence of a scalar value
// (no surrogates, at most U+10FFFF) replaced by U+FFFD (EF BF BD). Valid UTF-8 comes back unchanged.
[[nodiscard]] std::string ValidUtf8(std::string_view s);

}  // namespace mroce::reports
