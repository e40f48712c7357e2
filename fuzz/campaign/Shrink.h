// Program-aware shrinking for any engine pair (docs/fuzzing.md). Works on the plan, not the text: every
// transformation yields another valid plan (nodes refer to earlier values modulo the count), so the only question
// per candidate is "does it still fail the same way?", which the caller answers (sameFailure below: the same kind
// of failure on the same buffers, not just any failure). Greedy to a fixed point:
//   drop outputs, drop nodes (halves, then one at a time), drop inputs; replace a node's operands by the first
//   input or by a literal; shrink the grid, the block extents (halving, 2-D to 1-D), trims and num_warps; simplify
//   input and cast dtypes (to int32, then fp32); turn off swarm features.
#pragma once

#include <functional>

#include "fuzz/programs/KernelGen.h"
#include "fuzz/programs/ProgramCheck.h"

namespace tilesim::fuzz {

struct ShrinkStats {
  int tried = 0;     // candidate plans checked
  int accepted = 0;  // candidates that still failed and replaced the plan
};

// `stillFails(candidate, outputOrigin)`: whether the candidate still fails the way the original plan does;
// outputOrigin[j] is the index in the original plan of the output candidate output j descends from (outputs are
// dropped, re-pointed at earlier values, or cut down to one, but keep who they are), so that "the same output
// buffer" can be recognised. It must be true for `plan` itself. Stops after `budget` candidates.
using ShrinkPredicate = std::function<bool(const KernelPlan& candidate, const std::vector<int>& outputOrigin)>;
KernelPlan shrinkPlan(const KernelPlan& plan, const ShrinkPredicate& stillFails, int budget, ShrinkStats* stats = nullptr);
// The same without output tracking.
KernelPlan shrinkPlan(const KernelPlan& plan, const std::function<bool(const KernelPlan&)>& stillFails, int budget,
                      ShrinkStats* stats = nullptr);

// "The reducer must preserve the original disagreement": whether a candidate's failure is the original's. The same
// kind (the check and which of its failures: FailureClass::kind), and where buffers were compared, at least one
// differing buffer, each of them one the original differed in: outputs `outJ` by the original output they descend
// from (outputOrigin), inputs (`inK`) and atomics' buffers (`atomK`) by their role.
bool sameFailure(const FailureClass& original, const FailureClass& candidate, const std::vector<int>& outputOrigin);

}  // namespace tilesim::fuzz
