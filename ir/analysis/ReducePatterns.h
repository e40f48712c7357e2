// ReducePatterns: shapes of tt.reduce that a GPU compiler lowers specially, recognised once for every user (the
// GPU backend's reduce order and the conformance runner's reading of Triton's kernel.ttgir must agree on them).
#pragma once

#include "ir/IR.h"

namespace tilesim::analysis {

// A reduce whose combine region is one f32 arith.addf of its two arguments, over an arith.mulf result used by
// nothing else in `kernel`. With contraction allowed (the triton profile) LLVM fuses those products into the
// per-thread fold (fma), so the fold's rounding differs from mulf-then-addf.
bool reduceFusesMultiply(const Operation& reduce, const Function& kernel);

}  // namespace tilesim::analysis
