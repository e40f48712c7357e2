// Tensor descriptors (!tt.tensordesc; interpreter/Descriptors.cpp, docs/semantics.md "Tensor descriptors") lowered
// without TMA: a descriptor is a scalar, uniform across the program, held as its fields in registers —
// [base, padding (i32: 2 = NaN, else zero), shape[0..r) (i64), strides[0..r) (i64)] — and every descriptor access
// is one predicated global access per register of the tile's layout (Ptx.h):
//   coord[d]  = start[d] + k[d]            (k: the element's coordinates in the block, from its flat index)
//   inside    = for every d: 0 <= coord[d] < shape[d]
//   address   = base + sum_d coord[d] * strides[d] * sizeof(element)   (wrapping 64-bit arithmetic)
// An element outside the shape touches no memory: a load gives the padding (0, or the quiet NaN of a float
// element type with padding 2), a store drops it — the interpreter's rule, which is the TMA unit's. Gather and
// scatter ([1, W] block) use row x[i] and column y + j; the rows come from the x tensor through shared memory.
// Correctness only: a TMA (cp.async.bulk.tensor) lowering is a later performance step.
// A kernel parameter of descriptor type is two LLVM parameters, the base pointer and the padding (the GPU
// engine passes the host descriptor's), and its shape and strides are the 2 x rank parameters after it
// (Triton 3.6's launcher convention, as in interpreter/Launch.cpp).
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

struct DescriptorFields {
  llvm::Value* base;
  llvm::Value* padding;
  std::vector<llvm::Value*> shape, strides;
};

DescriptorFields fieldsOf(const std::vector<llvm::Value*>& regs, int rank) {
  TILESIM_ASSERT(regs.size() == static_cast<size_t>(2 + 2 * rank), "gpu lowering: descriptor registers");
  DescriptorFields fields{regs[0], regs[1], {}, {}};
  for (int d = 0; d < rank; ++d) {
    fields.shape.push_back(regs[static_cast<size_t>(2 + d)]);
    fields.strides.push_back(regs[static_cast<size_t>(2 + rank + d)]);
  }
  return fields;
}

// One register's element: its address and whether it lies inside the descriptor's shape.
struct Place {
  llvm::Value* address;
  llvm::Value* inside;
};

class DescriptorAccess {
 public:
  DescriptorAccess(KernelLowering& lowering, const Operation& op)
      : lowering_(lowering), b_(lowering.builder), op_(op) {
    Type descType = op.operand(0)->type;
    block_ = descType.descBlock();
    rank_ = block_.rank();
    fields_ = fieldsOf(lowering.get(op.operand(0)).regs, rank_);
    element_ = block_.element().signless();  // a block of si32 or ui8 moves i32 or i8, bit for bit
    bytes_ = storageBytes(element_.scalarKind());
    gathers_ = op.kind == OpKind::TTDescriptorGather || op.kind == OpKind::TTDescriptorScatter;
    if (gathers_) {
      if (rank_ != 2) lowering.unsupported(op, "on a descriptor of rank " + std::to_string(rank_));
      start_.push_back(lowering.in(op.operand(2), nullptr)[0]);
    } else {
      const size_t count = op.kind == OpKind::TTDescriptorStore ? op.numOperands() - 2 : op.numOperands() - 1;
      if (count != static_cast<size_t>(rank_)) lowering.unsupported(op, "with an index count other than the rank");
      for (size_t d = 0; d < count; ++d) start_.push_back(lowering.in(op.operand(1 + d), nullptr)[0]);
    }
  }

  // The tile's layout and its row x[i] per register (gather/scatter: x staged in shared memory).
  void prepare(const LinearLayout& layout, std::span<const int64_t> valueShape) {
    layout_ = &layout;
    width_ = valueShape.back();
    if (!gathers_) return;
    const Value* rows = op_.operand(1);
    SharedStage stage(lowering_, op_);
    llvm::Value* base = stage.add(rows, rows->type.numElements());
    stage.storeAll();
    const int numRows = static_cast<int>(rows->type.numElements());
    for (int r = 0; r < numRegisters(layout); ++r) {
      llvm::Value* row = b_.CreateLShr(lowering_.elementIndex(layout, r), static_cast<uint64_t>(log2Ceil(width_)));
      row = b_.CreateAnd(row, b_.getInt32(static_cast<uint32_t>(numRows - 1)));  // never outside the staged tensor
      rowOf_.push_back(stage.load(base, b_.getInt32Ty(), row, b_.getInt32Ty()));
    }
  }

  Place at(int reg) {
    llvm::Value* flat = lowering_.elementIndex(*layout_, reg);
    std::vector<llvm::Value*> coord(static_cast<size_t>(rank_));
    if (gathers_) {
      coord[0] = b_.CreateSExt(rowOf_[static_cast<size_t>(reg)], b_.getInt64Ty());
      llvm::Value* column = b_.CreateAnd(flat, b_.getInt32(static_cast<uint32_t>(width_ - 1)));
      coord[1] = b_.CreateAdd(b_.CreateSExt(start_[0], b_.getInt64Ty()), b_.CreateZExt(column, b_.getInt64Ty()));
    } else {
      int shift = 0;
      for (int d = rank_ - 1; d >= 0; --d) {
        const int64_t extent = block_.shape()[static_cast<size_t>(d)];
        llvm::Value* k = b_.CreateAnd(b_.CreateLShr(flat, static_cast<uint64_t>(shift)), b_.getInt32(static_cast<uint32_t>(extent - 1)));
        shift += log2Ceil(extent);
        coord[static_cast<size_t>(d)] = b_.CreateAdd(b_.CreateSExt(start_[static_cast<size_t>(d)], b_.getInt64Ty()),
                                                     b_.CreateZExt(k, b_.getInt64Ty()));
      }
    }
    llvm::Value* offset = b_.getInt64(0);
    llvm::Value* inside = b_.getTrue();
    for (int d = 0; d < rank_; ++d) {
      const size_t i = static_cast<size_t>(d);
      inside = b_.CreateAnd(inside, b_.CreateAnd(b_.CreateICmpSGE(coord[i], b_.getInt64(0)),
                                                 b_.CreateICmpSLT(coord[i], fields_.shape[i])));
      offset = b_.CreateAdd(offset, b_.CreateMul(coord[i], fields_.strides[i]));
    }
    llvm::Value* address = b_.CreateGEP(b_.getInt8Ty(), fields_.base, b_.CreateMul(offset, b_.getInt64(static_cast<uint64_t>(bytes_))));
    return {address, inside};
  }

  int bits() const { return bytes_ * 8; }
  Type element() const { return element_; }
  llvm::Value* padding() const { return fields_.padding; }

 private:
  KernelLowering& lowering_;
  Builder& b_;
  const Operation& op_;
  Type block_, element_;
  int rank_ = 0, bytes_ = 0;
  int64_t width_ = 1;
  bool gathers_ = false;
  DescriptorFields fields_;
  std::vector<llvm::Value*> start_, rowOf_;
  const LinearLayout* layout_ = nullptr;
};

}  // namespace

uint64_t quietNaNBits(ScalarKind kind) {
  FloatFormat f = floatFormat(kind);
  if (!f.hasInfinity) return canonicalNaNBits(kind);
  return (((uint64_t{1} << f.exponentBits) - 1) << f.mantissaBits) | (uint64_t{1} << (f.mantissaBits - 1));
}

// tt.descriptor_load and tt.descriptor_gather.
void lowerDescriptorLoad(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  DescriptorAccess access(lowering, op);
  const LinearLayout* layout = lowering.layoutOf(op.result());
  TILESIM_ASSERT(layout, "descriptor load without a layout");
  access.prepare(*layout, op.result()->type.shape());
  const int bits = access.bits();
  llvm::Type* registerType = b.getIntNTy(static_cast<unsigned>(ptx::registerBits(bits)));
  llvm::Type* type = lowering.scalarType(op, op.result()->type);
  llvm::Value* pad = llvm::ConstantInt::get(registerType, 0);
  if (access.element().isFloat())  // padding 2: the quiet NaN, else zero
    pad = b.CreateSelect(b.CreateICmpEQ(access.padding(), b.getInt32(2)),
                         llvm::ConstantInt::get(registerType, quietNaNBits(access.element().scalarKind())), pad);
  Lowered lowered;
  lowered.layout = *layout;
  for (int r = 0; r < numRegisters(*layout); ++r) {
    const Place place = access.at(r);
    llvm::Value* loaded = ptx::loadGlobal(b, place.address, bits, place.inside, pad);
    llvm::Value* exact = b.CreateTrunc(loaded, b.getIntNTy(static_cast<unsigned>(bits)));
    if (type->isIntegerTy(1)) exact = b.CreateICmpNE(exact, b.getInt8(0));
    else if (!type->isIntegerTy()) exact = b.CreateBitCast(exact, type);
    lowered.regs.push_back(exact);
  }
  lowering.set(op.result(), std::move(lowered));
}

// tt.descriptor_store and tt.descriptor_scatter.
void lowerDescriptorStore(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  DescriptorAccess access(lowering, op);
  const Value* value = op.operand(op.numOperands() - 1);
  const LinearLayout* layout = lowering.layoutOf(value);
  if (!layout && lowering.get(value).layout) layout = &*lowering.get(value).layout;
  TILESIM_ASSERT(layout, "descriptor store without a layout");
  access.prepare(*layout, value->type.shape());
  const int bits = access.bits();
  llvm::Type* registerType = b.getIntNTy(static_cast<unsigned>(ptx::registerBits(bits)));
  std::vector<llvm::Value*> values = lowering.in(value, layout);
  for (int r = 0; r < numRegisters(*layout); ++r) {
    const Place place = access.at(r);
    llvm::Value* v = values[static_cast<size_t>(r)];
    if (!v->getType()->isIntegerTy()) v = b.CreateBitCast(v, b.getIntNTy(static_cast<unsigned>(bits)));
    ptx::storeGlobal(b, place.address, bits, b.CreateZExtOrTrunc(v, registerType), place.inside);
  }
}

std::vector<llvm::Value*> descriptorRegisters(KernelLowering& lowering, llvm::Value* base, llvm::Value* padding,
                                              const std::vector<llvm::Value*>& shape,
                                              const std::vector<llvm::Value*>& strides) {
  Builder& b = lowering.builder;
  std::vector<llvm::Value*> regs = {base, padding};
  for (llvm::Value* extent : shape) regs.push_back(b.CreateSExtOrTrunc(extent, b.getInt64Ty()));
  for (llvm::Value* stride : strides) regs.push_back(b.CreateSExtOrTrunc(stride, b.getInt64Ty()));
  return regs;
}

void lowerMakeTensorDescriptor(KernelLowering& lowering, const Operation& op) {
  const int rank = op.result()->type.descBlock().rank();
  if (op.numOperands() != static_cast<size_t>(1 + 2 * rank)) lowering.unsupported(op, "with this operand count");
  std::vector<llvm::Value*> shape, strides;
  for (int d = 0; d < rank; ++d) {
    shape.push_back(lowering.in(op.operand(static_cast<size_t>(1 + d)), nullptr)[0]);
    strides.push_back(lowering.in(op.operand(static_cast<size_t>(1 + rank + d)), nullptr)[0]);
  }
  llvm::Value* padding = lowering.builder.getInt32(static_cast<uint32_t>(TensorDescriptorView{op}.padding()));
  lowering.set(op.result(),
               Lowered{descriptorRegisters(lowering, lowering.in(op.operand(0), nullptr)[0], padding, shape, strides),
                       std::nullopt});
}

}  // namespace tilesim::gpu
