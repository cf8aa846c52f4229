// report.html: one self-contained file (inline CSS and SVG, no scripts, no network fetches) with
// the verdict (conformant or not, MUST passed/total), the clause coverage matrix, a table of cases,
// and per-case evidence: failing checks with expected vs actual, packet dumps, pcap links, the
// reproduce command, and SVG plots of the case's time series.
#pragma once

#include <string>
#include <vector>

#include "mroce/harness/results.h"

namespace mroce::reports {

[[nodiscard]] std::string RenderHtml(const harness::RunResult& run);

// An inline <svg> line chart of series that share a y unit (exposed for tests).
[[nodiscard]] std::string RenderSvgPlot(const std::string& title, const std::vector<const harness::TimeSeries*>& series);

[[nodiscard]] std::string HtmlEscape(std::string_view s);

}  // namespace mroce::reports
