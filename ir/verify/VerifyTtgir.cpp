// The verifier's TTGIR rules: the SharedMemory (ttg) and Hopper (ttng) families, and the encodings of every
// value's type. Values are layout-transparent, so shapes and elements are compared without encodings; what
// Triton's own verifier requires of the encodings themselves (rank, warps, threads per warp) is checked once
// per type (verifyTypeEncodings). Invariants:
//   G1  every tensor's encoding is a register layout that fits its rank and the module's ttg.num-warps (inside a
//       warp_specialize partition: the partition's num_warps) / ttg.threads-per-warp (blocked, mma); every
//       memory descriptor's is a shared encoding of its rank
//   G2  convert_layout keeps shape and element; local_alloc / local_load / local_store move a tensor of the
//       descriptor's shape and element; local_store and an allocation without a source need a mutable one
//   G3  memdesc_index: an i32 index into dim 0, the result the remaining dims; memdesc_trans: `order` a
//       permutation, the result the permuted shape
//   G4  async_copy_global_to_local: pointers to the descriptor's element, of its shape; mask i1 and other of the
//       same shape; the destination mutable. commit_group / async_wait take and give !ttg.async.token;
//       num / pendings >= 0
//   G5  mbarriers are 1-element i64 descriptors (!ttg.memdesc<1xi64, ...>); phase i32, predicates i1
//   G6  TMA copies: a tensor descriptor, one i32 coordinate per block dim, a descriptor of the block's shape and
//       element (signless); tensormap_create: pointers first; global_scratch_alloc: a pointer, nbytes > 0
//   G7  warp_group_dot: [M,K] x [K,N] + [M,N] like tt.dot, a from shared memory or registers, b from shared
//       memory; warp_group_dot_wait's results repeat its operand types
//   G8  warp_specialize: at least one partition and one num_warps per partition; the default region ends in
//       warp_yield of the results' types, each partition in warp_return; a partition's arguments have the
//       operands' types and it uses no value from outside itself (partitions are isolated from above);
//       warp_yield and warp_return end only those regions
#include <algorithm>

#include "ir/OpAttributes.h"
#include "ir/verify/VerifyContext.h"

namespace tilesim::verify {

namespace {

Type plain(Type type) { return type.withoutEncoding(); }

// The tensor a memory descriptor holds, without encodings.
Type heldTensor(Type memory) { return plain(memory.memDescTensor()); }

bool sameData(Type tensor, Type memory) { return tensor.isTensor() && memory.isMemDesc() && plain(tensor) == heldTensor(memory); }

bool requireMemDesc(VerifyContext& ctx, const Operation& op, size_t index, const char* what) {
  if (op.operand(index)->type.isMemDesc()) return true;
  return ctx.fail(op, std::string(what) + " has type " + typeName(op.operand(index)->type) + ", expected a !ttg.memdesc");
}

bool requireType(VerifyContext& ctx, const Operation& op, size_t index, Type expected, const char* what) {
  if (op.operand(index)->type == expected) return true;
  return ctx.fail(op, std::string(what) + " has type " + typeName(op.operand(index)->type) + ", expected " + typeName(expected));
}

// A shape without its leading 1s: a TMA block of 1x32x32 fills a 32x32 buffer.
Type withoutLeadingOnes(Type tensor) {
  std::vector<int64_t> shape(tensor.shape().begin(), tensor.shape().end());
  while (shape.size() > 1 && shape.front() == 1) shape.erase(shape.begin());
  return Type::tensor(shape, tensor.element());
}

bool isBarrier(Type type) {
  return type.isMemDesc() && heldTensor(type) == Type::tensor({1}, Type::i64());
}

// Whether `value` is defined inside `region` (by an op or block of it, at any depth).
bool definedInside(const Value* value, const Region& region) {
  const Block* block = value->isBlockArgument() ? value->ownerBlock : value->definingOp->parentBlock;
  while (block) {
    if (block->parentRegion == &region) return true;
    const Operation* owner = block->parentRegion ? block->parentRegion->parentOp : nullptr;
    block = owner ? owner->parentBlock : nullptr;
  }
  return false;
}

bool usesOnlyItsOwnValues(VerifyContext& ctx, const Operation& warpSpecialize, const Region& partition, const Region& region) {
  for (const auto& block : region.blocks)
    for (const auto& op : block->operations) {
      for (const Value* operand : op->operands)
        if (!definedInside(operand, partition))
          return ctx.fail(*op, "uses a value defined outside its ttg.warp_specialize partition (at line " +
                                   std::to_string(warpSpecialize.textPos.line) + "): partitions are isolated from above");
      for (const auto& inner : op->regions)
        if (!usesOnlyItsOwnValues(ctx, warpSpecialize, partition, *inner)) return false;
    }
  return true;
}

bool endsWith(const Region& region, OpKind kind) {
  return !region.empty() && region.blocks.back()->terminator() && region.blocks.back()->terminator()->kind == kind;
}

bool verifyWarpSpecialize(VerifyContext& ctx, const Operation& op) {
  const size_t partitions = op.regions.empty() ? 0 : op.regions.size() - 1;
  if (partitions == 0) return ctx.fail(op, "needs at least one partition besides the default region");
  if (WarpSpecializeView{op}.partitionNumWarps().size() != partitions)
    return ctx.fail(op, "needs one num_warps per partition");
  if (!endsWith(*op.regions[0], OpKind::TTGWarpYield)) return ctx.fail(op, "the default region must end in ttg.warp_yield");
  const Operation& yield = *op.regions[0]->blocks.back()->terminator();
  if (yield.numOperands() != op.numResults()) return ctx.fail(yield, "yields a different number of values than ttg.warp_specialize has results");
  for (size_t i = 0; i < yield.numOperands(); ++i)
    if (yield.operand(i)->type != op.result(i)->type) return ctx.fail(yield, "value " + std::to_string(i) + " has another type than the result");
  for (size_t r = 1; r < op.regions.size(); ++r) {
    const Region& partition = *op.regions[r];
    if (!endsWith(partition, OpKind::TTGWarpReturn))
      return ctx.fail(op, "partition" + std::to_string(r - 1) + " must end in ttg.warp_return");
    if (partition.front().arguments.size() != op.numOperands())
      return ctx.fail(op, "partition" + std::to_string(r - 1) + " must take one argument per operand");
    if (!usesOnlyItsOwnValues(ctx, op, partition, partition)) return false;
  }
  return true;
}

bool verifyWarpTerminator(VerifyContext& ctx, const Operation& op, bool defaultRegion) {
  const Block* block = op.parentBlock;
  const Region* region = block ? block->parentRegion : nullptr;
  const Operation* owner = region ? region->parentOp : nullptr;
  if (!owner || owner->kind != OpKind::TTGWarpSpecialize || (region == owner->regions[0].get()) != defaultRegion)
    return ctx.fail(op, defaultRegion ? "only ends the default region of ttg.warp_specialize"
                                      : "only ends a partition of ttg.warp_specialize");
  return true;
}

bool verifySharedMemoryOp(VerifyContext& ctx, const Operation& op) {
  switch (familyOp<SharedMemoryOp>(op.kind)) {
    case SharedMemoryOp::TTGConvertLayout: {
      Type in = op.operand(0)->type, out = op.result()->type;
      if (!in.isTensor() || plain(in) != plain(out))
        return ctx.fail(op, "converts " + typeName(in) + " to " + typeName(out) + ": only the encoding may change");
      return true;
    }
    case SharedMemoryOp::TTGLocalAlloc: {
      Type memory = op.result()->type;
      if (!memory.isMemDesc()) return ctx.fail(op, "result has type " + typeName(memory) + ", expected a !ttg.memdesc");
      if (op.numOperands() == 0 && !memory.isMutableMemory()) return ctx.fail(op, "an allocation without a source must be mutable");
      if (op.numOperands() == 1 && !sameData(op.operand(0)->type, memory))
        return ctx.fail(op, "source " + typeName(op.operand(0)->type) + " does not match " + typeName(memory));
      return true;
    }
    case SharedMemoryOp::TTGLocalDealloc: return requireMemDesc(ctx, op, 0, "operand");
    case SharedMemoryOp::TTGLocalLoad:
      if (!requireMemDesc(ctx, op, 0, "source")) return false;
      if (op.numOperands() == 2 && !requireType(ctx, op, 1, Type::asyncToken(), "token")) return false;
      if (!sameData(op.result()->type, op.operand(0)->type))
        return ctx.fail(op, "result " + typeName(op.result()->type) + " does not match " + typeName(op.operand(0)->type));
      return true;
    case SharedMemoryOp::TTGLocalStore:
      if (!requireMemDesc(ctx, op, 1, "destination")) return false;
      if (!op.operand(1)->type.isMutableMemory()) return ctx.fail(op, "destination is not mutable");
      if (!sameData(op.operand(0)->type, op.operand(1)->type))
        return ctx.fail(op, "value " + typeName(op.operand(0)->type) + " does not match " + typeName(op.operand(1)->type));
      return true;
    case SharedMemoryOp::TTGMemDescIndex: {
      if (!requireMemDesc(ctx, op, 0, "source") || !requireType(ctx, op, 1, Type::i32(), "index")) return false;
      Type source = heldTensor(op.operand(0)->type), result = op.result()->type;
      if (source.rank() < 2 || !result.isMemDesc())
        return ctx.fail(op, "indexes a descriptor of rank >= 2 into one of rank - 1");
      std::vector<int64_t> rest(source.shape().begin() + 1, source.shape().end());
      if (heldTensor(result) != Type::tensor(rest, source.element()))
        return ctx.fail(op, "result " + typeName(result) + " is not " + typeName(op.operand(0)->type) + " without its first dim");
      return true;
    }
    case SharedMemoryOp::TTGMemDescTrans: {
      if (!requireMemDesc(ctx, op, 0, "source") || !op.result()->type.isMemDesc()) return ctx.fail(op, "takes and gives a !ttg.memdesc");
      Type source = heldTensor(op.operand(0)->type);
      std::optional<std::span<const int64_t>> order = OrderView{op}.order();
      if (!order || static_cast<int>(order->size()) != source.rank()) return ctx.fail(op, "needs `order`, a permutation of the dims");
      std::vector<int64_t> sorted(order->begin(), order->end()), shape;
      std::sort(sorted.begin(), sorted.end());
      for (int64_t d = 0; d < source.rank(); ++d)
        if (sorted[d] != d) return ctx.fail(op, "`order` is not a permutation of the dims");
      for (int64_t d : *order) shape.push_back(source.shape()[d]);
      if (heldTensor(op.result()->type) != Type::tensor(shape, source.element())) return ctx.fail(op, "result is not the permuted shape");
      return true;
    }
    case SharedMemoryOp::TTGAsyncCopyGlobalToLocal: {
      if (!requireMemDesc(ctx, op, 1, "destination")) return false;
      Type pointers = op.operand(0)->type, memory = op.operand(1)->type;
      if (!memory.isMutableMemory()) return ctx.fail(op, "destination is not mutable");
      if (!pointers.isTensor() || !pointers.element().isPointer() ||
          plain(pointers.withElement(pointers.element().pointee())) != heldTensor(memory))
        return ctx.fail(op, "pointers " + typeName(pointers) + " do not match the destination " + typeName(memory));
      if (op.numOperands() > 2 && !requireType(ctx, op, 2, pointers.withElement(Type::i1()), "mask")) return false;
      if (op.numOperands() > 3 && !requireType(ctx, op, 3, pointers.withElement(pointers.element().pointee()), "other")) return false;
      return true;
    }
    case SharedMemoryOp::TTGAsyncCommitGroup:
    case SharedMemoryOp::TTGAsyncWait:
      for (size_t i = 0; i < op.numOperands(); ++i)
        if (!requireType(ctx, op, i, Type::asyncToken(), "operand")) return false;
      if (PendingsView{op}.pendings() < 0) return ctx.fail(op, "num must be >= 0");
      return true;
    case SharedMemoryOp::TTGGlobalScratchAlloc:
      if (!op.result()->type.isPointer()) return ctx.fail(op, "result must be a pointer");
      if (GlobalScratchView{op}.nbytes() <= 0) return ctx.fail(op, "nbytes must be > 0");
      return true;
    case SharedMemoryOp::TTGWarpSpecialize: return verifyWarpSpecialize(ctx, op);
    case SharedMemoryOp::TTGWarpYield: return verifyWarpTerminator(ctx, op, true);
    case SharedMemoryOp::TTGWarpReturn: return verifyWarpTerminator(ctx, op, false);
  }
  return true;
}

bool verifyWarpGroupDot(VerifyContext& ctx, const Operation& op) {
  Type a = op.operand(0)->type, b = op.operand(1)->type, c = op.operand(2)->type;
  Type av = a.isMemDesc() ? heldTensor(a) : plain(a);
  if (!b.isMemDesc()) return ctx.fail(op, "b has type " + typeName(b) + ", expected a !ttg.memdesc");
  Type bv = heldTensor(b);
  if (!av.isTensor() || av.rank() != 2 || bv.rank() != 2 || !c.isTensor() || c.rank() != 2)
    return ctx.fail(op, "takes rank-2 operands");
  if (av.shape()[1] != bv.shape()[0] || av.shape()[0] != c.shape()[0] || bv.shape()[1] != c.shape()[1])
    return ctx.fail(op, "shapes " + typeName(av) + " x " + typeName(bv) + " + " + typeName(c) + " do not chain");
  if (op.result()->type != c) return ctx.fail(op, "result must have the accumulator's type " + typeName(c));
  if (av.element() != bv.element() || av.isFloat() != c.isFloat()) return ctx.fail(op, "a and b differ in element type, or c's kind differs");
  const Attribute* precision = op.attr("inputPrecision");
  if (precision && (precision->kind() != Attribute::Kind::Integer || precision->intValue() < 0 || precision->intValue() > 4))
    return ctx.fail(op, "inputPrecision must be Triton's number 0..4 (tf32, tf32x3, ieee, bf16x3, bf16x6)");
  return true;
}

bool verifyHopperOp(VerifyContext& ctx, const Operation& op) {
  auto barrierAt = [&](size_t index) {
    return isBarrier(op.operand(index)->type) ||
           ctx.fail(op, "barrier has type " + typeName(op.operand(index)->type) + ", expected !ttg.memdesc<1xi64, ...>");
  };
  switch (familyOp<HopperOp>(op.kind)) {
    case HopperOp::TTNGInitBarrier:
      if (BarrierCountView{op}.count() < 1) return ctx.fail(op, "count must be >= 1");
      return barrierAt(0);
    case HopperOp::TTNGInvalBarrier: return barrierAt(0);
    case HopperOp::TTNGBarrierExpect:
      if (BarrierCountView{op}.count() < 0) return ctx.fail(op, "size must be >= 0");
      return barrierAt(0) && requireType(ctx, op, 1, Type::i1(), "predicate");
    case HopperOp::TTNGArriveBarrier:
      if (BarrierCountView{op}.count() < 1) return ctx.fail(op, "count must be >= 1");
      return barrierAt(0) && (op.numOperands() < 2 || requireType(ctx, op, 1, Type::i1(), "predicate"));
    case HopperOp::TTNGWaitBarrier:
      return barrierAt(0) && requireType(ctx, op, 1, Type::i32(), "phase") &&
             (op.numOperands() < 3 || requireType(ctx, op, 2, Type::i1(), "predicate"));
    case HopperOp::TTNGAsyncTMACopyGlobalToLocal:
    case HopperOp::TTNGAsyncTMACopyLocalToGlobal: {
      const bool load = op.kind == OpKind::TTNGAsyncTMACopyGlobalToLocal;
      const size_t memoryIndex = load ? op.numOperands() - 3 : op.numOperands() - 1;
      Type descriptor = op.operand(0)->type;
      if (!descriptor.isTensorDesc()) return ctx.fail(op, "first operand must be a tensor descriptor");
      if (!requireMemDesc(ctx, op, memoryIndex, load ? "destination" : "source")) return false;
      Type block = plain(descriptor.descBlock()).signless();
      if (static_cast<int>(memoryIndex) - 1 != block.rank()) return ctx.fail(op, "needs one coordinate per block dim");
      for (size_t i = 1; i < memoryIndex; ++i)
        if (!requireType(ctx, op, i, Type::i32(), "coordinate")) return false;
      if (withoutLeadingOnes(heldTensor(op.operand(memoryIndex)->type)) != withoutLeadingOnes(block))
        return ctx.fail(op, typeName(op.operand(memoryIndex)->type) + " does not hold the descriptor's block " + typeName(block));
      if (load && !op.operand(memoryIndex)->type.isMutableMemory()) return ctx.fail(op, "destination is not mutable");
      return !load || (barrierAt(memoryIndex + 1) && requireType(ctx, op, memoryIndex + 2, Type::i1(), "predicate"));
    }
    case HopperOp::TTNGAsyncTMAStoreWait:
      if (PendingsView{op}.pendings() < 0) return ctx.fail(op, "pendings must be >= 0");
      return true;
    case HopperOp::TTNGTensormapCreate: {
      if ((op.numOperands() - 1) % 4 != 0) return ctx.fail(op, "operand groups of rank, rank, rank - 1 and rank");
      if (!op.operand(0)->type.isPointer() || !op.operand(1)->type.isPointer()) return ctx.fail(op, "takes two pointers first");
      return true;
    }
    case HopperOp::TTNGTensormapFenceproxyAcquire:
      if (!op.operand(0)->type.isPointer()) return ctx.fail(op, "operand must be a pointer");
      return true;
    case HopperOp::TTNGReinterpretTensorDescriptor:
      if (!op.operand(0)->type.isPointer() || !op.result()->type.isTensorDesc())
        return ctx.fail(op, "reinterprets a pointer as a tensor descriptor");
      return true;
    case HopperOp::TTNGFenceAsyncShared: return true;
    case HopperOp::TTNGWarpGroupDot: return verifyWarpGroupDot(ctx, op);
    case HopperOp::TTNGWarpGroupDotWait:
      if (op.numResults() != op.numOperands()) return ctx.fail(op, "has one result per operand");
      for (size_t i = 0; i < op.numOperands(); ++i)
        if (op.results[i]->type != op.operand(i)->type) return ctx.fail(op, "result types must repeat the operand types");
      if (PendingsView{op}.pendings() < 0) return ctx.fail(op, "pendings must be >= 0");
      return true;
  }
  return true;
}

}  // namespace

bool verifyTtgirOp(VerifyContext& ctx, const Operation& op) {
  return opFamily(op.kind) == OpFamily::SharedMemory ? verifySharedMemoryOp(ctx, op) : verifyHopperOp(ctx, op);
}

std::string encodingProblem(const Module& module, Type type, int partitionWarps) {
  const int warps = partitionWarps > 0 ? partitionWarps : static_cast<int>(module.integerAttribute("ttg.num-warps", 0));
  const int threads = static_cast<int>(module.integerAttribute("ttg.threads-per-warp", 0));
  if (type.isPointer()) return encodingProblem(module, type.pointee(), partitionWarps);
  if (type.isTensorDesc()) {
    Encoding encoding = type.descBlock().encoding();
    return encoding.isValid() ? checkEncodingForShape(encoding, type.descBlock().rank(), warps, threads) : "";
  }
  Encoding encoding = type.encoding();
  if (!encoding.isValid()) return "";
  if (type.isTensor() && !encoding.isDistributed())
    return typeName(type) + ": a tensor's encoding must be a register layout, not " + encoding.str();
  int rank = type.isTensor() ? type.rank() : type.memDescTensor().rank();
  std::string problem = checkEncodingForShape(encoding, rank, warps, threads);
  if (problem.empty()) return "";
  const size_t said = problem.find("the module has " + std::to_string(warps) + " warps");
  if (partitionWarps > 0 && said != std::string::npos)  // the count came from the partition, not the module
    problem.replace(said, 10, "its warp_specialize partition");
  return typeName(type) + ": " + problem;
}

}  // namespace tilesim::verify
