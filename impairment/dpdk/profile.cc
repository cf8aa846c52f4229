#include "mroce/impairment/dpdk/profile.h"

#include "mroce/session/stage_factory.h"

namespace mroce::impairment::dpdk {
namespace {

harness::LoaderOptions Options() {
  harness::LoaderOptions o;
  for (const std::string& k : session::StageKinds()) o.known_stages.insert(k);
  return o;
}

bool Finish(harness::LoadResult<harness::ImpairmentProfile>&& r, harness::ImpairmentProfile* out, std::string* error) {
  if (!r.ok()) {
    *error = r.ErrorText();
    if (!error->empty() && error->back() == '\n') error->pop_back();
    return false;
  }
  *out = std::move(r.value);
  return true;
}

}  // namespace

bool LoadProfile(const std::string& path, harness::ImpairmentProfile* out, std::string* error) {
  return Finish(harness::LoadImpairmentProfileFile(path, Options()), out, error);
}

bool LoadProfileString(const std::string& yaml, const std::string& file_name, harness::ImpairmentProfile* out,
                       std::string* error) {
  return Finish(harness::LoadImpairmentProfileString(yaml, file_name, Options()), out, error);
}

bool AddProfileStages(const harness::ImpairmentProfile& profile, Direction d, uint64_t seed, Pipeline* pipeline,
                      std::string* error) {
  for (size_t i = 0; i < profile.impairments.size(); ++i) {
    const harness::ImpairmentSpec& is = profile.impairments[i];
    bool pinned = false;
    if (is.match.is_object() && is.match.contains("direction") && is.match.at("direction").is_string()) {
      const std::string want = is.match.at("direction").get<std::string>();
      if (want == "dut->peer" || want == "peer->dut") {
        pinned = true;
        if (want != DirectionName(d)) continue;
      }  // Anything else: MakeStage reports it.
    }
    session::StageSpec ss;
    ss.kind = is.kind;
    const std::string base = is.name.empty() ? is.kind + "#" + std::to_string(i) : is.name;
    ss.name = pinned ? base : base + "@" + DirectionName(d);
    ss.match = is.match;
    ss.params = is.params;
    if (is.schedule) {
      ss.at_ns = is.schedule->at.ToNanoseconds(profile.rtt_ns);
      if (is.schedule->until) ss.until_ns = is.schedule->until->ToNanoseconds(profile.rtt_ns);
    }
    auto stage = session::MakeStage(ss, seed, profile.rtt_ns);
    if (!stage.ok()) {
      *error = is.where.ToString() + ": impairments[" + std::to_string(i) + "]: " + stage.error().message;
      return false;
    }
    pipeline->Add(std::move(stage).value());
  }
  return true;
}

}  // namespace mroce::impairment::dpdk
