// Block pointers (tt.make_tensor_ptr, tt.advance, and tt.load / tt.store through them; interpreter/MemoryOps.cpp).
// A block pointer is a scalar, uniform across the program, lowered as its fields in registers: [base, shape[0..r),
// strides[0..r) (i64), offsets[0..r) (i32)] — scf.for / scf.if / scf.while carry each field as one phi. An access
// computes, for every register of the tile's layout, the element's coordinates c (from its flat index) and
//   address = base + sum_d (offsets[d] + c[d]) * strides[d] * sizeof(element)   (wrapping 64-bit arithmetic)
//   in bounds = for every d in boundaryCheck: 0 <= offsets[d] + c[d] < shape[d]
// and issues one predicated PTX access (Ptx.h): out-of-bounds lanes touch no memory; a load gives the padding
// there — 0 for `zero` and for no padding option (the interpreter's value for those undefined lanes), and for
// `nan` the quiet NaN Triton materialises (0x7FC00000 for f32). Dimensions not in boundaryCheck are not masked.
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

struct Fields {
  llvm::Value* base;
  std::vector<llvm::Value*> shape, strides, offsets;
};

Fields fieldsOf(const std::vector<llvm::Value*>& regs, int rank) {
  Fields fields{regs[0], {}, {}, {}};
  for (int d = 0; d < rank; ++d) {
    fields.shape.push_back(regs[static_cast<size_t>(1 + d)]);
    fields.strides.push_back(regs[static_cast<size_t>(1 + rank + d)]);
    fields.offsets.push_back(regs[static_cast<size_t>(1 + 2 * rank + d)]);
  }
  return fields;
}

std::vector<llvm::Value*> registersOf(const Fields& fields) {
  std::vector<llvm::Value*> regs = {fields.base};
  regs.insert(regs.end(), fields.shape.begin(), fields.shape.end());
  regs.insert(regs.end(), fields.strides.begin(), fields.strides.end());
  regs.insert(regs.end(), fields.offsets.begin(), fields.offsets.end());
  return regs;
}


struct Access {
  std::vector<llvm::Value*> addresses, inBounds;  // per register; inBounds null when nothing is checked
};

Access addresses(KernelLowering& lowering, const Operation& op, const Fields& fields, const LinearLayout& layout,
                 std::span<const int64_t> shape, int elementBytes) {
  Builder& b = lowering.builder;
  const int rank = static_cast<int>(shape.size());
  std::vector<bool> checked(static_cast<size_t>(rank), false);
  for (int64_t d : BoundaryCheckView{op}.dimensions())
    if (d >= 0 && d < rank) checked[static_cast<size_t>(d)] = true;
  Access access;
  for (int r = 0; r < numRegisters(layout); ++r) {
    llvm::Value* flat = lowering.elementIndex(layout, r);
    llvm::Value* offset = b.getInt64(0);
    llvm::Value* inside = nullptr;
    int shift = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const size_t i = static_cast<size_t>(d);
      llvm::Value* coordinate = b.CreateAnd(b.CreateLShr(flat, static_cast<uint64_t>(shift)), b.getInt32(static_cast<uint32_t>(shape[i] - 1)));
      shift += log2Ceil(shape[i]);
      llvm::Value* position = b.CreateAdd(b.CreateSExt(fields.offsets[i], b.getInt64Ty()), b.CreateZExt(coordinate, b.getInt64Ty()));
      offset = b.CreateAdd(offset, b.CreateMul(position, fields.strides[i]));
      if (checked[i]) {
        llvm::Value* ok = b.CreateAnd(b.CreateICmpSGE(position, b.getInt64(0)), b.CreateICmpSLT(position, fields.shape[i]));
        inside = inside ? b.CreateAnd(inside, ok) : ok;
      }
    }
    access.addresses.push_back(b.CreateGEP(b.getInt8Ty(), fields.base, b.CreateMul(offset, b.getInt64(static_cast<uint64_t>(elementBytes)))));
    access.inBounds.push_back(inside);
  }
  return access;
}

}  // namespace

void lowerMakeTensorPtr(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const int rank = op.result()->type.pointee().rank();
  Fields fields{lowering.in(op.operand(0), nullptr)[0], {}, {}, {}};
  for (int d = 0; d < rank; ++d) {
    fields.shape.push_back(b.CreateSExtOrTrunc(lowering.in(op.operand(static_cast<size_t>(1 + d)), nullptr)[0], b.getInt64Ty()));
    fields.strides.push_back(b.CreateSExtOrTrunc(lowering.in(op.operand(static_cast<size_t>(1 + rank + d)), nullptr)[0], b.getInt64Ty()));
    fields.offsets.push_back(b.CreateSExtOrTrunc(lowering.in(op.operand(static_cast<size_t>(1 + 2 * rank + d)), nullptr)[0], b.getInt32Ty()));
  }
  return lowering.set(op.result(), Lowered{registersOf(fields), std::nullopt});
}

void lowerAdvance(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const int rank = op.result()->type.pointee().rank();
  Fields fields = fieldsOf(lowering.get(op.operand(0)).regs, rank);
  for (int d = 0; d < rank && static_cast<size_t>(d + 1) < op.numOperands(); ++d)  // i32 offsets wrap
    fields.offsets[static_cast<size_t>(d)] = b.CreateAdd(
        fields.offsets[static_cast<size_t>(d)],
        b.CreateSExtOrTrunc(lowering.in(op.operand(static_cast<size_t>(1 + d)), nullptr)[0], b.getInt32Ty()));
  return lowering.set(op.result(), Lowered{registersOf(fields), std::nullopt});
}

// tt.load and tt.store of a block pointer.
void lowerBlockPointerAccess(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  Type block = op.operand(0)->type.pointee();
  const int rank = block.rank();
  Type element = block.element();
  if (!element.isScalar()) lowering.unsupported(op, "of a block of pointers");
  const int bytes = storageBytes(element.scalarKind()), bits = bytes * 8;
  Fields fields = fieldsOf(lowering.get(op.operand(0)).regs, rank);
  const Value* tile = op.kind == OpKind::TTLoad ? op.result() : op.operand(1);
  const LinearLayout* layout = lowering.layoutOf(tile);
  TILESIM_ASSERT(layout, "block-pointer access without a layout");
  Access access = addresses(lowering, op, fields, *layout, block.shape(), bytes);
  llvm::Type* type = lowering.scalarType(op, tile->type);
  llvm::Type* registerType = b.getIntNTy(static_cast<unsigned>(ptx::registerBits(bits)));
  if (op.kind == OpKind::TTStore) {
    std::vector<llvm::Value*> values = lowering.in(op.operand(1), layout);
    for (size_t r = 0; r < values.size(); ++r) {
      llvm::Value* v = values[r];
      if (!v->getType()->isIntegerTy()) v = b.CreateBitCast(v, b.getIntNTy(static_cast<unsigned>(bits)));
      ptx::storeGlobal(b, access.addresses[r], bits, b.CreateZExtOrTrunc(v, registerType), access.inBounds[r]);
    }
    return;
  }
  const PaddingOption padding = MemoryHintsView{op}.padding();
  const uint64_t padBits = padding == PaddingOption::NaN && element.isFloat() ? quietNaNBits(element.scalarKind()) : 0;
  Lowered lowered;
  lowered.layout = *layout;
  for (size_t r = 0; r < access.addresses.size(); ++r) {
    llvm::Value* loaded = ptx::loadGlobal(b, access.addresses[r], bits, access.inBounds[r], llvm::ConstantInt::get(registerType, padBits));
    llvm::Value* exact = b.CreateTrunc(loaded, b.getIntNTy(static_cast<unsigned>(bits)));
    if (type->isIntegerTy(1)) exact = b.CreateICmpNE(exact, b.getInt8(0));
    else if (!type->isIntegerTy()) exact = b.CreateBitCast(exact, type);
    lowered.regs.push_back(exact);
  }
  return lowering.set(op.result(), std::move(lowered));
}

}  // namespace tilesim::gpu
