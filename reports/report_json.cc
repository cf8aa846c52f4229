#include "mroce/reports/report_json.h"

#include <fstream>
#include <sstream>

#include "mroce/reports/visitor.h"

namespace mroce::reports {

using harness::CheckResult;
using harness::ClauseRow;
using harness::RunResult;
using harness::TestResult;
using harness::TimeSeries;
using nlohmann::json;

namespace {

json ClausesJson(const std::vector<harness::ClauseRef>& clauses) {
  json out = json::array();
  for (const auto& c : clauses) out.push_back({{"id", c.id}, {"level", std::string(harness::ToString(c.level))}});
  return out;
}

class JsonWriter : public RunVisitor {
 public:
  void BeginRun(const RunResult& run, const harness::Summary& s) override {
    out_ = json::object();
    out_["schema"] = run.schema;
    out_["suite_version"] = run.suite_version;
    out_["tool_version"] = run.tool_version;
    out_["suite_digest"] = run.suite_digest;
    out_["dut"] = {{"identity", run.dut.identity}, {"description", run.dut.description}};
    out_["seed"] = run.seed;
    out_["started_at"] = run.started_at;
    out_["finished_at"] = run.finished_at;
    out_["incomplete"] = run.incomplete;
    out_["selection"] = {{"filter", run.selection.filter},
                         {"shard_count", run.selection.shard_count},
                         {"shards", run.selection.shards},
                         {"suite_cases", run.selection.suite_cases}};
    json summary = json::object();
    summary["total"] = s.total;
    for (const auto& [v, n] : s.counts) summary[std::string(harness::ToString(v))] = n;
    summary["must_total"] = s.must_total;
    summary["must_pass"] = s.must_pass;
    summary["conformant"] = s.conformant;
    summary["partial"] = s.partial;
    summary["partial_reasons"] = s.partial_reasons;
    summary["expected"] = s.expected;
    summary["unexpected"] = s.unexpected;
    summary["unexpected_pass"] = s.unexpected_pass;
    summary["expired_waivers"] = s.expired_waivers;
    out_["summary"] = summary;
    out_["tests"] = json::array();
    out_["clauses"] = json::array();
  }
  void BeginTest(const TestResult& t) override {
    test_ = json::object();
    test_["id"] = t.id;
    test_["title"] = t.title;
    test_["clauses"] = ClausesJson(t.clauses);
    test_["level"] = std::string(harness::ToString(t.level));
    test_["verdict"] = std::string(harness::ToString(t.verdict));
    test_["reason"] = t.reason;
    test_["duration_s"] = t.duration_s;
    if (t.stall_ms > 0) test_["stall_ms"] = t.stall_ms;  // live DUTs only
    if (t.attempts > 1) test_["attempts"] = t.attempts;
    test_["seed"] = t.seed;
    test_["evidence"] = t.evidence;
    test_["reproduce"] = t.reproduce;
    test_["expectation"] = std::string(harness::ToString(t.expectation));
    test_["expectation_reason"] = t.expectation_reason;
    if (!t.skip_cause.empty()) test_["skip_cause"] = t.skip_cause;
    test_["checks"] = json::array();
    test_["series"] = json::array();
  }
  void VisitCheck(const TestResult&, const CheckResult& c) override {
    json j = {{"check", c.check},
              {"clauses", c.clauses},
              {"verdict", std::string(harness::ToString(c.verdict))},
              {"reason", c.reason},
              {"expected_packet", c.expected_packet},
              {"actual_packet", c.actual_packet},
              {"pcap", c.pcap},
              {"where", c.where},
              {"packet_index", c.packet_index}};
    if (c.mismatch) {
      j["mismatch"] = {{"field", c.mismatch->field}, {"expected", c.mismatch->expected}, {"actual", c.mismatch->actual}};
    }
    test_["checks"].push_back(std::move(j));
  }
  void VisitSeries(const TestResult&, const TimeSeries& s) override {
    json points = json::array();
    for (const auto& [x, y] : s.points) points.push_back({x, y});
    test_["series"].push_back({{"name", s.name}, {"unit", s.unit}, {"x_unit", s.x_unit}, {"points", points}});
  }
  void EndTest(const TestResult&) override { out_["tests"].push_back(std::move(test_)); }
  void VisitClause(const ClauseRow& c) override {
    out_["clauses"].push_back({{"id", c.id},
                               {"level", std::string(harness::ToString(c.level))},
                               {"summary", c.summary},
                               {"tests", c.tests},
                               {"status", c.status}});
  }
  json Take() { return std::move(out_); }

 private:
  json out_;
  json test_;
};

// Typed getters that record the first error with its key path.
class Reader {
 public:
  Reader() = default;
  [[nodiscard]] const std::string& error() const { return error_; }
  bool failed() const { return failed_; }

  const json* Get(const json& obj, const std::string& path, const char* key, json::value_t type) {
    if (failed_) return nullptr;
    if (!obj.is_object() || !obj.contains(key)) return Fail(path + key, "missing");
    const json& v = obj[key];
    bool ok = v.type() == type ||
              (type == json::value_t::number_float && v.is_number()) ||
              (type == json::value_t::number_unsigned && v.is_number_integer() && v.get<int64_t>() >= 0) ||
              (type == json::value_t::number_integer && v.is_number_integer());
    if (!ok) return Fail(path + key, std::string("expected ") + TypeName(type) + ", got " + v.type_name());
    return &v;
  }
  // As Get, but an absent key is not an error (nullptr).
  const json* Optional(const json& obj, const std::string& path, const char* key, json::value_t type) {
    if (failed_ || !obj.is_object() || !obj.contains(key)) return nullptr;
    return Get(obj, path, key, type);
  }
  std::string Str(const json& obj, const std::string& path, const char* key) {
    const json* v = Get(obj, path, key, json::value_t::string);
    return v != nullptr ? v->get<std::string>() : std::string();
  }
  std::vector<std::string> StrList(const json& obj, const std::string& path, const char* key) {
    std::vector<std::string> out;
    const json* v = Get(obj, path, key, json::value_t::array);
    if (v == nullptr) return out;
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        Fail(path + key + "[" + std::to_string(i) + "]", "expected string");
        return out;
      }
      out.push_back((*v)[i].get<std::string>());
    }
    return out;
  }
  template <class T, class P>
  T Enum(const json& obj, const std::string& path, const char* key, P parse) {
    std::string s = Str(obj, path, key);
    if (failed_) return T{};
    auto v = parse(s);
    if (!v) {
      Fail(path + key, "unknown value '" + s + "'");
      return T{};
    }
    return *v;
  }
  std::nullptr_t Fail(const std::string& key, const std::string& msg) {
    if (!failed_) error_ = key + ": " + msg;
    failed_ = true;
    return nullptr;
  }

 private:
  static const char* TypeName(json::value_t t) {
    switch (t) {
      case json::value_t::string: return "string";
      case json::value_t::array: return "array";
      case json::value_t::object: return "object";
      case json::value_t::boolean: return "boolean";
      default: return "number";
    }
  }
  std::string error_;
  bool failed_ = false;
};

std::vector<harness::ClauseRef> ReadClauseRefs(Reader& r, const json& obj, const std::string& path) {
  std::vector<harness::ClauseRef> out;
  const json* list = r.Get(obj, path, "clauses", json::value_t::array);
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string p = path + "clauses[" + std::to_string(i) + "].";
    harness::ClauseRef c;
    c.id = r.Str((*list)[i], p, "id");
    c.level = r.Enum<harness::Level>((*list)[i], p, "level", harness::ParseLevel);
    out.push_back(c);
  }
  return out;
}

}  // namespace

json ToJson(const RunResult& run) {
  JsonWriter w;
  Walk(run, w);
  return w.Take();
}

// Strings from a DUT may not be UTF-8: they are written with U+FFFD in place of the bad bytes.
std::string RenderReportJson(const RunResult& run) {
  return ToJson(run).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<RunResult> FromJson(const json& j) {
  Reader r;
  RunResult run;
  run.schema = r.Str(j, "", "schema");
  if (r.failed()) return MakeError("report.schema", r.error());
  if (run.schema != harness::kReportSchema) {
    return MakeError("report.schema", "schema: unsupported report schema '" + run.schema + "' (this build reads " +
                                          harness::kReportSchema + ")");
  }
  run.suite_version = r.Str(j, "", "suite_version");
  // Absent in reports written before they existed.
  if (r.Optional(j, "", "tool_version", json::value_t::string) != nullptr) run.tool_version = r.Str(j, "", "tool_version");
  if (r.Optional(j, "", "suite_digest", json::value_t::string) != nullptr) run.suite_digest = r.Str(j, "", "suite_digest");
  if (const json* dut = r.Get(j, "", "dut", json::value_t::object)) {
    run.dut.identity = r.Str(*dut, "dut.", "identity");
    run.dut.description = r.Str(*dut, "dut.", "description");
  }
  if (const json* seed = r.Get(j, "", "seed", json::value_t::number_unsigned)) run.seed = seed->get<uint64_t>();
  run.started_at = r.Str(j, "", "started_at");
  run.finished_at = r.Str(j, "", "finished_at");
  if (const json* inc = r.Get(j, "", "incomplete", json::value_t::boolean)) run.incomplete = inc->get<bool>();
  if (const json* sel = r.Optional(j, "", "selection", json::value_t::object)) {  // absent in older reports
    run.selection.filter = r.Str(*sel, "selection.", "filter");
    if (const json* n = r.Get(*sel, "selection.", "shard_count", json::value_t::number_unsigned)) {
      run.selection.shard_count = n->get<int>();
    }
    if (const json* sh = r.Get(*sel, "selection.", "shards", json::value_t::array)) {
      for (const json& v : *sh) {
        if (v.is_number_unsigned()) run.selection.shards.push_back(v.get<int>());
      }
    }
    if (const json* n = r.Get(*sel, "selection.", "suite_cases", json::value_t::number_unsigned)) {
      run.selection.suite_cases = n->get<int>();
    }
  }
  if (const json* tests = r.Get(j, "", "tests", json::value_t::array)) {
    for (size_t i = 0; i < tests->size() && !r.failed(); ++i) {
      const json& tj = (*tests)[i];
      std::string p = "tests[" + std::to_string(i) + "].";
      TestResult t;
      t.id = r.Str(tj, p, "id");
      t.title = r.Str(tj, p, "title");
      t.clauses = ReadClauseRefs(r, tj, p);
      t.level = r.Enum<harness::Level>(tj, p, "level", harness::ParseLevel);
      t.verdict = r.Enum<harness::Verdict>(tj, p, "verdict", harness::ParseVerdict);
      t.reason = r.Str(tj, p, "reason");
      if (const json* d = r.Get(tj, p, "duration_s", json::value_t::number_float)) t.duration_s = d->get<double>();
      if (const json* l = r.Optional(tj, p, "stall_ms", json::value_t::number_float)) t.stall_ms = l->get<double>();
      if (const json* a = r.Optional(tj, p, "attempts", json::value_t::number_unsigned)) t.attempts = a->get<int>();
      if (const json* s = r.Get(tj, p, "seed", json::value_t::number_unsigned)) t.seed = s->get<uint64_t>();
      t.evidence = r.StrList(tj, p, "evidence");
      t.reproduce = r.Str(tj, p, "reproduce");
      t.expectation = r.Enum<harness::ExpectationStatus>(tj, p, "expectation", harness::ParseExpectationStatus);
      t.expectation_reason = r.Str(tj, p, "expectation_reason");
      if (r.Optional(tj, p, "skip_cause", json::value_t::string) != nullptr) t.skip_cause = r.Str(tj, p, "skip_cause");
      if (const json* checks = r.Get(tj, p, "checks", json::value_t::array)) {
        for (size_t k = 0; k < checks->size() && !r.failed(); ++k) {
          const json& cj = (*checks)[k];
          std::string cp = p + "checks[" + std::to_string(k) + "].";
          CheckResult c;
          c.check = r.Str(cj, cp, "check");
          c.clauses = r.StrList(cj, cp, "clauses");
          c.verdict = r.Enum<harness::Verdict>(cj, cp, "verdict", harness::ParseVerdict);
          c.reason = r.Str(cj, cp, "reason");
          c.expected_packet = r.Str(cj, cp, "expected_packet");
          c.actual_packet = r.Str(cj, cp, "actual_packet");
          c.pcap = r.Str(cj, cp, "pcap");
          c.where = r.Str(cj, cp, "where");
          if (const json* pi = r.Get(cj, cp, "packet_index", json::value_t::number_unsigned)) c.packet_index = pi->get<uint64_t>();
          if (cj.is_object() && cj.contains("mismatch")) {
            const json* m = r.Get(cj, cp, "mismatch", json::value_t::object);
            if (m != nullptr) {
              c.mismatch = harness::ValueMismatch{r.Str(*m, cp + "mismatch.", "field"), r.Str(*m, cp + "mismatch.", "expected"),
                                                  r.Str(*m, cp + "mismatch.", "actual")};
            }
          }
          t.checks.push_back(std::move(c));
        }
      }
      if (const json* series = r.Get(tj, p, "series", json::value_t::array)) {
        for (size_t k = 0; k < series->size() && !r.failed(); ++k) {
          const json& sj = (*series)[k];
          std::string sp = p + "series[" + std::to_string(k) + "].";
          TimeSeries s;
          s.name = r.Str(sj, sp, "name");
          s.unit = r.Str(sj, sp, "unit");
          s.x_unit = r.Str(sj, sp, "x_unit");
          if (const json* pts = r.Get(sj, sp, "points", json::value_t::array)) {
            for (const json& pt : *pts) {
              if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number()) {
                r.Fail(sp + "points", "expected [x, y] number pairs");
                break;
              }
              s.points.emplace_back(pt[0].get<double>(), pt[1].get<double>());
            }
          }
          t.series.push_back(std::move(s));
        }
      }
      run.tests.push_back(std::move(t));
    }
  }
  if (const json* clauses = r.Get(j, "", "clauses", json::value_t::array)) {
    for (size_t i = 0; i < clauses->size() && !r.failed(); ++i) {
      const json& cj = (*clauses)[i];
      std::string p = "clauses[" + std::to_string(i) + "].";
      ClauseRow c;
      c.id = r.Str(cj, p, "id");
      c.level = r.Enum<harness::Level>(cj, p, "level", harness::ParseLevel);
      c.summary = r.Str(cj, p, "summary");
      c.tests = r.StrList(cj, p, "tests");
      c.status = r.Str(cj, p, "status");
      run.clauses.push_back(std::move(c));
    }
  }
  if (r.failed()) return MakeError("report.schema", r.error());
  return run;
}

Result<RunResult> ReadReportFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError("report.read", path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::parse_error& e) {
    return MakeError("report.read", path + ": not JSON: " + e.what());
  }
  auto run = FromJson(j);
  if (!run.ok()) return MakeError(run.error().code, path + ": " + run.error().message);
  return run;
}

}  // namespace mroce::reports
