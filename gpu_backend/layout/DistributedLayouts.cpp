// Blocked and slice layouts as linear layouts (DistributedLayouts.h).
#include "gpu_backend/layout/DistributedLayouts.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/Assert.h"
#include "ir/Mutation.h"

namespace tilesim::gpu {

std::string BlockedParams::str() const {
  return fmt::format("sizePerThread=[{}] threadsPerWarp=[{}] warpsPerCTA=[{}]", fmt::join(sizePerThread, ","),
                     fmt::join(threadsPerWarp, ","), fmt::join(warpsPerCta, ","));
}

std::vector<LayoutDim> tensorDims(std::span<const int64_t> shape) {
  std::vector<LayoutDim> dims;
  for (size_t d = 0; d < shape.size(); ++d) dims.push_back({"dim" + std::to_string(d), log2Ceil(shape[d])});
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
    for (int k = 0; k < log2Ceil(params.sizePerThread[rank - 1 - i]); ++k) registers.push_back(take(rank - 1 - i));
  for (size_t i = 0; i < rank; ++i)
    for (int k = 0; k < log2Ceil(params.threadsPerWarp[rank - 1 - i]); ++k) lanes.push_back(take(rank - 1 - i));
  for (size_t i = 0; i < rank; ++i)
    for (int k = 0; k < log2Ceil(params.warpsPerCta[rank - 1 - i]); ++k) warps.push_back(take(rank - 1 - i));
  for (size_t i = 0; i < rank; ++i)  // the tile repeats in registers over what is left, fastest dim first
    while (nextBit[rank - 1 - i] < outDims[rank - 1 - i].bits) registers.push_back(take(rank - 1 - i));
  std::vector<LayoutDim> inDims = {{std::string(kWarpDim), static_cast<int>(warps.size())},
                                   {std::string(kLaneDim), static_cast<int>(lanes.size())},
                                   {std::string(kRegisterDim), static_cast<int>(registers.size())}};
  return LinearLayout::fromDimBases(std::move(inDims), std::move(outDims), {warps, lanes, registers});
}

LinearLayout broadcastSource(const LinearLayout& result, std::span<const int64_t> sourceShape) {
  LinearLayout projected = result;
  for (size_t d = 0; d < sourceShape.size(); ++d)
    if (sourceShape[d] == 1) projected = projected.dropOutDim(static_cast<int>(d)).insertOutDim(static_cast<int>(d), "one");
  return projected.withOutDims(tensorDims(sourceShape));
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

namespace {

// One bit of the index of a result tile (16 x 8): bit `bit` of the M tile, N tile or batch index.
struct TileBit {
  enum Kind : uint8_t { M, N, Batch } kind;
  int bit;
};

struct MmaTiling {
  std::vector<TileBit> warpBits;      // tile bits on warp bits 0, 1, ... (fewer than the warp bits: copies)
  std::vector<TileBit> registerBits;  // the rest, repeated in registers in this order
  int warpCount = 0;                  // log2(num_warps)
};

MmaTiling mmaTiling(std::span<const int64_t> resultShape, int numWarps) {
  const size_t rank = resultShape.size();
  TILESIM_ASSERT(rank == 2 || rank == 3, "mma layout: a dot of rank 2 or 3");
  const int batchBits = rank == 3 ? log2Ceil(resultShape[0]) : 0;
  const int mBits = log2Ceil(resultShape[rank - 2]), nBits = log2Ceil(resultShape[rank - 1]);
  TILESIM_ASSERT(mBits >= 4 && nBits >= 3, "mma layout: the result is at least 16 x 8");
  std::vector<TileBit> tileBits;
  for (int k = 0; k < mBits - 4; ++k) tileBits.push_back({TileBit::M, k});
  for (int k = 0; k < nBits - 3; ++k) tileBits.push_back({TileBit::N, k});
  for (int k = 0; k < batchBits; ++k) tileBits.push_back({TileBit::Batch, k});
  MmaTiling tiling;
  tiling.warpCount = log2Ceil(numWarps);
  const size_t onWarps = std::min(tileBits.size(), static_cast<size_t>(tiling.warpCount));
  tiling.warpBits.assign(tileBits.begin(), tileBits.begin() + static_cast<std::ptrdiff_t>(onWarps));
  tiling.registerBits.assign(tileBits.begin() + static_cast<std::ptrdiff_t>(onWarps), tileBits.end());
  return tiling;
}

bool dependsOn(MmaOperand operand, TileBit::Kind kind) {
  return operand == MmaOperand::Accumulator || kind == TileBit::Batch || (kind == TileBit::M) == (operand == MmaOperand::A);
}

}  // namespace

LinearLayout mmaLayout(MmaOperand operand, std::span<const int64_t> resultShape, int64_t depth, int wordBits,
                       int numWarps) {
  const size_t rank = resultShape.size();
  const MmaTiling tiling = mmaTiling(resultShape, numWarps);
  const int mBits = log2Ceil(resultShape[rank - 2]), nBits = log2Ceil(resultShape[rank - 1]);
  const int kBits = log2Ceil(depth);
  TILESIM_ASSERT(kBits >= wordBits + 3, "mma layout: K covers one instruction");
  // The operand's shape and the offsets of its index bits in the flat row-major index.
  std::vector<int64_t> shape(resultShape.begin(), resultShape.end());
  int kOffset = 0, mOffset = 0, nOffset = 0, batchOffset = 0;
  switch (operand) {
    case MmaOperand::A:  // [B,]M,K
      shape[rank - 1] = depth;
      mOffset = kBits, batchOffset = kBits + mBits;
      break;
    case MmaOperand::B:  // [B,]K,N
      shape[rank - 2] = depth;
      kOffset = nBits, batchOffset = nBits + kBits;
      break;
    case MmaOperand::Accumulator:  // [B,]M,N
      mOffset = nBits, batchOffset = nBits + mBits;
      break;
  }
  auto k = [&](int bit) { return uint64_t{1} << (kOffset + bit); };
  auto m = [&](int bit) { return uint64_t{1} << (mOffset + bit); };
  auto n = [&](int bit) { return uint64_t{1} << (nOffset + bit); };
  auto tileBasis = [&](TileBit tile) -> uint64_t {
    if (!dependsOn(operand, tile.kind)) return 0;
    switch (tile.kind) {
      case TileBit::M: return m(4 + tile.bit);
      case TileBit::N: return n(3 + tile.bit);
      case TileBit::Batch: return uint64_t{1} << (batchOffset + tile.bit);
    }
    return 0;
  };
  std::vector<uint64_t> registers, lanes, warps;
  switch (operand) {
    case MmaOperand::A:
      for (int bit = 0; bit < wordBits; ++bit) registers.push_back(k(bit));
      registers.push_back(m(3));
      registers.push_back(k(wordBits + 2));
      lanes = {k(wordBits), k(wordBits + 1), m(0), m(1), m(2)};
      break;
    case MmaOperand::B:
      for (int bit = 0; bit < wordBits; ++bit) registers.push_back(k(bit));
      registers.push_back(k(wordBits + 2));
      lanes = {k(wordBits), k(wordBits + 1), n(0), n(1), n(2)};
      break;
    case MmaOperand::Accumulator:
      registers = {n(0), m(3)};
      lanes = {n(1), n(2), m(0), m(1), m(2)};
      break;
  }
  if (operand != MmaOperand::Accumulator)
    for (int bit = wordBits + 3; bit < kBits; ++bit) registers.push_back(k(bit));  // the k tiles
  for (TileBit tile : tiling.registerBits)
    if (dependsOn(operand, tile.kind)) registers.push_back(tileBasis(tile));
  for (int bit = 0; bit < tiling.warpCount; ++bit)
    warps.push_back(bit < static_cast<int>(tiling.warpBits.size()) ? tileBasis(tiling.warpBits[static_cast<size_t>(bit)]) : 0);
  std::vector<LayoutDim> inDims = {{std::string(kWarpDim), static_cast<int>(warps.size())},
                                   {std::string(kLaneDim), static_cast<int>(lanes.size())},
                                   {std::string(kRegisterDim), static_cast<int>(registers.size())}};
  return LinearLayout::fromDimBases(std::move(inDims), tensorDims(shape), {warps, lanes, registers});
}

int mmaOperandGroup(MmaOperand operand, std::span<const int64_t> resultShape, int numWarps, int group) {
  const MmaTiling tiling = mmaTiling(resultShape, numWarps);
  int result = 0, next = 0;
  for (size_t bit = 0; bit < tiling.registerBits.size(); ++bit) {
    if (!dependsOn(operand, tiling.registerBits[bit].kind)) continue;
    result |= ((group >> bit) & 1) << next++;
  }
  return result;
}

int numRegisters(const LinearLayout& layout) { return 1 << layout.inDimBits(kRegisterDim); }
int numWarps(const LinearLayout& layout) { return 1 << layout.inDimBits(kWarpDim); }

uint64_t registerElement(const LinearLayout& layout, int reg) {
  // The register dimension is last in (warp, lane, register), so it takes the lowest packed input bits.
  return layout.apply(static_cast<uint64_t>(reg));
}

namespace {

// The run of the first register bases along output dimension `dim` (its bits from 0), shrunk until no other basis
// touches those bits.
// The longest prefix (at most k) of the first k register bases, index bits offset, offset + 1, ..., that no other
// basis touches: the registers of such a run hold consecutive elements in every thread, whatever else varies.
size_t cleanRun(const LinearLayout& layout, int offset, size_t k) {
  const int registerOffset = layout.inDimOffset(layout.inDimIndex(kRegisterDim));
  auto clean = [&](size_t bits) {
    const uint64_t mask = ((uint64_t{1} << bits) - 1) << offset;
    for (int i = 0; i < layout.inBits(); ++i) {
      const bool ownBasis = i >= registerOffset && static_cast<size_t>(i - registerOffset) < bits;
      if (!ownBasis && (layout.bases()[static_cast<size_t>(i)] & mask) != 0) return false;
    }
    return true;
  };
  while (k > 0 && !clean(k)) --k;
  return k;
}

int runAlong(const LinearLayout& layout, int dim) {
  const int offset = layout.outDimOffset(dim);
  std::vector<uint64_t> bases = layout.dimBases(kRegisterDim);
  size_t k = 0;
  while (k < bases.size() && static_cast<int>(k) < layout.outDims()[static_cast<size_t>(dim)].bits &&
         bases[k] == (uint64_t{1} << (offset + static_cast<int>(k))))
    ++k;
  return 1 << cleanRun(layout, offset, k);
}

}  // namespace

int vectorWidth(const LinearLayout& layout) {
  std::vector<uint64_t> bases = layout.dimBases(kRegisterDim);
  size_t k = 0;
  while (k < bases.size() && bases[k] == (uint64_t{1} << k)) ++k;
  if (TILESIM_MUTANT(gpu_vector_width_unchecked, true, false)) k = cleanRun(layout, 0, k);
  return 1 << k;
}

RegisterRun registerRun(const LinearLayout& layout) {
  RegisterRun best;
  for (int dim = static_cast<int>(layout.outDims().size()) - 1; dim >= 0; --dim)
    if (const int elements = runAlong(layout, dim); elements > best.elements) best = {dim, elements};
  if (best.elements == 1 && !layout.outDims().empty()) best.dim = static_cast<int>(layout.outDims().size()) - 1;
  return best;
}

LinearLayout coalescedLayout(std::span<const int64_t> shape, int numWarps, int vectorElements, int fastest) {
  const int rank = static_cast<int>(shape.size());
  // The shape with `fastest` moved last; its default blocked layout, then the dimensions moved back.
  std::vector<int64_t> order;  // permuted dimension i is the shape's dimension order[i]
  for (int d = 0; d < rank; ++d)
    if (d != fastest) order.push_back(d);
  order.push_back(fastest);
  std::vector<int64_t> permuted;
  for (int64_t d : order) permuted.push_back(shape[static_cast<size_t>(d)]);
  const LinearLayout blocked = blockedLayout(permuted, defaultBlockedParams(permuted, numWarps, vectorElements));
  std::vector<LayoutDim> inDims = tensorDims(permuted), outDims = tensorDims(shape);
  LinearLayout outIndex = LinearLayout::identity(outDims);
  std::vector<std::vector<uint64_t>> bases(inDims.size());
  for (size_t i = 0; i < order.size(); ++i)
    for (int k = 0; k < inDims[i].bits; ++k)
      bases[i].push_back(uint64_t{1} << (outIndex.outDimOffset(static_cast<int>(order[i])) + k));
  return LinearLayout::fromDimBases(inDims, outDims, bases).compose(blocked);
}

}  // namespace tilesim::gpu
