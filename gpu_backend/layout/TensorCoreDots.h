// Which tt.dot ops run on tensor cores, decided in one place for the layout assignment (the dot's result and
// the loop-carried accumulator take the mma accumulator layout, so no conversion runs per k step) and for
// lowering/Dot.cpp (which emits mma.sync for exactly these).
#pragma once

#include <optional>

#include "gpu_backend/layout/LinearLayout.h"
#include "ir/IR.h"

namespace tilesim::gpu {

// Triton's MMAv2 instruction class of `dot` (under the triton profile): log2 of the operand elements per 32-bit
// register — 0 for tf32 (m16n8k8), 1 for f16/bf16 (m16n8k16), 2 for i8 and fp8 (m16n8k32) — or nothing when the
// dot keeps the FMA path: other dtypes, shapes that are not multiples of the instruction tile, a num_warps that is
// not a power of two, or an operand or result over `sharedBytes` (what one layout conversion may stage:
// layout/TargetLimits.h sharedBytesPerBlock of the target).
std::optional<int> tensorCoreWordBits(const Operation& dot, int numWarps, int64_t sharedBytes);

// The mma accumulator layout of `dot`'s result when it runs on tensor cores.
std::optional<LinearLayout> tensorCoreResultLayout(const Operation& dot, int numWarps, int64_t sharedBytes);

}  // namespace tilesim::gpu
