// KernelLowering's hardware side (Lowering.h): the thread, lane and warp indices and their XOR parts, computed
// once in the entry block; the flat element index of a register of a layout; and the kernel's shared memory,
// whose buffers SharedMemory.h places and whose barriers it decides.
#include <fmt/format.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <bit>

#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"

namespace tilesim::gpu {

// Thread-invariant values (the thread's id and its XOR parts) are computed once, in the entry block, which
// dominates every use: a conversion or memory op asks for them once per register, and recomputing them there
// gave LLVM thousands of redundant instructions to clean up (golden/matmul_f16: 430 tid reads).
llvm::IRBuilder<> KernelLowering::prologueBuilder() {
  return llvm::IRBuilder<>(prologue_->getTerminator());
}

llvm::Value* KernelLowering::threadId() {
  if (!threadId_) threadId_ = prologueBuilder().CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  return threadId_;
}
llvm::Value* KernelLowering::laneId() {
  if (!laneId_) laneId_ = prologueBuilder().CreateAnd(threadId(), kLanesPerWarp - 1);
  return laneId_;
}
llvm::Value* KernelLowering::warpId() {
  if (!warpId_) warpId_ = prologueBuilder().CreateLShr(threadId(), 5);
  return warpId_;
}

namespace {

// `a | b` for values with no set bit in common, marked `disjoint` (an add the optimiser may fold into others).
llvm::Value* disjointOr(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) {
  llvm::Value* result = b.CreateOr(x, y);
  if (auto* disjoint = llvm::dyn_cast<llvm::PossiblyDisjointInst>(result)) disjoint->setIsDisjoint(true);
  return result;
}

}  // namespace

llvm::Value* KernelLowering::threadXor(const std::vector<uint64_t>& laneValues, const std::vector<uint64_t>& warpValues) {
  std::vector<uint64_t> key = laneValues;
  key.push_back(~uint64_t{0});  // separator
  key.insert(key.end(), warpValues.begin(), warpValues.end());
  if (auto found = threadXors_.find(key); found != threadXors_.end()) return found->second;
  llvm::IRBuilder<> b = prologueBuilder();
  llvm::Value* part = nullptr;
  uint64_t partBits = 0;  // the bits `part` may have set
  // Bit i of `id` times values[i], XORed in: a shift of the bit where the value is one bit (most are), which the
  // optimiser's known-bits queries see through cheaply, and an OR where the bits are disjoint from the others.
  auto addBits = [&](const std::vector<uint64_t>& values, llvm::Value* id) {
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t value = values[i];
      if (value == 0) continue;
      llvm::Value* term;
      if (std::has_single_bit(value)) {
        const int to = std::countr_zero(value), from = static_cast<int>(i);
        llvm::Value* bit = b.CreateAnd(id, b.getInt32(uint32_t{1} << from));
        term = to >= from ? b.CreateShl(bit, static_cast<uint64_t>(to - from), "", /*HasNUW=*/true)
                          : b.CreateLShr(bit, static_cast<uint64_t>(from - to), "", true);
      } else {
        llvm::Value* bit = b.CreateAnd(b.CreateLShr(id, static_cast<uint64_t>(i)), 1);
        term = b.CreateMul(bit, b.getInt32(static_cast<uint32_t>(value)), "", /*HasNUW=*/true);
      }
      if (!part) part = term;
      else if ((partBits & value) != 0) part = b.CreateXor(part, term);
      else part = disjointOr(b, part, term);
      partBits |= value;
    }
  };
  addBits(laneValues, laneId());
  addBits(warpValues, warpId());
  if (!part) part = b.getInt32(0);
  threadXors_.emplace(std::move(key), part);
  return part;
}

llvm::Value* KernelLowering::threadPart(const LinearLayout& layout) {
  return threadXor(layout.dimBases(kLaneDim), layout.dimBases(kWarpDim));
}

llvm::Value* KernelLowering::elementIndex(const LinearLayout& layout, int reg) {
  const uint64_t own = registerElement(layout, reg);
  llvm::Value* part = threadPart(layout);
  if (own == 0) return part;
  uint64_t threadBits = 0;  // the bits the thread part may set
  for (std::string_view dim : {kLaneDim, kWarpDim})
    for (uint64_t basis : layout.dimBases(dim)) threadBits |= basis;
  llvm::Value* constant = builder.getInt32(static_cast<uint32_t>(own));
  if (own & threadBits) return builder.CreateXor(part, constant);
  return disjointOr(builder, part, constant);  // disjoint bits: the add the optimiser can fold into others
}

llvm::GlobalVariable* KernelLowering::sharedGlobal() {
  if (!shared_) {
    llvm::Type* type = llvm::ArrayType::get(builder.getInt8Ty(), 0);
    shared_ = new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                       "tilesim_shared", nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    shared_->setAlignment(llvm::Align(16));
  }
  return shared_;
}

SharedRange KernelLowering::placeShared(int64_t bytes, const Operation* op, const std::string& what, int64_t alignment) {
  if (bytes > sharedPlan_.maxBytes()) {
    TILESIM_ASSERT(op, "a shared-memory buffer without an op");
    unsupported(*op, fmt::format("on {} that needs {} bytes of shared memory", what, bytes));
  }
  llvm::GlobalVariable* shared = sharedGlobal();
  if (shared->getAlign().valueOrOne().value() < static_cast<uint64_t>(alignment))
    shared->setAlignment(llvm::Align(static_cast<uint64_t>(alignment)));
  const SharedRange range = sharedPlan_.place(bytes, alignment);
  if (range.offset + range.bytes > sharedPlan_.maxBytes()) {
    TILESIM_ASSERT(op, "a shared-memory buffer without an op");
    unsupported(*op, fmt::format("on {} that needs {} bytes of shared memory beside a pipelined loop's {}", what, bytes,
                                 sharedPlan_.reservedBytes()));
  }
  return range;
}

std::optional<KernelLowering::SharedBuffer> KernelLowering::reserveShared(int64_t bytes, int64_t alignment) {
  std::optional<SharedRange> range = sharedPlan_.reserve(bytes, alignment);
  if (!range) return std::nullopt;
  llvm::GlobalVariable* shared = sharedGlobal();
  if (shared->getAlign().valueOrOne().value() < static_cast<uint64_t>(alignment))
    shared->setAlignment(llvm::Align(static_cast<uint64_t>(alignment)));
  if (sharedPlan_.writeNeedsBarrier(*range)) barrier();
  SharedBuffer buffer;
  buffer.range = *range;
  buffer.base = builder.CreateGEP(builder.getInt8Ty(), shared, builder.getInt64(static_cast<uint64_t>(range->offset)));
  return buffer;
}

void KernelLowering::releaseShared(const SharedRange& range) {
  sharedPlan_.release(range);
  // Its user's accesses were not recorded: the next access of those bytes waits at a barrier (recorded as a write,
  // so that a control-flow region settled after this forgets too).
  sharedPlan_.recordWrite(range);
  sharedPlan_.forget();
}

void KernelLowering::barrierKeepingWgmma() {
  builder.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  sharedPlan_.barrier();
}

KernelLowering::SharedBuffer KernelLowering::sharedBuffer(int64_t bytes, const Operation* op, const std::string& what,
                                                          int64_t alignment) {
  SharedBuffer buffer;
  buffer.range = placeShared(bytes, op, what, alignment);
  buffer.base = builder.CreateGEP(builder.getInt8Ty(), sharedGlobal(), builder.getInt64(static_cast<uint64_t>(buffer.range.offset)));
  return buffer;
}

void KernelLowering::waitForWgmma() {
  if (!wgmmaInFlight) return;
  wgmmaInFlight = false;
  ptx::statement(builder, "wgmma.wait_group.sync.aligned 0;");
}

void KernelLowering::beforeSharedWrite(const SharedRange& range) {
  waitForWgmma();
  if (sharedPlan_.writeNeedsBarrier(range)) barrier();
  sharedPlan_.recordWrite(range);
}

void KernelLowering::beforeSharedRead(const SharedRange& range) {
  waitForWgmma();
  if (sharedPlan_.readNeedsBarrier(range)) barrier();
  sharedPlan_.recordRead(range);
}

void KernelLowering::barrier() {
  waitForWgmma();
  builder.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  sharedPlan_.barrier();
}

}  // namespace tilesim::gpu
