#include "mroce/reports/html.h"
#include "mroce/reports/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "mroce/harness/failure_text.h"
#include "mroce/reports/visitor.h"

namespace mroce::reports {

using harness::ClauseRow;
using harness::TestResult;
using harness::TimeSeries;
using harness::Verdict;

std::string HtmlEscape(std::string_view raw) {
  const std::string s = ValidUtf8(raw);  // the page declares UTF-8; a DUT's bytes need not be
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

// An id usable as an HTML anchor (case ids are already [a-z0-9._-]).
std::string Anchor(const std::string& id) { return "t-" + HtmlEscape(id); }

std::string VerdictClass(std::string_view v) { return "v-" + std::string(v); }

// Ticks at 1, 2, 5 x 10^k covering [lo, hi].
std::vector<double> Ticks(double lo, double hi) {
  std::vector<double> out;
  double span = hi - lo;
  if (!(span > 0)) return {lo};
  double raw = span / 5;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return out;
}

const char kCss[] = R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}.meta td:first-child{font-weight:600}
.banner{padding:.8em 1em;border-radius:6px;font-size:1.3em;font-weight:700;margin:1em 0}
.ok{background:#e3f5e1;color:#1b5e20;border:1px solid #7cc47f}.bad{background:#fde7e7;color:#8b1a1a;border:1px solid #e08b8b}
.warn{background:#fff4d6;color:#6b4e00;border:1px solid #e6c35c;font-size:1em}
.v-pass{background:#c8e6c9}.v-fail{background:#ffcdd2}.v-inconclusive{background:#ffe0b2}.v-error{background:#e1bee7}
.v-skip{background:#eeeeee}.v-untested{background:#fafafa;color:#888}
.chip{display:inline-block;padding:0 .4em;margin:1px;border-radius:3px;font-size:.85em;text-decoration:none;color:#222}
pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:.5em;overflow-x:auto;font-size:.85em}
details{border:1px solid #ddd;border-radius:4px;margin:.4em 0;padding:.3em .6em}summary{cursor:pointer}
code{font-size:.9em}svg{background:#fff;border:1px solid #eee;margin:.3em 0}
)";


}  // namespace

std::string RenderSvgPlot(const std::string& title, const std::vector<const TimeSeries*>& series) {
  constexpr double kW = 640, kH = 260, kL = 64, kR = 16, kT = 28, kB = 40;
  double xmin = INFINITY, xmax = -INFINITY, ymin = 0, ymax = -INFINITY;
  for (const TimeSeries* s : series) {
    for (const auto& [x, y] : s->points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH << "\" viewBox=\"0 0 " << kW
    << " " << kH << "\" role=\"img\" aria-label=\"" << HtmlEscape(title) << "\">\n";
  o << "<text x=\"" << kL << "\" y=\"18\" font-size=\"13\" font-weight=\"600\">" << HtmlEscape(title) << "</text>\n";
  if (!(xmax >= xmin) || !(ymax >= ymin)) {
    o << "<text x=\"" << kW / 2 << "\" y=\"" << kH / 2 << "\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n</svg>\n";
    return o.str();
  }
  if (xmax == xmin) xmax = xmin + 1;
  if (ymax == ymin) ymax = ymin + 1;
  auto sx = [&](double x) { return kL + (x - xmin) / (xmax - xmin) * (kW - kL - kR); };
  auto sy = [&](double y) { return kH - kB - (y - ymin) / (ymax - ymin) * (kH - kT - kB); };
  o << "<g font-size=\"10\" fill=\"#555\" stroke=\"#e5e5e5\">\n";
  for (double t : Ticks(ymin, ymax)) {
    o << "<line x1=\"" << kL << "\" x2=\"" << kW - kR << "\" y1=\"" << Num(sy(t)) << "\" y2=\"" << Num(sy(t)) << "\"/>"
      << "<text x=\"" << kL - 4 << "\" y=\"" << Num(sy(t) + 3) << "\" text-anchor=\"end\" stroke=\"none\">" << Num(t)
      << "</text>\n";
  }
  for (double t : Ticks(xmin, xmax)) {
    o << "<line y1=\"" << kT << "\" y2=\"" << kH - kB << "\" x1=\"" << Num(sx(t)) << "\" x2=\"" << Num(sx(t)) << "\"/>"
      << "<text y=\"" << kH - kB + 14 << "\" x=\"" << Num(sx(t)) << "\" text-anchor=\"middle\" stroke=\"none\">" << Num(t)
      << "</text>\n";
  }
  o << "</g>\n";
  std::string x_unit = series.empty() ? "" : series.front()->x_unit;
  std::string y_unit = series.empty() ? "" : series.front()->unit;
  o << "<text x=\"" << (kL + kW - kR) / 2 << "\" y=\"" << kH - 6 << "\" font-size=\"11\" text-anchor=\"middle\">time ("
    << HtmlEscape(x_unit) << ")</text>\n";
  o << "<text x=\"12\" y=\"" << (kT + kH - kB) / 2 << "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 "
    << (kT + kH - kB) / 2 << ")\">" << HtmlEscape(y_unit) << "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = kPalette[i % std::size(kPalette)];
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\" points=\"";
    bool first = true;
    for (const auto& [x, y] : series[i]->points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      o << (first ? "" : " ") << Num(sx(x)) << "," << Num(sy(y));
      first = false;
    }
    o << "\"><title>" << HtmlEscape(series[i]->name) << "</title></polyline>\n";
    double ly = kT + 4 + 14 * static_cast<double>(i);
    o << "<rect x=\"" << kW - kR - 150 << "\" y=\"" << Num(ly) << "\" width=\"10\" height=\"3\" fill=\"" << color << "\"/>"
      << "<text x=\"" << kW - kR - 136 << "\" y=\"" << Num(ly + 5) << "\" font-size=\"10\">" << HtmlEscape(series[i]->name)
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

namespace {

class HtmlReport : public RunVisitor {
 public:
  void BeginRun(const harness::RunResult& run, const harness::Summary& s) override {
    o_ << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       << "<title>mroce-cts report: " << HtmlEscape(run.dut.identity) << "</title>\n<style>\n" << kCss << "</style>\n</head>\n<body>\n";
    o_ << "<h1>MetaRoCE conformance report</h1>\n";
    o_ << "<table class=\"meta\">\n";
    Row("DUT", run.dut.identity + (run.dut.description.empty() ? "" : " (" + run.dut.description + ")"));
    Row("Suite version", run.suite_version);
    Row("Tool version", run.tool_version.empty() ? "-" : run.tool_version);
    Row("Suite digest", run.suite_digest.empty() ? "-" : run.suite_digest);
    Row("Seed", std::to_string(run.seed));
    Row("Started", run.started_at);
    Row("Finished", run.finished_at.empty() ? "-" : run.finished_at);
    Row("Schema", run.schema);
    o_ << "</table>\n";
    if (run.incomplete) {
      o_ << "<div class=\"banner warn\" id=\"incomplete\">Incomplete run: it was interrupted and some cases never ran.</div>\n";
    }
    const bool failed = s.must_pass < s.must_total;
    const char* label = s.conformant ? "CONFORMANT" : failed ? "NOT CONFORMANT" : s.partial ? "PARTIAL RUN: not a conformance claim"
                                                                                              : "NO CONFORMANCE VERDICT";
    o_ << "<div class=\"banner " << (s.conformant ? "ok" : failed ? "bad" : "warn") << "\" id=\"verdict\">" << label
       << " &mdash; MUST cases passed: <span id=\"must\">" << s.must_pass << "/" << s.must_total << "</span></div>\n";
    if (s.partial) {
      o_ << "<div class=\"banner warn\" id=\"partial\">Partial run, not a conformance claim:<ul>";
      for (const std::string& why : s.partial_reasons) o_ << "<li>" << HtmlEscape(why) << "</li>";
      o_ << "</ul></div>\n";
    }
    o_ << "<table id=\"summary\"><tr><th>total</th>";
    for (const auto& [v, n] : s.counts) o_ << "<th class=\"" << VerdictClass(harness::ToString(v)) << "\">" << harness::ToString(v) << "</th>";
    o_ << "<th>expected (waived)</th><th>unexpected</th><th>unexpected pass</th><th>expired waivers</th></tr>\n<tr><td>" << s.total << "</td>";
    for (const auto& [v, n] : s.counts) o_ << "<td>" << n << "</td>";
    o_ << "<td>" << s.expected << "</td><td>" << s.unexpected << "</td><td>" << s.unexpected_pass << "</td><td>"
       << s.expired_waivers << "</td></tr></table>\n";
    for (const TestResult& t : run.tests) verdict_of_[t.id] = std::string(harness::ToString(t.verdict));
    // The clause matrix comes first in the page, though the walk visits clauses last.
    o_ << "<h2>Clause coverage</h2>\n<table id=\"clauses\">\n<tr><th>clause</th><th>level</th><th>status</th><th>cases</th><th>summary</th></tr>\n";
    for (const ClauseRow& c : run.clauses) ClauseLine(c);
    o_ << "</table>\n";
  }
  void BeginTests() override {
    o_ << "<h2>Cases</h2>\n<table id=\"tests\">\n<tr><th>case</th><th>level</th><th>verdict</th><th>expectation</th><th>time (s)</th><th>reason</th></tr>\n";
  }
  // Live DUTs: how many runs the case took and its longest stall ("" on the simulated clock).
  static std::string LiveNote(const TestResult& t) {
    std::string n;
    if (t.attempts > 1) n += "<br>" + std::to_string(t.attempts) + " runs";
    if (t.stall_ms > 0) n += "<br>stall " + Fixed(t.stall_ms, 2) + " ms";
    return n;
  }
  void BeginTest(const TestResult& t) override {
    std::string v(harness::ToString(t.verdict));
    o_ << "<tr><td><a href=\"#" << Anchor(t.id) << "\">" << HtmlEscape(t.id) << "</a></td><td>" << harness::ToString(t.level)
       << "</td><td class=\"" << VerdictClass(v) << "\">" << v << "</td><td>"
       << (t.expectation == harness::ExpectationStatus::kNone ? "" : std::string(harness::ToString(t.expectation)))
       << "</td><td>" << Fixed(t.duration_s, 3) << LiveNote(t) << "</td><td>" << HtmlEscape(t.reason) << "</td></tr>\n";
    Evidence(t);
  }
  void EndTests() override {
    o_ << "</table>\n<h2>Evidence</h2>\n" << evidence_.str();
  }
  void EndRun(const harness::RunResult&) override {
    o_ << "<p style=\"color:#888;font-size:.8em\">Generated by mroce-cts from report.json.</p>\n</body>\n</html>\n";
  }
  std::string Take() { return o_.str(); }

 private:
  void Row(const std::string& k, const std::string& v) {
    o_ << "<tr><td>" << HtmlEscape(k) << "</td><td>" << HtmlEscape(v) << "</td></tr>\n";
  }
  void ClauseLine(const ClauseRow& c) {
    o_ << "<tr><td>" << HtmlEscape(c.id) << "</td><td>" << harness::ToString(c.level) << "</td><td class=\""
       << VerdictClass(c.status) << "\">" << HtmlEscape(c.status) << "</td><td>";
    for (const std::string& t : c.tests) {
      auto it = verdict_of_.find(t);
      std::string v = it == verdict_of_.end() ? "untested" : it->second;
      o_ << "<a class=\"chip " << VerdictClass(v) << "\" href=\"#" << Anchor(t) << "\" title=\"" << HtmlEscape(v) << "\">"
         << HtmlEscape(t) << "</a>";
    }
    o_ << "</td><td>" << HtmlEscape(c.summary) << "</td></tr>\n";
  }
  void Evidence(const TestResult& t) {
    std::ostringstream& e = evidence_;
    std::string v(harness::ToString(t.verdict));
    bool open = harness::IsBad(t.verdict);
    e << "<details id=\"" << Anchor(t.id) << "\"" << (open ? " open" : "") << ">\n<summary><span class=\"chip "
      << VerdictClass(v) << "\">" << v << "</span> <b>" << HtmlEscape(t.id) << "</b> &mdash; " << HtmlEscape(t.title)
      << "</summary>\n<table class=\"meta\">\n";
    std::string clauses;
    for (const auto& c : t.clauses) clauses += (clauses.empty() ? "" : ", ") + c.id + " (" + std::string(harness::ToString(c.level)) + ")";
    auto row = [&](const std::string& k, const std::string& val) {
      e << "<tr><td>" << HtmlEscape(k) << "</td><td>" << HtmlEscape(val) << "</td></tr>\n";
    };
    row("clauses", clauses);
    if (!t.reason.empty()) row("reason", t.reason);
    row("seed", std::to_string(t.seed));
    if (t.expectation != harness::ExpectationStatus::kNone) {
      row("expectation", std::string(harness::ToString(t.expectation)) + ": " + t.expectation_reason);
    }
    if (!t.evidence.empty()) {
      e << "<tr><td>evidence</td><td>";
      for (const std::string& p : t.evidence) e << "<a href=\"" << HtmlEscape(p) << "\">" << HtmlEscape(p) << "</a> ";
      e << "</td></tr>\n";
    }
    if (!t.reproduce.empty()) e << "<tr><td>reproduce</td><td><code>" << HtmlEscape(t.reproduce) << "</code></td></tr>\n";
    e << "</table>\n";
    if (!t.checks.empty()) {
      e << "<table class=\"checks\"><tr><th>check</th><th>verdict</th><th>clauses</th><th>field</th><th>expected</th><th>actual</th><th>reason</th></tr>\n";
      for (const harness::CheckResult& c : t.checks) {
        std::string cv(harness::ToString(c.verdict));
        std::string cl;
        for (const std::string& id : c.clauses) cl += (cl.empty() ? "" : ", ") + id;
        e << "<tr><td>" << HtmlEscape(c.check) << "</td><td class=\"" << VerdictClass(cv) << "\">" << cv << "</td><td>"
          << HtmlEscape(cl) << "</td><td>" << (c.mismatch ? HtmlEscape(c.mismatch->field) : "") << "</td><td>"
          << (c.mismatch ? HtmlEscape(c.mismatch->expected) : "") << "</td><td>"
          << (c.mismatch ? HtmlEscape(c.mismatch->actual) : "") << "</td><td>" << HtmlEscape(c.reason) << "</td></tr>\n";
      }
      e << "</table>\n";
    }
    if (open) e << "<pre>" << HtmlEscape(harness::FormatTestResult(t)) << "</pre>\n";
    // One plot per y unit, series in their report order.
    std::vector<std::string> units;
    std::map<std::string, std::vector<const TimeSeries*>> by_unit;
    for (const TimeSeries& s : t.series) {
      if (by_unit.find(s.unit) == by_unit.end()) units.push_back(s.unit);
      by_unit[s.unit].push_back(&s);
    }
    for (const std::string& u : units) {
      std::string title = by_unit[u].size() == 1 ? by_unit[u].front()->name : u;
      e << "<div class=\"plot\">" << RenderSvgPlot(title, by_unit[u]) << "</div>\n";
    }
    e << "</details>\n";
  }

  std::ostringstream o_;
  std::ostringstream evidence_;
  std::map<std::string, std::string> verdict_of_;
};

}  // namespace

std::string RenderHtml(const harness::RunResult& run) {
  HtmlReport w;
  Walk(run, w);
  return w.Take();
}

}  // namespace mroce::reports
