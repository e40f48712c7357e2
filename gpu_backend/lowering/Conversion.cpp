// Layout conversion, derived from the two layouts (LinearLayout.h): when the source and target agree on every
// lane and warp basis, each target register's element is in some source register of the same thread — a
// register permutation (duplicates included), no instruction. Otherwise the tensor goes through shared memory
// at the offsets of a swizzled placement chosen from the two layouts (SharedLayouts.h: each warp access touches
// every bank once per wavefront where possible, consecutive registers move as one vector of up to 16 bytes):
// every thread stores its source registers, a barrier (SharedMemory.h: only where a hazard needs one), every
// thread loads its target registers, or, for 16-bit mma operands and the like, reads them with ldmatrix, four
// 32-bit words per instruction (SharedLayouts.h, SharedRead). (Warp shuffles for lane-only moves are a later refinement.)
#include <fmt/format.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cstdlib>
#include <string>
#include <unordered_map>

#include "gpu_backend/layout/SharedLayouts.h"
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

std::optional<std::vector<llvm::Value*>> permuteRegisters(const Lowered& source, const LinearLayout& target) {
  const LinearLayout& from = *source.layout;
  if (from.dimBases(kLaneDim) != target.dimBases(kLaneDim) || from.dimBases(kWarpDim) != target.dimBases(kWarpDim))
    return std::nullopt;
  std::unordered_map<uint64_t, int> holder;
  for (int r = numRegisters(from) - 1; r >= 0; --r) holder[registerElement(from, r)] = r;
  std::vector<llvm::Value*> result;
  for (int r = 0; r < numRegisters(target); ++r) {
    auto found = holder.find(registerElement(target, r));
    if (found == holder.end()) return std::nullopt;
    result.push_back(source.regs[static_cast<size_t>(found->second)]);
  }
  return result;
}


// The shared-memory word a vector of `bytes` bytes travels as: <count x i32> words for 4 bytes
// and more, else one integer (i8, i16).
llvm::Type* wordType(llvm::IRBuilder<>& b, int bytes) {
  if (bytes < 4) return b.getIntNTy(static_cast<unsigned>(8 * bytes));
  if (bytes == 4) return b.getInt32Ty();
  return llvm::FixedVectorType::get(b.getInt32Ty(), static_cast<unsigned>(bytes / 4));
}

// A register as stored: i1 as a byte, a pointer as its 64-bit address.
llvm::Value* toStored(llvm::IRBuilder<>& b, llvm::Value* value, llvm::Type* stored) {
  if (value->getType()->isIntegerTy(1)) return b.CreateZExt(value, stored);
  if (value->getType()->isPointerTy()) return b.CreatePtrToInt(value, stored);
  return value;
}

llvm::Value* fromStored(llvm::IRBuilder<>& b, llvm::Value* value, llvm::Type* type) {
  if (type->isIntegerTy(1)) return b.CreateICmpNE(value, b.getInt8(0));
  if (type->isPointerTy()) return b.CreateIntToPtr(value, type);
  return value;
}

// A vector of `elements` registers: its type, the word it travels as, its alignment.
struct Access {
  int elements;
  llvm::Type *vectorType, *word;
  llvm::Align align;
};
Access accessOf(llvm::IRBuilder<>& b, llvm::Type* stored, int elementBytes, int elements) {
  return Access{elements, elements == 1 ? stored : llvm::FixedVectorType::get(stored, static_cast<unsigned>(elements)),
                wordType(b, elements * elementBytes), llvm::Align(static_cast<uint64_t>(elements * elementBytes))};
}

// Every register of `source` stored at `base` through `placement`, storeVectorElements() at a time.
void storeRegisters(KernelLowering& lowering, const Lowered& source, const SharedPlacement& placement, llvm::Value* base,
                    llvm::Type* stored, int elementBytes) {
  llvm::IRBuilder<>& b = lowering.builder;
  const Access store = accessOf(b, stored, elementBytes, placement.storeVectorElements());
  PlacedAddresses storeAddresses(lowering, *source.layout, placement, base, elementBytes);
  for (int r = 0; r < numRegisters(*source.layout); r += store.elements) {
    llvm::Value* packed = llvm::PoisonValue::get(store.vectorType);
    for (int i = 0; i < store.elements; ++i) {
      llvm::Value* value = toStored(b, source.regs[static_cast<size_t>(r + i)], stored);
      packed = store.elements == 1 ? value : b.CreateInsertElement(packed, value, static_cast<uint64_t>(i));
    }
    b.CreateAlignedStore(b.CreateBitCast(packed, store.word), storeAddresses.of(r), store.align);
  }
}


// The target's registers (8- or 16-bit `stored` elements, `type` as used) by ldmatrix, 16 bytes per lane and
// instruction: each lane gives the address of its row (ldmatrixRows), and word j of the result holds the
// registers that follow one another from j * (registers per word).
std::vector<llvm::Value*> loadMatrices(KernelLowering& lowering, const LinearLayout& target,
                                       const SharedPlacement& placement, llvm::Value* base, llvm::Type* type,
                                       llvm::Type* stored, int elementBytes) {
  llvm::IRBuilder<>& b = lowering.builder;
  const LinearLayout rows = *ldmatrixRows(target, placement.read, elementBytes);
  PlacedAddresses rowAddresses(lowering, rows, placement, base, elementBytes);
  const llvm::Intrinsic::ID ldmatrix = placement.read == SharedRead::LdmatrixTransposed
                                           ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
                                           : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16;
  const unsigned perWord = 4 / static_cast<unsigned>(elementBytes);
  llvm::Type* word = llvm::FixedVectorType::get(stored, perWord);
  std::vector<llvm::Value*> result;
  for (int r = 0; r < numRegisters(target); r += 1 << ldmatrixRowBits(elementBytes)) {
    llvm::Value* address = rowAddresses.of(r);
    llvm::Value* words = b.CreateIntrinsic(ldmatrix, {address->getType()}, {address});
    for (unsigned j = 0; j < 4; ++j) {
      llvm::Value* elements = b.CreateBitCast(b.CreateExtractValue(words, {j}), word);
      for (uint64_t h = 0; h < perWord; ++h) result.push_back(fromStored(b, b.CreateExtractElement(elements, h), type));
    }
  }
  return result;
}

}  // namespace

PlacedAddresses::PlacedAddresses(KernelLowering& lowering, const LinearLayout& layout, const SharedPlacement& placement,
                                 llvm::Value* base, int elementBytes)
    : lowering_(lowering), layout_(layout), placement_(placement), base_(base), elementBytes_(elementBytes) {
  auto offsets = [&](std::string_view dim) {
    std::vector<uint64_t> values;
    for (uint64_t basis : layout.dimBases(dim)) {
      values.push_back(placement.offset(basis));
      threadMask_ |= values.back();
    }
    return values;
  };
  const std::vector<uint64_t> lanes = offsets(kLaneDim), warps = offsets(kWarpDim);
  threadPart_ = lowering.threadXor(lanes, warps);
}

llvm::Value* PlacedAddresses::of(int reg) {
  llvm::IRBuilder<>& b = lowering_.builder;
  const uint64_t own = placement_.offset(registerElement(layout_, reg));
  const uint64_t swizzle = own & threadMask_, added = own & ~threadMask_;
  llvm::Value*& swizzled = swizzled_[swizzle];
  if (!swizzled) {
    llvm::Value* offset = swizzle ? b.CreateXor(threadPart_, b.getInt32(static_cast<uint32_t>(swizzle))) : threadPart_;
    llvm::Value* bytes = b.CreateMul(offset, b.getInt32(static_cast<uint32_t>(elementBytes_)), "", true, true);
    swizzled = b.CreateInBoundsGEP(b.getInt8Ty(), base_, b.CreateZExt(bytes, b.getInt64Ty()));
  }
  if (added == 0) return swizzled;
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), swizzled, added * static_cast<uint64_t>(elementBytes_));
}

bool hasLdmatrix(const std::string& sm) {
  return sm.rfind("sm_", 0) == 0 && std::atoi(sm.c_str() + 3) >= 75;
}

void storeToShared(KernelLowering& lowering, const Lowered& source, const SharedPlacement& placement, llvm::Value* base,
                   Type elementType) {
  llvm::Type* type = source.regs[0]->getType();
  const int elementBytes = elementType.isPointer() ? 8 : storageBytes(elementType.scalarKind());
  llvm::Type* stored = type->isIntegerTy(1) ? lowering.builder.getInt8Ty() : type->isPointerTy() ? lowering.builder.getInt64Ty() : type;
  storeRegisters(lowering, source, placement, base, stored, elementBytes);
}

std::vector<llvm::Value*> convertLayout(KernelLowering& lowering, const Lowered& source, const LinearLayout& target,
                                        Type elementType, const Operation* user) {
  TILESIM_ASSERT(source.layout, "layout conversion of a scalar");
  TILESIM_ASSERT(source.layout->outBits() == target.outBits(), "layout conversion between different shapes");
  if (auto permuted = permuteRegisters(source, target)) return *permuted;

  llvm::IRBuilder<>& b = lowering.builder;
  llvm::Type* type = source.regs[0]->getType();
  const int elementBytes = elementType.isPointer() ? 8 : storageBytes(elementType.scalarKind());
  llvm::Type* stored = type->isIntegerTy(1) ? b.getInt8Ty() : type->isPointerTy() ? b.getInt64Ty() : type;
  const SharedPlacement placement = chooseSharedPlacement(*source.layout, target, elementBytes, hasLdmatrix(lowering.options.sm));
  const int64_t bytes = (int64_t{1} << target.outBits()) * elementBytes;
  KernelLowering::SharedBuffer buffer = lowering.sharedBuffer(bytes, user, "a tensor whose layout change");
  lowering.beforeSharedWrite(buffer.range);
  storeRegisters(lowering, source, placement, buffer.base, stored, elementBytes);
  lowering.beforeSharedRead(buffer.range);
  return loadPlaced(lowering, target, placement, buffer.base, type, elementBytes);
}

std::vector<llvm::Value*> loadPlaced(KernelLowering& lowering, const LinearLayout& target, const SharedPlacement& placement,
                                     llvm::Value* base, llvm::Type* type, int elementBytes) {
  llvm::IRBuilder<>& b = lowering.builder;
  llvm::Type* stored = type->isIntegerTy(1) ? b.getInt8Ty() : type->isPointerTy() ? b.getInt64Ty() : type;
  if (placement.read != SharedRead::Plain)
    return loadMatrices(lowering, target, placement, base, type, stored, elementBytes);
  const Access load = accessOf(b, stored, elementBytes, placement.loadVectorElements());
  PlacedAddresses loadAddresses(lowering, target, placement, base, elementBytes);
  std::vector<llvm::Value*> result;
  for (int r = 0; r < numRegisters(target); r += load.elements) {
    llvm::Value* word = b.CreateAlignedLoad(load.word, loadAddresses.of(r), load.align);
    llvm::Value* packed = b.CreateBitCast(word, load.vectorType);
    for (int i = 0; i < load.elements; ++i)
      result.push_back(
          fromStored(b, load.elements == 1 ? packed : b.CreateExtractElement(packed, static_cast<uint64_t>(i)), type));
  }
  return result;
}

}  // namespace tilesim::gpu
