// The fuzzer's reference evaluator (see ReferenceEval.h; its state and the split of its members over three files:
// ReferenceState.h): every value is a plain vector of lane bits with an undefined flag per lane; every op is a
// loop over output lanes that computes each lane from operand lanes found by index arithmetic. Pointers are
// (buffer, element index) pairs, not addresses. This file walks the kernel: programs, blocks, the dispatch over
// op families (a switch over OpFamily, then one over the family's enum, with no default: an op added to
// ir/Ops.def does not compile until the reference evaluates it or says it cannot), elementwise lanes, select and
// control flow.
#include "fuzz/programs/ReferenceEval.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fuzz/programs/OracleScalar.h"
#include "fuzz/programs/ReferenceLanes.h"
#include "fuzz/programs/ReferenceState.h"
#include "ir/OpAttributes.h"
#include "ir/OpFacts.h"
#include "ir/launch/Binding.h"

namespace tilesim::fuzz {
namespace reference {

Lanes makeLanes(Type type) {
  Lanes lanes;
  lanes.type = type;
  auto shape = type.shape();
  lanes.shape.assign(shape.begin(), shape.end());
  lanes.bits.assign(static_cast<size_t>(type.numElements()), 0);
  lanes.undefined.assign(lanes.bits.size(), 0);
  return lanes;
}

void multiIndex(int64_t linear, const std::vector<int64_t>& shape, std::vector<int64_t>& index) {
  index.resize(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
}
std::vector<int64_t> multiIndex(int64_t linear, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index;
  multiIndex(linear, shape, index);
  return index;
}

int64_t linearIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + index[d];
  return linear;
}

// Binding: the reference binds its arguments as both engines do, through bindLaunch (ir/launch/Binding.h): by
// position or name, kinds checked, buffers placed. It keeps each view (alias_of argument) as a buffer of its own,
// starting as its window of the storage and written back into it at the end. That is the engines' shared memory
// as long as no element is written through one pointer and accessed through another, which the generator's
// views never do (shared windows are read-only, written views have a storage of their own).
bool Reference::bindParameters() {
  Launch launch;
  launch.kernel = kernel_;
  launch.arguments = arguments_;
  launch.grid = grid_;
  const LaunchBinding binding = bindLaunch(launch);
  if (!binding.ok()) {
    fail("reference: " + binding.diagnostics().front().message);
    return false;
  }
  std::vector<int> bufferOfArgument(launch.arguments.size(), -1);
  for (size_t a = 0; a < launch.arguments.size(); ++a) {
    LaunchArgument& argument = launch.arguments[a];
    if (argument.kind != LaunchArgument::Kind::Buffer) continue;
    bufferOfArgument[a] = static_cast<int>(buffers_.size());
    const size_t elements = argument.bytes.size() / storageBytes(argument.elementKind);
    buffers_.push_back({argument.elementKind, std::move(argument.bytes), std::vector<uint8_t>(elements)});
  }
  for (size_t a = 0; a < launch.arguments.size(); ++a) {
    const BufferPlacement& placement = binding.placement(a);
    if (bufferOfArgument[a] >= 0 && placement.storage != a)
      views_.push_back({static_cast<size_t>(bufferOfArgument[a]),
                        static_cast<size_t>(bufferOfArgument[placement.storage]), placement.offset});
  }
  for (size_t p = 0; p < binding.numParameters(); ++p) {
    const BoundParameter& bound = binding.parameter(p);
    const Type type = kernel_.argument(p)->type;
    Lanes lanes = makeLanes(type);
    switch (bound.kind) {
      case BoundParameter::Kind::Pointer: lanes.buffer = bufferOfArgument[bound.argument]; break;
      case BoundParameter::Kind::Scalar: {
        // A float is rounded by the oracle's own conversion (OracleScalar.h), not ir/FloatBits as bindLaunch does.
        const LaunchArgument& argument = arguments_[bound.argument];
        const double value = argument.scalarIsFloat ? argument.floatValue : static_cast<double>(argument.intValue);
        lanes.bits[0] = type.isFloat() ? oracle::encodeFloat(value, type.scalarKind())
                                       : maskToWidth(bound.bits, type.scalarKind());
        break;
      }
      case BoundParameter::Kind::TensorDescriptor:
      case BoundParameter::Kind::DescriptorField:
        fail("reference: host tensor descriptor arguments are not evaluated");
        return false;
    }
    parameters_.push_back(std::move(lanes));
  }
  return true;
}

ReferenceOutcome Reference::run() {
  if (!bindParameters()) return std::move(outcome_);
  for (const View& view : views_) {
    Buffer& v = buffers_[view.buffer];
    const Buffer& s = buffers_[view.storage];
    if (v.kind != s.kind || view.offset + v.bytes.size() > s.bytes.size()) {
      fail("reference: a view of another element type than its storage, or outside it");
      return std::move(outcome_);
    }
    std::copy_n(s.bytes.begin() + static_cast<int64_t>(view.offset), v.bytes.size(), v.bytes.begin());
  }
  for (int64_t z = 0; z < grid_[2] && outcome_.error.empty(); ++z)
    for (int64_t y = 0; y < grid_[1] && outcome_.error.empty(); ++y)
      for (int64_t x = 0; x < grid_[0] && outcome_.error.empty(); ++x) runProgram({x, y, z});
  for (const View& view : views_) {
    const Buffer& v = buffers_[view.buffer];
    Buffer& s = buffers_[view.storage];
    const int bytes = storageBytes(s.kind);
    std::copy(v.bytes.begin(), v.bytes.end(), s.bytes.begin() + static_cast<int64_t>(view.offset));
    for (size_t e = 0; e < v.undefined.size(); ++e) s.undefined[view.offset / bytes + e] |= v.undefined[e];
  }
  for (Buffer& buffer : buffers_) {
    outcome_.buffers.push_back(std::move(buffer.bytes));
    outcome_.undefinedElements.push_back(std::move(buffer.undefined));
  }
  return std::move(outcome_);
}

void Reference::fail(const std::string& message) {
  if (outcome_.error.empty()) outcome_.error = message;
}

void Reference::runProgram(std::array<int64_t, 3> program) {
  program_ = program;
  env_.clear();
  for (size_t p = 0; p < parameters_.size(); ++p) env_[kernel_.argument(p)] = parameters_[p];
  runBlock(kernel_.body());
}

// Runs the ops of `block`; returns its terminator (null on an error or without one).
const Operation* Reference::runOps(const Block& block) {
  for (const auto& op : block.operations) {
    if (!outcome_.error.empty()) return nullptr;
    if (hasTrait(op->kind, kTerminator)) return op.get();
    evalOp(*op);
  }
  return nullptr;
}

// Runs the ops of `block`; returns the terminator's operands.
std::vector<Lanes> Reference::runBlock(const Block& block) {
  std::vector<Lanes> results;
  if (const Operation* terminator = runOps(block))
    for (const Value* v : terminator->operands) results.push_back(env_.at(v));
  return results;
}

// The value's lanes as makeLanes(type) makes them (zero bits, all defined, no buffer), reusing the storage the
// value had (a region runs many times: each combine of a reduction, each loop iteration).
Lanes& Reference::fresh(const Value* value, Type type) {
  Lanes& lanes = env_[value];
  lanes.type = type;
  auto shape = type.shape();
  lanes.shape.assign(shape.begin(), shape.end());
  const size_t count = static_cast<size_t>(type.numElements());
  lanes.bits.assign(count, 0);
  lanes.undefined.assign(count, 0);
  lanes.buffer = -1;
  lanes.blockShape.clear();
  lanes.blockStrides.clear();
  lanes.blockOffsets.clear();
  return lanes;
}

void Reference::unsupported(const Operation& op) { fail("reference: unsupported op " + std::string(op.name())); }

void Reference::evalOp(const Operation& op) {
  switch (opFamily(op.kind)) {
    case OpFamily::IntArith:
    case OpFamily::FloatArith:
    case OpFamily::Math:
    case OpFamily::Cast:
    case OpFamily::External: return elementwise(op);  // External: evalLane reports libdevice and inline asm
    case OpFamily::Compare: return evalCompare(op);
    case OpFamily::Constant: return evalConstant(op);
    case OpFamily::Program: return evalProgram(op);
    case OpFamily::Shape: return evalShape(op);
    case OpFamily::Pointer: return evalPointer(op);
    case OpFamily::Memory: return evalMemory(op);
    case OpFamily::Atomic: return atomic(op);
    case OpFamily::Dot: return dot(op);
    case OpFamily::ReduceScan: return op.kind == OpKind::TTReduce ? reduce(op) : scan(op);
    case OpFamily::ControlFlow: return evalControlFlow(op);
    case OpFamily::Function:
      switch (familyOp<FunctionOp>(op.kind)) {
        case FunctionOp::TTCall: return call(op);
        case FunctionOp::TTFunc: return unsupported(op);
      }
      return;
    case OpFamily::Terminator: return unsupported(op);  // runOps stops at a terminator: never evaluated
    case OpFamily::Debug: return evalDebug(op);
    case OpFamily::SharedMemory:  // TTGIR: the generator never makes these; a replayed TTGIR file gets a clear error
    case OpFamily::Hopper: return fail("reference: TTGIR op " + std::string(op.name()) + " is not modelled by the fuzz reference");
  }
}

void Reference::evalConstant(const Operation& op) {
  const Type type = op.result()->type;
  switch (familyOp<ConstantOp>(op.kind)) {
    case ConstantOp::ArithConstant: {
      Lanes& lanes = fresh(op.result(), type);
      const ConstantView constant{op};
      for (int64_t i = 0; i < lanes.size(); ++i) lanes.bits[i] = maskToWidth(constant.bitsAt(i), type.scalarKind());
      return;
    }
    case ConstantOp::TTMakeRange: {
      Lanes& lanes = fresh(op.result(), type);
      const int64_t start = MakeRangeView{op}.start();
      for (int64_t i = 0; i < lanes.size(); ++i) lanes.bits[i] = maskToWidth(static_cast<uint64_t>(start + i), ScalarKind::I32);
      return;
    }
    case ConstantOp::UBPoison: return unsupported(op);
  }
}

void Reference::evalProgram(const Operation& op) {
  Lanes& lanes = fresh(op.result(), op.result()->type);
  const int axis = ProgramAxisView{op}.index();
  switch (familyOp<ProgramOp>(op.kind)) {
    case ProgramOp::TTGetProgramId: lanes.bits[0] = static_cast<uint64_t>(program_[axis]); return;
    case ProgramOp::TTGetNumPrograms: lanes.bits[0] = static_cast<uint64_t>(grid_[axis]); return;
  }
}

void Reference::evalShape(const Operation& op) {
  switch (familyOp<ShapeOp>(op.kind)) {
    case ShapeOp::TTUnsplat:
    case ShapeOp::TTSplat:
    case ShapeOp::TTBroadcast:
    case ShapeOp::TTExpandDims:
    case ShapeOp::TTReshape:
    case ShapeOp::TTTrans: return moveLanes(op);
    case ShapeOp::TTJoin:
    case ShapeOp::TTCat:
    case ShapeOp::TTSplit: return joinSplitCat(op);
    case ShapeOp::TTGather: return gather(op);
    case ShapeOp::TTHistogram: return histogram(op);
  }
}

void Reference::evalPointer(const Operation& op) {
  switch (familyOp<PointerOp>(op.kind)) {
    case PointerOp::TTAddPtr: return addPointer(op);
    case PointerOp::TTMakeTensorPtr: return makeBlockPointer(op);
    case PointerOp::TTPtrToInt: return pointerToInt(op);
    case PointerOp::TTIntToPtr: return intToPointer(op);
    case PointerOp::TTAdvance: return advanceBlockPointer(op);
    case PointerOp::TTMakeTensorDescriptor: return makeTensorDescriptor(op);
  }
}

void Reference::evalMemory(const Operation& op) {
  switch (familyOp<MemoryOp>(op.kind)) {
    case MemoryOp::TTLoad: return op.operand(0)->type.isBlockPointer() ? blockLoad(op) : load(op);
    case MemoryOp::TTStore: return store(op);
    case MemoryOp::TTDescriptorLoad:
    case MemoryOp::TTDescriptorStore: return descriptorAccess(op);
    case MemoryOp::TTDescriptorGather:
    case MemoryOp::TTDescriptorScatter: return unsupported(op);
  }
}

void Reference::evalCompare(const Operation& op) {
  switch (familyOp<CompareOp>(op.kind)) {
    case CompareOp::ArithCmpI:
    case CompareOp::ArithCmpF: return elementwise(op);
    case CompareOp::ArithSelect: return select(op);
  }
}

void Reference::evalControlFlow(const Operation& op) {
  switch (familyOp<ControlFlowOp>(op.kind)) {
    case ControlFlowOp::SCFFor: return forLoop(op);
    case ControlFlowOp::SCFWhile: return whileLoop(op);
    case ControlFlowOp::SCFIf: return ifThenElse(op);
  }
}

void Reference::evalDebug(const Operation& op) {
  switch (familyOp<DebugOp>(op.kind)) {
    case DebugOp::TTAssert: return assertion(op);
    case DebugOp::GPUBarrier: return;  // orders nothing here: one program's ops run in order
    case DebugOp::TTPrint:
    case DebugOp::LLVMAssume: return unsupported(op);
  }
}

void Reference::elementwise(const Operation& op) {
  const Type type = op.result()->type;
  ScalarKind operandKind = op.operand(0)->type.scalarKind();
  ScalarKind resultKind = type.scalarKind();
  // At most 3 operands (select, fma, clamp); looked up once, not per lane.
  std::array<const Lanes*, 4> operands{};
  const size_t numOperands = op.numOperands();
  if (numOperands > operands.size()) return fail("reference: too many operands for " + std::string(op.name()));
  for (size_t k = 0; k < numOperands; ++k) operands[k] = &get(op.operand(k));
  Lanes& result = fresh(op.result(), type);
  std::array<uint64_t, 4> lanes{};
  const std::span<const uint64_t> laneSpan(lanes.data(), numOperands);
  std::string error;
  for (int64_t i = 0; i < result.size(); ++i) {
    for (size_t k = 0; k < numOperands; ++k) {
      lanes[k] = operands[k]->bits[i];
      result.undefined[i] |= operands[k]->undefined[i];
    }
    bool undefinedBehaviour = false;
    std::optional<uint64_t> value = evalLane(op, laneSpan, operandKind, resultKind, exactMath_, &error, &undefinedBehaviour);
    if (!value) return fail(error);
    // An undefined lane's value is unspecified, so whether it is UB is too.
    if (result.undefined[i]) outcome_.undefinedBehaviourPossible |= canBeUndefinedBehaviour(op.kind);
    else outcome_.undefinedBehaviour |= undefinedBehaviour;
    result.bits[i] = *value;
  }
}

void Reference::select(const Operation& op) {
  const Lanes& condition = get(op.operand(0));
  const Lanes& whenTrue = get(op.operand(1));
  const Lanes& whenFalse = get(op.operand(2));
  Lanes& result = fresh(op.result(), op.result()->type);
  result.buffer = whenTrue.buffer;
  for (int64_t i = 0; i < result.size(); ++i) {
    int64_t c = condition.size() == 1 ? 0 : i;
    const Lanes& side = (condition.bits[c] & 1) ? whenTrue : whenFalse;
    result.bits[i] = side.bits[i];
    result.undefined[i] = condition.undefined[c] | side.undefined[i];
  }
}

// ---- control flow: scf.for / scf.while / scf.if / tt.call, each region run by runBlock ----
void Reference::bindResults(const Operation& op, std::vector<Lanes> values) {
  if (values.size() != op.numResults()) return fail("reference: " + std::string(op.name()) + " yields the wrong number of values");
  for (size_t i = 0; i < values.size(); ++i) env_[op.result(i)] = std::move(values[i]);
}

// A scalar that decides control flow; an undefined one must be reported by the interpreter.
uint64_t Reference::controlScalar(const Value* value) {
  const Lanes& lanes = get(value);
  if (lanes.undefined[0]) outcome_.undefinedReachesMemory = true;
  return lanes.bits[0];
}

void Reference::forLoop(const Operation& op) {
  ScalarKind kind = op.operand(0)->type.scalarKind();
  const bool isUnsigned = ForView{op}.unsignedCompare();
  auto value = [&](uint64_t bits) { return isUnsigned ? static_cast<int64_t>(maskToWidth(bits, kind)) : signExtendLane(bits, kind); };
  int64_t lower = value(controlScalar(op.operand(0))), upper = value(controlScalar(op.operand(1))),
          step = value(controlScalar(op.operand(2)));
  std::vector<Lanes> carried;
  for (size_t i = 3; i < op.numOperands(); ++i) carried.push_back(get(op.operand(i)));
  const Block& body = op.region(0).front();
  int64_t iterations = 0;
  for (int64_t iv = lower; iv < upper; iv += step) {
    if (++iterations > kMaxIterations || step <= 0) return fail("reference: scf.for runs too long");
    Lanes ivLanes = makeLanes(body.argument(0)->type);
    ivLanes.bits[0] = maskToWidth(static_cast<uint64_t>(iv), kind);
    env_[body.argument(0)] = std::move(ivLanes);
    for (size_t i = 0; i < carried.size(); ++i) env_[body.argument(i + 1)] = carried[i];
    carried = runBlock(body);
    if (!outcome_.error.empty()) return;
  }
  bindResults(op, std::move(carried));
}

void Reference::whileLoop(const Operation& op) {
  std::vector<Lanes> carried;
  for (const Value* v : op.operands) carried.push_back(get(v));
  const Block& before = op.region(0).front();
  const Block& after = op.region(1).front();
  for (int64_t iteration = 0;; ++iteration) {
    if (iteration > kMaxIterations) return fail("reference: scf.while runs too long");
    for (size_t i = 0; i < carried.size(); ++i) env_[before.argument(i)] = carried[i];
    std::vector<Lanes> condition = runBlock(before);
    if (!outcome_.error.empty()) return;
    if (condition.empty()) return fail("reference: scf.while without scf.condition");
    if (condition[0].undefined[0]) outcome_.undefinedReachesMemory = true;
    std::vector<Lanes> forwarded(condition.begin() + 1, condition.end());
    if (!(condition[0].bits[0] & 1)) return bindResults(op, std::move(forwarded));
    for (size_t i = 0; i < forwarded.size(); ++i) env_[after.argument(i)] = forwarded[i];
    carried = runBlock(after);
    if (!outcome_.error.empty()) return;
  }
}

void Reference::ifThenElse(const Operation& op) {
  const bool taken = controlScalar(op.operand(0)) & 1;
  const Region& region = op.region(taken ? 0 : 1);
  if (region.empty()) return bindResults(op, {});
  bindResults(op, runBlock(region.front()));
}

void Reference::call(const Operation& op) {
  std::optional<Function> function = module_ ? module_->findFunction(CallView{op}.callee()) : std::nullopt;
  if (!function) return fail("reference: tt.call of an unknown function (no module given?)");
  for (size_t i = 0; i < op.numOperands(); ++i) env_[function->argument(i)] = get(op.operand(i));
  bindResults(op, runBlock(function->body()));
}

void Reference::assertion(const Operation& op) {
  const Lanes& condition = get(op.operand(0));
  for (int64_t i = 0; i < condition.size(); ++i) {
    if (condition.undefined[i]) outcome_.undefinedReachesMemory = true;
    else if (!(condition.bits[i] & 1)) outcome_.assertFails = true;
  }
}

}  // namespace reference

bool referenceDependsOnProfile(const Module& module) {
  // Keep in step with every read of Reference::exactMath_ (evalLane's math library functions, atomic fadd).
  bool depends = false;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) { depends = depends || usesLibraryMath(op.kind) || op.kind == OpKind::TTAtomicRMW; });
  return depends;
}

ReferenceOutcome runReference(const Function& kernel, const std::vector<LaunchArgument>& arguments,
                              std::array<int64_t, 3> grid, FloatProfile profile, const Module* module) {
  return reference::Reference(kernel, arguments, grid, profile, module).run();
}

}  // namespace tilesim::fuzz
