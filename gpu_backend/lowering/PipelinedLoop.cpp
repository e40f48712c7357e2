// Software pipelining of k loops (docs/gpu-backend.md "Pipelined loops"), Triton's pipeliner for cp.async: an
// scf.for whose body loads the operands of a tensor-core dot from global memory copies them straight into shared
// memory, into a ring of `buffers` stages, `distance` = num_stages - 1 iterations before the dot reads them.
//
// What qualifies (planPipeline; sm_80 and later): a tt.load of a rank-2 tensor of pointers whose only user is a
// top-level tt.dot on tensor cores, as its a or b, with no `other` or a zero one, moving 4, 8 or 16 bytes per vector
// (MemoryOps.cpp memoryVectorElements) that land contiguous where the dot reads them: wgmma's NVMMA tile (DotWgmma.cpp
// wgmmaPlanFor), or for mma.sync the placement the layout conversion into the operand layout would store it in
// (chooseSharedPlacement), which the dot then loads as the conversion's second half (Conversion.cpp loadPlaced). The loads and
// everything they depend on in the body — the producer slice: address and mask arithmetic, and the iter_args it
// carries (the pointers advanced each iteration) — run `distance` iterations ahead; the rest of the body (the
// consumer: the dot, softmax, ...) runs as written. The producer must be pure (no memory, no regions) and share no
// value with the consumer but the loads' results and values the consumer can compute again at its own iteration
// (not fed by a producer-carried iter_arg); the loop's results of producer-carried iter_args must be unused.
//
// The loop as emitted (i counts iterations; slot s = i mod buffers):
//   prologue   for j < distance: the producer of iteration j, cp.async into slot j (masked off past the end); commit
//   iteration  cp.async.wait_group distance - 1   (this thread's copies of iteration i have landed)
//              fence.proxy.async; bar.sync         (everyone's, visible to wgmma's async-proxy reads)
//              producer of iteration i + distance: cp.async into slot (i + distance) mod buffers; commit
//              consumer of iteration i, the dot reading slot i mod buffers in place (KernelLowering::sharedOperands)
//              wgmma.wait_group 1 when the dot leaves its group in flight (DotWgmma.cpp wgmmaCarriedAccumulator)
//   exit       the accumulator waited for; cp.async.wait_group 0; the ring released
// The slot a producer writes was last read by iteration i + distance - buffers. With buffers = distance + 1 that is
// iteration i - 1, whose reads every thread finished before this iteration's barrier; a dot left in flight needs one
// more buffer (its group i - 1 may still read at that barrier; group i - 2 is done, by each thread's wait_group 1).
// So buffers = distance + 1, or + 2 with a deferred dot; distance shrinks until the ring fits in shared memory.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/WgmmaLayouts.h"
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

// One tt.load copied into shared memory ahead of its dot: for wgmma into the operand's NVMMA tile, for mma.sync
// where the layout conversion into the operand layout would store it (chooseSharedPlacement), to be loaded from
// there as the conversion's second half (ldmatrix where it applies).
struct StagedLoad {
  const Operation* load = nullptr;
  SharedPlacement placement;
  int elementBytes = 2;
  int64_t bytes = 0;   // of its tile
  int vector = 1;      // elements per cp.async
  int64_t offset = 0;  // of its tile in a stage, bytes
};

struct LoopPipeline {
  std::vector<StagedLoad> loads;
  std::unordered_set<const Operation*> producer;  // top-level ops of the body run `distance` iterations ahead
  // Producer ops whose values the consumer reads too (pure, not fed by a producer-carried iter_arg): the consumer
  // computes them again at its own iteration (the causal mask's `start_n + offs_n`, shared with k's address).
  std::unordered_set<const Operation*> recomputed;
  std::unordered_set<const Operation*> consumerSkips;  // producer - recomputed
  std::vector<bool> producerCarried;              // per iter_arg
  const Operation* deferredDot = nullptr;         // wgmmaCarriedAccumulator's
  size_t accumulating = 0;
  int distance = 0, buffers = 0;
  int64_t stageBytes = 0;
};

// The op of `block` (top level) that `op` is or is nested in; null when it is outside the block.
const Operation* topLevelIn(const Block& block, const Operation* op) {
  while (op && op->parentBlock != &block) op = op->parentOp();
  return op;
}

// The elements of `load` one cp.async moves (4, 8 or 16 bytes): its vector access, halved until the copies land
// contiguous through `placement`.
std::optional<int> copyVector(KernelLowering& lowering, const Operation& load, const SharedPlacement& placement, int elementBytes) {
  const LinearLayout* layout = lowering.layoutOf(load.result());
  if (!layout) return std::nullopt;
  for (int vector = memoryVectorElements(lowering, load, layout, elementBytes); vector * elementBytes >= 4; vector /= 2)
    if (vector * elementBytes <= 16 && landsContiguous(*layout, placement, vector)) return vector;
  return std::nullopt;
}

// The loads of `body` that can be staged for their wgmma dot.
std::vector<StagedLoad> stageableLoads(KernelLowering& lowering, const Block& body,
                                       const std::unordered_map<const Value*, std::vector<const Operation*>>& users) {
  std::vector<StagedLoad> loads;
  for (const auto& op : body.operations) {
    if (op->kind != OpKind::TTLoad || op->numOperands() < 1) continue;
    const Type pointer = op->operand(0)->type;
    if (!pointer.isTensor() || !pointer.element().isPointer() || pointer.shape().size() != 2) continue;
    if (op->numOperands() > 2 && !isZeroConstant(op->operand(2))) continue;  // -0.0 would differ from the zero fill
    auto found = users.find(op->result());
    if (found == users.end() || found->second.size() != 1) continue;
    const Operation* dot = found->second[0];
    if (dot->kind != OpKind::TTDot || dot->parentBlock != &body) continue;
    const bool isA = dot->operand(0) == op->result(), isB = dot->operand(1) == op->result();
    if (isA == isB) continue;
    StagedLoad staged;
    staged.load = op.get();
    staged.elementBytes = storageBytes(op->result()->type.element().scalarKind());
    if (const std::optional<WgmmaPlan> plan = wgmmaPlanFor(lowering, *dot)) {
      staged.placement = wgmmaOperandPlacement(*plan, isA ? 0 : 1);
      staged.bytes = (isA ? plan->a : plan->b).bytes();
    } else if (const std::optional<std::array<LinearLayout, 2>> layouts = tensorCoreOperandLayouts(lowering, *dot)) {
      const LinearLayout* loaded = lowering.layoutOf(op->result());
      if (!loaded) continue;
      staged.placement = chooseSharedPlacement(*loaded, (*layouts)[isA ? 0 : 1], staged.elementBytes, hasLdmatrix(lowering.options.sm));
      staged.bytes = op->result()->type.numElements() * staged.elementBytes;
    } else {
      continue;  // the FMA path
    }
    const std::optional<int> vector = copyVector(lowering, *op, staged.placement, staged.elementBytes);
    if (!vector) continue;
    staged.vector = *vector;
    loads.push_back(staged);
  }
  return loads;
}

// The producer slice of `plan.loads` (file comment): false when it is not pure or leaks into the consumer.
bool sliceProducer(const Block& body, const Operation& yield, LoopPipeline& plan,
                   const std::unordered_map<const Value*, std::vector<const Operation*>>& users) {
  std::unordered_set<const Operation*> staged;
  for (const StagedLoad& load : plan.loads) staged.insert(load.load);
  plan.producer = staged;
  std::vector<const Value*> pending;
  for (const StagedLoad& load : plan.loads) pending.insert(pending.end(), load.load->operands.begin(), load.load->operands.end());
  while (!pending.empty()) {
    const Value* value = pending.back();
    pending.pop_back();
    if (value->isBlockArgument()) {
      if (value->ownerBlock != &body || value->index == 0) continue;  // from outside the loop, or the iv
      const size_t carried = value->index - 1;
      if (plan.producerCarried[carried]) continue;
      plan.producerCarried[carried] = true;
      pending.push_back(yield.operand(carried));
      continue;
    }
    const Operation* op = topLevelIn(body, value->definingOp);
    if (!op || !plan.producer.insert(op).second) continue;
    const uint32_t effects = kReadsMemory | kWritesMemory | kSideEffect | kHasRegions;
    if (!staged.count(op) && (opInfo(op->kind).traits & effects) != 0) return false;
    pending.insert(pending.end(), op->operands.begin(), op->operands.end());
  }
  // The consumer sees no producer value but the staged loads' results (by their dots) and values it can compute
  // again at its own iteration (pure, not fed by a producer-carried iter_arg: recomputable); no producer-carried
  // iter_arg; the iter_args it carries are not yielded from the producer.
  auto producerValue = [&](const Value* value) {
    if (value->isBlockArgument()) return value->ownerBlock == &body && value->index > 0 && plan.producerCarried[value->index - 1];
    return plan.producer.count(topLevelIn(body, value->definingOp)) != 0;
  };
  std::unordered_set<const Operation*> carriedFed;  // producer ops fed, through the slice, by a carried iter_arg
  for (const auto& op : body.operations) {
    if (!plan.producer.count(op.get())) continue;
    for (const Value* operand : op->operands)
      if ((operand->isBlockArgument() && producerValue(operand)) || carriedFed.count(topLevelIn(body, operand->definingOp)))
        carriedFed.insert(op.get());
  }
  std::vector<const Operation*> pendingOps;
  for (const auto& [value, readers] : users) {
    if (!producerValue(value)) continue;
    for (const Operation* reader : readers) {
      if (reader == &yield || plan.producer.count(reader)) continue;  // the yield: per iter_arg, below
      if (staged.count(value->definingOp) && reader->kind == OpKind::TTDot) continue;
      const Operation* definer = value->isBlockArgument() ? nullptr : topLevelIn(body, value->definingOp);
      if (!definer || staged.count(definer) || carriedFed.count(definer)) return false;
      pendingOps.push_back(definer);
    }
  }
  while (!pendingOps.empty()) {  // a recomputed op's producer operands are recomputed too
    const Operation* op = pendingOps.back();
    pendingOps.pop_back();
    if (!plan.recomputed.insert(op).second) continue;
    for (const Value* operand : op->operands)
      if (const Operation* definer = operand->isBlockArgument() ? nullptr : topLevelIn(body, operand->definingOp);
          definer && plan.producer.count(definer))
        pendingOps.push_back(definer);
  }
  for (const Operation* op : plan.producer)
    if (!plan.recomputed.count(op)) plan.consumerSkips.insert(op);
  for (size_t i = 0; i < plan.producerCarried.size(); ++i)
    if (!plan.producerCarried[i] && producerValue(yield.operand(i))) return false;
  return true;
}

// Whether any op of the kernel around `loop` uses one of the loop's results whose iter_arg the producer carries.
bool producerResultsUsed(const Operation& loop, const std::vector<bool>& producerCarried) {
  const Operation* root = &loop;
  while (root->parentOp()) root = root->parentOp();
  bool used = false;
  walk(*root, [&](const Operation& op) {
    for (const Value* operand : op.operands)
      if (operand->definingOp == &loop && producerCarried[operand->index]) used = true;
  });
  return used;
}

std::optional<LoopPipeline> planPipeline(KernelLowering& lowering, const Operation& loop) {
  const std::string& sm = lowering.options.sm;  // cp.async: sm_80 and later
  if (sm.rfind("sm_", 0) != 0 || std::atoi(sm.c_str() + 3) < 80) return std::nullopt;
  if (lowering.options.numStages < 2 || loop.kind != OpKind::SCFFor || ForView{loop}.unsignedCompare()) return std::nullopt;
  if (loop.regions.empty() || loop.region(0).blocks.size() != 1) return std::nullopt;
  const Block& body = loop.region(0).front();
  const Operation* yield = body.terminator();
  if (!yield || yield->kind != OpKind::SCFYield || yield->numOperands() + 1 != body.arguments.size()) return std::nullopt;
  std::unordered_map<const Value*, std::vector<const Operation*>> users;  // by top-level op of the body
  walk(body, [&](const Operation& op) {
    for (const Value* operand : op.operands) users[operand].push_back(topLevelIn(body, &op));
  });
  LoopPipeline plan;
  plan.loads = stageableLoads(lowering, body, users);
  if (plan.loads.empty()) return std::nullopt;
  plan.producerCarried.assign(yield->numOperands(), false);
  if (!sliceProducer(body, *yield, plan, users) || producerResultsUsed(loop, plan.producerCarried)) return std::nullopt;
  plan.deferredDot = wgmmaCarriedAccumulator(lowering, loop, &plan.accumulating);
  for (StagedLoad& load : plan.loads) {
    load.offset = plan.stageBytes;
    plan.stageBytes += (load.bytes + 1023) / 1024 * 1024;  // each tile 1024-byte aligned (wgmma's swizzle)
  }
  const int spare = plan.deferredDot ? 2 : 1;
  for (plan.distance = lowering.options.numStages - 1; plan.distance >= 1; --plan.distance) {
    plan.buffers = plan.distance + spare;
    if (plan.buffers * plan.stageBytes <= lowering.sharedLimit()) return plan;
  }
  return std::nullopt;
}

// The cp.async of `staged`'s tile into the stage at `stage` (only where `valid` and the load's mask hold).
void copyToStage(KernelLowering& lowering, const StagedLoad& staged, llvm::Value* stage, llvm::Value* valid) {
  Builder& b = lowering.builder;
  const Operation& load = *staged.load;
  const LinearLayout& layout = *lowering.layoutOf(load.result());
  const std::vector<llvm::Value*> pointers = lowering.in(load.operand(0), &layout);
  std::vector<llvm::Value*> masks;
  if (load.numOperands() > 1) masks = lowering.in(load.operand(1), &layout);
  llvm::Value* base = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), stage, static_cast<uint64_t>(staged.offset));
  PlacedAddresses addresses(lowering, layout, staged.placement, base, staged.elementBytes);
  for (int r = 0; r < numRegisters(layout); r += staged.vector) {
    llvm::Value* predicate = masks.empty() ? valid : b.CreateAnd(valid, masks[static_cast<size_t>(r)]);
    ptx::cpAsync(b, addresses.of(r), pointers[static_cast<size_t>(r)], staged.vector * staged.elementBytes, predicate);
  }
}

class PipelinedLoop {
 public:
  PipelinedLoop(KernelLowering& lowering, const Operation& loop, const LoopPipeline& plan, const KernelLowering::SharedBuffer& ring)
      : lowering_(lowering), b_(lowering.builder), loop_(loop), plan_(plan), ring_(ring), body_(loop.region(0).front()),
        yield_(*body_.terminator()) {
    for (size_t i = 1; i < body_.arguments.size(); ++i) carried_.push_back(body_.argument(i));
  }

  void lower() {
    llvm::Value* lower = lowering_.in(loop_.operand(0), nullptr)[0];
    upper_ = lowering_.in(loop_.operand(1), nullptr)[0];
    step_ = lowering_.in(loop_.operand(2), nullptr)[0];
    positive_ = b_.CreateICmpSGT(step_, llvm::ConstantInt::get(step_->getType(), 0));
    std::vector<std::vector<llvm::Value*>> state;
    for (size_t i = 0; i < carried_.size(); ++i) state.push_back(lowering_.in(loop_.operand(3 + i), lowering_.layoutOf(carried_[i])));
    for (int j = 0; j < plan_.distance; ++j)  // the prologue: iterations 0 .. distance - 1 staged
      produce(b_.CreateAdd(lower, b_.CreateMul(step_, llvm::ConstantInt::get(step_->getType(), static_cast<uint64_t>(j)))),
              b_.getInt32(static_cast<uint32_t>(j)), state);
    emitLoop(lower, state);
  }

 private:
  llvm::Value* stage(llvm::Value* slot) {
    llvm::Value* offset = b_.CreateZExt(b_.CreateMul(slot, b_.getInt32(static_cast<uint32_t>(plan_.stageBytes))), b_.getInt64Ty());
    return b_.CreateInBoundsGEP(b_.getInt8Ty(), ring_.base, offset);
  }

  // The producer of the iteration whose iv is `iv`, into `slot`, from the producer-carried values `state` (updated
  // to that iteration's yields).
  void produce(llvm::Value* iv, llvm::Value* slot, std::vector<std::vector<llvm::Value*>>& state) {
    llvm::Value* valid = b_.CreateAnd(positive_, b_.CreateICmpSLT(iv, upper_));
    lowering_.set(body_.argument(0), Lowered{{iv}, std::nullopt});
    for (size_t i = 0; i < carried_.size(); ++i) {
      if (!plan_.producerCarried[i]) continue;
      Lowered value{state[i], std::nullopt};
      if (const LinearLayout* layout = lowering_.layoutOf(carried_[i])) value.layout = *layout;
      lowering_.set(carried_[i], std::move(value));
    }
    llvm::Value* at = stage(slot);
    for (const auto& op : body_.operations) {
      if (!plan_.producer.count(op.get())) continue;
      auto staged = std::find_if(plan_.loads.begin(), plan_.loads.end(), [&](const StagedLoad& load) { return load.load == op.get(); });
      if (staged != plan_.loads.end()) copyToStage(lowering_, *staged, at, valid);
      else lowering_.lowerOp(*op);
    }
    ptx::cpAsyncCommitGroup(b_);
    for (size_t i = 0; i < carried_.size(); ++i)
      if (plan_.producerCarried[i]) state[i] = lowering_.in(yield_.operand(i), lowering_.layoutOf(carried_[i]));
  }

  llvm::Value* nextSlot(llvm::Value* slot) {
    llvm::Value* next = b_.CreateAdd(slot, b_.getInt32(1));
    return b_.CreateSelect(b_.CreateICmpEQ(next, b_.getInt32(static_cast<uint32_t>(plan_.buffers))), b_.getInt32(0), next);
  }

  void emitLoop(llvm::Value* lower, const std::vector<std::vector<llvm::Value*>>& initial) {
    const LoopBlocks blocks = openLoop(lowering_, "pipe.header", "pipe.body", "pipe.exit");
    llvm::PHINode* induction = b_.CreatePHI(lower->getType(), 2, "iv");
    induction->addIncoming(lower, blocks.preheader);
    llvm::PHINode* consumeSlot = b_.CreatePHI(b_.getInt32Ty(), 2, "consume.slot");
    consumeSlot->addIncoming(b_.getInt32(0), blocks.preheader);
    llvm::PHINode* produceSlot = b_.CreatePHI(b_.getInt32Ty(), 2, "produce.slot");
    produceSlot->addIncoming(b_.getInt32(static_cast<uint32_t>(plan_.distance % plan_.buffers)), blocks.preheader);
    const std::vector<std::vector<llvm::PHINode*>> phis = carriedPhis(b_, initial, blocks.preheader);
    b_.CreateCondBr(b_.CreateAnd(b_.CreateICmpSLT(induction, upper_), positive_), blocks.body, blocks.exit);

    b_.SetInsertPoint(blocks.body);
    ptx::cpAsyncWaitGroup(b_, plan_.distance - 1);  // this thread's copies of this iteration
    ptx::fenceProxyAsyncShared(b_);
    lowering_.barrierKeepingWgmma();  // everyone's; the slot produced next was last read before it
    std::vector<std::vector<llvm::Value*>> ahead;
    for (const auto& registers : phis) ahead.emplace_back(registers.begin(), registers.end());
    llvm::Value* aheadIv = b_.CreateAdd(induction, b_.CreateMul(step_, llvm::ConstantInt::get(step_->getType(), static_cast<uint64_t>(plan_.distance))));
    produce(aheadIv, produceSlot, ahead);

    lowering_.set(body_.argument(0), Lowered{{induction}, std::nullopt});
    for (size_t i = 0; i < carried_.size(); ++i)
      if (!plan_.producerCarried[i]) lowering_.set(carried_[i], loweredFromPhis(phis[i], lowering_.layoutOf(carried_[i])));
    llvm::Value* consumed = stage(consumeSlot);
    for (const StagedLoad& load : plan_.loads)
      lowering_.sharedOperands[load.load->result()] = {
          b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), consumed, static_cast<uint64_t>(load.offset)), load.placement};
    const Operation* outer = std::exchange(lowering_.deferredWgmmaDot, plan_.deferredDot);
    lowering_.wgmmaInFlight = plan_.deferredDot != nullptr;  // the previous iteration's group, over the back edge
    lowering_.lowerBlockBody(body_, &plan_.consumerSkips);
    if (plan_.deferredDot && lowering_.wgmmaInFlight) ptx::statement(b_, "wgmma.wait_group.sync.aligned 1;");
    lowering_.deferredWgmmaDot = outer;
    std::vector<std::vector<llvm::Value*>> next;
    for (size_t i = 0; i < carried_.size(); ++i)
      next.push_back(plan_.producerCarried[i] ? ahead[i] : lowering_.in(yield_.operand(i), lowering_.layoutOf(carried_[i])));
    llvm::Value* advanced = b_.CreateAdd(induction, step_);
    llvm::Value* nextConsume = nextSlot(consumeSlot);
    llvm::Value* nextProduce = nextSlot(produceSlot);
    llvm::BasicBlock* latch = b_.GetInsertBlock();
    b_.CreateBr(blocks.header);
    induction->addIncoming(advanced, latch);
    consumeSlot->addIncoming(nextConsume, latch);
    produceSlot->addIncoming(nextProduce, latch);
    for (size_t i = 0; i < carried_.size(); ++i)
      for (size_t r = 0; r < phis[i].size(); ++r) phis[i][r]->addIncoming(next[i][r], latch);

    b_.SetInsertPoint(blocks.exit);
    for (size_t i = 0; i < carried_.size(); ++i)
      if (!plan_.producerCarried[i]) lowering_.set(loop_.result(i), loweredFromPhis(phis[i], lowering_.layoutOf(carried_[i])));
    if (plan_.deferredDot) {  // the last iteration's group: the accumulator's registers once it is done
      Lowered done = lowering_.get(loop_.result(plan_.accumulating));
      done.regs = ptx::wgmmaWaitGroup(b_, 0, done.regs);
      lowering_.set(loop_.result(plan_.accumulating), std::move(done));
    }
    lowering_.wgmmaInFlight = false;
    ptx::cpAsyncWaitGroup(b_, 0);  // the copies staged past the end (all masked off, but still in flight)
    for (const StagedLoad& load : plan_.loads) lowering_.sharedOperands.erase(load.load->result());
  }

  KernelLowering& lowering_;
  Builder& b_;
  const Operation& loop_;
  const LoopPipeline& plan_;
  const KernelLowering::SharedBuffer& ring_;
  const Block& body_;
  const Operation& yield_;
  std::vector<const Value*> carried_;
  llvm::Value *upper_ = nullptr, *step_ = nullptr, *positive_ = nullptr;
};

}  // namespace

bool lowerPipelinedFor(KernelLowering& lowering, const Operation& loop) {
  const std::optional<LoopPipeline> plan = planPipeline(lowering, loop);
  if (!plan) return false;
  lowering.waitForWgmma();  // nothing in flight enters a region
  const std::optional<KernelLowering::SharedBuffer> ring = lowering.reserveShared(plan->buffers * plan->stageBytes, 1024);
  if (!ring) return false;
  lowering.pipelinedLoops = true;
  const PinnedOperands pinned = pinInvariantWgmmaOperands(lowering, loop.region(0).front());
  PipelinedLoop(lowering, loop, *plan, *ring).lower();
  unpinWgmmaOperands(lowering, pinned);
  lowering.releaseShared(ring->range);
  return true;
}

}  // namespace tilesim::gpu
