// tt.atomic_rmw and tt.atomic_cas (docs/semantics.md §Programs, memory and masks; interpreter/Atomics.cpp).
// Each element of the tensor is updated once, by one owner: a layout may hold an element in several threads
// (zero lane/warp bases) or several registers (zero register bases), and an atomic must not run per copy. The
// owner is the copy whose duplicating lane and warp bits are 0, in the first register that holds the element (a
// scalar atomic: thread 0). A masked-off or non-owning lane executes no memory instruction (a branch around the
// predicated inline PTX, PtxAtomic.h); a masked-off lane's result is 0. The owner's result reaches the copies
// through shared memory (barrier, owners store, barrier, everyone loads), so every copy sees the value the
// interpreter returns for that lane.
//
// Per kind and type, with the interpreter's result:
//  - i32/i64 add and/or/xor max/min umax/umin exch, f64 add: one native `atom` (add.u, and.b, max.s, max.u, ...).
//  - f32 fadd: the triton profile uses `atom.add.f32` (Triton's lowering; it flushes subnormals), the exact
//    profile a CAS loop around `add.rn.f32`, which is the interpreter's correctly rounded sum, subnormals kept.
//  - f16/bf16 fadd: `atom.add.noftz.f16/.bf16` (round to nearest, no flush: the interpreter's sum).
//  - f32/f64 max/min: by bit pattern as Triton lowers them — a value whose sign bit is clear uses the signed
//    integer max/min, a negative one the unsigned min/max (interpreter/Atomics.cpp floatMinMax).
//  - every other 16-bit case: a CAS loop on `atom.cas.b16` computing the interpreter's update.
//  - tt.atomic_cas: `atom.cas.bN`. 8-bit atomics do not exist (the interpreter refuses them too).
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/PtxAtomic.h"
#include "ir/Assert.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

ptx::AtomicOrder orderOf(const Operation& op) {
  AtomicView view{op};
  ptx::AtomicOrder order;
  switch (view.semantic()) {
    case MemorySemantic::Relaxed: order.semantic = ".relaxed"; break;
    case MemorySemantic::Acquire: order.semantic = ".acquire"; break;
    case MemorySemantic::Release: order.semantic = ".release"; break;
    case MemorySemantic::AcqRel: order.semantic = ".acq_rel"; break;
  }
  switch (view.scope()) {
    case MemoryScope::Gpu: order.scope = ".gpu"; break;
    case MemoryScope::Cta: order.scope = ".cta"; break;
    case MemoryScope::Sys: order.scope = ".sys"; break;
  }
  return order;
}

struct AtomicLane {
  KernelLowering& lowering;
  const Operation& op;
  AtomicRmwKind kind = AtomicRmwKind::Exch;
  bool isCas = false, isFloat = false;
  int bits = 32;
  ptx::AtomicOrder order;

  Builder& b() const { return lowering.builder; }
  llvm::IntegerType* intType() const { return b().getIntNTy(static_cast<unsigned>(bits)); }
  llvm::Type* floatType() const {
    switch (op.result()->type.element().scalarKind()) {
      case ScalarKind::F16: return b().getHalfTy();
      case ScalarKind::BF16: return b().getBFloatTy();
      case ScalarKind::F64: return b().getDoubleTy();
      default: return b().getFloatTy();
    }
  }

  // The interpreter's new value from `old` and `value` (integers of `bits`), for the CAS loops.
  llvm::Value* update(llvm::Value* old, llvm::Value* value) const {
    Builder& builder = b();
    if (isFloat && kind == AtomicRmwKind::FAdd) {
      llvm::Type* type = floatType();
      llvm::Value* x = builder.CreateBitCast(old, type), *y = builder.CreateBitCast(value, type);
      llvm::Value* sum = type->isFloatTy() || type->isDoubleTy()
                             ? builder.CreateFAdd(x, y)
                             : builder.CreateFPTrunc(builder.CreateFAdd(builder.CreateFPExt(x, builder.getFloatTy()),
                                                                        builder.CreateFPExt(y, builder.getFloatTy())),
                                                     type);
      return builder.CreateBitCast(sum, intType());
    }
    if (isFloat && (kind == AtomicRmwKind::Max || kind == AtomicRmwKind::Min)) {
      const bool isMax = kind == AtomicRmwKind::Max;
      llvm::Value* negative = builder.CreateICmpSLT(value, llvm::ConstantInt::get(intType(), 0));
      llvm::Value* unsignedPick = isMax ? builder.CreateSelect(builder.CreateICmpULT(old, value), old, value)
                                        : builder.CreateSelect(builder.CreateICmpUGT(old, value), old, value);
      llvm::Value* signedPick = isMax ? builder.CreateSelect(builder.CreateICmpSGT(old, value), old, value)
                                      : builder.CreateSelect(builder.CreateICmpSLT(old, value), old, value);
      return builder.CreateSelect(negative, unsignedPick, signedPick);
    }
    switch (kind) {
      case AtomicRmwKind::Add:
      case AtomicRmwKind::FAdd: return builder.CreateAdd(old, value);
      case AtomicRmwKind::And: return builder.CreateAnd(old, value);
      case AtomicRmwKind::Or: return builder.CreateOr(old, value);
      case AtomicRmwKind::Xor: return builder.CreateXor(old, value);
      case AtomicRmwKind::Exch: return value;
      case AtomicRmwKind::Max: return builder.CreateSelect(builder.CreateICmpSGT(old, value), old, value);
      case AtomicRmwKind::Min: return builder.CreateSelect(builder.CreateICmpSLT(old, value), old, value);
      case AtomicRmwKind::UMax:
        return builder.CreateSelect(TILESIM_MUTANT(gpu_atomic_umax_signed, builder.CreateICmpUGT(old, value), builder.CreateICmpSGT(old, value)),
                                    old, value);
      case AtomicRmwKind::UMin: return builder.CreateSelect(builder.CreateICmpULT(old, value), old, value);
    }
    TILESIM_UNREACHABLE("atomic kind");
  }

  // old = *p; do { got = cas(p, old, update(old)) } while (got != old) — starting from a guess of 0.
  llvm::Value* casLoop(llvm::Value* pointer, llvm::Value* value) const {
    Builder& builder = b();
    llvm::BasicBlock* before = builder.GetInsertBlock();
    llvm::Function* function = before->getParent();
    auto* loop = llvm::BasicBlock::Create(lowering.context, "atomic.cas", function);
    auto* done = llvm::BasicBlock::Create(lowering.context, "atomic.cas.done", function);
    builder.CreateBr(loop);
    builder.SetInsertPoint(loop);
    llvm::PHINode* expected = builder.CreatePHI(intType(), 2);
    expected->addIncoming(llvm::ConstantInt::get(intType(), 0), before);
    llvm::Value* registerExpected = builder.CreateZExt(expected, builder.getIntNTy(ptx::registerBits(bits)));
    llvm::Value* desired = builder.CreateZExt(update(expected, value), registerExpected->getType());
    llvm::Value* got = builder.CreateTrunc(ptx::atomicCas(builder, order, pointer, registerExpected, desired, bits),
                                           intType());
    expected->addIncoming(got, loop);
    builder.CreateCondBr(builder.CreateICmpEQ(got, expected), done, loop);
    builder.SetInsertPoint(done);
    return expected;
  }

  // The native instruction for this kind and type, or "" when a CAS loop is needed.
  std::string nativeOperation(llvm::Value* value, llvm::Value** adjusted) const {
    const std::string n = std::to_string(bits);
    *adjusted = value;
    const bool exact = lowering.options.profile == FloatProfile::Exact;
    if (isFloat) {
      if (kind == AtomicRmwKind::FAdd) {
        if (bits == 16) return op.result()->type.element().scalarKind() == ScalarKind::BF16 ? "add.noftz.bf16" : "add.noftz.f16";
        if (bits == 64) return "add.f64";
        return exact ? "" : "add.f32";
      }
      if (kind == AtomicRmwKind::Exch && bits >= 32) return "exch.b" + n;
      return "";  // float max/min: chosen per lane by sign (lowerNative), 16-bit: CAS loop
    }
    if (bits == 16) return "";
    switch (kind) {
      case AtomicRmwKind::Add: return "add.u" + n;
      case AtomicRmwKind::FAdd: return "";
      case AtomicRmwKind::And: return "and.b" + n;
      case AtomicRmwKind::Or: return "or.b" + n;
      case AtomicRmwKind::Xor: return "xor.b" + n;
      case AtomicRmwKind::Exch: return "exch.b" + n;
      case AtomicRmwKind::Max: return "max.s" + n;
      case AtomicRmwKind::Min: return "min.s" + n;
      case AtomicRmwKind::UMax: return TILESIM_MUTANT(gpu_atomic_umax_signed, "max.u", "max.s") + n;
      case AtomicRmwKind::UMin: return "min.u" + n;
    }
    return "";
  }

  // The old value (an integer of `bits`) of one lane that does execute.
  llvm::Value* execute(llvm::Value* pointer, llvm::Value* value, llvm::Value* compare) const {
    Builder& builder = b();
    llvm::Type* registerType = builder.getIntNTy(ptx::registerBits(bits));
    auto widen = [&](llvm::Value* v) { return builder.CreateZExt(v, registerType); };
    if (isCas)
      return builder.CreateTrunc(ptx::atomicCas(builder, order, pointer, widen(compare), widen(value), bits), intType());
    llvm::Value* adjusted = nullptr;
    std::string operation = nativeOperation(value, &adjusted);
    if (!operation.empty()) return builder.CreateTrunc(ptx::atomicRmw(builder, order, operation, pointer, widen(adjusted), bits), intType());
    if (isFloat && bits >= 32 && (kind == AtomicRmwKind::Max || kind == AtomicRmwKind::Min)) {
      // Sign bit clear: signed max/min of the bit patterns; set: unsigned min/max (the order by bit pattern).
      const std::string n = std::to_string(bits);
      const bool isMax = kind == AtomicRmwKind::Max;
      llvm::Value* negative = builder.CreateICmpSLT(value, llvm::ConstantInt::get(intType(), 0));
      llvm::BasicBlock* start = builder.GetInsertBlock();
      llvm::Function* function = start->getParent();
      auto* positiveBlock = llvm::BasicBlock::Create(lowering.context, "atomic.fpos", function);
      auto* negativeBlock = llvm::BasicBlock::Create(lowering.context, "atomic.fneg", function);
      auto* join = llvm::BasicBlock::Create(lowering.context, "atomic.fjoin", function);
      builder.CreateCondBr(negative, negativeBlock, positiveBlock);
      builder.SetInsertPoint(positiveBlock);
      llvm::Value* positiveOld = ptx::atomicRmw(builder, order, (isMax ? "max.s" : "min.s") + n, pointer, value, bits);
      builder.CreateBr(join);
      builder.SetInsertPoint(negativeBlock);
      llvm::Value* negativeOld = ptx::atomicRmw(builder, order, (isMax ? "min.u" : "max.u") + n, pointer, value, bits);
      builder.CreateBr(join);
      builder.SetInsertPoint(join);
      llvm::PHINode* old = builder.CreatePHI(intType(), 2);
      old->addIncoming(positiveOld, positiveBlock);
      old->addIncoming(negativeOld, negativeBlock);
      return old;
    }
    return casLoop(pointer, value);
  }
};

// True in the thread whose copy of each element acts: the lane and warp bits that only duplicate data are 0.
llvm::Value* ownsCopies(KernelLowering& lowering, const LinearLayout* layout) {
  Builder& b = lowering.builder;
  if (!layout) return b.CreateICmpEQ(lowering.threadId(), b.getInt32(0));
  const uint64_t laneMask = layout->zeroBasisMask(kLaneDim), warpMask = layout->zeroBasisMask(kWarpDim);
  llvm::Value* lanes = b.CreateAnd(lowering.laneId(), b.getInt32(static_cast<uint32_t>(laneMask)));
  llvm::Value* warps = b.CreateAnd(lowering.warpId(), b.getInt32(static_cast<uint32_t>(warpMask)));
  return b.CreateICmpEQ(b.CreateOr(lanes, warps), b.getInt32(0));
}

bool copiesAcrossThreads(const LinearLayout* layout, int numThreads) {
  if (!layout) return numThreads > 1;
  return layout->zeroBasisMask(kLaneDim) != 0 || layout->zeroBasisMask(kWarpDim) != 0;
}

}  // namespace

void lowerAtomicOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  AtomicLane lane{lowering, op, AtomicRmwKind::Exch, false, false, 32, {}};
  switch (familyOp<AtomicOp>(op.kind)) {
    case AtomicOp::TTAtomicRMW: lane.kind = AtomicView{op}.rmwKind(); break;
    case AtomicOp::TTAtomicCAS: lane.isCas = true; break;
  }
  Type element = op.result()->type.element();
  lane.isFloat = element.isFloat();
  lane.bits = storageBytes(element.scalarKind()) * 8;
  lane.order = orderOf(op);
  if (lane.bits < 16) lowering.unsupported(op, "on 8-bit elements (atomics on them do not exist)");
  if (lane.isFloat && element.scalarKind() != ScalarKind::F16 && element.scalarKind() != ScalarKind::BF16 &&
      element.scalarKind() != ScalarKind::F32 && element.scalarKind() != ScalarKind::F64)
    lowering.unsupported(op, "on " + element.str());
  llvm::Type* type = lowering.scalarType(op, op.result()->type);

  const LinearLayout* layout = lowering.layoutOf(op.result());
  const int count = KernelLowering::registerCount(layout);
  std::vector<llvm::Value*> pointers = lowering.in(op.operand(0), layout);
  std::vector<llvm::Value*> values = lowering.in(op.operand(lane.isCas ? 2 : 1), layout);
  std::vector<llvm::Value*> compares, masks;
  if (lane.isCas) compares = lowering.in(op.operand(1), layout);
  if (!lane.isCas && op.numOperands() > 2) masks = lowering.in(op.operand(2), layout);
  auto asBits = [&](llvm::Value* v) { return v->getType()->isIntegerTy() ? v : b.CreateBitCast(v, lane.intType()); };

  llvm::Value* owner = ownsCopies(lowering, layout);
  std::vector<llvm::Value*> old(static_cast<size_t>(count), nullptr);
  std::unordered_map<uint64_t, int> firstRegister;
  llvm::Function* function = b.GetInsertBlock()->getParent();
  for (int r = 0; r < count; ++r) {
    if (layout) {
      auto [found, inserted] = firstRegister.emplace(registerElement(*layout, r), r);
      if (!inserted) continue;  // a register copy: takes the first register's result below
    }
    const size_t i = static_cast<size_t>(r);
    llvm::Value* acts = masks.empty() ? owner : b.CreateAnd(owner, masks[i]);
    llvm::BasicBlock* start = b.GetInsertBlock();
    auto* body = llvm::BasicBlock::Create(lowering.context, "atomic.lane", function);
    auto* join = llvm::BasicBlock::Create(lowering.context, "atomic.join", function);
    b.CreateCondBr(acts, body, join);
    b.SetInsertPoint(body);
    llvm::Value* result = lane.execute(pointers[i], asBits(values[i]), compares.empty() ? nullptr : asBits(compares[i]));
    llvm::BasicBlock* bodyEnd = b.GetInsertBlock();
    b.CreateBr(join);
    b.SetInsertPoint(join);
    llvm::PHINode* phi = b.CreatePHI(lane.intType(), 2);
    phi->addIncoming(llvm::ConstantInt::get(lane.intType(), 0), start);  // masked off (or not the owner): 0
    phi->addIncoming(result, bodyEnd);
    old[i] = phi;
  }

  // Owners publish their results to the copies in other threads.
  if (copiesAcrossThreads(layout, 32 * lowering.options.numWarps)) {
    KernelLowering::SharedBuffer buffer =
        lowering.sharedBuffer(int64_t{layout ? (1 << layout->outBits()) : 1} * lane.bits / 8, &op, "the results");
    llvm::Value* shared = buffer.base;
    lowering.beforeSharedWrite(buffer.range);
    for (int r = 0; r < count; ++r) {
      if (!old[static_cast<size_t>(r)]) continue;
      llvm::Value* index = layout ? lowering.elementIndex(*layout, r) : b.getInt32(0);
      llvm::Value* slot = b.CreateGEP(lane.intType(), shared, b.CreateZExt(index, b.getInt64Ty()));
      llvm::BasicBlock* start = b.GetInsertBlock();
      auto* store = llvm::BasicBlock::Create(lowering.context, "atomic.publish", function);
      auto* join = llvm::BasicBlock::Create(lowering.context, "atomic.published", function);
      b.CreateCondBr(owner, store, join);
      b.SetInsertPoint(store);
      b.CreateStore(old[static_cast<size_t>(r)], slot);
      b.CreateBr(join);
      b.SetInsertPoint(join);
      (void)start;
    }
    lowering.beforeSharedRead(buffer.range);
    for (int r = 0; r < count; ++r) {
      if (!old[static_cast<size_t>(r)]) continue;
      llvm::Value* index = layout ? lowering.elementIndex(*layout, r) : b.getInt32(0);
      old[static_cast<size_t>(r)] = b.CreateLoad(lane.intType(), b.CreateGEP(lane.intType(), shared, b.CreateZExt(index, b.getInt64Ty())));
    }
  }
  Lowered lowered;
  for (int r = 0; r < count; ++r) {
    llvm::Value* bits = old[static_cast<size_t>(r)];
    if (!bits) bits = old[static_cast<size_t>(firstRegister.at(registerElement(*layout, r)))];
    lowered.regs.push_back(type->isIntegerTy() ? bits : b.CreateBitCast(bits, type));
  }
  if (layout) lowered.layout = *layout;
  lowering.set(op.result(), std::move(lowered));
}

}  // namespace tilesim::gpu
