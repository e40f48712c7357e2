// Layout conversion, derived from the two layouts (LinearLayout.h): when the source and target agree on every
// lane and warp basis, each target register's element is in some source register of the same thread — a
// register permutation (duplicates included), no instruction. Otherwise the tensor goes through shared memory:
// barrier, every thread stores its source registers at their flat index, barrier, every thread loads its target
// registers. (Warp shuffles for lane-only moves are a later refinement; the generic path is always right.)
#include <fmt/format.h>

#include <unordered_map>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

constexpr int kMaxSharedBytes = 48 * 1024;  // static + dynamic shared memory without an opt-in attribute

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

}  // namespace

std::vector<llvm::Value*> convertLayout(KernelLowering& lowering, const Lowered& source, const LinearLayout& target,
                                        Type elementType, const Operation* user) {
  TILESIM_ASSERT(source.layout, "layout conversion of a scalar");
  TILESIM_ASSERT(source.layout->outBits() == target.outBits(), "layout conversion between different shapes");
  if (auto permuted = permuteRegisters(source, target)) return *permuted;

  llvm::IRBuilder<>& b = lowering.builder;
  llvm::Type* type = source.regs[0]->getType();
  llvm::Type* stored = type->isIntegerTy(1) ? b.getInt8Ty() : type;
  const int elementBytes = elementType.isPointer() ? 8 : storageBytes(elementType.scalarKind());
  const int64_t bytes = (int64_t{1} << target.outBits()) * elementBytes;
  if (bytes > kMaxSharedBytes) {
    TILESIM_ASSERT(user, "layout conversion without an op");
    lowering.unsupported(*user, fmt::format("on a tensor whose layout change needs {} bytes of shared memory", bytes));
  }
  llvm::Value* shared = lowering.sharedMemory(static_cast<int>(bytes));
  auto slot = [&](llvm::Value* index) { return b.CreateGEP(stored, shared, b.CreateZExt(index, b.getInt64Ty())); };
  lowering.barrier();
  for (int r = 0; r < numRegisters(*source.layout); ++r) {
    llvm::Value* value = source.regs[static_cast<size_t>(r)];
    if (type->isIntegerTy(1)) value = b.CreateZExt(value, stored);
    b.CreateStore(value, slot(lowering.elementIndex(*source.layout, r)));
  }
  lowering.barrier();
  std::vector<llvm::Value*> result;
  for (int r = 0; r < numRegisters(target); ++r) {
    llvm::Value* value = b.CreateLoad(stored, slot(lowering.elementIndex(target, r)));
    result.push_back(type->isIntegerTy(1) ? b.CreateICmpNE(value, b.getInt8(0)) : value);
  }
  return result;
}

}  // namespace tilesim::gpu
