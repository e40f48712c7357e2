// Layout assignment (LayoutAssignment.h): one walk over the kernel in program order.
#include "gpu_backend/layout/LayoutAssignment.h"

#include "gpu_backend/layout/TensorCoreDots.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sstream>

namespace tilesim::gpu {
namespace {

std::vector<int64_t> shapeOf(const Value* value) {
  auto shape = value->type.shape();
  return {shape.begin(), shape.end()};
}

int elementBits(Type type) {
  Type element = type.element();
  if (element.isPointer()) element = element.pointee();
  if (!element.isScalar()) return 32;
  return std::max(8, storageBytes(element.scalarKind()) * 8);
}

// The permutation of tt.trans as a linear map from the input tensor's index bits to the result's.
LinearLayout transposeMap(std::span<const int64_t> inShape, std::span<const int64_t> outShape,
                          std::span<const int64_t> order) {
  std::vector<LayoutDim> inDims = tensorDims(inShape), outDims = tensorDims(outShape);
  LinearLayout outIndex = LinearLayout::identity(outDims);
  std::vector<std::vector<uint64_t>> bases(inDims.size());
  for (size_t i = 0; i < order.size(); ++i) {
    size_t source = static_cast<size_t>(order[i]);
    for (int k = 0; k < inDims[source].bits; ++k)
      bases[source].push_back(uint64_t{1} << (outIndex.outDimOffset(static_cast<int>(i)) + k));
  }
  return LinearLayout::fromDimBases(inDims, outDims, bases);
}

// Whether every thread holds, in `from`, every element it holds in `to` (the same lane and warp bases, and the
// span of `to`'s register bases inside `from`'s): moving from one to the other is a register permutation, which
// the lowering makes without an instruction (lowering/Conversion.cpp).
bool holdsInSameThreads(const LinearLayout& from, const LinearLayout& to) {
  if (from.outBits() != to.outBits() || from.dimBases(kLaneDim) != to.dimBases(kLaneDim) ||
      from.dimBases(kWarpDim) != to.dimBases(kWarpDim))
    return false;
  Gf2Span held;
  for (uint64_t basis : from.dimBases(kRegisterDim)) held.add(basis);
  for (uint64_t basis : to.dimBases(kRegisterDim))
    if (!held.contains(basis)) return false;
  return true;
}

}  // namespace

int accessVectorElements(const analysis::AxisInfo& pointer, int elementBytes, int dim) {
  if (pointer.rank() == 0 || elementBytes <= 0) return 1;
  const size_t along = static_cast<size_t>(dim < 0 ? pointer.rank() - 1 : dim);
  const int64_t divisibility = pointer.divisibility[along];
  const int64_t alignment = std::max<int64_t>(1, TILESIM_MUTANT(gpu_align8_as_16, divisibility, divisibility == 8 ? 16 : divisibility) / elementBytes);
  const int64_t contiguity = TILESIM_MUTANT(gpu_contiguity_ignored, pointer.contiguity[along], int64_t{16});
  const int64_t elements = std::min<int64_t>({16 / elementBytes, contiguity, alignment});
  return static_cast<int>(std::bit_floor(static_cast<uint64_t>(std::max<int64_t>(elements, 1))));
}

int coalescedDimension(const analysis::AxisInfo& pointer, int elementBytes) {
  int best = pointer.rank() - 1;
  if (best < 1) return best;
  int widest = accessVectorElements(pointer, elementBytes, best);
  for (int dim = best - 1; dim >= 0; --dim)
    if (const int vector = accessVectorElements(pointer, elementBytes, dim); vector > widest) best = dim, widest = vector;
  return best;
}

LayoutAssignment LayoutAssignment::assign(const Function& kernel, int numWarps, Diagnostics& diagnostics,
                                          const analysis::AxisInfoAnalysis* axisInfo, bool callee, bool tensorCores,
                                          int64_t sharedBytes) {
  LayoutAssignment assignment;
  assignment.numWarps_ = numWarps;
  assignment.tensorCores_ = tensorCores;
  assignment.sharedBytes_ = sharedBytes;
  walk(*kernel.op(), [&](const Operation& op) {
    const Value* memoryValue = nullptr;
    if (op.kind == OpKind::TTLoad) memoryValue = op.result();
    if (op.kind == OpKind::TTStore) memoryValue = op.operand(1);
    if (memoryValue && memoryValue->type.isTensor()) {
      int vector = 128 / elementBits(memoryValue->type);
      if (axisInfo && op.operand(0)->type.isTensor()) {
        const analysis::AxisInfo pointer = axisInfo->info(*op.operand(0));
        const int bytes = elementBits(memoryValue->type) / 8;
        // A load contiguous along another dimension than the last gets its own layout, fastest along that one.
        if (const int fastest = coalescedDimension(pointer, bytes); op.kind == OpKind::TTLoad && fastest != pointer.rank() - 1) {
          const int along = accessVectorElements(pointer, bytes, fastest);
          assignment.coalescedLoads_.emplace(&op, coalescedLayout(memoryValue->type.shape(), numWarps, along, fastest));
        }
        vector = std::min(vector, accessVectorElements(pointer, bytes));
      }
      int& best = assignment.vectorElements_[shapeOf(memoryValue)];
      best = std::max(best, vector);
    }
  });
  assignment.carryCoalescedPointers();
  for (size_t i = 0; i < kernel.numArguments(); ++i) {
    const Value* argument = kernel.argument(i);
    if (!argument->type.isTensor()) continue;
    if (!callee)
      diagnostics.push_back({{}, "kernel parameter %" + kernel.argumentName(i) + " is a tensor"});
    else if (!isPowerOfTwoShape(argument->type.shape()))
      diagnostics.push_back({{}, "parameter %" + kernel.argumentName(i) + " of @" + kernel.name() + " has shape " +
                                     argument->type.str() + ", not a power of two in every dimension"});
    else
      assignment.remember(argument, assignment.defaultLayout(argument->type.shape()));
  }
  if (!diagnostics.empty()) return assignment;
  bool shapesOk = true;
  walk(*kernel.op(), [&](const Operation& op) {
    for (const auto& result : op.results)
      if (result->type.isTensor() && !isPowerOfTwoShape(result->type.shape())) shapesOk = false;
  });
  if (shapesOk) assignment.preferSlicesForBroadcasts(kernel);
  assignment.collectTensorCoreLayouts(kernel);
  walk(*kernel.op(), [&](const Operation& op) {
    if (diagnostics.empty()) assignment.assignOp(op, diagnostics);
  });
  // Loop-carried values that the body computes from tensor cores (attention's running max and sum, a slice of the
  // mma layout) were given their init's layout, so every iteration converted them at the yield and at their use,
  // through shared memory. When there are such values, assign once more with each of them in the layout its body
  // yields it in: the conversion moves to the loop's entry (Triton's RemoveLayoutConversions does the same).
  if (diagnostics.empty() && assignment.carryYieldedLayouts(kernel)) {
    assignment.layouts_.clear();
    assignment.fromTensorCores_.clear();
    for (size_t i = 0; i < kernel.numArguments(); ++i)
      if (kernel.argument(i)->type.isTensor())
        assignment.remember(kernel.argument(i), assignment.defaultLayout(kernel.argument(i)->type.shape()));
    walk(*kernel.op(), [&](const Operation& op) {
      if (diagnostics.empty()) assignment.assignOp(op, diagnostics);
    });
  }
  return assignment;
}

void LayoutAssignment::collectTensorCoreLayouts(const Function& kernel) {
  if (!tensorCores_) return;
  walk(*kernel.op(), [&](const Operation& op) {
    if (op.kind != OpKind::TTDot || !op.result()->type.isTensor()) return;
    if (std::optional<LinearLayout> mma = tensorCoreResultLayout(op, numWarps_, sharedBytes_)) {
      std::vector<LinearLayout>& known = tensorCoreLayouts_[shapeOf(op.result())];
      if (std::find(known.begin(), known.end(), *mma) == known.end()) known.push_back(*mma);
    }
  });
}

void LayoutAssignment::carryCoalescedPointers() {
  for (const auto& [load, layout] : coalescedLoads_) {
    const Value* pointer = load->operand(0);
    const Block* body = pointer->isBlockArgument() ? pointer->ownerBlock : nullptr;
    const Operation* loop = body && body->parentRegion ? body->parentRegion->parentOp : nullptr;
    if (!loop || loop->kind != OpKind::SCFFor || pointer->index == 0) continue;
    const Operation* yield = body->terminator();
    const size_t carried = pointer->index - 1;
    if (!yield || carried >= yield->numOperands()) continue;
    const Value* advanced = yield->operand(carried);
    const Operation* advance = advanced->definingOp;
    // Only `ptrs += step` (an elementwise op of the carried pointers, in the body): the loop carries them in the
    // load's layout, its entry converts the init once.
    if (!advance || advance->parentBlock != body || !hasTrait(advance->kind, kElementwise) ||
        std::find(advance->operands.begin(), advance->operands.end(), pointer) == advance->operands.end())
      continue;
    coalescedValues_.emplace(pointer, layout);
    coalescedValues_.emplace(advanced, layout);
  }
}

bool LayoutAssignment::carryYieldedLayouts(const Function& kernel) {
  if (!tensorCores_) return false;
  bool found = false;
  walk(*kernel.op(), [&](const Operation& op) {
    if (op.kind != OpKind::SCFFor) return;
    const Block& body = op.region(0).front();
    const Operation* yield = body.terminator();
    for (size_t i = 0; yield && i < op.numResults() && i < yield->numOperands() && i + 1 < body.arguments.size(); ++i) {
      const Value* yielded = yield->operand(i);
      const LinearLayout* yieldedLayout = layoutOf(yielded);
      const LinearLayout* carriedLayout = layoutOf(body.argument(i + 1));
      if (!yieldedLayout || !carriedLayout || *yieldedLayout == *carriedLayout || !fromTensorCores_.count(yielded)) continue;
      loopCarried_.insert_or_assign(body.argument(i + 1), *yieldedLayout);
      found = true;
    }
  });
  return found;
}

// Ops whose result can take any layout at no cost: they compute each register from scalars and the element index.
static bool cheapInAnyLayout(const Operation& op) {
  if (op.kind == OpKind::TTMakeRange || op.kind == OpKind::TTSplat || op.kind == OpKind::ArithConstant) return true;
  if (op.kind == OpKind::TTExpandDims) return true;
  return hasTrait(op.kind, kElementwise) && op.kind != OpKind::TTExternElementwise &&
         op.kind != OpKind::TTElementwiseInlineAsm && op.numResults() == 1;
}

void LayoutAssignment::preferSlicesForBroadcasts(const Function& kernel) {
  std::vector<const Operation*> order;
  walk(*kernel.op(), [&](const Operation& op) { order.push_back(&op); });
  // Backward: uses before definitions, so a value's preference comes from its last broadcast in program order.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Operation& op = **it;
    if (op.kind == OpKind::TTBroadcast && op.operand(0)->type.isTensor()) {
      const Value* source = op.operand(0);
      LinearLayout layout = defaultLayout(op.result()->type.shape());
      auto found = preferred_.find(op.result());
      if (found != preferred_.end()) layout = found->second;
      // Slice along every broadcast dimension (highest first so indices stay valid), then re-insert them as size 1.
      std::vector<int> dims;
      for (int d = 0; d < source->type.rank(); ++d)
        if (source->type.shape()[d] == 1 && op.result()->type.shape()[d] != 1) dims.push_back(d);
      for (auto d = dims.rbegin(); d != dims.rend(); ++d) layout = sliceLayout(layout, *d, nullptr);
      for (int d : dims) layout = layout.insertOutDim(d, "one");
      if (!preferred_.count(source)) preferred_.emplace(source, layout.withOutDims(tensorDims(source->type.shape())));
      continue;
    }
    if (op.numResults() != 1 || !cheapInAnyLayout(op)) continue;
    auto wanted = preferred_.find(op.result());
    if (wanted == preferred_.end()) continue;
    for (const Value* operand : op.operands) {
      if (!operand->type.isTensor() || preferred_.count(operand) || !operand->definingOp) continue;
      if (op.kind == OpKind::TTExpandDims) {
        const int axis = AxisView{op}.axis();
        preferred_.emplace(operand, wanted->second.dropOutDim(axis).withOutDims(tensorDims(operand->type.shape())));
      } else if (operand->type.shape().size() == op.result()->type.shape().size() &&
                 std::equal(operand->type.shape().begin(), operand->type.shape().end(), op.result()->type.shape().begin())) {
        preferred_.emplace(operand, wanted->second);
      }
    }
  }
  // Keep a preference only where the whole producing chain is cheap: a value whose defining op is not cheap (a
  // load, a reduction) keeps its usual layout and is converted where it is used.
  for (auto it = preferred_.begin(); it != preferred_.end();) {
    const Operation* definer = it->first->definingOp;
    it = (!definer || !cheapInAnyLayout(*definer)) ? preferred_.erase(it) : std::next(it);
  }
}

const LinearLayout* LayoutAssignment::layoutOf(const Value* value) const {
  auto found = layouts_.find(value);
  return found == layouts_.end() ? nullptr : &found->second;
}

const LinearLayout& LayoutAssignment::defaultLayout(std::span<const int64_t> shape) const {
  std::vector<int64_t> key(shape.begin(), shape.end());
  auto found = defaults_.find(key);
  if (found != defaults_.end()) return found->second;
  auto vector = vectorElements_.find(key);
  BlockedParams params = defaultBlockedParams(shape, numWarps_, vector == vectorElements_.end() ? 4 : vector->second);
  defaultParams_.emplace(key, params);
  return defaults_.emplace(key, blockedLayout(shape, params)).first->second;
}

const LinearLayout& LayoutAssignment::remember(const Value* value, LinearLayout layout) {
  return layouts_.insert_or_assign(value, std::move(layout)).first->second;
}

// The tensor-core propagation rules of LayoutAssignment.h for `op` (its tensor results not yet assigned); true
// when they gave its result a layout.
bool LayoutAssignment::takeTensorCoreLayout(const Operation& op) {
  if (!tensorCores_ || op.numResults() != 1 || !op.result()->type.isTensor()) return false;
  const Value* result = op.result();
  if (op.kind == OpKind::TTBroadcast) {
    const Value* source = op.operand(0);
    const LinearLayout* sourceLayout = source->type.isTensor() ? layoutOf(source) : nullptr;
    auto candidates = tensorCoreLayouts_.find(shapeOf(result));
    if (!sourceLayout || !fromTensorCores_.count(source) || candidates == tensorCoreLayouts_.end()) return false;
    for (const LinearLayout& layout : candidates->second)
      if (holdsInSameThreads(*sourceLayout, broadcastSource(layout, source->type.shape()))) {
        remember(result, layout);
        fromTensorCores_.insert(result);
        return true;
      }
    return false;
  }
  if (!hasTrait(op.kind, kElementwise)) return false;
  for (const Value* operand : op.operands)
    if (fromTensorCores_.count(operand) && operand->type.shape().size() == result->type.shape().size() &&
        std::equal(operand->type.shape().begin(), operand->type.shape().end(), result->type.shape().begin())) {
      remember(result, *layoutOf(operand));
      fromTensorCores_.insert(result);
      return true;
    }
  return false;
}

void LayoutAssignment::assignOp(const Operation& op, Diagnostics& diagnostics) {
  auto powerOfTwo = [&](const Value* value) {
    if (!value->type.isTensor() || isPowerOfTwoShape(value->type.shape())) return true;
    diagnostics.push_back({op.textPos, fmt::format("the GPU engine needs power-of-two tensor shapes; {} is {} ({}:{})",
                                                   op.name(), value->type.str(), op.textPos.line, op.textPos.column)});
    return false;
  };
  for (const auto& result : op.results)
    if (!powerOfTwo(result.get())) return;
  for (const Value* operand : op.operands)
    if (!powerOfTwo(operand)) return;
  for (const auto& region : op.regions)
    for (const auto& block : region->blocks)
      for (const auto& argument : block->arguments)
        if (!powerOfTwo(argument.get())) return;

  auto resultTensor = [&](size_t i) { return op.numResults() > i && op.result(i)->type.isTensor(); };
  // The tensor-core layouts first: a value computed from a dot's result stays in its registers even where it
  // also feeds a broadcast (m = max(qk, 1) feeds both qk - m[:, None] and the next iteration).
  if (takeTensorCoreLayout(op)) return;
  if (op.numResults() == 1 && op.kind != OpKind::TTExpandDims)
    if (auto wanted = preferred_.find(op.result()); wanted != preferred_.end()) {
      remember(op.result(), wanted->second);
      return;
    }
  // A value derived from a tensor-core result without moving data (the rules below) stays "from tensor cores".
  auto inherit = [&](const Value* from) {
    if (!fromTensorCores_.count(from)) return;
    for (const auto& result : op.results) fromTensorCores_.insert(result.get());
  };
  // Layouts derived from the operand's (the rules below); every other op gets the default layouts after them.
  const OpFamily family = opFamily(op.kind);
  if (family == OpFamily::Shape) {
    switch (familyOp<ShapeOp>(op.kind)) {
      case ShapeOp::TTExpandDims:
        if (const LinearLayout* source = layoutOf(op.operand(0))) {
          LinearLayout inserted = source->insertOutDim(AxisView{op}.axis(), "new");
          remember(op.result(), inserted.withOutDims(tensorDims(op.result()->type.shape())));
          inherit(op.operand(0));
          return;
        }
        break;
      case ShapeOp::TTReshape:
        if (const LinearLayout* source = layoutOf(op.operand(0))) {
          remember(op.result(), source->withOutDims(tensorDims(op.result()->type.shape())));
          return;
        }
        break;
      case ShapeOp::TTTrans:
        if (const LinearLayout* source = layoutOf(op.operand(0)); source && OrderView{op}.order()) {
          LinearLayout permutation =
              transposeMap(op.operand(0)->type.shape(), op.result()->type.shape(), *OrderView{op}.order());
          remember(op.result(), permutation.compose(*source));
          return;
        }
        break;
      case ShapeOp::TTSplat:
      case ShapeOp::TTUnsplat:
      case ShapeOp::TTBroadcast:
      case ShapeOp::TTJoin:
      case ShapeOp::TTSplit:
      case ShapeOp::TTCat:
      case ShapeOp::TTGather:
      case ShapeOp::TTHistogram: break;
    }
  }
  if (family == OpFamily::ReduceScan) {
    switch (familyOp<ReduceScanOp>(op.kind)) {
      case ReduceScanOp::TTReduce:
        if (const LinearLayout* source = layoutOf(op.operand(0))) {
          LinearLayout slice = sliceLayout(*source, AxisView{op}.axis(), nullptr);
          for (size_t i = 0; i < op.numResults(); ++i)
            if (resultTensor(i)) remember(op.result(i), slice.withOutDims(tensorDims(op.result(i)->type.shape())));
          inherit(op.operand(0));
          return;
        }
        break;
      case ReduceScanOp::TTScan: break;
    }
  }
  if (family == OpFamily::Dot) {
    switch (familyOp<DotOp>(op.kind)) {
      case DotOp::TTDot:
        if (tensorCores_)
          if (std::optional<LinearLayout> mma = tensorCoreResultLayout(op, numWarps_, sharedBytes_)) {
            remember(op.result(), *mma);
            fromTensorCores_.insert(op.result());
            return;
          }
        break;
    }
  }
  if (auto coalesced = coalescedLoads_.find(&op); coalesced != coalescedLoads_.end()) {
    remember(op.result(), coalesced->second);
    return;
  }
  if (auto carried = op.numResults() == 1 ? coalescedValues_.find(op.result()) : coalescedValues_.end();
      carried != coalescedValues_.end()) {
    remember(op.result(), carried->second);
    return;
  }
  if (family == OpFamily::ControlFlow) {
    switch (familyOp<ControlFlowOp>(op.kind)) {
      case ControlFlowOp::SCFFor: assignForLoop(op); return;
      case ControlFlowOp::SCFIf:
      case ControlFlowOp::SCFWhile: break;
    }
  }
  for (size_t i = 0; i < op.numResults(); ++i)
    if (resultTensor(i)) remember(op.result(i), defaultLayout(op.result(i)->type.shape()));
  for (const auto& region : op.regions)
    for (const auto& block : region->blocks)
      for (const auto& argument : block->arguments)
        if (argument->type.isTensor() && !layoutOf(argument.get()))
          remember(argument.get(), defaultLayout(argument->type.shape()));
}

void LayoutAssignment::assignForLoop(const Operation& op) {
  const Block& body = op.region(0).front();
  const Operation* yield = body.terminator();
  for (size_t i = 0; i < op.numResults(); ++i) {
    const Value* init = op.operand(3 + i);
    if (!init->type.isTensor()) continue;
    const LinearLayout* layout = layoutOf(init);
    LinearLayout chosen = layout ? *layout : defaultLayout(init->type.shape());
    // An accumulator that a tensor-core dot yields keeps the dot's mma layout across iterations.
    const Value* yielded = yield && i < yield->numOperands() ? yield->operand(i) : nullptr;
    if (tensorCores_ && yielded && yielded->definingOp && yielded->definingOp->kind == OpKind::TTDot)
      if (std::optional<LinearLayout> mma = tensorCoreResultLayout(*yielded->definingOp, numWarps_, sharedBytes_)) {
        chosen = *mma;
        // Inside the body the accumulator is a tensor-core value (attention rescales it there); the loop's
        // result is not, so the epilogue keeps its blocked layouts.
        if (i + 1 < body.arguments.size()) fromTensorCores_.insert(body.argument(i + 1));
      }
    // Pointers a coalesced load reads and the body advances: the load's layout (carryCoalescedPointers).
    if (auto coalesced = i + 1 < body.arguments.size() ? coalescedValues_.find(body.argument(i + 1)) : coalescedValues_.end();
        coalesced != coalescedValues_.end())
      chosen = coalesced->second;
    // Any other value the body computes from tensor cores: the layout the first assignment gave its yield
    // (carryYieldedLayouts); inside the body it is a tensor-core value too.
    if (auto carried = i + 1 < body.arguments.size() ? loopCarried_.find(body.argument(i + 1)) : loopCarried_.end();
        carried != loopCarried_.end()) {
      chosen = carried->second;
      fromTensorCores_.insert(body.argument(i + 1));
    }
    remember(op.result(i), chosen);
    if (i + 1 < body.arguments.size()) remember(body.argument(i + 1), chosen);
  }
}

std::string LayoutAssignment::print(const Function& kernel) const {
  std::ostringstream out;
  std::vector<const LinearLayout*> distinct;
  auto number = [&](const LinearLayout& layout) {
    for (size_t i = 0; i < distinct.size(); ++i)
      if (*distinct[i] == layout) return i;
    distinct.push_back(&layout);
    return distinct.size() - 1;
  };
  std::ostringstream values;
  numberValues(kernel);
  auto name = [](const Value* value) { return "%" + (value->name.empty() ? std::to_string(value->id) : value->name) +
                                              (value->groupIndex >= 0 ? "#" + std::to_string(value->groupIndex) : ""); };
  walk(*kernel.op(), [&](const Operation& op) {
    for (const auto& region : op.regions)
      for (const auto& block : region->blocks)
        for (const auto& argument : block->arguments)
          if (const LinearLayout* layout = layoutOf(argument.get()))
            values << fmt::format("  {} (region argument of {}) : {}  #L{}\n", name(argument.get()), op.name(),
                                  argument->type.str(), number(*layout));
    for (const auto& result : op.results)
      if (const LinearLayout* layout = layoutOf(result.get()))
        values << fmt::format("  {} = {} : {}  #L{}  (line {})\n", name(result.get()), op.name(), result->type.str(),
                              number(*layout), op.textPos.line);
  });
  out << fmt::format("// layouts of @{} (num_warps = {}): (warp, lane, register) -> tensor index bases\n",
                     kernel.name(), numWarps_);
  for (size_t i = 0; i < distinct.size(); ++i) {
    std::string blocked;
    for (const auto& [shape, layout] : defaults_)
      if (layout == *distinct[i]) blocked = " blocked " + defaultParams_.at(shape).str();
    out << fmt::format("#L{} = {{{}}} registers={} vector={}{}\n", i, distinct[i]->str(), numRegisters(*distinct[i]),
                       vectorWidth(*distinct[i]), blocked);
  }
  out << values.str();
  return out.str();
}

}  // namespace tilesim::gpu
