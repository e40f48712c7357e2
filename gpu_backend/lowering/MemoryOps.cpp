// The Pointer and Memory families (ir/Ops.def; interpreter/MemoryOps.cpp, Descriptors.cpp), one entry point
// each: the ops on block pointers are BlockPointers.cpp's and those on tensor descriptors Descriptors.cpp's
// (tt.load and tt.store are routed by their pointer operand here); this file lowers tt.addptr, tt.int_to_ptr,
// tt.ptr_to_int, and tt.load, tt.store on pointers and tensors of pointers (docs/semantics.md §Programs, memory and
// masks). Every access is one predicated PTX instruction per register (Ptx.h): a masked-off lane executes no
// memory instruction at all and a masked load gives `other`, or 0 when there is none (what NVIDIA gives).
// Threads that hold copies of an element (zero bases in the layout) store the same value to the same address.
//
// Vectorisation (Triton's LoadStoreOpConversion): an access of a tensor of pointers moves `vector` consecutive
// elements with one ld.global.v2/.v4 (st.global) of 16- or 32-bit words, up to 16 bytes, where
//   - the layout gives each thread `vector` consecutive elements along one dimension in consecutive registers
//     (registerRun: the last dimension, or the one a coalesced load is fastest along),
//   - AxisInfo proves the pointers contiguous over them along that dimension and the first one aligned to the
//     whole vector (accessVectorElements: contiguity, divisibility), and
//   - the mask, when there is one, is constant over them along that dimension (its AxisInfo constancy), so one predicate guards the
//     vector; `other` is still applied element by element.
// Anything else stays one scalar access per register; the result is the same either way.
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"
#include "ir/Assert.h"

#include <algorithm>
#include <bit>

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

Type pointeeOf(KernelLowering& lowering, const Operation& op, const Value* pointer) {
  Type element = pointer->type.element();
  if (!element.isPointer() || !element.pointee().isScalar()) lowering.unsupported(op, "on block pointers");
  return element.pointee();
}

// A register value as the integer a memory instruction moves (8-bit values in 16-bit registers).
llvm::Value* toMemoryBits(Builder& b, llvm::Value* value, int bits) {
  llvm::Type* registerType = b.getIntNTy(static_cast<unsigned>(ptx::registerBits(bits)));
  if (!value->getType()->isIntegerTy()) value = b.CreateBitCast(value, b.getIntNTy(static_cast<unsigned>(bits)));
  return b.CreateZExtOrTrunc(value, registerType);
}

llvm::Value* fromMemoryBits(Builder& b, llvm::Value* bits, llvm::Type* type, int width) {
  if (type->isIntegerTy(1)) return b.CreateICmpNE(b.CreateTrunc(bits, b.getInt8Ty()), b.getInt8(0));
  llvm::Value* exact = b.CreateTrunc(bits, b.getIntNTy(static_cast<unsigned>(width)));
  return type->isIntegerTy() ? exact : b.CreateBitCast(exact, type);
}

// A value as the integer of exactly `bits` that memory holds (i1 is one byte, 0 or 1), and back.
llvm::Value* toExactBits(Builder& b, llvm::Value* value, int bits) {
  llvm::Type* type = b.getIntNTy(static_cast<unsigned>(bits));
  if (value->getType()->isIntegerTy(1)) return b.CreateZExt(value, type);
  return value->getType()->isIntegerTy() ? value : b.CreateBitCast(value, type);
}

llvm::Value* fromExactBits(Builder& b, llvm::Value* bits, llvm::Type* type) {
  if (type->isIntegerTy(1)) return b.CreateICmpNE(bits, llvm::ConstantInt::get(bits->getType(), 0));
  return type->isIntegerTy() ? bits : b.CreateBitCast(bits, type);
}

// `vector` elements of `bits` each <-> the words of `wordBits` one vector instruction moves (little-endian:
// element 0 in the low bits of word 0, as memory has them).
std::vector<llvm::Value*> packWords(Builder& b, const std::vector<llvm::Value*>& elements, int bits, int wordBits) {
  const unsigned count = static_cast<unsigned>(elements.size());
  llvm::Value* packed = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getIntNTy(static_cast<unsigned>(bits)), count));
  for (unsigned i = 0; i < count; ++i) packed = b.CreateInsertElement(packed, elements[i], b.getInt32(i));
  const unsigned words = count * static_cast<unsigned>(bits) / static_cast<unsigned>(wordBits);
  llvm::Value* asWords = b.CreateBitCast(packed, llvm::FixedVectorType::get(b.getIntNTy(static_cast<unsigned>(wordBits)), words));
  std::vector<llvm::Value*> result;
  for (unsigned i = 0; i < words; ++i) result.push_back(b.CreateExtractElement(asWords, b.getInt32(i)));
  return result;
}

std::vector<llvm::Value*> unpackWords(Builder& b, const std::vector<llvm::Value*>& words, int wordBits, int bits) {
  const unsigned count = static_cast<unsigned>(words.size());
  llvm::Value* packed = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getIntNTy(static_cast<unsigned>(wordBits)), count));
  for (unsigned i = 0; i < count; ++i) packed = b.CreateInsertElement(packed, words[i], b.getInt32(i));
  const unsigned elements = count * static_cast<unsigned>(wordBits) / static_cast<unsigned>(bits);
  llvm::Value* asElements =
      b.CreateBitCast(packed, llvm::FixedVectorType::get(b.getIntNTy(static_cast<unsigned>(bits)), elements));
  std::vector<llvm::Value*> result;
  for (unsigned i = 0; i < elements; ++i) result.push_back(b.CreateExtractElement(asElements, b.getInt32(i)));
  return result;
}

// Mutant gpu_store_mask_lt_as_le (fuzz/mutants/Mutants.def): a store mask computed by `arith.cmpi slt`, recomputed
// as `sle` from the compare's operands, so one lane past the tail is written.
[[maybe_unused]] std::vector<llvm::Value*> maskAsLessEqual(KernelLowering& lowering, const Operation& op,
                                                           const LinearLayout* layout, std::vector<llvm::Value*> masks) {
  const Operation* compare = op.numOperands() > 2 ? op.operand(2)->definingOp : nullptr;
  if (!compare || compare->kind != OpKind::ArithCmpI || CmpIView{*compare}.predicate() != IntPredicate::Slt) return masks;
  std::vector<llvm::Value*> lhs = lowering.in(compare->operand(0), layout), rhs = lowering.in(compare->operand(1), layout);
  for (size_t r = 0; r < masks.size(); ++r) masks[r] = lowering.builder.CreateICmpSLE(lhs[r], rhs[r]);
  return masks;
}

// The words of one vector access of `vector` elements of `bits`: 32-bit words, or one 16-bit word for 2 bytes.
int wordBitsFor(int vector, int bits) { return vector * bits >= 32 ? 32 : 16; }

void lowerAddPtr(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  Type pointee = pointeeOf(lowering, op, op.operand(0));
  llvm::Type* element = lowering.storageType(op, pointee);
  const bool zeroExtend = op.operand(1)->type.element().scalarKind() == ScalarKind::I1;  // i1 offsets are 0/1
  lowerElementwise(lowering, op, [&](auto& v) {
    llvm::Value* offset = zeroExtend ? b.CreateZExt(v[1], b.getInt64Ty())
                                     : TILESIM_MUTANT(gpu_addptr_zero_extends_offset, b.CreateSExtOrTrunc(v[1], b.getInt64Ty()),
                                                      b.CreateZExtOrTrunc(v[1], b.getInt64Ty()));
    return b.CreateGEP(element, v[0], offset);
  });
}

// tt.int_to_ptr and tt.ptr_to_int: device addresses, the integers are the GPU's, not the interpreter's.
void lowerIntToPtr(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    llvm::Type* target = lowering.scalarType(op, op.result()->type);
    return b.CreateIntToPtr(b.CreateSExtOrTrunc(v[0], b.getInt64Ty()), target);
  });
}
void lowerPtrToInt(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    llvm::Type* target = lowering.scalarType(op, op.result()->type);
    return b.CreateZExtOrTrunc(b.CreatePtrToInt(v[0], b.getInt64Ty()), target);
  });
}

void lowerLoad(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  Type pointee = pointeeOf(lowering, op, op.operand(0));
  llvm::Type* type = lowering.scalarType(op, pointee);
  const int bits = storageBytes(pointee.scalarKind()) * 8;
  const bool masked = op.numOperands() > 1, hasOther = op.numOperands() > 2;
  const LinearLayout* layout = lowering.layoutOf(op.result());
  if (const int vector = memoryVectorElements(lowering, op, layout, bits / 8); vector > 1) {
    const int wordBits = wordBitsFor(vector, bits);
    std::vector<llvm::Value*> pointers = lowering.in(op.operand(0), layout), masks, others;
    if (masked) masks = lowering.in(op.operand(1), layout);
    if (hasOther) others = lowering.in(op.operand(2), layout);
    Lowered result;
    result.layout = *layout;
    for (size_t r = 0; r < pointers.size(); r += static_cast<size_t>(vector)) {
      std::vector<llvm::Value*> otherElements;
      for (size_t i = r; i < r + static_cast<size_t>(vector); ++i)
        otherElements.push_back(hasOther ? toExactBits(b, others[i], bits) : b.getIntN(static_cast<unsigned>(bits), 0));
      std::vector<llvm::Value*> words =
          ptx::loadGlobalVector(b, pointers[r], wordBits, vector * bits / wordBits, masked ? masks[r] : nullptr,
                                packWords(b, otherElements, bits, wordBits));
      for (llvm::Value* element : unpackWords(b, words, wordBits, bits)) result.regs.push_back(fromExactBits(b, element, type));
    }
    lowering.set(op.result(), std::move(result));
    return;
  }
  return lowerElementwise(lowering, op, [&](auto& v) {
    llvm::Value* other = hasOther ? toMemoryBits(b, v[2], bits) : b.getIntN(static_cast<unsigned>(ptx::registerBits(bits)), 0);
    llvm::Value* loaded = ptx::loadGlobal(b, v[0], bits, masked ? v[1] : nullptr, other);
    return fromMemoryBits(b, loaded, type, bits);
  });
}

void lowerStore(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  Type pointee = pointeeOf(lowering, op, op.operand(0));
  const int bits = storageBytes(pointee.scalarKind()) * 8;
  const LinearLayout* layout = lowering.layoutOf(op.operand(0));
  std::vector<llvm::Value*> pointers = lowering.in(op.operand(0), layout);
  std::vector<llvm::Value*> values = lowering.in(op.operand(1), layout);
  std::vector<llvm::Value*> masks;
  if (op.numOperands() > 2) masks = lowering.in(op.operand(2), layout);
  masks = TILESIM_MUTANT(gpu_store_mask_lt_as_le, masks, maskAsLessEqual(lowering, op, layout, masks));
  if (const int vector = memoryVectorElements(lowering, op, layout, bits / 8); vector > 1) {
    const int wordBits = wordBitsFor(vector, bits);
    for (size_t r = 0; r < pointers.size(); r += static_cast<size_t>(vector)) {
      std::vector<llvm::Value*> elements;
      for (size_t i = r; i < r + static_cast<size_t>(vector); ++i) elements.push_back(toExactBits(b, values[i], bits));
      ptx::storeGlobalVector(b, pointers[r], wordBits, packWords(b, elements, bits, wordBits), masks.empty() ? nullptr : masks[r]);
    }
    return;
  }
  for (size_t r = 0; r < pointers.size(); ++r)
    ptx::storeGlobal(b, pointers[r], bits, toMemoryBits(b, values[r], bits), masks.empty() ? nullptr : masks[r]);
}

}  // namespace

// How many consecutive registers one access of `op` (tt.load / tt.store through a tensor of pointers laid out
// as `layout`) may move at once; 1 = scalar accesses. See the file comment for the three conditions.
int memoryVectorElements(KernelLowering& lowering, const Operation& op, const LinearLayout* layout, int bytes) {
  const Value* pointer = op.operand(0);
  if (!layout || !lowering.axisInfo || !pointer->type.isTensor()) return 1;
  const analysis::AxisInfo pointerInfo = lowering.axisInfo->info(*pointer);
  // The registers' run along one dimension (the last, or the one a coalesced load is fastest along).
  const RegisterRun run = registerRun(*layout);
  int vector = std::min(accessVectorElements(pointerInfo, bytes, run.dim), run.elements);
  const size_t maskIndex = op.kind == OpKind::TTLoad ? 1 : 2;
  if (TILESIM_MUTANT(gpu_mask_constancy_ignored, op.numOperands() > maskIndex, false) && op.operand(maskIndex)->type.isTensor()) {
    const analysis::AxisInfo mask = lowering.axisInfo->info(*op.operand(maskIndex));
    const int64_t constancy = mask.constancy[static_cast<size_t>(run.dim)];
    vector = std::min<int64_t>(vector, static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(std::max<int64_t>(constancy, 1)))));
  }
  return vector * bytes >= 2 ? vector : 1;
}

void lowerPointerOp(KernelLowering& lowering, const Operation& op) {
  switch (familyOp<PointerOp>(op.kind)) {
    case PointerOp::TTAddPtr: return lowerAddPtr(lowering, op);
    case PointerOp::TTIntToPtr: return lowerIntToPtr(lowering, op);
    case PointerOp::TTPtrToInt: return lowerPtrToInt(lowering, op);
    case PointerOp::TTMakeTensorPtr: return lowerMakeTensorPtr(lowering, op);
    case PointerOp::TTAdvance: return lowerAdvance(lowering, op);
    case PointerOp::TTMakeTensorDescriptor: return lowerMakeTensorDescriptor(lowering, op);
  }
}

void lowerMemoryOp(KernelLowering& lowering, const Operation& op) {
  const bool blockPointer = op.operand(0)->type.isBlockPointer();
  switch (familyOp<MemoryOp>(op.kind)) {
    case MemoryOp::TTLoad: return blockPointer ? lowerBlockPointerAccess(lowering, op) : lowerLoad(lowering, op);
    case MemoryOp::TTStore: return blockPointer ? lowerBlockPointerAccess(lowering, op) : lowerStore(lowering, op);
    case MemoryOp::TTDescriptorLoad:
    case MemoryOp::TTDescriptorGather: return lowerDescriptorLoad(lowering, op);
    case MemoryOp::TTDescriptorStore:
    case MemoryOp::TTDescriptorScatter: return lowerDescriptorStore(lowering, op);
  }
}

}  // namespace tilesim::gpu
