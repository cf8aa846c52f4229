// Report renderings (see report.h).
#include "mroce/bench/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace mroce::bench {

using nlohmann::json;

bool Goal::met() const {
  if (op == "<=") return measured <= target;
  if (op == "==") return measured == target;
  return measured >= target;
}

std::string Cell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.4g", v.get<double>());
    return buf;
  }
  return v.dump();
}

json ToJson(const Report& r) {
  json goals = json::array();
  for (const Goal& g : r.goals) {
    goals.push_back({{"name", g.name}, {"target", g.target}, {"measured", g.measured}, {"met", g.met()},
                     {"op", g.op}, {"unit", g.unit}, {"invariant", g.invariant}});
  }
  json rows = json::array();
  for (const json& row : r.rows) rows.push_back(row);
  return {{"scenario", r.scenario}, {"params", r.params}, {"results", rows}, {"goals", goals},
          {"notes", r.notes}, {"wall_seconds", r.wall_seconds}};
}

namespace {

std::string GoalLine(const Goal& g, bool quick) {
  std::ostringstream s;
  s << (g.met() ? "MET   " : "MISSED") << "  " << (g.judged(quick) ? "" : "(not judged in --quick) ") << g.name << ": measured " << Cell(json(g.measured))
    << (g.unit.empty() ? "" : " " + g.unit) << ", target " << g.op << " " << Cell(json(g.target))
    << (g.unit.empty() ? "" : " " + g.unit);
  return s.str();
}

}  // namespace

void PrintTable(const Report& r, std::ostream& out) {
  out << "== " << r.scenario << " " << r.params.dump() << "\n";
  std::vector<size_t> width;
  for (const std::string& c : r.columns) width.push_back(c.size());
  for (const json& row : r.rows) {
    for (size_t i = 0; i < r.columns.size(); ++i) {
      width[i] = std::max(width[i], Cell(row.value(r.columns[i], json())).size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      out << (i ? "  " : "") << cells[i] << std::string(width[i] - cells[i].size(), ' ');
    }
    out << "\n";
  };
  line(r.columns);
  for (const json& row : r.rows) {
    std::vector<std::string> cells;
    for (const std::string& c : r.columns) cells.push_back(Cell(row.value(c, json())));
    line(cells);
  }
  for (const Goal& g : r.goals) out << GoalLine(g, r.params.value("quick", false)) << "\n";
  for (const std::string& n : r.notes) out << "note: " << n << "\n";
  out << "\n";
}

std::string ToMarkdown(const Report& r, const std::string& svg_file) {
  std::ostringstream s;
  s << "## " << r.scenario << "\n\n";
  s << "Parameters: `" << r.params.dump() << "`\n\n";
  s << "|";
  for (const std::string& c : r.columns) s << " " << c << " |";
  s << "\n|";
  for (size_t i = 0; i < r.columns.size(); ++i) s << "---|";
  s << "\n";
  for (const json& row : r.rows) {
    s << "|";
    for (const std::string& c : r.columns) s << " " << Cell(row.value(c, json())) << " |";
    s << "\n";
  }
  s << "\n";
  if (!r.goals.empty()) {
    s << "| goal | target | measured | met |\n|---|---|---|---|\n";
    for (const Goal& g : r.goals) {
      s << "| " << g.name << " | " << g.op << " " << Cell(json(g.target)) << (g.unit.empty() ? "" : " " + g.unit)
        << " | " << Cell(json(g.measured)) << (g.unit.empty() ? "" : " " + g.unit) << " | "
        << (g.met() ? "yes" : "**no**") << " |\n";
    }
    s << "\n";
  }
  if (!svg_file.empty()) s << "![" << r.scenario << "](" << svg_file << ")\n\n";
  for (const std::string& n : r.notes) s << "- " << n << "\n";
  if (!r.notes.empty()) s << "\n";
  return s.str();
}

std::string LineChartSvg(const std::string& title, const std::string& x_label, const std::string& y_label,
                         const std::vector<Series>& series, bool log_x) {
  const double w = 640, h = 360, ml = 60, mr = 150, mt = 30, mb = 45;
  double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = -INFINITY;
  auto fx = [&](double x) { return log_x ? std::log10(std::max(x, 1e-9)) : x; };
  for (const Series& s : series) {
    for (const auto& [x, y] : s.points) {
      x0 = std::min(x0, fx(x));
      x1 = std::max(x1, fx(x));
      y1 = std::max(y1, y);
    }
  }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;
  y1 *= 1.05;
  auto px = [&](double x) { return ml + (fx(x) - x0) / (x1 - x0) * (w - ml - mr); };
  auto py = [&](double y) { return h - mb - (y - y0) / (y1 - y0) * (h - mt - mb); };
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  std::ostringstream s;
  char buf[64];
  auto num = [&](double v) {
    std::snprintf(buf, sizeof(buf), "%.3g", v);
    return std::string(buf);
  };
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << w / 2 << "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\">" << title << "</text>\n";
  s << "<line x1=\"" << ml << "\" y1=\"" << h - mb << "\" x2=\"" << w - mr << "\" y2=\"" << h - mb << "\" stroke=\"black\"/>\n";
  s << "<line x1=\"" << ml << "\" y1=\"" << mt << "\" x2=\"" << ml << "\" y2=\"" << h - mb << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double yv = y0 + (y1 - y0) * i / 4;
    s << "<text x=\"" << ml - 5 << "\" y=\"" << py(yv) + 4 << "\" text-anchor=\"end\">" << num(yv) << "</text>\n";
    s << "<line x1=\"" << ml << "\" y1=\"" << py(yv) << "\" x2=\"" << w - mr << "\" y2=\"" << py(yv)
      << "\" stroke=\"#ddd\"/>\n";
  }
  // X ticks at the first series' points.
  if (!series.empty()) {
    for (const auto& [x, y] : series.front().points) {
      s << "<text x=\"" << px(x) << "\" y=\"" << h - mb + 15 << "\" text-anchor=\"middle\">" << num(x) << "</text>\n";
    }
  }
  s << "<text x=\"" << (ml + w - mr) / 2 << "\" y=\"" << h - 8 << "\" text-anchor=\"middle\">" << x_label << "</text>\n";
  s << "<text x=\"14\" y=\"" << (mt + h - mb) / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
    << (mt + h - mb) / 2 << ")\">" << y_label << "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = kColors[i % 8];
    s << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\" points=\"";
    for (const auto& [x, y] : series[i].points) s << px(x) << "," << py(y) << " ";
    s << "\"/>\n";
    for (const auto& [x, y] : series[i].points) {
      s << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"3\" fill=\"" << color << "\"/>\n";
    }
    const double ly = mt + 10 + 18 * static_cast<double>(i);
    s << "<line x1=\"" << w - mr + 10 << "\" y1=\"" << ly << "\" x2=\"" << w - mr + 30 << "\" y2=\"" << ly
      << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>\n";
    s << "<text x=\"" << w - mr + 35 << "\" y=\"" << ly + 4 << "\">" << series[i].name << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace mroce::bench
