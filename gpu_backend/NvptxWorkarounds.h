// Rewrites of optimised LLVM IR that steer around miscompilations in LLVM 19's NVPTX backend itself (as opposed
// to ptxas's, PtxasWorkarounds.h). Each rewrite means the same thing in LLVM IR and selects to correct PTX.
#pragma once

#include <llvm/IR/Module.h>

namespace tilesim::gpu {

// `sitofp i1 x` (scalar or vector): LLVM 19's NVPTX selects it as `selp.u32 1, 0` then `cvt.rn.f32.s32`, giving
// +1.0 for true where LangRef's signed i1 true is -1 (fixed upstream after 19: llvm-project PRs #110866 and
// #188118). The optimiser forms it from `sitofp (zext i1 x) - 1` and `sitofp (sext i1 x)`; the GPU fuzz campaign
// of 2026-12-06 (H100, seed 2, program 2157: `sitofp(extui(b) - 1)` clamped to [-2.25, 0.5] read 0.5 for false)
// found it once the generator fed booleans into integer arithmetic. Each becomes `select x, -1.0, 0.0`.
// Returns how many instructions were rewritten.
int avoidNvptxSignedBoolToFloat(llvm::Module& module);

}  // namespace tilesim::gpu
