// Triton's combine order for a tt.reduce as a list of steps (TritonReduceOrder.h): the per-thread sequential fold,
// then the butterflies over lanes and over warps.
#include "interpreter/TritonReduceOrder.h"

namespace tilesim {

int64_t tritonElement(const ReduceAxisLayout& layout, int64_t group, int64_t j) {
  const int64_t s = layout.sizePerThread, t = layout.threadsPerWarp, w = layout.warpsPerCTA;
  const int64_t lane = group % t, warp = group / t, rep = j / s, k = j % s;
  return rep * (s * t * w) + warp * (s * t) + lane * s + k;
}

std::vector<CombineStep> tritonReduceSteps(int64_t extent, const ReduceAxisLayout& layout) {
  const int64_t s = layout.sizePerThread, t = layout.threadsPerWarp, w = layout.warpsPerCTA;
  const int64_t reps = extent / (s * t * w), perThread = reps * s, groups = t * w;
  auto element = [&](int64_t group, int64_t j) { return tritonElement(layout, group, j); };
  std::vector<CombineStep> steps;
  // W layout during the fold: [acc of each group (after step 1)..., the raw elements not yet folded...].
  std::vector<int64_t> position(static_cast<size_t>(extent));  // where raw element e sits in W
  for (int64_t e = 0; e < extent; ++e) position[static_cast<size_t>(e)] = e;
  for (int64_t j = 1; j < perThread; ++j) {
    CombineStep step;
    for (int64_t g = 0; g < groups; ++g) {
      step.left.push_back(j == 1 ? position[static_cast<size_t>(element(g, 0))] : g);
      step.right.push_back(position[static_cast<size_t>(element(g, j))]);
    }
    std::vector<int64_t> next(static_cast<size_t>(extent), -1);
    int64_t at = groups;
    for (int64_t later = j + 1; later < perThread; ++later)
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t e = element(g, later);
        step.kept.push_back(position[static_cast<size_t>(e)]);
        next[static_cast<size_t>(e)] = at++;
      }
    position = next;
    steps.push_back(std::move(step));
  }
  // Butterflies: W holds one value per group, group = lane + t * warp; first lanes, then warps.
  int64_t lanes = t, warps = w;
  while (lanes > 1 || warps > 1) {
    CombineStep step;
    if (lanes > 1) {
      const int64_t half = lanes / 2;
      for (int64_t warp = 0; warp < warps; ++warp)
        for (int64_t lane = 0; lane < half; ++lane) {
          step.left.push_back(warp * lanes + lane);
          step.right.push_back(warp * lanes + lane + half);
        }
      lanes = half;
    } else {
      const int64_t half = warps / 2;
      for (int64_t warp = 0; warp < half; ++warp) {
        step.left.push_back(warp);
        step.right.push_back(warp + half);
      }
      warps = half;
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace tilesim
