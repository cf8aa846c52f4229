// DutSpec parsing and the factory of devices by kind.
#include "mroce/dut/dut_spec.h"

#include <map>

#include "mroce/dut/reference_dut.h"
#include "mroce/dut/rocev2_dut.h"
#include "plugin_dut.h"
#include "mroce/dut/process_dut.h"

namespace mroce::dut {

Result<DutSpec> DutSpec::Parse(std::string_view text) {
  DutSpec spec;
  spec.text = std::string(text);
  const size_t colon = text.find(':');
  spec.kind = std::string(text.substr(0, colon));
  if (spec.kind.empty()) {
    return MakeError("dut.spec", "--dut '" + std::string(text) + "': missing kind before ':' (known: reference, rocev2, plugin, process, dpdk)");
  }
  if (colon == std::string_view::npos) return spec;
  std::string_view rest = text.substr(colon + 1);
  // process:[options,]COMMAND and dpdk:options,control=COMMAND: the command (and dpdk's port devargs
  // and EAL arguments) are free text that may hold ',' and '='; the adapter parses them.
  if (spec.kind == "process" || spec.kind == "dpdk") {
    spec.options.emplace_back("spec", std::string(rest));
    return spec;
  }
  if (rest.empty()) {
    return MakeError("dut.spec", "--dut '" + std::string(text) + "': nothing after ':' (expected key=value)");
  }
  // plugin:PATH[,key=value...]: the first item is the shared object (it may itself contain '=').
  if (spec.kind == "plugin" && rest.substr(0, rest.find(',')).find('=') == std::string_view::npos) {
    const size_t comma = rest.find(',');
    spec.options.emplace_back("path", std::string(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return MakeError("dut.spec", "--dut '" + std::string(text) + "': option '" + std::string(item) +
                                       "' is not key=value");
    }
    spec.options.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return spec;
}

std::vector<std::string> DutSpec::Values(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : options) {
    if (k == key) out.push_back(v);
  }
  return out;
}

std::vector<std::string> KnownDutKinds() { return {"reference", "rocev2", "plugin", "process", "dpdk"}; }

namespace {

std::map<std::string, DutKindFactory>& Registered() {
  static std::map<std::string, DutKindFactory> kinds;
  return kinds;
}

Status RejectUnknownOptions(const DutSpec& spec, std::initializer_list<std::string_view> allowed) {
  for (const auto& [k, v] : spec.options) {
    bool ok = false;
    for (auto a : allowed) ok = ok || k == a;
    if (!ok) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return MakeError("dut.spec", "--dut '" + spec.text + "': unknown option '" + k + "' for " + spec.kind +
                                       (list.empty() ? " (takes none)" : " (known: " + list + ")"));
    }
  }
  return OkStatus();
}

}  // namespace

void RegisterDutKind(const std::string& kind, DutKindFactory factory) { Registered()[kind] = factory; }

Result<std::unique_ptr<Dut>> MakeDut(const DutSpec& spec) {
  if (auto it = Registered().find(spec.kind); it != Registered().end()) return it->second(spec);
  if (spec.kind == "dpdk") {
    return MakeError("dut.spec", "--dut '" + spec.text + "': the dpdk adapter was not built into this program "
                                 "(configure with -DMROCE_DPDK=ON and libdpdk-dev installed; docs/adapter-guide.md)");
  }
  if (spec.kind == "reference") {
    if (auto s = RejectUnknownOptions(spec, {"quirk", "variant"}); !s.ok()) return s.error();
    // An empty value ("quirk=", "variant=+") would silently be the pristine reference: a typo in a
    // CI script must not certify the wrong device.
    auto blank = [](const std::string& v, const char* seps) { return v.find_first_not_of(std::string(seps) + " ") == std::string::npos; };
    for (const auto& v : spec.Values("quirk")) {
      if (blank(v, ",")) {
        return MakeError("dut.spec", "--dut '" + spec.text + "': quirk= names no quirk (known: " + ref::KnownQuirkNames() + ")");
      }
    }
    for (const auto& v : spec.Values("variant")) {
      if (blank(v, "+,")) {
        return MakeError("dut.spec", "--dut '" + spec.text + "': variant= names no variant (known: all, " +
                                         ref::KnownVariantNames() + ")");
      }
    }
    ref::Quirks quirks;
    for (const auto& v : spec.Values("quirk")) {
      auto q = ref::Quirks::Parse(v);
      if (!q.ok()) return MakeError("dut.spec", "--dut '" + spec.text + "': " + q.error().message);
      for (const auto& info : ref::AllQuirks()) {
        if (q.value().Has(info.quirk)) quirks.Set(info.quirk);
      }
    }
    ref::Variants variants;
    for (const auto& v : spec.Values("variant")) {
      // "variant=all" is every variant, one per group of alternatives (the self-test's combination).
      auto parsed = v == "all" ? ref::Result<ref::Variants>(ref::Variants::AllCompatible()) : ref::Variants::Parse(v);
      if (!parsed.ok()) return MakeError("dut.spec", "--dut '" + spec.text + "': " + parsed.error().message);
      for (const auto& info : ref::AllVariants()) {
        if (parsed.value().Has(info.variant)) variants.Set(info.variant);
      }
    }
    if (auto again = ref::Variants::Parse(variants.ToString()); !again.ok()) {
      return MakeError("dut.spec", "--dut '" + spec.text + "': " + again.error().message);
    }
    return std::unique_ptr<Dut>(std::make_unique<ReferenceDut>(quirks, variants));
  }
  if (spec.kind == "rocev2") {
    if (auto s = RejectUnknownOptions(spec, {}); !s.ok()) return s.error();
    return std::unique_ptr<Dut>(std::make_unique<Rocev2Dut>());
  }
  if (spec.kind == "plugin") {
    // Every option but the path goes to the plugin's create(), which refuses what it does not know.
    std::string path;
    PluginDut::Options plugin_options;
    for (const auto& [k, v] : spec.options) {
      if (k == "path" && path.empty()) {
        path = v;
      } else {
        plugin_options.emplace_back(k, v);
      }
    }
    if (path.empty()) {
      return MakeError("dut.spec", "--dut '" + spec.text + "': plugin needs a shared object: plugin:PATH.so[,key=value...]");
    }
    auto d = PluginDut::Create(path, plugin_options);
    if (!d.ok()) return MakeError(d.error().code, "--dut '" + spec.text + "': " + d.error().message);
    return std::unique_ptr<Dut>(std::move(d).value());
  }
  if (spec.kind == "process") {
    const std::vector<std::string> text = spec.Values("spec");
    if (text.empty()) {
      return MakeError("dut.spec", "--dut '" + spec.text + "': process needs a command: process:[net=A.B.C.D,][timeout_ms=N,]COMMAND");
    }
    auto o = ProcessDut::ParseSpec(text.front());
    if (!o.ok()) return MakeError("dut.spec", "--dut '" + spec.text + "': " + o.error().message);
    auto d = ProcessDut::Create(o.value());
    if (!d.ok()) return d.error();
    return std::unique_ptr<Dut>(std::move(d).value());
  }
  std::string known;
  for (const auto& k : KnownDutKinds()) known += (known.empty() ? "" : ", ") + k;
  return MakeError("dut.spec", "--dut '" + spec.text + "': unknown kind '" + spec.kind + "' (known: " + known + ")");
}

}  // namespace mroce::dut
