// Program-aware shrinking for any engine pair (docs/fuzzing.md). Works on the plan, not the text: every
// transformation yields another valid plan (nodes refer to earlier values modulo the count), so the only question
// per candidate is "does it still fail the same way?", which the caller answers. Greedy to a fixed point:
//   drop outputs, drop nodes (halves, then one at a time), drop inputs; replace a node's operands by the first
//   input or by a literal; shrink the grid, the block extents (halving, 2-D to 1-D), trims and num_warps; simplify
//   input and cast dtypes (to int32, then fp32); turn off swarm features.
#pragma once

#include <functional>

#include "fuzz/programs/KernelGen.h"

namespace tilesim::fuzz {

struct ShrinkStats {
  int tried = 0;     // candidate plans checked
  int accepted = 0;  // candidates that still failed and replaced the plan
};

// `stillFails(plan)` must be true for `plan`. Stops after `budget` candidates.
KernelPlan shrinkPlan(const KernelPlan& plan, const std::function<bool(const KernelPlan&)>& stillFails, int budget,
                      ShrinkStats* stats = nullptr);

}  // namespace tilesim::fuzz
