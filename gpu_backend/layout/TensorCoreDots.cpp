#include "gpu_backend/layout/TensorCoreDots.h"

#include <bit>
#include <initializer_list>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

bool isFp8Kind(ScalarKind kind) { return kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2; }

}  // namespace

std::optional<int> tensorCoreWordBits(const Operation& dot, int numWarps, int64_t sharedBytes) {
  if (dot.kind != OpKind::TTDot || dot.numOperands() < 3) return std::nullopt;
  const Value* a = dot.operand(0);
  const Value* b = dot.operand(1);
  const ScalarKind aKind = a->type.element().scalarKind(), bKind = b->type.element().scalarKind();
  const ScalarKind resultKind = dot.result()->type.element().scalarKind();
  int wordBits = 0;
  if (isFp8Kind(aKind) && isFp8Kind(bKind) && (resultKind == ScalarKind::F32 || resultKind == ScalarKind::F16)) {
    wordBits = 2;  // the two fp8 kinds may mix
  } else if (aKind != bKind) {
    return std::nullopt;
  } else if ((aKind == ScalarKind::F16 || aKind == ScalarKind::BF16) &&
             (resultKind == ScalarKind::F32 || (resultKind == ScalarKind::F16 && aKind == ScalarKind::F16))) {
    wordBits = 1;
  } else if (aKind == ScalarKind::F32 && resultKind == ScalarKind::F32 &&
             DotView{dot}.inputPrecision() == InputPrecision::TF32) {
    wordBits = 0;
  } else if (aKind == ScalarKind::I8 && resultKind == ScalarKind::I32) {
    wordBits = 2;
  } else {
    return std::nullopt;
  }
  std::span<const int64_t> resultShape = dot.result()->type.shape();
  const size_t rank = resultShape.size();
  if ((rank != 2 && rank != 3) || !isPowerOfTwoShape(resultShape) || !isPowerOfTwoShape(a->type.shape()))
    return std::nullopt;
  const int64_t depth = a->type.shape()[rank - 1];
  if (resultShape[rank - 2] < 16 || resultShape[rank - 1] < 8 || depth < (8 << wordBits)) return std::nullopt;
  if (numWarps <= 0 || !std::has_single_bit(static_cast<unsigned>(numWarps))) return std::nullopt;
  for (const Value* value : std::initializer_list<const Value*>{a, b, dot.operand(2), dot.result()})
    if (value->type.numElements() * storageBytes(value->type.element().scalarKind()) > sharedBytes)
      return std::nullopt;
  return wordBits;
}

std::optional<LinearLayout> tensorCoreResultLayout(const Operation& dot, int numWarps, int64_t sharedBytes) {
  std::optional<int> wordBits = tensorCoreWordBits(dot, numWarps, sharedBytes);
  if (!wordBits) return std::nullopt;
  std::span<const int64_t> resultShape = dot.result()->type.shape();
  const int64_t depth = dot.operand(0)->type.shape()[resultShape.size() - 1];
  return mmaLayout(MmaOperand::Accumulator, resultShape, depth, *wordBits, numWarps);
}

}  // namespace tilesim::gpu
