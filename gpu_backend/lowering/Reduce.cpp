// tt.reduce (its family's entry point is ReduceScan.cpp) in the interpreter's order (docs/semantics.md §Reductions
// and scans, interpreter/ReduceScan.cpp): a tree over the index bits along the axis, lowest bit first. Level j
// combines the partial results of the two blocks [2i·2^j, (2i+1)·2^j) and [(2i+1)·2^j, (2i+2)·2^j), the lower block
// as the left operand of the combine. In index bits: the level for bit q pairs every element whose bit q is 0 (left
// operand) with the one whose bit q is 1 (right operand). The layout says which hardware bit holds index bit q, and
// the level is performed there:
//   - a register bit: in the thread, registers r and r | 2^j;
//   - a lane bit: shfl.sync.bfly with lane mask 2^j, both partners computing combine(lower, upper);
//   - a warp bit: through shared memory with the partner warp, again both computing combine(lower, upper).
// Both partners keep the result, so after the last level every element along the axis holds the reduction (a
// butterfly all-reduce) — the interpreter's value, with the same operand order in every combine (so non-commutative
// and non-associative combine regions agree too). A blocked layout whose registers also hold high index bits keeps
// one accumulator per high-bit value through the lane and warp levels and combines them last, as the semantics
// state. The result is the slice layout: registers that differed only along the axis collapse.
// The triton profile reduces in Triton's order instead where the layout allows (lowerReduceTritonOrder below).
#include <fmt/format.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
#include <unordered_map>

#include "gpu_backend/lowering/CombineRegion.h"
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

constexpr int kExchangeBytes = 16 * 1024;  // shared memory one cross-warp exchange round uses at most

// shfl.sync.bfly on a value of any type: moved as one or two 32-bit pieces.
llvm::Value* shuffleXor(Builder& b, llvm::Value* value, int laneMask) {
  llvm::Type* type = value->getType();
  auto shuffle32 = [&](llvm::Value* word) {
    return b.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
                             {b.getInt32(0xFFFFFFFFu), word, b.getInt32(static_cast<uint32_t>(laneMask)), b.getInt32(0x1F)});
  };
  if (type->isPointerTy()) return b.CreateIntToPtr(shuffleXor(b, b.CreatePtrToInt(value, b.getInt64Ty()), laneMask), type);
  const unsigned bits = type->getPrimitiveSizeInBits();
  llvm::Value* asInt = type->isIntegerTy() ? value : b.CreateBitCast(value, b.getIntNTy(bits));
  llvm::Value* moved = nullptr;
  if (bits <= 32) {
    moved = b.CreateTrunc(shuffle32(b.CreateZExt(asInt, b.getInt32Ty())), b.getIntNTy(bits));
  } else {
    llvm::Value* low = shuffle32(b.CreateTrunc(asInt, b.getInt32Ty()));
    llvm::Value* high = shuffle32(b.CreateTrunc(b.CreateLShr(asInt, 32), b.getInt32Ty()));
    moved = b.CreateOr(b.CreateZExt(low, b.getInt64Ty()), b.CreateShl(b.CreateZExt(high, b.getInt64Ty()), 32));
  }
  return type->isIntegerTy() ? moved : b.CreateBitCast(moved, type);
}

struct HardwareBit {
  std::string_view dim;
  int bit = -1;
};

// The (warp | lane | register) bit whose basis is exactly `indexBit`; the reduction needs every axis bit held
// by exactly one hardware bit and no other basis touching it.
std::optional<HardwareBit> holderOf(const LinearLayout& layout, uint64_t indexBit) {
  std::optional<HardwareBit> found;
  for (std::string_view dim : {kRegisterDim, kLaneDim, kWarpDim}) {
    std::vector<uint64_t> bases = layout.dimBases(dim);
    for (size_t k = 0; k < bases.size(); ++k) {
      if (!(bases[k] & indexBit)) continue;
      if (bases[k] != indexBit || found) return std::nullopt;
      found = HardwareBit{dim, static_cast<int>(k)};
    }
  }
  return found;
}

// Combine regions whose two operands may be swapped without changing a bit of the result (one commutative op
// on the two block arguments; ir/Ops.def marks the op kCommutative): Triton's butterfly computes combine(own, partner) on every lane, which for these
// is lane 0's combine(lower, upper) everywhere, so no select is needed.
bool commutativeCombine(const Operation& reduce) {
  if (reduce.numOperands() != 1) return false;
  const Block& combine = reduce.region(0).front();
  if (combine.operations.size() != 2) return false;
  const Operation& binary = *combine.operations.front();
  if (!hasTrait(binary.kind, kCommutative) || binary.numOperands() != 2 || binary.numResults() != 1) return false;
  const Value* a = combine.argument(0);
  const Value* b = combine.argument(1);
  const bool arguments = (binary.operand(0) == a && binary.operand(1) == b) || (binary.operand(0) == b && binary.operand(1) == a);
  const Operation& terminator = *combine.operations.back();
  return arguments && terminator.numOperands() == 1 && terminator.operand(0) == binary.result(0);
}

}  // namespace

std::optional<TritonReduceAxis> tritonReduceAxis(const LinearLayout& layout, int axis) {
  const int axisBits = layout.outDims()[static_cast<size_t>(axis)].bits;
  const int axisOffset = layout.outDimOffset(axis);
  TritonReduceAxis result;
  int phase = 0;  // 0: low register bits, 1: lanes, 2: warps, 3: high register bits (the repeated tile)
  for (int q = 0; q < axisBits; ++q) {
    std::optional<HardwareBit> holder = holderOf(layout, uint64_t{1} << (axisOffset + q));
    if (!holder) return std::nullopt;
    if (holder->dim == kRegisterDim) {
      if (phase == 0) ++result.lowRegisterBits;
      else phase = 3;
    } else if (holder->dim == kLaneDim) {
      if (phase > 1 || (!result.laneBits.empty() && result.laneBits.back() >= holder->bit)) return std::nullopt;
      phase = 1;
      result.laneBits.push_back(holder->bit);
    } else {
      if (phase > 2 || (!result.warpBits.empty() && result.warpBits.back() >= holder->bit)) return std::nullopt;
      phase = 2;
      result.warpBits.push_back(holder->bit);
    }
  }
  return result;
}

std::optional<TritonReduceAxis> tritonReduceOrder(const Operation& op, const LinearLayout& layout) {
  const int axis = AxisView{op}.axis();
  std::optional<TritonReduceAxis> shape = tritonReduceAxis(layout, axis);
  if (!shape || shape->warpBits.empty()) return shape;
  // The cross-warp round keeps every warp's partial of every slice in shared memory at once.
  const int64_t partials = ((int64_t{1} << layout.outBits()) >> layout.outDims()[static_cast<size_t>(axis)].bits)
                           << shape->warpBits.size();
  int64_t bytes = 0;
  for (const Value* operand : op.operands) {
    const Type element = operand->type.element();
    bytes = (bytes + 7) / 8 * 8 + partials * (element.isPointer() ? 8 : storageBytes(element.scalarKind()));
  }
  if (bytes > kExchangeBytes) return std::nullopt;
  return shape;
}

namespace {

void finishReduce(KernelLowering& lowering, const Operation& op, const LinearLayout& layout,
                  const std::vector<std::vector<llvm::Value*>>& values);

// tt.reduce in Triton's order (the triton profile; docs/gpu-backend.md "Reductions"): each thread folds its
// registers along the axis in index order, acc = combine(acc, x); then a shfl.sync.bfly butterfly over the lane
// bits of the axis, highest first; then each warp's partial goes to shared memory (one barrier) and every thread
// combines the W partials as warp 0 of a butterfly would (xor W/2, ..., 1, the lower warp the left operand).
// That is the order the interpreter follows for ReduceAxisLayout{2^lowRegisterBits, 2^lanes, 2^warps}
// (interpreter/ReduceScan.cpp tritonReduceSteps). `shape` is tritonReduceOrder's (the partials fit the budget).
void lowerReduceTritonOrder(KernelLowering& lowering, const Operation& op, const LinearLayout& layout,
                            const TritonReduceAxis& shape, std::vector<std::vector<llvm::Value*>>& values) {
  Builder& b = lowering.builder;
  const int axis = AxisView{op}.axis();
  const size_t count = op.numOperands();
  const int registers = numRegisters(layout);
  const int axisBits = layout.outDims()[static_cast<size_t>(axis)].bits;
  const int axisOffset = layout.outDimOffset(axis);
  const uint64_t axisMask = ((uint64_t{1} << axisBits) - 1) << axisOffset;
  const int warps = 1 << shape.warpBits.size();
  const int64_t slices = (int64_t{1} << layout.outBits()) >> axisBits;
  std::vector<int64_t> regionOffset;  // bytes, one region of slices * warps partials per operand
  int64_t sharedBytes = 0;
  if (warps > 1) {
    for (size_t k = 0; k < count; ++k) {
      llvm::Type* type = values[k][0]->getType();
      const int64_t elementBytes = type->isPointerTy() ? 8 : std::max<int64_t>(1, type->getPrimitiveSizeInBits() / 8);
      sharedBytes = (sharedBytes + 7) / 8 * 8;
      regionOffset.push_back(sharedBytes);
      sharedBytes += slices * warps * elementBytes;
    }
  }
  auto combinePair = [&](const std::vector<llvm::Value*>& left, const std::vector<llvm::Value*>& right) {
    return applyCombine(lowering, op, left, right);
  };
  uint32_t axisRegisters = 0;  // register bits holding axis bits
  for (int k = 0; k < layout.inDimBits(kRegisterDim); ++k)
    if (layout.dimBases(kRegisterDim)[static_cast<size_t>(k)] & axisMask) axisRegisters |= 1u << k;
  std::vector<int> representatives;
  for (int r = 0; r < registers; ++r)
    if ((static_cast<uint32_t>(r) & axisRegisters) == 0) representatives.push_back(r);

  // 1. Each thread folds its registers along the axis in index order (Triton's register order: the sizePerThread
  //    elements, then the repeats).
  std::vector<std::vector<llvm::Value*>> acc;  // per representative, per operand
  for (int r : representatives) {
    std::vector<int> along;
    for (int other = 0; other < registers; ++other)
      if ((static_cast<uint32_t>(other) & ~axisRegisters) == static_cast<uint32_t>(r)) along.push_back(other);
    std::sort(along.begin(), along.end(), [&](int x, int y) {
      return (registerElement(layout, x) & axisMask) < (registerElement(layout, y) & axisMask);
    });
    auto column = [&](int reg) {
      std::vector<llvm::Value*> result;
      for (size_t k = 0; k < count; ++k) result.push_back(values[k][static_cast<size_t>(reg)]);
      return result;
    };
    std::vector<llvm::Value*> partial = column(along.front());
    for (size_t i = 1; i < along.size(); ++i) partial = combinePair(partial, column(along[i]));
    acc.push_back(std::move(partial));
  }

  // 2. Lanes: butterfly, highest axis lane bit first. Lane 0's order, combine(lower, upper), on every lane: for a
  //    commutative combine that is combine(own, partner); otherwise the operands are ordered by the lane's bit.
  const bool commutative = commutativeCombine(op);
  for (auto bit = shape.laneBits.rbegin(); bit != shape.laneBits.rend(); ++bit) {
    llvm::Value* upperHalf = commutative ? nullptr : b.CreateICmpNE(b.CreateAnd(lowering.laneId(), 1u << *bit), b.getInt32(0));
    for (std::vector<llvm::Value*>& partial : acc) {
      std::vector<llvm::Value*> left, right;
      for (size_t k = 0; k < count; ++k) {
        llvm::Value* theirs = shuffleXor(b, partial[k], 1 << *bit);
        left.push_back(commutative ? partial[k] : b.CreateSelect(upperHalf, theirs, partial[k]));
        right.push_back(commutative ? theirs : b.CreateSelect(upperHalf, partial[k], theirs));
      }
      partial = combinePair(left, right);
    }
  }

  // 3. Warps: every warp stores its partial of each slice at [slice][warp along the axis]; after one barrier every
  //    thread reads the W partials of its slices and combines them as warp 0 of a butterfly (xor W/2, ..., 1).
  //    A barrier before the stores only where another thread may still use those bytes (SharedMemory.h).
  if (warps > 1) {
    KernelLowering::SharedBuffer buffer = lowering.sharedBuffer(sharedBytes, &op, "the warps' partials");
    llvm::Value* shared = buffer.base;
    lowering.beforeSharedWrite(buffer.range);
    llvm::Value* warpCoordinate = b.getInt32(0);
    for (size_t i = 0; i < shape.warpBits.size(); ++i) {
      llvm::Value* bit = b.CreateAnd(b.CreateLShr(lowering.warpId(), static_cast<uint64_t>(shape.warpBits[i])), 1u);
      warpCoordinate = b.CreateOr(warpCoordinate, b.CreateShl(bit, static_cast<uint64_t>(i)));
    }
    std::vector<llvm::Value*> sliceBase;  // slice index * warps, per representative
    for (int r : representatives) {
      if (slices == 1) {
        sliceBase.push_back(b.getInt32(0));
        continue;
      }
      llvm::Value* index = lowering.elementIndex(layout, r);
      llvm::Value* low = b.CreateAnd(index, b.getInt32(static_cast<uint32_t>((uint64_t{1} << axisOffset) - 1)));
      llvm::Value* high = b.CreateShl(b.CreateLShr(index, static_cast<uint64_t>(axisOffset + axisBits)), static_cast<uint64_t>(axisOffset));
      sliceBase.push_back(b.CreateMul(b.CreateOr(high, low), b.getInt32(static_cast<uint32_t>(warps))));
    }
    auto slot = [&](size_t k, llvm::Type* stored, llvm::Value* index) {
      llvm::Value* region = b.CreateGEP(b.getInt8Ty(), shared, b.getInt64(static_cast<uint64_t>(regionOffset[k])));
      return b.CreateGEP(stored, region, b.CreateZExt(index, b.getInt64Ty()));
    };
    for (size_t i = 0; i < representatives.size(); ++i)
      for (size_t k = 0; k < count; ++k) {
        llvm::Value* value = acc[i][k];
        const bool flag = value->getType()->isIntegerTy(1);
        llvm::Type* stored = flag ? b.getInt8Ty() : value->getType();
        b.CreateStore(flag ? b.CreateZExt(value, stored) : value, slot(k, stored, b.CreateAdd(sliceBase[i], warpCoordinate)));
      }
    lowering.beforeSharedRead(buffer.range);
    for (size_t i = 0; i < representatives.size(); ++i) {
      std::vector<std::vector<llvm::Value*>> partials;  // per warp, per operand
      for (int w = 0; w < warps; ++w) {
        std::vector<llvm::Value*> partial;
        for (size_t k = 0; k < count; ++k) {
          llvm::Type* type = acc[i][k]->getType();
          const bool flag = type->isIntegerTy(1);
          llvm::Type* stored = flag ? b.getInt8Ty() : type;
          llvm::Value* loaded = b.CreateLoad(stored, slot(k, stored, b.CreateAdd(sliceBase[i], b.getInt32(static_cast<uint32_t>(w)))));
          partial.push_back(flag ? b.CreateICmpNE(loaded, b.getInt8(0)) : loaded);
        }
        partials.push_back(std::move(partial));
      }
      for (int half = warps / 2; half >= 1; half /= 2)
        for (int w = 0; w < half; ++w) partials[static_cast<size_t>(w)] = combinePair(partials[static_cast<size_t>(w)], partials[static_cast<size_t>(w + half)]);
      acc[i] = partials.front();
    }
  }

  for (size_t i = 0; i < representatives.size(); ++i)
    for (int other = 0; other < registers; ++other)
      if ((static_cast<uint32_t>(other) & ~axisRegisters) == static_cast<uint32_t>(representatives[i]))
        for (size_t k = 0; k < count; ++k) values[k][static_cast<size_t>(other)] = acc[i][k];
}

}  // namespace

void lowerReduce(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const int axis = AxisView{op}.axis();
  const size_t count = op.numOperands();
  CombineOperands gathered = gatherCombineOperands(lowering, op, op.operand(0), "tt.reduce of a scalar");
  auto& [layout, values, registers] = gathered;
  // The triton profile does not fix the order (results are judged within bounds): reduce as Triton does.
  std::optional<TritonReduceAxis> tritonShape;
  if (lowering.options.profile == FloatProfile::Triton) tritonShape = tritonReduceOrder(op, layout);
  if (tritonShape) {
    lowerReduceTritonOrder(lowering, op, layout, *tritonShape, values);
    finishReduce(lowering, op, layout, values);
    return;
  }

  // Combines lower (bit 0) with upper (bit 1) for every operand; returns the combined values.
  auto combinePair = [&](const std::vector<llvm::Value*>& lower, const std::vector<llvm::Value*>& upper) {
    return applyCombine(lowering, op, lower, upper);
  };
  auto column = [&](int r) {
    std::vector<llvm::Value*> result;
    for (size_t k = 0; k < count; ++k) result.push_back(values[k][static_cast<size_t>(r)]);
    return result;
  };
  auto assign = [&](int r, const std::vector<llvm::Value*>& combined) {
    for (size_t k = 0; k < count; ++k) values[k][static_cast<size_t>(r)] = combined[k];
  };

  // Register bits already combined: registers that differ only there hold the same values, so lane and warp
  // levels work on one representative (those bits zero) and copy the result to the others.
  int collapsed = 0;
  auto representative = [&](int r) { return (r & collapsed) == 0; };
  auto assignCopies = [&](int r, const std::vector<llvm::Value*>& combined) {
    for (int other = 0; other < registers; ++other)
      if ((other & ~collapsed) == r) assign(other, combined);
  };
  const int axisBits = layout.outDims()[static_cast<size_t>(axis)].bits;
  const int axisOffset = layout.outDimOffset(axis);
  for (int q = 0; q < axisBits; ++q) {  // lowest index bit first
    std::optional<HardwareBit> holder = holderOf(layout, uint64_t{1} << (axisOffset + q));
    if (!holder) lowering.unsupported(op, "on this layout (an axis bit is not held by one hardware bit)");
    const int j = holder->bit;
    if (holder->dim == kRegisterDim) {
      for (int r = 0; r < registers; ++r) {
        if (r & (1 << j)) continue;
        std::vector<llvm::Value*> combined = combinePair(column(r), column(r | (1 << j)));
        assign(r, combined);
        assign(r | (1 << j), combined);
      }
      collapsed |= 1 << j;
      continue;
    }
    if (TILESIM_MUTANT(gpu_reduce_skips_lane_xor16, false, holder->dim == kLaneDim && j == 4)) continue;
    // Lanes or warps: fetch the partner's registers, then order the operands by this thread's bit.
    std::vector<std::vector<llvm::Value*>> partner(count);
    llvm::Value* upperHalf = nullptr;
    if (holder->dim == kLaneDim) {
      upperHalf = b.CreateICmpNE(b.CreateAnd(lowering.laneId(), 1u << j), b.getInt32(0));
      for (size_t k = 0; k < count; ++k)
        for (int r = 0; r < registers; ++r)
          partner[k].push_back(representative(r) ? shuffleXor(b, values[k][static_cast<size_t>(r)], 1 << j) : nullptr);
    } else {
      upperHalf = b.CreateICmpNE(b.CreateAnd(lowering.warpId(), 1u << j), b.getInt32(0));
      const int threads = kLanesPerWarp * lowering.options.numWarps;
      for (size_t k = 0; k < count; ++k) {
        llvm::Type* type = values[k][0]->getType();
        llvm::Type* stored = type->isIntegerTy(1) ? b.getInt8Ty() : type;
        const int elementBytes = static_cast<int>(type->isPointerTy() ? 8 : std::max<unsigned>(1, stored->getPrimitiveSizeInBits() / 8));
        // Registers cross in chunks, so the exchange needs at most kExchangeBytes of shared memory.
        std::vector<int> moved;  // the representatives, the only registers that cross
        for (int r = 0; r < registers; ++r)
          if (representative(r)) moved.push_back(r);
        const int count = static_cast<int>(moved.size());
        const int chunk = std::max(1, std::min(count, kExchangeBytes / (threads * elementBytes)));
        KernelLowering::SharedBuffer buffer = lowering.sharedBuffer(int64_t{threads} * chunk * elementBytes, &op, "the exchange");
        llvm::Value* shared = buffer.base;
        llvm::Value* self = lowering.threadId();
        llvm::Value* other = b.CreateXor(self, b.getInt32(static_cast<uint32_t>(kLanesPerWarp << j)));
        auto slot = [&](llvm::Value* thread, int r) {
          llvm::Value* index = b.CreateAdd(b.CreateMul(thread, b.getInt32(static_cast<uint32_t>(chunk))), b.getInt32(static_cast<uint32_t>(r)));
          return b.CreateGEP(stored, shared, b.CreateZExt(index, b.getInt64Ty()));
        };
        partner[k].assign(static_cast<size_t>(registers), nullptr);
        for (int first = 0; first < count; first += chunk) {
          const int last = std::min(count, first + chunk);
          lowering.beforeSharedWrite(buffer.range);
          for (int i = first; i < last; ++i) {
            llvm::Value* value = values[k][static_cast<size_t>(moved[static_cast<size_t>(i)])];
            b.CreateStore(type->isIntegerTy(1) ? b.CreateZExt(value, stored) : value, slot(self, i - first));
          }
          lowering.beforeSharedRead(buffer.range);
          for (int i = first; i < last; ++i) {
            llvm::Value* loaded = b.CreateLoad(stored, slot(other, i - first));
            partner[k][static_cast<size_t>(moved[static_cast<size_t>(i)])] =
                type->isIntegerTy(1) ? b.CreateICmpNE(loaded, b.getInt8(0)) : loaded;
          }
        }
      }
    }
    for (int r = 0; r < registers; ++r) {
      if (!representative(r)) continue;
      std::vector<llvm::Value*> lower, upper;
      for (size_t k = 0; k < count; ++k) {
        llvm::Value* mine = values[k][static_cast<size_t>(r)];
        llvm::Value* theirs = partner[k][static_cast<size_t>(r)];
        lower.push_back(b.CreateSelect(upperHalf, theirs, mine));
        upper.push_back(b.CreateSelect(upperHalf, mine, theirs));
      }
      assignCopies(r, combinePair(lower, upper));
    }
  }

  finishReduce(lowering, op, layout, values);
}

namespace {

void finishReduce(KernelLowering& lowering, const Operation& op, const LinearLayout& layout,
                  const std::vector<std::vector<llvm::Value*>>& values) {
  const int axis = AxisView{op}.axis();
  const size_t count = op.numOperands();
  const int registers = numRegisters(layout);
  std::vector<int> removed;
  LinearLayout slice = sliceLayout(layout, axis, &removed);
  uint64_t removedMask = 0;
  for (int bit : removed) removedMask |= uint64_t{1} << bit;
  for (size_t k = 0; k < count; ++k) {
    Lowered result;
    for (int r = 0; r < registers; ++r)
      if ((static_cast<uint64_t>(r) & removedMask) == 0) result.regs.push_back(values[k][static_cast<size_t>(r)]);
    if (op.result(k)->type.isTensor()) {
      const LinearLayout* assigned = lowering.layoutOf(op.result(k));
      TILESIM_ASSERT(assigned && numRegisters(*assigned) == static_cast<int>(result.regs.size()),
                     "tt.reduce: result registers do not match the slice layout");
      result.layout = *assigned;
    } else {
      result.regs.resize(1);
    }
    lowering.set(op.result(k), std::move(result));
  }
}

}  // namespace

}  // namespace tilesim::gpu
