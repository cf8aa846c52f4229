// Report: what one benchmark scenario measured (params, result rows, goals, notes), and its three
// renderings: a fixed-width table for the terminal, the JSON object of `bench --json`, and the
// Markdown section of docs/benchmarks.md.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mroce::bench {

// A published figure the reference endpoint must reach. `op` is ">=" or "<=" (or "==").
struct Goal {
  std::string name;
  std::string op = ">=";
  double target = 0;
  double measured = 0;
  std::string unit;          // "" (ratio), "RTT", "B", ...
  // A correctness property (no byte lost, verdicts that do not change between runs, the pristine
  // reference passing): it holds on any grid and any machine, so it is judged in --quick runs too.
  // Other goals are performance figures of the published grid: a --quick run reports them, but they
  // do not decide its exit status.
  bool invariant = false;
  [[nodiscard]] bool met() const;
  // Whether the goal decides the exit status of a run with this quickness.
  [[nodiscard]] bool judged(bool quick) const { return invariant || !quick; }
};

struct Report {
  std::string scenario;
  nlohmann::json params = nlohmann::json::object();
  std::vector<std::string> columns;       // Keys of each row, in table order.
  std::vector<nlohmann::json> rows;       // One object per measurement.
  std::vector<Goal> goals;
  std::vector<std::string> notes;         // How it was measured, what was scaled down, misses.
  double wall_seconds = 0;                // Host time the scenario took (not deterministic).
  std::string svg;                        // Optional plot (empty: none).
};

// {"scenario", "params", "results", "goals": [{name, target, measured, met, op, unit}], "notes"}.
[[nodiscard]] nlohmann::json ToJson(const Report& r);
// Columns padded to their widest cell; goals and notes below.
void PrintTable(const Report& r, std::ostream& out);
// "## scenario" section: params, table, goals, notes, plot reference. `svg_file` is the plot's
// file name relative to the Markdown file ("" when there is none).
[[nodiscard]] std::string ToMarkdown(const Report& r, const std::string& svg_file);
// A cell as printed: numbers to 4 significant digits, strings as is, null as "-".
[[nodiscard]] std::string Cell(const nlohmann::json& v);

// A minimal SVG line chart: one polyline per series, x and y axes with min/max labels.
struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;
};
[[nodiscard]] std::string LineChartSvg(const std::string& title, const std::string& x_label,
                                       const std::string& y_label, const std::vector<Series>& series,
                                       bool log_x = false);

}  // namespace mroce::bench
