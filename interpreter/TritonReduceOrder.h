// Triton's combine order for a tt.reduce (LaunchOptions::reduceLayouts, docs/semantics.md "Reductions and scans"):
// the steps ReduceScan.cpp runs instead of its contract order when the kernel's TTGIR (or the GPU backend) gives
// the reduced axis's layout. Private to interpreter/.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/launch/Launch.h"

namespace tilesim {

// One step of a combine order: W'[i] = combine(W[left[i]], W[right[i]]) for the combined entries, followed by
// W[kept[j]] unchanged.
struct CombineStep {
  std::vector<int64_t> left, right, kept;
};

// Triton's order for an axis of `extent` = reps * s * t * w elements (ReduceAxisLayout): element
// e = rep*(s*t*w) + warp*(s*t) + lane*s + k. Each (lane, warp) folds its registers sequentially in register order
// (rep-major, k-minor: acc = combine(acc, x)); then lanes combine as lane 0 of a shfl.bfly butterfly with xor
// offsets t/2, ..., 1 (combine(own, partner): the lower lane is the left operand); then warps the same way.
// The axis index of register j of thread group (lane + t * warp).
int64_t tritonElement(const ReduceAxisLayout& layout, int64_t group, int64_t j);
// The steps of that order over an axis of `extent` elements (a multiple of s * t * w).
std::vector<CombineStep> tritonReduceSteps(int64_t extent, const ReduceAxisLayout& layout);

}  // namespace tilesim
