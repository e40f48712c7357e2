// tt.dot, two lowerings (docs/gpu-backend.md "Dot").
//
// The sequential-FMA path (docs/semantics.md §Dot; interpreter/Dot.h): for every output element, in the result's
// layout, acc = c; for k = 0 .. K-1 in order: acc = fma(a[m][k], b[k][n], acc) — the interpreter's contract, so
// the result is bit for bit the interpreter's. It is the only path of the `exact` profile, and the `triton`
// profile's for what has no tensor-core path. a and b are staged in shared memory (SharedStage) and each thread
// walks k for its result registers.
//  - f32 `ieee` / tf32x3 / bf16x3 / bf16x6: fma.rn.f32 on the values. f32 `tf32`: each input truncated toward
//    zero to 10 mantissa bits (low 13 bits cleared), inf and NaN kept, as the interpreter (and wgmma) does.
//  - f16, bf16, f8E4M3FN, f8E5M2 (the two fp8 kinds may mix): converted exactly to f32, fma.rn.f32; an f16
//    result is accumulated from c widened to f32 and rounded to f16 once at the end.
//  - i8 x i8 -> i32: sign-extended products, wrapping i32 accumulation. f64: fma.rn.f64.
//
// The tensor-core path (`triton` profile only), Triton's MMAv2 (mma.sync, as Triton lowers dots on Ampere):
// f16 x f16 and bf16 x bf16 -> `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`; f32 `tf32`
// -> `m16n8k8 ... f32.tf32.tf32.f32` on the operands truncated to tf32 as above (Triton 3.6 hands the raw f32
// bits to the instruction, which reads only their tf32 part; cvt.rna.tf32.f32 is its tf32x3 split, not this);
// i8 x i8 -> i32 -> `m16n8k32 ... s32.s8.s8.s32` without .satfinite (Triton's has it), so the i32 sum wraps as
// the interpreter's and the result is exact; f8E4M3FN / f8E5M2 (mixed too) -> `m16n8k32 ... f32.e4m3.e5m2.f32`
// etc., Triton's sm_89 instruction, which needs PTX ISA 8.4 (the pipeline then emits `.version 8.4`). a, b and c are converted into the mma operand and accumulator
// layouts (DistributedLayouts.h: mmaLayout; through shared memory), each warp multiplies its 16 x 8 tiles with
// the k tiles in order (acc = mma(a_kt, b_kt, acc), kt = 0, 1, ...), an f16 result is the f32 accumulator
// rounded once, and the result is converted back into its assigned layout. On sm_90a the dots wgmmaPlan accepts
// take wgmma instead (DotWgmma.cpp). Under the `triton` profile the
// interpreter's error bound for tensor-core dots (interpreter/Dot.h, independent of the summation order) is
// what the result is judged by. Shapes that are not multiples of the instruction tile, operand or result
// tensors over 48 KiB, and f64, f32 ieee/tf32x3/bf16x3/bf16x6 keep the FMA path.
#include <algorithm>
#include <bit>
#include <optional>
#include <string>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/TensorCoreDots.h"
#include "gpu_backend/layout/WgmmaLayouts.h"
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/TensorCorePlan.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {

using Builder = llvm::IRBuilder<>;

std::optional<TensorCorePlan> tensorCorePlan(const KernelLowering& lowering, const Operation& op) {
  if (lowering.options.profile != FloatProfile::Triton) return std::nullopt;
  std::optional<int> wordBits = tensorCoreWordBits(op, lowering.options.numWarps, sharedBytesPerBlock(lowering.options.sm));
  if (!wordBits) return std::nullopt;
  const ScalarKind aKind = op.operand(0)->type.element().scalarKind(), bKind = op.operand(1)->type.element().scalarKind();
  auto fp8Name = [](ScalarKind kind) -> const char* { return kind == ScalarKind::F8E4M3FN ? "e4m3" : "e5m2"; };
  TensorCorePlan plan;
  plan.wordBits = *wordBits;
  plan.shape = "m16n8k" + std::to_string(8 << plan.wordBits);
  if (aKind == ScalarKind::F8E4M3FN || aKind == ScalarKind::F8E5M2) {
    // Triton's MMAv2 fp8 instruction (sm_89+, PTX ISA 8.4); the two fp8 kinds may mix. The same fragments as s8.
    plan.ptxVersion = 84;
    plan.types = std::string("f32.") + fp8Name(aKind) + "." + fp8Name(bKind) + ".f32";
  } else if (aKind == ScalarKind::F16 || aKind == ScalarKind::BF16) {
    plan.types = aKind == ScalarKind::F16 ? "f32.f16.f16.f32" : "f32.bf16.bf16.f32";
  } else if (aKind == ScalarKind::F32) {
    plan.tf32 = true;
    plan.types = "f32.tf32.tf32.f32";
  } else {
    plan.integer = true;
    plan.types = "s32.s8.s8.s32";
  }
  return plan;
}

LinearLayout accumulatorLayout(const KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan) {
  std::span<const int64_t> resultShape = op.result()->type.shape();
  const int64_t depth = op.operand(0)->type.shape()[resultShape.size() - 1];
  return mmaLayout(MmaOperand::Accumulator, resultShape, depth, plan.wordBits, lowering.options.numWarps);
}

// Registers that are the elements 0, 1, ... of one vector of that width (a conversion's vector load from shared
// memory) are that vector's bits, with no repacking.
llvm::Value* operandWord(llvm::IRBuilder<>& b, const TensorCorePlan& plan, const std::vector<llvm::Value*>& regs, int first) {
  const int count = 1 << plan.wordBits, bits = 32 >> plan.wordBits;
  if (!plan.tf32 && count > 1) {
    auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(regs[static_cast<size_t>(first)]);
    llvm::Value* vector = extract ? extract->getVectorOperand() : nullptr;
    auto* vectorType = vector ? llvm::dyn_cast<llvm::FixedVectorType>(vector->getType()) : nullptr;
    bool whole = vectorType && vectorType->getNumElements() == static_cast<unsigned>(count) &&
                 vectorType->getScalarSizeInBits() == static_cast<unsigned>(bits);
    for (int e = 0; whole && e < count; ++e) {
      auto* element = llvm::dyn_cast<llvm::ExtractElementInst>(regs[static_cast<size_t>(first + e)]);
      auto* position = element ? llvm::dyn_cast<llvm::ConstantInt>(element->getIndexOperand()) : nullptr;
      whole = position && element->getVectorOperand() == vector && position->getZExtValue() == static_cast<uint64_t>(e);
    }
    if (whole) return b.CreateBitCast(vector, b.getInt32Ty());
  }
  if (!plan.tf32 && count == 2 && (regs[static_cast<size_t>(first)]->getType()->isHalfTy() ||
                                    regs[static_cast<size_t>(first)]->getType()->isBFloatTy())) {
    // Two 16-bit floats as one <2 x half> (bfloat); two f32 -> f16 truncations as one cvt.rn.f16x2.f32.
    auto* low = llvm::dyn_cast<llvm::FPTruncInst>(regs[static_cast<size_t>(first)]);
    auto* high = llvm::dyn_cast<llvm::FPTruncInst>(regs[static_cast<size_t>(first + 1)]);
    if (low && high && low->getSrcTy()->isFloatTy() && high->getSrcTy()->isFloatTy() && low->getType() == high->getType())
      return ptx::packRoundedPair(b, low->getOperand(0), high->getOperand(0), low->getType()->isBFloatTy());
    llvm::Type* element = regs[static_cast<size_t>(first)]->getType();
    llvm::Value* pair = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, 2));
    for (int e = 0; e < 2; ++e) pair = b.CreateInsertElement(pair, regs[static_cast<size_t>(first + e)], static_cast<uint64_t>(e));
    return b.CreateBitCast(pair, b.getInt32Ty());
  }
  llvm::Value* word = b.getInt32(0);
  for (int e = 0; e < count; ++e) {
    llvm::Value* v = regs[static_cast<size_t>(first + e)];
    llvm::Value* element;
    if (plan.tf32) {  // the interpreter's tf32 operand: low 13 bits cleared, inf and NaN kept
      llvm::Value* raw = b.CreateBitCast(v, b.getInt32Ty());
      llvm::Value* special = b.CreateICmpEQ(b.CreateAnd(raw, 0x7F800000), b.getInt32(0x7F800000));
      element = b.CreateSelect(special, raw, b.CreateAnd(raw, 0xFFFFE000));
    } else {
      if (!v->getType()->isIntegerTy()) v = b.CreateBitCast(v, b.getIntNTy(static_cast<unsigned>(bits)));
      element = b.CreateZExt(v, b.getInt32Ty());
    }
    word = e == 0 ? element : b.CreateOr(word, b.CreateShl(element, static_cast<uint64_t>(e * bits)));
  }
  return word;
}

void finishTensorCoreDot(KernelLowering& lowering, const Operation& op, std::vector<llvm::Value*> acc,
                         const LinearLayout& accLayout) {
  Builder& b = lowering.builder;
  if (op.result()->type.element().scalarKind() == ScalarKind::F16)
    for (llvm::Value*& value : acc) value = b.CreateFPTrunc(value, b.getHalfTy());
  Lowered inMma;
  inMma.regs = std::move(acc);
  inMma.layout = accLayout;
  const LinearLayout* assigned = lowering.layoutOf(op.result());
  Lowered lowered;
  lowered.layout = *assigned;
  lowered.regs = convertLayout(lowering, inMma, *assigned, op.result()->type.element(), &op);
  lowering.set(op.result(), std::move(lowered));
}

namespace {

void lowerDotTensorCore(KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan) {
  Builder& b = lowering.builder;
  std::span<const int64_t> resultShape = op.result()->type.shape();
  const int64_t depth = op.operand(0)->type.shape()[resultShape.size() - 1];
  const int warps = lowering.options.numWarps;
  lowering.minimumPtxVersion = std::max(lowering.minimumPtxVersion, plan.ptxVersion);
  const auto [aLayout, bLayout] = *tensorCoreOperandLayouts(lowering, op);
  const LinearLayout accLayout = accumulatorLayout(lowering, op, plan);
  const bool halfResult = op.result()->type.element().scalarKind() == ScalarKind::F16;
  // An operand a pipelined loop staged (lowering/PipelinedLoop.cpp) is loaded from its stage in the operand layout.
  auto registersOf = [&](const Value* operand, const LinearLayout& layout) {
    auto staged = lowering.sharedOperands.find(operand);
    if (staged == lowering.sharedOperands.end()) return lowering.in(operand, &layout);
    const Type element = operand->type.element();
    return loadPlaced(lowering, layout, staged->second.placement, staged->second.base, lowering.storageType(op, element),
                      storageBytes(element.scalarKind()));
  };
  std::vector<llvm::Value*> aRegs = registersOf(op.operand(0), aLayout);
  std::vector<llvm::Value*> bRegs = registersOf(op.operand(1), bLayout);
  std::vector<llvm::Value*> acc = lowering.in(op.operand(2), &accLayout);
  if (halfResult)
    for (llvm::Value*& value : acc) value = b.CreateFPExt(value, b.getFloatTy());

  const int wordElements = 1 << plan.wordBits;
  const int aPerTile = 4 << plan.wordBits, bPerTile = 2 << plan.wordBits;
  const int kTiles = static_cast<int>(depth >> (plan.wordBits + 3));
  const int groups = numRegisters(accLayout) / 4;
  OperandWords aWordsOf(b, plan, aRegs), bWordsOf(b, plan, bRegs);
  for (int group = 0; group < groups; ++group) {
    const int aGroup = mmaOperandGroup(MmaOperand::A, resultShape, warps, group);
    const int bGroup = mmaOperandGroup(MmaOperand::B, resultShape, warps, group);
    std::vector<llvm::Value*> d(acc.begin() + 4 * group, acc.begin() + 4 * group + 4);
    for (int kt = 0; kt < kTiles; ++kt) {  // k tiles in order: acc = mma(a_kt, b_kt, acc)
      const int aFirst = aPerTile * (kt + kTiles * aGroup), bFirst = bPerTile * (kt + kTiles * bGroup);
      TILESIM_ASSERT(aFirst + aPerTile <= static_cast<int>(aRegs.size()) && bFirst + bPerTile <= static_cast<int>(bRegs.size()),
                     "mma lowering: operand registers out of range");
      std::vector<llvm::Value*> aWords, bWords;
      for (int w = 0; w < 4; ++w) aWords.push_back(aWordsOf.at(aFirst + w * wordElements));
      for (int w = 0; w < 2; ++w) bWords.push_back(bWordsOf.at(bFirst + w * wordElements));
      d = ptx::mmaSync(b, plan.shape, plan.types, plan.integer, aWords, bWords, d);
    }
    std::copy(d.begin(), d.end(), acc.begin() + 4 * group);
  }
  finishTensorCoreDot(lowering, op, std::move(acc), accLayout);
}

}  // namespace

namespace {

void lowerDot(KernelLowering& lowering, const Operation& op) {
  if (std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, op)) {
    if (std::optional<WgmmaPlan> wgmma = chosenWgmmaPlan(lowering, op, *plan))
      return lowerDotWgmma(lowering, op, *wgmma, accumulatorLayout(lowering, op, *plan));
    return lowerDotTensorCore(lowering, op, *plan);
  }
  Builder& b = lowering.builder;
  const Value* a = op.operand(0);
  const Value* bOperand = op.operand(1);
  const Value* c = op.operand(2);
  std::span<const int64_t> aShape = a->type.shape(), bShape = bOperand->type.shape();
  const int rank = static_cast<int>(aShape.size());
  if (rank != 2 && rank != 3) lowering.unsupported(op, "of rank " + std::to_string(rank));
  const int64_t rows = aShape[static_cast<size_t>(rank - 2)], depth = aShape[static_cast<size_t>(rank - 1)],
                columns = bShape[static_cast<size_t>(rank - 1)];
  const int rowBits = log2Ceil(rows), depthBits = log2Ceil(depth), columnBits = log2Ceil(columns);
  const ScalarKind aKind = a->type.element().scalarKind(), bKind = bOperand->type.element().scalarKind();
  const ScalarKind resultKind = op.result()->type.element().scalarKind();
  const bool integer = aKind == ScalarKind::I8;
  const bool halfResult = resultKind == ScalarKind::F16;
  if ((integer && resultKind != ScalarKind::I32) || (!integer && !a->type.element().isFloat()))
    lowering.unsupported(op, "on " + a->type.str() + " -> " + op.result()->type.str());
  const bool truncateTf32 = aKind == ScalarKind::F32 && DotView{op}.inputPrecision() == InputPrecision::TF32;
  llvm::Type* accType = integer ? b.getInt32Ty() : aKind == ScalarKind::F64 ? b.getDoubleTy() : b.getFloatTy();
  llvm::Type* resultType = lowering.scalarType(op, op.result()->type);

  SharedStage stage(lowering, op);
  llvm::Value* aBase = stage.add(a, a->type.numElements());
  llvm::Value* bBase = stage.add(bOperand, bOperand->type.numElements());
  llvm::Type* aSlot = lowering.storageType(op, a->type), *bSlot = lowering.storageType(op, bOperand->type);
  const LinearLayout* layout = lowering.layoutOf(op.result());
  std::vector<llvm::Value*> initial = lowering.in(c, layout);
  stage.storeAll();

  // The operand value as the accumulator's type (exact for every input kind).
  auto operand = [&](llvm::Value* v, ScalarKind kind) -> llvm::Value* {
    switch (kind) {
      case ScalarKind::I8: return b.CreateSExt(v, b.getInt32Ty());
      case ScalarKind::F16:
      case ScalarKind::BF16: return b.CreateFPExt(v, b.getFloatTy());
      case ScalarKind::F8E4M3FN: return fp8ToFloat(b, v, false);
      case ScalarKind::F8E5M2: return fp8ToFloat(b, v, true);
      case ScalarKind::F32: {
        if (!truncateTf32) return v;
        llvm::Value* bits = b.CreateBitCast(v, b.getInt32Ty());
        llvm::Value* special = b.CreateICmpEQ(b.CreateAnd(bits, 0x7F800000), b.getInt32(0x7F800000));
        return b.CreateBitCast(b.CreateSelect(special, bits, b.CreateAnd(bits, 0xFFFFE000)), b.getFloatTy());
      }
      case ScalarKind::F64: return v;
      default: lowering.unsupported(op, "on " + a->type.str());
    }
  };

  const int count = numRegisters(*layout);
  std::vector<llvm::Value*> aRow, bColumn;  // slot of a[m][0] and b[0][n] of each result register
  for (int r = 0; r < count; ++r) {
    llvm::Value* index = lowering.elementIndex(*layout, r);
    llvm::Value* column = b.CreateAnd(index, b.getInt32(static_cast<uint32_t>(columns - 1)));
    llvm::Value* row = b.CreateAnd(b.CreateLShr(index, static_cast<uint64_t>(columnBits)), b.getInt32(static_cast<uint32_t>(rows - 1)));
    llvm::Value* batch = b.CreateLShr(index, static_cast<uint64_t>(columnBits + rowBits));
    aRow.push_back(b.CreateShl(b.CreateOr(b.CreateShl(batch, static_cast<uint64_t>(rowBits)), row), static_cast<uint64_t>(depthBits)));
    bColumn.push_back(b.CreateOr(b.CreateShl(batch, static_cast<uint64_t>(depthBits + columnBits)), column));
  }

  if (halfResult)
    for (llvm::Value*& start : initial) start = b.CreateFPExt(start, accType);
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(lowering.context, "dot.k", lowering.function);
  auto* exit = llvm::BasicBlock::Create(lowering.context, "dot.done", lowering.function);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* k = b.CreatePHI(b.getInt32Ty(), 2, "k");
  k->addIncoming(b.getInt32(0), preheader);
  std::vector<llvm::PHINode*> accumulators;
  for (int r = 0; r < count; ++r) {
    llvm::PHINode* phi = b.CreatePHI(accType, 2);
    llvm::Value* start = initial[static_cast<size_t>(r)];
    phi->addIncoming(start, preheader);
    accumulators.push_back(phi);
  }
  llvm::Value* bOffset = b.CreateShl(k, static_cast<uint64_t>(columnBits));
  std::vector<llvm::Value*> next;
  for (int r = 0; r < count; ++r) {
    llvm::Value* x = operand(b.CreateLoad(aSlot, stage.slot(aBase, aSlot, b.CreateOr(aRow[static_cast<size_t>(r)], k))), aKind);
    llvm::Value* y = operand(b.CreateLoad(bSlot, stage.slot(bBase, bSlot, b.CreateOr(bColumn[static_cast<size_t>(r)], bOffset))), bKind);
    llvm::Value* acc = accumulators[static_cast<size_t>(r)];
    next.push_back(integer ? b.CreateAdd(b.CreateMul(x, y), acc)
                           : b.CreateIntrinsic(llvm::Intrinsic::fma, {accType}, {x, y, acc}));
  }
  llvm::Value* advanced = b.CreateAdd(k, b.getInt32(1));
  k->addIncoming(advanced, loop);
  for (int r = 0; r < count; ++r) accumulators[static_cast<size_t>(r)]->addIncoming(next[static_cast<size_t>(r)], loop);
  b.CreateCondBr(b.CreateICmpULT(advanced, b.getInt32(static_cast<uint32_t>(depth))), loop, exit);

  b.SetInsertPoint(exit);
  Lowered lowered;
  lowered.layout = *layout;
  for (llvm::Value* value : next) lowered.regs.push_back(halfResult ? b.CreateFPTrunc(value, resultType) : value);
  lowering.set(op.result(), std::move(lowered));
}

}  // namespace

std::optional<std::array<LinearLayout, 2>> tensorCoreOperandLayouts(const KernelLowering& lowering, const Operation& dot) {
  const std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, dot);
  if (!plan || chosenWgmmaPlan(lowering, dot, *plan)) return std::nullopt;  // wgmma reads them from shared memory
  std::span<const int64_t> resultShape = dot.result()->type.shape();
  const int64_t depth = dot.operand(0)->type.shape()[resultShape.size() - 1];
  const int warps = lowering.options.numWarps;
  return std::array<LinearLayout, 2>{mmaLayout(MmaOperand::A, resultShape, depth, plan->wordBits, warps),
                                     mmaLayout(MmaOperand::B, resultShape, depth, plan->wordBits, warps)};
}

void lowerDotOp(KernelLowering& lowering, const Operation& op) {
  switch (familyOp<DotOp>(op.kind)) {
    case DotOp::TTDot: return lowerDot(lowering, op);
  }
}

}  // namespace tilesim::gpu
