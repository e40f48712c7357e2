// tt.dot, the sequential-FMA path (docs/semantics.md §Dot; interpreter/Dot.h): for every output element, in
// the result's layout, acc = c; for k = 0 .. K-1 in order: acc = fma(a[m][k], b[k][n], acc) — the interpreter's
// contract, so the result is bit for bit the interpreter's in both profiles (under `triton` the interpreter's
// bound for a tensor-core order contains it). a and b are staged in shared memory (SharedStage) and each thread
// walks k for its result registers.
//  - f32 `ieee` / tf32x3 / bf16x3 / bf16x6: fma.rn.f32 on the values. f32 `tf32`: each input truncated toward
//    zero to 10 mantissa bits (low 13 bits cleared), inf and NaN kept, as the interpreter (and wgmma) does.
//  - f16, bf16, f8E4M3FN, f8E5M2 (the two fp8 kinds may mix): converted exactly to f32, fma.rn.f32; an f16
//    result is accumulated from c widened to f32 and rounded to f16 once at the end.
//  - i8 x i8 -> i32: sign-extended products, wrapping i32 accumulation. f64: fma.rn.f64.
// The tensor-core paths (mma.sync m16n8k16 f16/bf16, m16n8k8 tf32, m16n8k32 int8, wgmma) are not lowered yet.
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

int log2Of(int64_t value) {
  int bits = 0;
  while ((int64_t{1} << bits) < value) ++bits;
  return bits;
}

}  // namespace

void lowerDot(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Value* a = op.operand(0);
  const Value* bOperand = op.operand(1);
  const Value* c = op.operand(2);
  std::span<const int64_t> aShape = a->type.shape(), bShape = bOperand->type.shape();
  const int rank = static_cast<int>(aShape.size());
  if (rank != 2 && rank != 3) lowering.unsupported(op, "of rank " + std::to_string(rank));
  const int64_t rows = aShape[static_cast<size_t>(rank - 2)], depth = aShape[static_cast<size_t>(rank - 1)],
                columns = bShape[static_cast<size_t>(rank - 1)];
  const int rowBits = log2Of(rows), depthBits = log2Of(depth), columnBits = log2Of(columns);
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

}  // namespace tilesim::gpu
