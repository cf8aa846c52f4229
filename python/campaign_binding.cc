// _mroce.run_campaign: a campaign from Python through the campaign library (harness/campaign), the
// very code `mroce-cts run` runs. Returns the run's report.json as a dict (docs/report-schema.md).
//
// The suite is loaded and the run planned holding the GIL (configuration errors raise ValueError);
// the cases run without it, on `jobs` worker threads; `progress` (a callable) gets a small dict per
// finished case, with the GIL, one call at a time. SIGINT and SIGTERM stop the campaign while it
// runs (Python's own handlers are back afterwards): the cases that finished come back, the report
// says "incomplete": true. An exception in `progress` stops it too and is raised once the running
// cases finished. Python users call mroce.run (python/mroce/campaign.py).
#include "campaign_binding.h"

#include <pybind11/stl.h>

#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>

#include "mroce/campaign/suite_run.h"
#include "mroce/harness/expectations_loader.h"
#include "mroce/reports/report_json.h"
#include "mroce/reports/run_dir.h"

namespace py = pybind11;

namespace {

namespace campaign = mroce::campaign;

py::dict RunCampaign(const std::string& suite_path, const std::string& dut, uint64_t seed, const std::string& filter,
                     const std::string& shard, int jobs, const std::string& expectations, const std::string& catalog,
                     const std::string& out, const py::object& progress) {
  campaign::RunSpec spec;
  spec.dut_spec = dut;
  spec.seed = seed;
  spec.filter = filter;
  if (!shard.empty()) {
    const auto s = campaign::Shard::Parse(shard);
    if (!s) throw py::value_error("shard '" + shard + "': expected I/N with 1 <= I <= N, e.g. 2/4");
    spec.shard = *s;
  }
  if (jobs < 0) throw py::value_error("jobs " + std::to_string(jobs) + ": must be >= 0");
  spec.suite_version = MROCE_CTS_VERSION;
  if (!expectations.empty()) {
    auto loaded = mroce::harness::LoadExpectationsFile(expectations);
    if (!loaded.ok()) throw py::value_error(loaded.ErrorText());
    spec.waivers = std::move(loaded.value);
  }
  auto suite = campaign::LoadSuite(suite_path, catalog.empty() ? campaign::FindCatalogNear(suite_path) : catalog);
  if (!suite.ok()) throw py::value_error(suite.error().message);
  auto plan = campaign::PlanRun(suite.value(), spec);
  if (!plan.ok()) throw py::value_error(plan.error().message);

  campaign::Options options;
  options.jobs = jobs;
  options.session.run_dir = out;
  options.session.write_evidence = !out.empty();
  // The reproduce command names `mroce-cts` (this module does not know where the CLI was built) and
  // the suite and catalog this call used.
  auto quoted = [](const std::string& s) {
    std::string q = "'";
    for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
  };
  options.session.reproduce_prefix = "mroce-cts run --suite " + quoted(suite_path);
  if (!catalog.empty()) options.session.reproduce_prefix += " --catalog " + quoted(catalog);
  if (!out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw py::value_error("out '" + out + "': " + ec.message());
  }
  std::stop_source stop;
  options.stop = stop.get_token();
  std::optional<py::error_already_set> progress_error;
  if (!progress.is_none()) {
    options.on_result = [&](const campaign::Finished& f) {
      py::gil_scoped_acquire gil;
      if (progress_error) return;
      try {
        progress(py::dict(py::arg("id") = f.result->id, py::arg("seed") = f.result->seed,
                          py::arg("verdict") = std::string(mroce::harness::ToString(f.result->verdict)),
                          py::arg("reason") = f.result->reason, py::arg("done") = f.done, py::arg("total") = f.total));
      } catch (py::error_already_set& e) {
        progress_error = std::move(e);
        stop.request_stop();
      }
    };
  }
  campaign::ExecutedRun done;
  {
    py::gil_scoped_release release;
    done = campaign::ExecuteRun(plan.value(), options);
  }
  if (progress_error) throw std::move(*progress_error);
  if (!out.empty()) {
    if (const mroce::Status w = mroce::reports::WriteRunDir(out, done.run); !w.ok()) {
      throw std::runtime_error("cannot write the run directory: " + w.error().message);
    }
  }
  return py::module_::import("json").attr("loads")(mroce::reports::RenderReportJson(done.run));
}

}  // namespace

void BindCampaign(py::module_& m) {
  m.def("run_campaign", &RunCampaign, py::arg("suite"), py::arg("dut") = "reference", py::arg("seed") = 1,
        py::arg("filter") = "", py::arg("shard") = "", py::arg("jobs") = 0, py::arg("expectations") = "",
        py::arg("catalog") = "", py::arg("out") = "", py::arg("progress") = py::none(),
        "Runs the suite's cases (filter glob, shard 'I/N') against one DUT (--dut syntax) with one seed; "
        "returns the report.json dict. `out`: also write the run directory there (report.json, junit.xml, "
        "report.html, evidence/). `progress(dict)`: called as each case finishes (id, seed, verdict, reason, "
        "done, total).");
}
