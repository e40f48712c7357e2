// The verifier: checks that a Module is well-formed TTIR before any engine touches it. Every failure is one
// Diagnostic at the op's text position with a one-line message `<op>: <what is wrong>`. All failures are
// reported, but one root cause gives one diagnostic: an op that fails a structural check (operand count,
// visibility of an operand) is not checked further, and type problems are reported where a value is
// defined, not at every use.
//
// Invariants (structure and scoping, this file):
//   S1  the module holds at least one and only tt.func ops, with distinct names and a function_type attribute
//   S2  operand and result counts are within ir/Ops.def's min/max; no operand is null or untyped
//   S3  ops with regions have the right number (tt.func/scf.for/tt.reduce/tt.scan 1, scf.if 1-2, scf.while 2,
//       ttg.warp_specialize 2 or more),
//       every region holds exactly one block (an absent scf.if else may be empty), except a tt.func body, which
//       may be a CFG of several blocks; other ops have none
//   S4  every block ends in its terminator: tt.return (tt.func), scf.yield (scf.for, scf.if, scf.while after),
//       scf.condition (scf.while before), tt.reduce.return / tt.scan.return (combine regions), ttg.warp_yield /
//       ttg.warp_return (warp_specialize's default region / partitions), or — in a
//       tt.func body of several blocks — cf.br / cf.cond_br; a terminator never appears anywhere else
//   S7  branches: every successor is a block of the branch's own region other than its entry block, takes as
//       many arguments as the branch passes, of the same types; cf.cond_br's condition is a scalar i1
//   S5  dominance: an operand is defined earlier in the same block, in an enclosing block, or (in a CFG of
//       blocks) in a block that dominates this one (block arguments included); values from sibling regions,
//       later ops, the op itself, blocks that do not dominate, or other functions are not visible
//   S6  every tensor type of a result or block argument (block-pointer pointees included) has rank >= 1,
//       power-of-two dimensions and at most 2^20 elements (docs/semantics.md "Resource limits"); elements are scalars or
//       pointers to scalars; a bad shape is reported once per function (at its first definition), not at
//       every value derived from it; signed and unsigned integers (si32, ui8) appear only as the element of a
//       tensor descriptor's block, where Triton prints them (everywhere else integers are signless)
// Invariants (per op family, Verify*.cpp):
//   A1  same-type ops (arith binary/unary, math, precise ops, mulhiui, fma): all operands and the result have
//       one type; integer ops on integers, float ops on floats
//   A2  cmpi/cmpf: operands of one type (integer or pointer / float), result i1 of their shape, known predicate
//   A3  select: condition i1 scalar or of the result's shape; both choices have the result type
//   A4  constant: a `value` attribute whose type is the result type
//   A5  casts: same shape; extsi/extui/extf widen, trunci/truncf narrow, int<->float direction, bitcast keeps width
//   T1  get_program_id / get_num_programs: i32 scalar, axis x|y|z
//   T2  make_range: end > start >= 0, end - start a power of two, result tensor<(end-start)xi32>
//   T3  splat/unsplat/broadcast/expand_dims/reshape/trans/join/split/cat/gather/histogram shape rules; gather:
//       the index tensor matches the source on every axis but the gather axis (Triton's GatherOp rule)
//   T4  addptr: pointer (tensor) + integer offsets of the same shape, result the pointer type
//   T5  load/store/atomics: pointer/mask/other/value shapes and element types, mask i1; block pointers take
//       neither mask nor other; make_tensor_ptr / advance operand counts and types
//   T9  tensor descriptors (element types compared signless: a block of si32 is read and written as i32):
//       make_tensor_descriptor takes a scalar pointer to the block's element type, rank
//       i32 shapes and rank i64 strides, rank 1..5, padding 1 or 2; descriptor_load/store take rank i32 scalar
//       indices and a value of the block's shape (leading 1s may be dropped) and element type;
//       descriptor_gather/scatter need a rank-2 [1, W] block, i32 x offsets [N], an i32 y offset, value [N, W]
//   T6  dot: [M,K] x [K,N] + [M,N] (or batched rank 3), result = accumulator type, inputs both int or both float
//   T7  reduce/scan: axis in range, inputs of one shape, region signature (2n scalars of the input element
//       types), terminator types, result shapes
//   T8  bare words of op syntax (rounding, atomic kind/sem/scope, inputPrecision, propagateNan, cache, evict)
//       are values Triton defines (VerifyKeywords.cpp)
//   C1  tt.func: entry block arguments match the function type; tt.return operands match its results
//   C2  tt.call: callee exists, operand and result types match its function type
//   C3  scf.for: bounds and step one scalar integer type, iv of that type, iter_args = inits = results = yield
//   C4  scf.if: scalar i1 condition, each yield matches the results, an else region when there are results
//   C5  scf.while: before args = inits, scf.condition(i1, values = results), after args = results, yield = inits
//   D1  tt.assert: condition i1 or a tensor of i1; llvm.intr.assume: condition a scalar i1
//   G1..G8  TTGIR: encodings, the SharedMemory (ttg) and Hopper (ttng) families (listed in VerifyTtgir.cpp)
#include "ir/verify/Verifier.h"

#include <set>
#include <unordered_set>

#include "ir/OpAttributes.h"
#include "ir/verify/VerifyContext.h"

namespace tilesim {
namespace verify {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 20;

// S6: what is wrong with a type a value is declared with, or empty. `shape` gets the offending tensor shape,
// so one bad shape (which every value derived from it repeats) is reported once.
std::string typeProblem(Type type, std::vector<int64_t>* shape) {
  if (!type.isValid()) return "has no type";
  if (type.signedness() != Signedness::Signless || (type.isPointer() && type.pointee().signedness() != Signedness::Signless))
    return typeName(type) + " has a signed or unsigned integer element: only a tensor descriptor's block may";
  if (type.isPointer()) {
    Type pointee = type.pointee();
    if (pointee.isTensor()) return typeProblem(pointee, shape);
    if (!pointee.isScalar()) return typeName(type) + " points to something that is not a scalar or a tensor";
    return "";
  }
  if (!type.isTensor()) return "";
  shape->assign(type.shape().begin(), type.shape().end());
  if (type.rank() == 0) return typeName(type) + " is a 0-d tensor (use a scalar)";
  Type element = type.element();
  if (!(element.isScalar() || (element.isPointer() && element.pointee().isScalar())))
    return typeName(type) + " has an element type that is not a scalar or a pointer to a scalar";
  int64_t elements = 1;
  for (int64_t dim : type.shape()) {
    if (!isPowerOfTwo(dim)) return typeName(type) + " has a dimension that is not a power of two";
    elements = elements > kMaxElements ? elements : elements * dim;  // saturates: dims are at most 2^62 here
  }
  if (elements > kMaxElements) return typeName(type) + " has more than 2^20 (1048576) elements";
  return "";
}

// S3: how many regions an op kind has (min, max).
std::pair<size_t, size_t> expectedRegions(OpKind kind) {
  if (!hasTrait(kind, kHasRegions)) return {0, 0};
  if (kind == OpKind::SCFIf) return {1, 2};
  if (kind == OpKind::SCFWhile) return {2, 2};
  if (kind == OpKind::TTGWarpSpecialize) return {2, SIZE_MAX};  // default + at least one partition (G8)
  return {1, 1};  // tt.func, scf.for, tt.reduce, tt.scan
}

// G1's warp count for values in `block`: the num_warps of the innermost ttg.warp_specialize partition around it,
// or 0 (the module's ttg.num-warps) outside every partition.
int partitionWarps(const Block& block) {
  for (const Block* inner = &block; inner && inner->parentRegion;) {
    const Operation* owner = inner->parentRegion->parentOp;
    if (!owner) break;
    if (owner->kind == OpKind::TTGWarpSpecialize)
      for (size_t r = 1; r < owner->regions.size(); ++r)
        if (owner->regions[r].get() == inner->parentRegion) {
          std::vector<int64_t> warps = WarpSpecializeView{*owner}.partitionNumWarps();
          return r - 1 < warps.size() ? static_cast<int>(warps[r - 1]) : 0;
        }
    inner = owner->parentBlock;
  }
  return 0;
}

// S4: the terminator region `regionIndex` of `owner` must end with.
OpKind expectedTerminator(OpKind owner, size_t regionIndex) {
  if (owner == OpKind::TTFunc) return OpKind::TTReturn;
  if (owner == OpKind::TTReduce) return OpKind::TTReduceReturn;
  if (owner == OpKind::TTScan) return OpKind::TTScanReturn;
  if (owner == OpKind::SCFWhile && regionIndex == 0) return OpKind::SCFCondition;
  if (owner == OpKind::TTGWarpSpecialize) return regionIndex == 0 ? OpKind::TTGWarpYield : OpKind::TTGWarpReturn;
  return OpKind::SCFYield;  // scf.for, scf.if, scf.while's after region
}

bool isTerminator(OpKind kind) { return hasTrait(kind, kTerminator); }

// Per-op semantic checks: one case per op family of ir/Ops.def (no default: a new family must be handled
// here), then a switch over the family's ops where its members are checked differently.
bool verifySemantics(VerifyContext& ctx, const Operation& op) {
  switch (opFamily(op.kind)) {
    case OpFamily::IntArith: return verifySameTypeOp(ctx, op, ElementClass::Integer);
    case OpFamily::FloatArith:  // tt.clampf carries its own propagateNan rule
      return op.kind == OpKind::TTClampF ? verifyNumericOp(ctx, op) : verifySameTypeOp(ctx, op, ElementClass::Float);
    case OpFamily::Math: return verifySameTypeOp(ctx, op, ElementClass::Float);
    case OpFamily::Compare:
      switch (familyOp<CompareOp>(op.kind)) {
        case CompareOp::ArithCmpI:
        case CompareOp::ArithCmpF: return verifyCompareOp(ctx, op);
        case CompareOp::ArithSelect: return verifySelectOp(ctx, op);
      }
      break;
    case OpFamily::Cast:  // arith casts have one rule table; tt.fp_to_fp and tt.bitcast (pointers too) their own
      return op.kind == OpKind::TTFpToFp || op.kind == OpKind::TTBitcast ? verifyNumericOp(ctx, op)
                                                                          : verifyCastOp(ctx, op);
    case OpFamily::External:
    case OpFamily::Dot: return verifyNumericOp(ctx, op);
    case OpFamily::Constant:
      switch (familyOp<ConstantOp>(op.kind)) {
        case ConstantOp::ArithConstant: return verifyConstantOp(ctx, op);
        case ConstantOp::TTMakeRange: return verifyMakeRangeOp(ctx, op);
        case ConstantOp::UBPoison: return true;  // any type
      }
      break;
    case OpFamily::Program: return verifyProgramInfoOp(ctx, op);
    case OpFamily::Shape: return verifyShapeOp(ctx, op);
    case OpFamily::Pointer:
    case OpFamily::Memory:
    case OpFamily::Atomic: return verifyMemoryOp(ctx, op);
    case OpFamily::ReduceScan: return verifyReduceOrScanOp(ctx, op);
    case OpFamily::ControlFlow:
      switch (familyOp<ControlFlowOp>(op.kind)) {
        case ControlFlowOp::SCFFor: return verifyForOp(ctx, op);
        case ControlFlowOp::SCFIf: return verifyIfOp(ctx, op);
        case ControlFlowOp::SCFWhile: return verifyWhileOp(ctx, op);
      }
      break;
    case OpFamily::Function:
      switch (familyOp<FunctionOp>(op.kind)) {
        case FunctionOp::TTFunc: return verifyFuncOp(ctx, op);
        case FunctionOp::TTCall: return verifyCallOp(ctx, op);
      }
      break;
    case OpFamily::SharedMemory:
    case OpFamily::Hopper: return verifyTtgirOp(ctx, op);
    case OpFamily::Terminator: return true;  // yields: checked by the op that owns their region; branches: S7
    case OpFamily::Debug:
      switch (familyOp<DebugOp>(op.kind)) {
        case DebugOp::TTPrint: return true;  // prints anything
        case DebugOp::GPUBarrier: return true;
        case DebugOp::LLVMAssume:  // LLVM's AssumeOp takes one i1, never a tensor
          if (op.operand(0)->type != Type::i1())
            return ctx.fail(op, "condition has type " + typeName(op.operand(0)->type) + ", expected i1");
          return true;
        case DebugOp::TTAssert:
          if (!isI1(op.operand(0)->type))
            return ctx.fail(op, "condition has type " + typeName(op.operand(0)->type) + ", expected i1 or a tensor of i1");
          return true;
      }
      break;
  }
  return true;
}

class StructureVerifier {
 public:
  StructureVerifier(VerifyContext& ctx, const Operation& function) : ctx_(ctx) { collect(function); }

  void verifyFunction(const Operation& function) {
    if (!verifyCounts(function) || !verifyRegions(function)) return;
    verifySemantics(ctx_, function);
    verifyNested(function);
  }

 private:
  void collect(const Operation& op) {
    for (const auto& result : op.results) inFunction_.insert(result.get());
    for (const auto& region : op.regions)
      for (const auto& block : region->blocks) {
        for (const auto& argument : block->arguments) inFunction_.insert(argument.get());
        for (const auto& nested : block->operations) collect(*nested);
      }
  }

  // S2.
  bool verifyCounts(const Operation& op) {
    const OpInfo& info = opInfo(op.kind);
    int operands = static_cast<int>(op.numOperands());
    if (operands < info.minOperands || (info.maxOperands >= 0 && operands > info.maxOperands)) {
      std::string expected = info.maxOperands == info.minOperands ? std::to_string(info.minOperands)
                             : info.maxOperands < 0 ? "at least " + std::to_string(info.minOperands)
                                                    : std::to_string(info.minOperands) + " to " + std::to_string(info.maxOperands);
      return ctx_.fail(op, "has " + std::to_string(operands) + " operands, expected " + expected);
    }
    if (info.numResults >= 0 && static_cast<int>(op.numResults()) != info.numResults)
      return ctx_.fail(op, "has " + std::to_string(op.numResults()) + " results, expected " + std::to_string(info.numResults));
    for (size_t i = 0; i < op.numOperands(); ++i) {
      if (op.operand(i) == nullptr) return ctx_.fail(op, "operand #" + std::to_string(i) + " is missing");
      if (!op.operand(i)->type.isValid()) return ctx_.fail(op, "operand #" + std::to_string(i) + " has no type");
    }
    for (size_t i = 0; i < op.numResults(); ++i) {
      std::string problem = newTypeProblem(op.result(i)->type);
      if (!problem.empty()) return ctx_.fail(op, (op.numResults() == 1 ? "result " : "result #" + std::to_string(i) + " ") + problem);
    }
    return true;
  }

  // S3 and the S6 check of block arguments.
  bool verifyRegions(const Operation& op) {
    auto [minRegions, maxRegions] = expectedRegions(op.kind);
    if (op.regions.size() < minRegions || op.regions.size() > maxRegions)
      return ctx_.fail(op, "has " + std::to_string(op.regions.size()) + " regions, expected " +
                               (minRegions == maxRegions ? std::to_string(minRegions)
                                : maxRegions == SIZE_MAX ? "at least " + std::to_string(minRegions)
                                                         : std::to_string(minRegions) + " or " + std::to_string(maxRegions)));
    for (size_t r = 0; r < op.regions.size(); ++r) {
      const Region& region = op.region(r);
      bool optionalElse = op.kind == OpKind::SCFIf && r == 1;
      bool cfg = op.kind == OpKind::TTFunc && !region.blocks.empty();
      if (region.blocks.size() != 1 && !(optionalElse && region.blocks.empty()) && !cfg)
        return ctx_.fail(op, "region #" + std::to_string(r) + " has " + std::to_string(region.blocks.size()) +
                                 " blocks, expected 1");
      for (const auto& block : region.blocks)
        for (const auto& argument : block->arguments) {
          std::string problem = newTypeProblem(argument->type);
          if (!problem.empty())
            return ctx_.fail(op, "block argument #" + std::to_string(argument->index) + " " + problem);
        }
    }
    return true;
  }

  // A type problem not reported before in this function ("" when the type is fine or its shape was reported).
  std::string newTypeProblem(Type type) {
    std::vector<int64_t> shape;
    std::string problem = typeProblem(type, &shape);
    if (problem.empty() || !type.isValid()) return problem;
    return reportedShapes_.insert(shape).second ? problem : "";
  }

  // S5: the first operand of `op` that is not visible, reported; false if one was found.
  bool verifyDominance(const Operation& op) {
    for (size_t i = 0; i < op.numOperands(); ++i) {
      const Value* value = op.operand(i);
      if (visible_.count(value)) continue;
      std::string what = "operand #" + std::to_string(i) + (value->name.empty() ? "" : " (%" + value->name + ")");
      const Block* home = value->isBlockArgument() ? value->ownerBlock
                                                   : value->definingOp ? value->definingOp->parentBlock : nullptr;
      bool inOpenBlock = false;
      for (const Block* open : openBlocks_) inOpenBlock = inOpenBlock || open == home;
      if (!inFunction_.count(value)) return ctx_.fail(op, what + " is defined outside this function");
      if (value->definingOp == &op) return ctx_.fail(op, what + " is the op's own result");
      if (inOpenBlock) return ctx_.fail(op, what + " is used before it is defined");
      if (home && op.parentBlock && home != op.parentBlock && home->parentRegion == op.parentBlock->parentRegion)
        return ctx_.fail(op, what + " is defined in a block that does not dominate this use");
      return ctx_.fail(op, what + " is defined in a region that does not enclose this use");
    }
    return true;
  }

  void verifyNested(const Operation& op) {
    for (size_t r = 0; r < op.regions.size(); ++r) {
      const Region& region = op.region(r);
      if (region.blocks.size() <= 1) {
        for (const auto& block : region.blocks) verifyBlock(op, r, *block);
        continue;
      }
      // A CFG: each block sees the values of the blocks that dominate it.
      std::vector<std::vector<bool>> dominators = blockDominators(region);
      for (size_t b = 0; b < region.blocks.size(); ++b) {
        std::vector<const Value*> inherited;
        for (size_t d = 0; d < region.blocks.size(); ++d) {
          if (d == b || !dominators[b][d]) continue;
          const Block& dominator = *region.blocks[d];
          for (const auto& argument : dominator.arguments) inherited.push_back(argument.get());
          for (const auto& inner : dominator.operations)
            for (const auto& result : inner->results) inherited.push_back(result.get());
        }
        for (const Value* value : inherited) visible_.insert(value);
        verifyBlock(op, r, *region.blocks[b]);
        for (const Value* value : inherited) visible_.erase(value);
      }
    }
  }

  // dominators[b][d]: block d dominates block b (iterative data flow over the branch successors; an unreachable
  // block is dominated by every block, so it sees nothing it should not: its ops are checked, never run).
  static std::vector<std::vector<bool>> blockDominators(const Region& region) {
    const size_t n = region.blocks.size();
    auto indexOf = [&](const Block* block) -> size_t {
      for (size_t b = 0; b < n; ++b)
        if (region.blocks[b].get() == block) return b;
      return n;
    };
    std::vector<std::vector<size_t>> predecessors(n);
    for (size_t b = 0; b < n; ++b)
      if (const Operation* terminator = region.blocks[b]->terminator())
        for (const Block* successor : terminator->successors)
          if (size_t s = indexOf(successor); s < n) predecessors[s].push_back(b);
    std::vector<std::vector<bool>> dominators(n, std::vector<bool>(n, true));
    dominators[0].assign(n, false);
    dominators[0][0] = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = 1; b < n; ++b) {
        std::vector<bool> meet(n, true);
        for (size_t p : predecessors[b])
          for (size_t d = 0; d < n; ++d) meet[d] = meet[d] && dominators[p][d];
        if (predecessors[b].empty()) meet.assign(n, false);  // unreachable: nothing flows in
        meet[b] = true;
        if (meet != dominators[b]) {
          dominators[b] = std::move(meet);
          changed = true;
        }
      }
    }
    return dominators;
  }

  // S7: a branch's successors and the arguments it passes.
  bool verifyBranch(const Operation& op) {
    const size_t expected = op.kind == OpKind::CFCondBr ? 2 : 1;
    if (op.successors.size() != expected || op.successorOperandCounts.size() != expected)
      return ctx_.fail(op, "has " + std::to_string(op.successors.size()) + " successors, expected " + std::to_string(expected));
    if (op.kind == OpKind::CFCondBr) {
      size_t passed = 0;
      for (unsigned count : op.successorOperandCounts) passed += count;
      if (op.numOperands() != passed + 1) return ctx_.fail(op, "expects a condition before the successor arguments");
      Type condition = op.operand(0)->type;
      if (!condition.isScalar() || condition.scalarKind() != ScalarKind::I1)
        return ctx_.fail(op, "condition has type " + condition.str() + ", expected i1");
    }
    for (size_t i = 0; i < op.successors.size(); ++i) {
      const Block* successor = op.successors[i];
      if (!successor || successor->parentRegion != op.parentBlock->parentRegion)
        return ctx_.fail(op, "successor #" + std::to_string(i) + " is not a block of this region");
      if (successor == &successor->parentRegion->front())
        return ctx_.fail(op, "successor #" + std::to_string(i) + " is the entry block, which cannot be branched to");
      std::vector<Value*> passed = op.successorOperands(i);
      if (passed.size() != successor->arguments.size())
        return ctx_.fail(op, "passes " + std::to_string(passed.size()) + " arguments to successor #" + std::to_string(i) +
                                 ", which takes " + std::to_string(successor->arguments.size()));
      for (size_t a = 0; a < passed.size(); ++a)
        if (passed[a]->type != successor->argument(a)->type)
          return ctx_.fail(op, "passes " + passed[a]->type.str() + " as argument #" + std::to_string(a) +
                                   " of successor #" + std::to_string(i) + ", which is " + successor->argument(a)->type.str());
    }
    return true;
  }

  void verifyBlock(const Operation& owner, size_t regionIndex, const Block& block) {
    openBlocks_.push_back(&block);
    for (const auto& argument : block.arguments) visible_.insert(argument.get());
    OpKind terminator = expectedTerminator(owner.kind, regionIndex);
    for (size_t i = 0; i < block.operations.size(); ++i) {
      const Operation& op = *block.operations[i];
      bool last = i + 1 == block.operations.size();
      bool ok = op.kind == OpKind::TTFunc ? ctx_.fail(op, "is nested inside " + std::string(owner.name()))
                                          : verifyCounts(op) && verifyDominance(op) && verifyRegions(op);
      if (ok && isTerminator(op.kind) && !last)
        ok = ctx_.fail(op, "is a terminator but is not the last op of its block");
      const bool branch = op.kind == OpKind::CFBr || op.kind == OpKind::CFCondBr;
      if (ok && branch && owner.kind != OpKind::TTFunc)
        ok = ctx_.fail(op, "branches only within a tt.func body (inside " + std::string(owner.name()) + ")");
      else if (ok && branch) ok = verifyBranch(op);
      if (ok && isTerminator(op.kind) && !branch && op.kind != terminator)
        ok = ctx_.fail(op, "cannot end a region of " + std::string(owner.name()) + " (expected " +
                               std::string(mnemonic(terminator)) + ")");
      if (ok) ok = verifyKeywordAttributes(ctx_, op);
      if (ok) verifySemantics(ctx_, op);
      if (ok)  // G1, once per distinct problem (as S6 reports a bad shape once): every value of that type repeats it
        for (const auto& result : op.results)
          if (std::string problem = encodingProblem(ctx_.module(), result->type, partitionWarps(block)); !problem.empty()) {
            // keyed by what is wrong with the encoding, after the type's name: every type using it repeats it
            if (reportedEncodingProblems_.insert(problem.substr(problem.find(": ") + 2)).second) ctx_.fail(op, problem);
            break;
          }
      if (ok) verifyNested(op);
      for (const auto& result : op.results) visible_.insert(result.get());
    }
    const Operation* last = block.terminator();
    if (last == nullptr || !isTerminator(last->kind))
      ctx_.fail(owner, "region #" + std::to_string(regionIndex) + " does not end with " +
                           std::string(mnemonic(terminator)));
    for (const auto& op : block.operations)
      for (const auto& result : op->results) visible_.erase(result.get());
    for (const auto& argument : block.arguments) visible_.erase(argument.get());
    openBlocks_.pop_back();
  }

  VerifyContext& ctx_;
  std::unordered_set<const Value*> inFunction_;
  std::unordered_set<const Value*> visible_;
  std::vector<const Block*> openBlocks_;
  std::set<std::vector<int64_t>> reportedShapes_;
  std::set<std::string> reportedEncodingProblems_;
};

}  // namespace

bool VerifyContext::fail(const Operation& op, const std::string& what) {
  if (op.textPos.known()) return failAt(op.textPos, std::string(op.name()) + ": " + what);
  SourcePos pos;
  pos.file = module_.sourceName.empty() ? "<built in code>" : module_.sourceName;
  return failAt(pos, std::string(op.name()) + " (no source position): " + what);
}

bool VerifyContext::failAt(const SourcePos& pos, const std::string& message) {
  diagnostics_.push_back({pos, message});
  return false;
}

}  // namespace verify

Diagnostics verifyModule(const Module& module) {
  Diagnostics diagnostics;
  verify::VerifyContext ctx(module, diagnostics);
  std::set<std::string> names;
  if (module.functions.empty()) {
    SourcePos start{module.sourceName.empty() ? "<built in code>" : module.sourceName, module.sourceName.empty() ? 0 : 1, 1};
    ctx.failAt(start, "module: contains no tt.func");
  }
  for (const auto& function : module.functions) {
    if (!function) continue;
    if (function->kind != OpKind::TTFunc) {
      ctx.fail(*function, "only tt.func may appear at module level");
      continue;
    }
    std::string name = Function(function.get()).name();
    if (!names.insert(name).second) {
      ctx.fail(*function, "function @" + name + " is defined more than once");
      continue;
    }
    verify::StructureVerifier(ctx, *function).verifyFunction(*function);
  }
  return diagnostics;
}

}  // namespace tilesim
