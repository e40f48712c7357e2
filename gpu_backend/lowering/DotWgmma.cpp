// tt.dot on Hopper's warpgroup MMA (docs/gpu-backend.md "wgmma"; the plan: layout/WgmmaLayouts.h): a and b read
// from shared memory through descriptors (stored there, staged there by a pipelined loop, or pinned there before
// it), a from registers where it already is in the fragment's threads (attention's P), a zero accumulator left
// out; the loop-carried accumulator's group left in flight; loop-invariant operands pinned before a loop.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/WgmmaLayouts.h"
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "gpu_backend/lowering/TensorCorePlan.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {

using Builder = llvm::IRBuilder<>;

namespace {

// wgmma's a from registers (WgmmaLayouts.h registerAWords), where a is in registers in a layout with the fragment's
// lanes and warps (a register permutation away, no shared memory): attention's P, computed in the accumulator
// layout of q k^T. Triton's MMAv3 does the same (its a in #dot_op).
struct RegisterA {
  std::vector<llvm::Value*> words;  // per row block, k step: a0..a3
  int steps = 0;
  std::vector<llvm::Value*> at(int block, int64_t step) const {
    auto first = words.begin() + 4 * (block * steps + step);
    return {first, first + 4};
  }
};

std::optional<RegisterA> registerA(KernelLowering& lowering, const Operation& op, const WgmmaPlan& plan) {
  if (plan.a.elementBytes != 2) return std::nullopt;  // the fragment of 16-bit elements
  const LinearLayout* assigned = lowering.layoutOf(op.operand(0));
  const LinearLayout fragment = registerAFragment(plan);
  if (!assigned || assigned->dimBases(kLaneDim) != fragment.dimBases(kLaneDim) ||
      assigned->dimBases(kWarpDim) != fragment.dimBases(kWarpDim))
    return std::nullopt;
  const std::optional<std::vector<int>> wordRegisters = registerAWords(plan);
  if (!wordRegisters) return std::nullopt;
  const std::vector<llvm::Value*> registers = lowering.in(op.operand(0), &fragment);
  TensorCorePlan halves;
  halves.wordBits = 1;
  OperandWords words(lowering.builder, halves, registers);
  RegisterA result;
  result.steps = static_cast<int>(plan.depth / plan.k);
  for (int reg : *wordRegisters) result.words.push_back(words.at(reg));
  return result;
}

// Triton's maxNumImpreciseAcc (WarpGroupDotOp::needsPartialAccumulator): Hopper's fp8 wgmma accumulates in f32 with
// fewer bits than an f32 add keeps, so an fp8 dot with an f32 result whose maxNumImpreciseAcc is at most its K
// sums each run of maxNumImpreciseAcc products (whole instructions, at least one) into a fresh accumulator and
// adds that to the real one with f32 adds. The run's length in k, or nullopt when the dot accumulates natively
// (f16/bf16, or Triton's Hopper default 2^30).
std::optional<int64_t> impreciseChunk(const Operation& dot, const WgmmaPlan& plan) {
  if (plan.a.elementBytes != 1 || dot.result()->type.element().scalarKind() != ScalarKind::F32) return std::nullopt;
  const int64_t limit = DotView{dot}.maxNumImpreciseAcc();
  if (limit > plan.depth) return std::nullopt;
  return std::max<int64_t>(plan.k, (limit + plan.k - 1) / plan.k * plan.k);
}

// The dot's k steps in runs of `chunk`: each run into fresh registers (the first step ignores them), committed and
// waited for, then added to `acc` (or, for a zero accumulator's first run, taken as it). Nothing is left in flight.
template <typename Step>
void lowerPartialAccumulation(KernelLowering& lowering, const WgmmaPlan& plan, int64_t chunk, bool zeroAccumulator,
                              std::vector<llvm::Value*>& acc, Step step) {
  Builder& b = lowering.builder;
  for (int block = 0; block < plan.rowBlocks(); ++block) {
    const std::vector<int>& registers = plan.instructionRegisters[static_cast<size_t>(block)];
    bool accDefined = !zeroAccumulator;
    for (int64_t start = 0; start < plan.depth; start += chunk) {
      std::vector<llvm::Value*> partial(registers.size(), llvm::UndefValue::get(b.getFloatTy()));
      if (start > 0 || block > 0) ptx::wgmmaFence(b);
      for (int64_t k = start; k < std::min(plan.depth, start + chunk); k += plan.k) partial = step(partial, block, k, k > start);
      ptx::wgmmaCommitGroup(b);
      partial = ptx::wgmmaWaitGroup(b, 0, partial);
      for (size_t i = 0; i < registers.size(); ++i) {
        llvm::Value*& value = acc[static_cast<size_t>(registers[i])];
        value = accDefined ? b.CreateFAdd(value, partial[i]) : partial[i];
      }
      accDefined = true;
    }
  }
  lowering.wgmmaInFlight = false;
}

}  // namespace

// wgmma (layout/WgmmaLayouts.h): a and b stored into one shared buffer in their NVMMA layouts (unless a
// pipelined loop has already copied them there: KernelLowering::sharedOperands), then each warpgroup issues, for
// each of its row blocks, the k steps in order (acc = wgmma(a_kt, b_kt, acc)), commits them as one group and
// waits for it.
void lowerDotWgmma(KernelLowering& lowering, const Operation& op, const WgmmaPlan& plan, const LinearLayout& accLayout) {
  Builder& b = lowering.builder;
  // A zero accumulator (attention's q k^T) is not materialised: each row block's first instruction ignores it.
  const bool zeroAccumulator = isZeroConstant(op.operand(2));
  std::vector<llvm::Value*> acc;
  llvm::Type* accType = op.result()->type.element().scalarKind() == ScalarKind::I32 ? b.getInt32Ty() : b.getFloatTy();
  if (zeroAccumulator) acc.assign(static_cast<size_t>(numRegisters(accLayout)), llvm::UndefValue::get(accType));
  else acc = lowering.in(op.operand(2), &accLayout);
  if (!zeroAccumulator && op.result()->type.element().scalarKind() == ScalarKind::F16)
    for (llvm::Value*& value : acc) value = b.CreateFPExt(value, b.getFloatTy());

  auto staged = [&](const Value* operand) -> llvm::Value* {
    auto found = lowering.sharedOperands.find(operand);
    return found == lowering.sharedOperands.end() ? nullptr : found->second.base;
  };
  llvm::Value* aBase = staged(op.operand(0));
  llvm::Value* bBase = staged(op.operand(1));
  const std::optional<RegisterA> aRegisters = aBase ? std::nullopt : registerA(lowering, op, plan);
  const bool storeA = !aBase && !aRegisters;
  if (storeA || !bBase) {  // the operands in registers: stored into one buffer
    const int64_t aBytes = storeA ? (plan.a.bytes() + 1023) / 1024 * 1024 : 0, bBytes = bBase ? 0 : plan.b.bytes();
    KernelLowering::SharedBuffer buffer = lowering.sharedBuffer(aBytes + bBytes, &op, "the operands of a wgmma dot", 1024);
    lowering.beforeSharedWrite(buffer.range);
    auto store = [&](int which, llvm::Value* base) {
      storeWgmmaOperand(lowering, op.operand(static_cast<size_t>(which)), wgmmaOperandPlacement(plan, which), base);
      return base;
    };
    if (storeA) aBase = store(0, buffer.base);
    if (!bBase) bBase = store(1, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), buffer.base, static_cast<uint64_t>(aBytes)));
    ptx::fenceProxyAsyncShared(b);  // the stores, visible to wgmma's reads (the async proxy)
    lowering.beforeSharedRead(buffer.range);
  }

  // Descriptor address fields: (address >> 4) & 0x3FFF; each instruction adds its operand's start >> 4.
  auto addressField = [&](llvm::Value* base) {
    llvm::Value* address = b.CreatePtrToInt(base, b.getInt32Ty());
    return b.CreateZExt(b.CreateAnd(b.CreateLShr(address, 4), 0x3FFF), b.getInt64Ty());
  };
  // Warpgroup g's rows start at 64 g: a's descriptor moves by 64 g rows of a.
  llvm::Value* warpgroupRows = b.CreateZExt(b.CreateMul(b.CreateLShr(lowering.warpId(), 2), b.getInt32(static_cast<uint32_t>(plan.a.startOffset(64, 0) >> 4))), b.getInt64Ty());
  llvm::Value* aDescriptor =
      aRegisters ? nullptr : b.CreateOr(b.getInt64(plan.a.descriptorBits()), b.CreateAdd(addressField(aBase), warpgroupRows));
  llvm::Value* bDescriptor = b.CreateOr(b.getInt64(plan.b.descriptorBits()), addressField(bBase));

  ptx::wgmmaFence(b);
  const std::string shape = wgmmaShape(plan);
  // One k step of row block `block` into the registers d (accumulating into them, or ignoring what they hold).
  auto step = [&](std::vector<llvm::Value*> d, int block, int64_t k, bool accumulate) {
    llvm::Value* bAt = b.CreateAdd(bDescriptor, b.getInt64(plan.bStartOffset(k) >> 4));
    if (aRegisters)
      return ptx::wgmmaMmaAsyncRegisterA(b, shape, plan.types, d, aRegisters->at(block, k / plan.k), bAt, !plan.bKMajor, accumulate);
    const int64_t row = 16 * plan.numWarps * block;
    llvm::Value* a = b.CreateAdd(aDescriptor, b.getInt64(plan.a.startOffset(row, k) >> 4));
    return ptx::wgmmaMmaAsync(b, shape, plan.types, d, a, bAt, /*transposeB=*/!plan.bKMajor, accumulate);
  };
  const std::optional<int64_t> chunk = impreciseChunk(op, plan);
  if (chunk) {
    lowerPartialAccumulation(lowering, plan, *chunk, zeroAccumulator, acc, step);
    finishTensorCoreDot(lowering, op, std::move(acc), accLayout);
    return;
  }
  std::vector<llvm::Value*> inFlight;
  for (int block = 0; block < plan.rowBlocks(); ++block) {
    std::vector<llvm::Value*> d;
    for (int reg : plan.instructionRegisters[static_cast<size_t>(block)]) d.push_back(acc[static_cast<size_t>(reg)]);
    for (int64_t k = 0; k < plan.depth; k += plan.k) d = step(d, block, k, k > 0 || !zeroAccumulator);
    inFlight.insert(inFlight.end(), d.begin(), d.end());
  }
  ptx::wgmmaCommitGroup(b);
  // A loop's accumulating dot leaves its group in flight: only the next iteration's wgmma reads the registers,
  // and the next shared-memory access (that iteration's operand stores) or the loop's exit waits for it.
  const bool deferred = lowering.deferredWgmmaDot == &op;
  const std::vector<llvm::Value*> done = deferred ? inFlight : ptx::wgmmaWaitGroup(b, 0, inFlight);
  lowering.wgmmaInFlight = deferred;
  size_t next = 0;
  for (const std::vector<int>& registers : plan.instructionRegisters)
    for (int reg : registers) acc[static_cast<size_t>(reg)] = done[next++];
  finishTensorCoreDot(lowering, op, std::move(acc), accLayout);
}

namespace {

// Whether the wgmma path of `op` has run on a GPU against the interpreter (device_dots.sh): f16 and bf16, and fp8
// whose b registers run along K (sessions 31-34). tf32, int8 and an 8-bit b along N (session 36) compile, pass
// ptxas and the CPU checks, but no GPU was lent since: `auto` keeps them on mma.sync, `wgmma` takes them.
bool wgmmaRanOnDevice(const Operation& op, bool bAlongK) {
  const ScalarKind kind = op.operand(0)->type.element().scalarKind();
  if (kind == ScalarKind::F16 || kind == ScalarKind::BF16) return true;
  return (kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2) && bAlongK;
}

}  // namespace

// The wgmma plan of `op` when the options choose wgmma and the dot allows it (layout/WgmmaLayouts.h).
std::optional<WgmmaPlan> chosenWgmmaPlan(const KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan) {
  if (!usesWgmma(lowering.options.tensorCores, lowering.options.sm)) return std::nullopt;
  // b K-major where its registers run along K (WgmmaLayouts.h), and for the types wgmma reads K-major only.
  bool bAlongK = false;
  if (const LinearLayout* bLayout = lowering.layoutOf(op.operand(1))) {
    const RegisterRun run = registerRun(*bLayout);
    bAlongK = run.dim == 0 && run.elements > 1;
  }
  if (lowering.options.tensorCores == TensorCoreChoice::Auto && !wgmmaRanOnDevice(op, bAlongK)) return std::nullopt;
  return wgmmaPlan(op, accumulatorLayout(lowering, op, plan), lowering.options.numWarps, lowering.sharedLimit(), bAlongK);
}

void storeWgmmaOperand(KernelLowering& lowering, const Value* operand, SharedPlacement placement, llvm::Value* base) {
  const Lowered& source = lowering.get(operand);
  TILESIM_ASSERT(source.layout, "wgmma operand without a layout");
  const int elementBytes = storageBytes(operand->type.element().scalarKind());
  placement.storeVectorBits = log2Ceil(contiguousVectorElements(*source.layout, placement, 16 / elementBytes));
  storeToShared(lowering, source, placement, base, operand->type.element());
}

PinnedOperands pinInvariantWgmmaOperands(KernelLowering& lowering, const Block& body) {
  PinnedOperands pinned;
  if (lowering.options.numStages < 2) return pinned;
  struct Pin {
    const Value* value;
    int64_t bytes;
    SharedPlacement placement;
    int64_t offset;
  };
  std::vector<Pin> pins;
  int64_t bytes = 0;
  for (const auto& op : body.operations) {
    const std::optional<WgmmaPlan> plan = wgmmaPlanFor(lowering, *op);
    for (size_t i = 0; plan && i < 2; ++i) {
      const Value* operand = op->operand(i);
      // Defined before the loop: the body's ops see values of the body or from outside the loop only.
      const bool invariant = operand->definingOp ? operand->definingOp->parentBlock != &body : operand->ownerBlock != &body;
      const bool known = lowering.sharedOperands.count(operand) ||
                         std::any_of(pins.begin(), pins.end(), [&](const Pin& pin) { return pin.value == operand; });
      if (!invariant || known) continue;
      pins.push_back({operand, (i == 0 ? plan->a : plan->b).bytes(), wgmmaOperandPlacement(*plan, static_cast<int>(i)), bytes});
      bytes += (pins.back().bytes + 1023) / 1024 * 1024;
    }
  }
  if (pins.empty()) return pinned;
  lowering.waitForWgmma();
  const std::optional<KernelLowering::SharedBuffer> buffer = lowering.reserveShared(bytes, 1024);
  if (!buffer) return pinned;
  lowering.pipelinedLoops = true;
  llvm::IRBuilder<>& b = lowering.builder;
  for (const Pin& pin : pins) {
    llvm::Value* base = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), buffer->base, static_cast<uint64_t>(pin.offset));
    storeWgmmaOperand(lowering, pin.value, pin.placement, base);
    lowering.sharedOperands[pin.value] = {base, pin.placement};
    pinned.values.push_back(pin.value);
  }
  ptx::fenceProxyAsyncShared(b);  // the stores, visible to wgmma's reads (the async proxy)
  lowering.barrier();
  pinned.range = buffer->range;
  return pinned;
}

void unpinWgmmaOperands(KernelLowering& lowering, const PinnedOperands& pinned) {
  for (const Value* value : pinned.values) lowering.sharedOperands.erase(value);
  if (pinned.range) lowering.releaseShared(*pinned.range);
}

std::optional<WgmmaPlan> wgmmaPlanFor(const KernelLowering& lowering, const Operation& dot) {
  if (dot.kind != OpKind::TTDot) return std::nullopt;
  const std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, dot);
  return plan ? chosenWgmmaPlan(lowering, dot, *plan) : std::nullopt;
}

const Operation* wgmmaCarriedAccumulator(const KernelLowering& lowering, const Operation& loop, size_t* carriedIndex) {
  if (loop.kind != OpKind::SCFFor || loop.regions.empty() || loop.region(0).empty()) return nullptr;
  const Block& body = loop.region(0).front();
  const Operation* yield = body.terminator();
  if (!yield || yield->kind != OpKind::SCFYield) return nullptr;
  auto usesOf = [&](const Value* value) {
    int uses = 0;
    walk(body, [&](const Operation& user) { uses += static_cast<int>(std::count(user.operands.begin(), user.operands.end(), value)); });
    return uses;
  };
  for (const auto& op : body.operations) {
    if (op->kind != OpKind::TTDot) continue;
    const ScalarKind resultKind = op->result()->type.element().scalarKind();  // not an f16 result: rounded per dot
    if (resultKind != ScalarKind::F32 && resultKind != ScalarKind::I32) continue;
    const std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, *op);
    const std::optional<WgmmaPlan> wgmma = plan ? chosenWgmmaPlan(lowering, *op, *plan) : std::nullopt;
    if (!wgmma || impreciseChunk(*op, *wgmma)) continue;  // partial accumulators wait inside the dot
    const Value* accumulator = op->operand(2);
    if (accumulator->ownerBlock != &body || accumulator->index == 0) continue;  // a carried value, not the iv
    const size_t carried = accumulator->index - 1;
    if (carried >= yield->numOperands() || yield->operand(carried) != op->result() || usesOf(accumulator) != 1 ||
        usesOf(op->result()) != 1)
      continue;
    const LinearLayout layout = accumulatorLayout(lowering, *op, *plan);
    const LinearLayout *resultLayout = lowering.layoutOf(op->result()), *carriedLayout = lowering.layoutOf(accumulator);
    if (!resultLayout || !carriedLayout || *resultLayout != layout || *carriedLayout != layout) continue;
    *carriedIndex = carried;
    return op.get();
  }
  return nullptr;
}

}  // namespace tilesim::gpu
