// Blocked and slice layouts as linear layouts (DistributedLayouts.h).
#include "gpu_backend/layout/DistributedLayouts.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

int log2Exact(int64_t value) {
  TILESIM_ASSERT(value > 0 && std::has_single_bit(static_cast<uint64_t>(value)), "layout: sizes are powers of two");
  return std::countr_zero(static_cast<uint64_t>(value));
}

}  // namespace

std::string BlockedParams::str() const {
  return fmt::format("sizePerThread=[{}] threadsPerWarp=[{}] warpsPerCTA=[{}]", fmt::join(sizePerThread, ","),
                     fmt::join(threadsPerWarp, ","), fmt::join(warpsPerCta, ","));
}

std::vector<LayoutDim> tensorDims(std::span<const int64_t> shape) {
  std::vector<LayoutDim> dims;
  for (size_t d = 0; d < shape.size(); ++d) dims.push_back({"dim" + std::to_string(d), log2Exact(shape[d])});
  return dims;
}

bool isPowerOfTwoShape(std::span<const int64_t> shape) {
  for (int64_t extent : shape)
    if (extent <= 0 || !std::has_single_bit(static_cast<uint64_t>(extent))) return false;
  return true;
}

BlockedParams defaultBlockedParams(std::span<const int64_t> shape, int numWarps, int vectorElements) {
  const size_t rank = shape.size();
  BlockedParams params;
  params.sizePerThread.assign(rank, 1);
  params.threadsPerWarp.assign(rank, 1);
  params.warpsPerCta.assign(rank, 1);
  if (rank == 0) return params;
  int64_t numel = 1;
  for (int64_t extent : shape) numel *= extent;
  const int64_t threads = int64_t{kLanesPerWarp} * numWarps;
  // Triton's coalescing rule: min(16-byte vector, elements per thread), at least 1, at most the fastest extent.
  int64_t perThread = std::min<int64_t>(vectorElements, std::max<int64_t>(numel / threads, 1));
  params.sizePerThread[rank - 1] = std::min<int64_t>(perThread, shape[rank - 1]);
  int64_t lanesLeft = kLanesPerWarp, warpsLeft = numWarps;
  for (size_t i = 0; i < rank; ++i) {
    size_t d = rank - 1 - i;  // fastest dimension first
    int64_t slots = std::max<int64_t>(1, shape[d] / params.sizePerThread[d]);
    params.threadsPerWarp[d] = std::clamp<int64_t>(lanesLeft, 1, slots);
    lanesLeft /= params.threadsPerWarp[d];
  }
  params.threadsPerWarp[0] *= lanesLeft;  // leftover lanes hold copies along dim 0
  for (size_t i = 0; i < rank; ++i) {
    size_t d = rank - 1 - i;
    int64_t slots = std::max<int64_t>(1, shape[d] / (params.sizePerThread[d] * params.threadsPerWarp[d]));
    params.warpsPerCta[d] = std::clamp<int64_t>(warpsLeft, 1, slots);
    warpsLeft /= params.warpsPerCta[d];
  }
  params.warpsPerCta[0] *= warpsLeft;
  return params;
}

LinearLayout blockedLayout(std::span<const int64_t> shape, const BlockedParams& params) {
  std::vector<LayoutDim> outDims = tensorDims(shape);
  const size_t rank = shape.size();
  std::vector<int> nextBit(rank, 0), offset(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    int below = 0;
    for (size_t e = d + 1; e < rank; ++e) below += outDims[e].bits;
    offset[d] = below;
  }
  // The next basis along dimension d: its next index bit, or 0 (a copy) once the dimension is covered.
  auto take = [&](size_t d) -> uint64_t {
    if (nextBit[d] >= outDims[d].bits) return 0;
    return uint64_t{1} << (offset[d] + nextBit[d]++);
  };
  std::vector<uint64_t> registers, lanes, warps;
  for (size_t i = 0; i < rank; ++i)
    for (int k = 0; k < log2Exact(params.sizePerThread[rank - 1 - i]); ++k) registers.push_back(take(rank - 1 - i));
  for (size_t i = 0; i < rank; ++i)
    for (int k = 0; k < log2Exact(params.threadsPerWarp[rank - 1 - i]); ++k) lanes.push_back(take(rank - 1 - i));
  for (size_t i = 0; i < rank; ++i)
    for (int k = 0; k < log2Exact(params.warpsPerCta[rank - 1 - i]); ++k) warps.push_back(take(rank - 1 - i));
  for (size_t i = 0; i < rank; ++i)  // the tile repeats in registers over what is left, fastest dim first
    while (nextBit[rank - 1 - i] < outDims[rank - 1 - i].bits) registers.push_back(take(rank - 1 - i));
  std::vector<LayoutDim> inDims = {{std::string(kWarpDim), static_cast<int>(warps.size())},
                                   {std::string(kLaneDim), static_cast<int>(lanes.size())},
                                   {std::string(kRegisterDim), static_cast<int>(registers.size())}};
  return LinearLayout::fromDimBases(std::move(inDims), std::move(outDims), {warps, lanes, registers});
}

LinearLayout sliceLayout(const LinearLayout& parent, int axis, std::vector<int>* removedRegisterBits) {
  LinearLayout projected = parent.dropOutDim(axis);
  std::vector<int> removed;
  std::vector<uint64_t> before = parent.dimBases(kRegisterDim), after = projected.dimBases(kRegisterDim);
  for (size_t k = 0; k < before.size(); ++k)
    if (before[k] != 0 && after[k] == 0) removed.push_back(static_cast<int>(k));
  if (removedRegisterBits) *removedRegisterBits = removed;
  return projected.removeInBits(kRegisterDim, removed);
}

int numRegisters(const LinearLayout& layout) { return 1 << layout.inDimBits(kRegisterDim); }
int numWarps(const LinearLayout& layout) { return 1 << layout.inDimBits(kWarpDim); }

uint64_t registerElement(const LinearLayout& layout, int reg) {
  // The register dimension is last in (warp, lane, register), so it takes the lowest packed input bits.
  return layout.apply(static_cast<uint64_t>(reg));
}

int vectorWidth(const LinearLayout& layout) {
  std::vector<uint64_t> bases = layout.dimBases(kRegisterDim);
  size_t k = 0;
  while (k < bases.size() && bases[k] == (uint64_t{1} << k)) ++k;
  // Every basis other than the run's own must leave the low k bits alone; shrink the run until that holds.
  auto clean = [&](size_t bits) {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    const int registerOffset = layout.inDimOffset(layout.inDimIndex(kRegisterDim));
    for (int i = 0; i < layout.inBits(); ++i) {
      const bool ownBasis = i >= registerOffset && static_cast<size_t>(i - registerOffset) < bits;
      if (!ownBasis && (layout.bases()[static_cast<size_t>(i)] & mask) != 0) return false;
    }
    return true;
  };
  while (k > 0 && !clean(k)) --k;
  return 1 << k;
}

}  // namespace tilesim::gpu
