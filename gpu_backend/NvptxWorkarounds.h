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

// `llvm.fabs` and `fneg` of half or bfloat (scalar or vector): LLVM 19's NVPTX selects `abs.bf16` / `abs.f16`
// (`neg.*`) where the value stays a float, and those give the canonical NaN 0x7FFF for a NaN input on an H100 (the
// PTX ISA leaves NaN results of half-precision abs/neg unspecified), while LangRef makes both sign-bit operations
// that keep the payload, tilesim's semantics say so (docs/semantics.md, "negf flips and absf clears the sign
// bit") and Triton 3.6 emits `and.b16 x, 32767` for tl.abs of bf16 and f16. Found by the H100 campaign of
// 2026-12-06 (seed 1, program 1544: bf16 NaNs 0x7FA3 and 0x7FCB through math.absf then tt.bitcast to i16 read
// 32767; case conformance/regressions/gpu_absf_bf16_nan_payload). Each becomes a bitcast to i16, an inline-PTX
// `and.b16` (`xor.b16`) of the sign bit, and a bitcast back (per element of a vector). Returns how many
// instructions were rewritten.
int avoidNvptxHalfSignOps(llvm::Module& module);

}  // namespace tilesim::gpu
