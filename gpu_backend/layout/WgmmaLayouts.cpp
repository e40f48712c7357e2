#include "gpu_backend/layout/WgmmaLayouts.h"

#include <map>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {

uint64_t NvmmaTile::startOffset(int64_t row, int64_t column) const {
  const int64_t blockElements = swizzleBytes / elementBytes;
  const int64_t block = column / blockElements, within = column % blockElements;
  return static_cast<uint64_t>(block * rows * swizzleBytes + row * swizzleBytes + within * elementBytes);
}

uint64_t NvmmaTile::byteOffset(int64_t row, int64_t column) const {
  const uint64_t raw = startOffset(row, column);
  const uint64_t chunkMask = static_cast<uint64_t>(swizzleBytes / 16 - 1);
  return raw ^ (((raw >> 7) & chunkMask) << 4);
}

uint64_t NvmmaTile::descriptorBits() const {
  const uint64_t mode = swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : 3;
  const uint64_t leading = static_cast<uint64_t>(rows * swizzleBytes) >> 4, stride = static_cast<uint64_t>(8 * swizzleBytes) >> 4;
  return (mode << 62) | ((stride & 0x3FFF) << 32) | ((leading & 0x3FFF) << 16);
}

std::optional<NvmmaTile> nvmmaTile(int64_t rows, int64_t columns, int elementBytes) {
  const int64_t rowBytes = columns * elementBytes;
  NvmmaTile tile{rows, columns, elementBytes, 0};
  tile.swizzleBytes = rowBytes >= 128 ? 128 : rowBytes >= 64 ? 64 : rowBytes >= 32 ? 32 : 0;
  // The leading byte offset has 14 bits of 16-byte units.
  if (tile.swizzleBytes == 0 || rows < 8 || rows * tile.swizzleBytes / 16 > 0x3FFF) return std::nullopt;
  return tile;
}

SharedPlacement nvmmaPlacement(const NvmmaTile& tile) {
  SharedPlacement placement;
  const int indexBits = log2Ceil(tile.rows * tile.columns);
  for (int bit = 0; bit < indexBits; ++bit) {
    const int64_t index = int64_t{1} << bit;
    placement.offsetOfIndexBit.push_back(tile.byteOffset(index / tile.columns, index % tile.columns) /
                                         static_cast<uint64_t>(tile.elementBytes));
  }
  return placement;
}

SharedPlacement wgmmaOperandPlacement(const WgmmaPlan& plan, int which) {
  if (which == 0 || !plan.bKMajor) return nvmmaPlacement(which == 0 ? plan.a : plan.b);
  // b [K][N] in a [N][K] tile: index bit i is n's bit i below log2 N, k's bit i - log2 N above.
  const NvmmaTile& tile = plan.b;
  SharedPlacement placement;
  const int nBits = log2Ceil(plan.n), indexBits = log2Ceil(plan.n * plan.depth);
  for (int bit = 0; bit < indexBits; ++bit) {
    const int64_t row = bit < nBits ? int64_t{1} << bit : 0, column = bit < nBits ? 0 : int64_t{1} << (bit - nBits);
    placement.offsetOfIndexBit.push_back(tile.byteOffset(row, column) / static_cast<uint64_t>(tile.elementBytes));
  }
  return placement;
}

namespace {

// The accumulator registers each instruction writes, in D order, when `accumulator` is wgmma's fragment layout:
// lanes [n1, n2, m0, m1, m2] and warps [m4, m5, ...] (16 rows each, along M); nothing otherwise.
std::optional<std::vector<std::vector<int>>> instructionRegisters(const LinearLayout& accumulator, int64_t m, int64_t n,
                                                                  int numWarps) {
  const uint64_t row = static_cast<uint64_t>(n);
  if (accumulator.dimBases(kLaneDim) != std::vector<uint64_t>{2, 4, row, 2 * row, 4 * row}) return std::nullopt;
  std::vector<uint64_t> warps;
  for (int bit = 0; (1 << bit) < numWarps; ++bit) warps.push_back(16 * row << bit);
  if (accumulator.dimBases(kWarpDim) != warps) return std::nullopt;
  std::map<uint64_t, int> registerOf;
  for (int reg = 0; reg < numRegisters(accumulator); ++reg) registerOf[registerElement(accumulator, reg)] = reg;
  std::vector<std::vector<int>> result;
  for (int64_t rowBlock = 0; rowBlock < m / (16 * numWarps); ++rowBlock) {
    std::vector<int>& registers = result.emplace_back();
    for (int64_t i = 0; i < n / 2; ++i) {  // §9.7.15.5.1: d[i] at row g + 8 ((i >> 1) & 1), column 8 (i >> 2) + 2 t + (i & 1)
      const int64_t r = 16 * numWarps * rowBlock + 8 * ((i >> 1) & 1), c = 8 * (i >> 2) + (i & 1);
      auto found = registerOf.find(static_cast<uint64_t>(r * n + c));
      if (found == registerOf.end()) return std::nullopt;
      registers.push_back(found->second);
    }
  }
  return result;
}

bool isFp8(ScalarKind kind) { return kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2; }

}  // namespace

std::optional<WgmmaTypes> wgmmaTypes(const Operation& dot) {
  const ScalarKind aKind = dot.operand(0)->type.element().scalarKind(), bKind = dot.operand(1)->type.element().scalarKind();
  const ScalarKind resultKind = dot.result()->type.element().scalarKind();
  if (isFp8(aKind) && isFp8(bKind)) {
    static constexpr const char* kFp8Types[2][2] = {{"f32.e4m3.e4m3", "f32.e4m3.e5m2"}, {"f32.e5m2.e4m3", "f32.e5m2.e5m2"}};
    if (resultKind != ScalarKind::F32) return std::nullopt;
    return WgmmaTypes{kFp8Types[aKind == ScalarKind::F8E5M2][bKind == ScalarKind::F8E5M2], 32, 1, true};
  }
  if (aKind != bKind) return std::nullopt;
  if (aKind == ScalarKind::I8 && resultKind == ScalarKind::I32)
    return WgmmaTypes{"s32.s8.s8", 32, 1, true};  // no .satfinite: the sums wrap, as the interpreter's and mma.sync's
  if (aKind == ScalarKind::F32 && resultKind == ScalarKind::F32 && DotView{dot}.inputPrecision() == InputPrecision::TF32)
    return WgmmaTypes{"f32.tf32.tf32", 8, 4, true};
  if (aKind != ScalarKind::F16 && aKind != ScalarKind::BF16) return std::nullopt;
  if (resultKind != ScalarKind::F32 && !(resultKind == ScalarKind::F16 && aKind == ScalarKind::F16)) return std::nullopt;
  return WgmmaTypes{aKind == ScalarKind::F16 ? "f32.f16.f16" : "f32.bf16.bf16", 16, 2, false};
}

std::optional<WgmmaPlan> wgmmaPlan(const Operation& dot, const LinearLayout& accumulator, int numWarps,
                                   int64_t sharedBytes, bool bKMajor) {
  if (dot.kind != OpKind::TTDot || dot.numOperands() < 3) return std::nullopt;
  const std::optional<WgmmaTypes> types = wgmmaTypes(dot);
  if (!types) return std::nullopt;
  std::span<const int64_t> shape = dot.result()->type.shape();
  if (shape.size() != 2 || !isPowerOfTwoShape(shape) || !isPowerOfTwoShape(dot.operand(0)->type.shape())) return std::nullopt;
  WgmmaPlan plan;
  plan.m = shape[0], plan.n = shape[1], plan.depth = dot.operand(0)->type.shape()[1];
  plan.numWarps = numWarps;
  plan.types = types->name;
  plan.k = types->k;
  const int elementBytes = types->elementBytes;
  if (numWarps % 4 != 0 || plan.m < 16 * numWarps || plan.n < 16 || plan.n > 256 || plan.depth % plan.k != 0)
    return std::nullopt;
  plan.bKMajor = bKMajor || types->bKMajorOnly;
  std::optional<NvmmaTile> a = nvmmaTile(plan.m, plan.depth, elementBytes),
                           b = plan.bKMajor ? nvmmaTile(plan.n, plan.depth, elementBytes) : nvmmaTile(plan.depth, plan.n, elementBytes);
  if (!a || !b || (a->bytes() + 1023) / 1024 * 1024 + b->bytes() > sharedBytes) return std::nullopt;
  plan.a = *a, plan.b = *b;
  std::optional<std::vector<std::vector<int>>> registers = instructionRegisters(accumulator, plan.m, plan.n, numWarps);
  if (!registers) return std::nullopt;
  plan.instructionRegisters = std::move(*registers);
  return plan;
}

LinearLayout registerAFragment(const WgmmaPlan& plan) {
  const std::vector<int64_t> shape{plan.m, plan.n};
  return mmaLayout(MmaOperand::A, shape, plan.depth, /*wordBits=*/1, plan.numWarps);
}

std::optional<std::vector<int>> registerAWords(const WgmmaPlan& plan) {
  const LinearLayout fragment = registerAFragment(plan);
  std::map<uint64_t, int> registerOf;  // element held in lane 0 of warp 0 -> register
  for (int r = 0; r < numRegisters(fragment); ++r) registerOf.emplace(registerElement(fragment, r), r);
  std::vector<int> words;
  for (int block = 0; block < plan.rowBlocks(); ++block)
    for (int64_t k = 0; k < plan.depth; k += plan.k)
      for (int i = 0; i < 4; ++i) {
        const int64_t row = 16 * plan.numWarps * block + 8 * (i & 1), column = k + 8 * (i >> 1);
        auto low = registerOf.find(static_cast<uint64_t>(row * plan.depth + column));
        auto high = registerOf.find(static_cast<uint64_t>(row * plan.depth + column + 1));
        if (low == registerOf.end() || high == registerOf.end() || low->second % 2 != 0 || high->second != low->second + 1)
          return std::nullopt;
        words.push_back(low->second);
      }
  return words;
}

std::string wgmmaShape(const WgmmaPlan& plan) { return "m64n" + std::to_string(plan.n) + "k" + std::to_string(plan.k); }

}  // namespace tilesim::gpu
