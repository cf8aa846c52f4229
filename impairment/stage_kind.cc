// The registry of stage kinds: one table of the descriptors in kinds/ (stage_kind.h).
#include "mroce/impairment/stage_kind.h"

#include "kinds/kinds.h"

namespace mroce::impairment {
namespace {

// Sorted by name.
constexpr const StageKind* kKinds[] = {
    &kinds::kBlackhole,     &kinds::kCorrupt,       &kinds::kDelay,
    &kinds::kDrop,          &kinds::kDuplicate,     &kinds::kLoss4State,
    &kinds::kLossBernoulli, &kinds::kLossGilbertElliott, &kinds::kRateLimit,
    &kinds::kReorder,
};

}  // namespace

std::span<const StageKind* const> StageKinds() { return kKinds; }

const StageKind* FindStageKind(std::string_view name) {
  for (const StageKind* k : kKinds) {
    if (k->name == name) return k;
  }
  return nullptr;
}

std::string StageKindNames() {
  std::string out;
  for (const StageKind* k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k->name);
  return out;
}

}  // namespace mroce::impairment
