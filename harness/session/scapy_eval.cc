// Embedded-Python Scapy evaluator (see scapy_eval.h).
#include "mroce/session/scapy_eval.h"

#include <cstdlib>
#include <mutex>
#include <sstream>

#include <pybind11/embed.h>

#include "mroce/impairment/fabric.h"
#include "mroce/session/scripted.h"
#include "mroce/session/trace.h"

namespace py = pybind11;

namespace mroce::session {
namespace {

std::once_flag g_init;
std::string g_init_error;

std::string MacText(int host) {
  auto m = impairment::Fabric::HostMac(host);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return buf;
}
std::string IpText(int host) {
  auto a = impairment::Fabric::HostIpv4(host);
  return std::to_string(a[0]) + "." + std::to_string(a[1]) + "." + std::to_string(a[2]) + "." + std::to_string(a[3]);
}

void Init() {
  try {
    py::initialize_interpreter();
  } catch (const std::exception& e) {
    g_init_error = std::string("cannot start the embedded Python interpreter: ") + e.what();
    return;
  }
  {
    try {
      py::module_ sys = py::module_::import("sys");
      py::list path = sys.attr("path");
      std::vector<std::string> dirs;
      if (const char* env = std::getenv("MROCE_PYTHONPATH"); env != nullptr && *env != '\0') {
        std::stringstream ss(env);
        for (std::string d; std::getline(ss, d, ':');) dirs.push_back(d);
      }
#ifdef MROCE_PYTHON_DIR
      dirs.push_back(MROCE_PYTHON_DIR);
#endif
      for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) path.insert(0, *it);
      py::module_::import("scapy");
      py::module_::import("mroce.scapy");
    } catch (const py::error_already_set& e) {
      g_init_error = std::string("Scapy is not available in the embedded Python interpreter (") +
                     (Py_GetVersion() ? Py_GetVersion() : "?") + "): " + e.what();
    }
  }
  // Other threads may evaluate: drop the GIL the initialising thread holds.
  PyEval_SaveThread();
}

}  // namespace

ref::Result<std::vector<uint8_t>> EvalScapyExpression(const std::string& expr, const std::map<std::string, uint64_t>& vars) {
  std::call_once(g_init, Init);
  if (!g_init_error.empty()) return ref::MakeError("scapy.unavailable", g_init_error);
  py::gil_scoped_acquire gil;
  try {
    py::dict g;
    g["__builtins__"] = py::module_::import("builtins");
    py::exec("from mroce.scapy import *", g);
    g["dut_mac"] = MacText(kDutHost);
    g["peer_mac"] = MacText(1);
    g["dut_ip"] = IpText(kDutHost);
    g["peer_ip"] = IpText(1);
    for (const auto& [k, v] : vars) g[py::str(k)] = py::int_(v);
    py::object r = py::eval(expr, g);
    py::bytes b = py::isinstance<py::bytes>(r) ? py::bytes(r) : py::bytes(py::module_::import("builtins").attr("bytes")(r));
    std::string s = b;
    return std::vector<uint8_t>(s.begin(), s.end());
  } catch (const py::error_already_set& e) {
    return ref::MakeError("scapy.eval", "scapy expression '" + expr + "' failed: " + e.what());
  }
}

void InstallEmbeddedScapy() { SetScapyEvaluator(EvalScapyExpression); }

}  // namespace mroce::session
