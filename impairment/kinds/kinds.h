// The stage kind descriptors, one per file in this folder; listed by the registry (stage_kind.cc).
#pragma once

#include "mroce/impairment/stage_kind.h"

namespace mroce::impairment::kinds {

extern const StageKind kBlackhole;
extern const StageKind kCorrupt;
extern const StageKind kDelay;
extern const StageKind kDrop;
extern const StageKind kDuplicate;
extern const StageKind kLoss4State;
extern const StageKind kLossBernoulli;
extern const StageKind kLossGilbertElliott;
extern const StageKind kRateLimit;
extern const StageKind kReorder;

}  // namespace mroce::impairment::kinds
