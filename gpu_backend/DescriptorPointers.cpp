// Tensor descriptor accesses as tensors of pointers: DescriptorPointers.h says what and why.
#include "gpu_backend/DescriptorPointers.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"
#include "ir/analysis/Rewriter.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"

namespace tilesim::gpu {

std::string HostDescriptorFacts::key() const {
  return fmt::format("descriptor parameter {}: padding {}, last stride one {}, divisibility base {} strides {} last "
                     "extent {}",
                     parameter, padding, lastStrideIsOne, baseDivisibility, strideDivisibility, lastExtentDivisibility);
}

int64_t powerOfTwoDividing(uint64_t value, int64_t cap) {
  if (value == 0) return cap;
  return std::min<int64_t>(cap, static_cast<int64_t>(value & (~value + 1)));
}

std::vector<HostDescriptorFacts> hostDescriptorFacts(const Launch& launch, const LaunchBinding& binding,
                                                     const std::function<uint64_t(size_t argument)>& baseAddress) {
  std::vector<HostDescriptorFacts> all;
  const Function& kernel = *launch.kernel;
  for (size_t p = 0; p < binding.numParameters() && p < kernel.numArguments(); ++p) {
    const BoundParameter& bound = binding.parameter(p);
    if (bound.kind != BoundParameter::Kind::TensorDescriptor) continue;
    const LaunchArgument& argument = launch.arguments[bound.argument];
    const size_t rank = argument.descShape.size();
    if (rank == 0 || argument.descStrides.size() != rank || p + 2 * rank >= binding.numParameters()) continue;
    HostDescriptorFacts facts;
    facts.parameter = p;
    facts.padding = argument.descPadding;
    facts.lastStrideIsOne = argument.descStrides.back() == 1;
    facts.baseDivisibility = powerOfTwoDividing(baseAddress(bound.argument), 16);
    facts.strideDivisibility = 16;
    for (size_t d = 0; d + 1 < rank; ++d)  // strides in elements; their bytes' divisibility is what vectors need
      facts.strideDivisibility = std::min(facts.strideDivisibility,
                                          powerOfTwoDividing(static_cast<uint64_t>(argument.descStrides[d]), 16));
    facts.lastExtentDivisibility = powerOfTwoDividing(static_cast<uint64_t>(argument.descShape.back()), 16);
    all.push_back(facts);
  }
  return all;
}

namespace {

// Where a descriptor's fields come from: values of the kernel.
struct DescriptorSource {
  Value* base = nullptr;          // !tt.ptr<element>
  std::vector<Value*> shape;      // integer scalars
  std::vector<Value*> strides;    // integer scalars; the last is 1 (checked before)
  int padding = 1;                // 1 zero, 2 NaN
};

// Appends ops before `anchor` in its block, one after the other, with the anchor's location.
class OpsBefore {
 public:
  explicit OpsBefore(const Operation& anchor)
      : block_(*anchor.parentBlock), position_(analysis::positionInBlock(anchor)), loc_(anchor.loc) {}

  Operation* op(OpKind kind, std::vector<Value*> operands, std::vector<Type> results,
                std::vector<NamedAttribute> attributes = {}) {
    auto made = std::make_unique<Operation>(kind);
    made->operands = std::move(operands);
    made->attributes = std::move(attributes);
    made->loc = loc_;
    made->parentBlock = &block_;
    for (Type type : results) made->addResult(type);
    Operation* raw = made.get();
    block_.operations.insert(block_.operations.begin() + static_cast<std::ptrdiff_t>(position_++), std::move(made));
    return raw;
  }
  Value* value(OpKind kind, std::vector<Value*> operands, Type type, std::vector<NamedAttribute> attributes = {}) {
    return op(kind, std::move(operands), {type}, std::move(attributes))->result(0);
  }

  Value* toI64(Value* scalar) {
    if (scalar->type.scalarKind() == ScalarKind::I64) return scalar;
    return value(OpKind::ArithExtSI, {scalar}, Type::i64());
  }
  Value* splat(Value* scalar, std::span<const int64_t> shape) {
    return value(OpKind::TTSplat, {scalar}, Type::tensor(shape, scalar->type));
  }
  Value* constant(std::span<const int64_t> shape, Type element, uint64_t bits) {
    const Type type = Type::tensor(shape, element);
    return value(OpKind::ArithConstant, {}, type, {{"value", Attribute::dense(type, {bits})}});
  }
  Value* compare(std::string_view predicate, Value* left, Value* right) {
    const Type flags = left->type.isTensor() ? left->type.withElement(Type::i1()) : Type::i1();
    return value(OpKind::ArithCmpI, {left, right}, flags,
                 {{"predicate", Attribute::keyword(std::string(predicate))}});
  }
  Value* broadcast(Value* tensor, std::span<const int64_t> shape) {
    if (std::ranges::equal(tensor->type.shape(), shape)) return tensor;
    return value(OpKind::TTBroadcast, {tensor}, tensor->type.withShape(shape).withElement(tensor->type.element()));
  }

  Value* scalarI64(int64_t number) {
    return value(OpKind::ArithConstant, {}, Type::i64(), {{"value", Attribute::integer(number, Type::i64())}});
  }

  // The i64 positions [0, shape[d]) along dimension `d` of a block of `shape`, size 1 elsewhere.
  Value* positions(std::span<const int64_t> shape, size_t d) {
    const int64_t extent = shape[d];
    Value* range = value(OpKind::TTMakeRange, {}, Type::tensor({extent}, Type::i32()),
                         {{"end", Attribute::integer(extent, Type::i32())}, {"start", Attribute::integer(0, Type::i32())}});
    std::vector<int64_t> at{extent};
    for (size_t axis = 0; axis < shape.size(); ++axis) {  // d ones before, the rest after
      if (axis == d) continue;
      const size_t where = axis < d ? 0 : at.size();
      at.insert(at.begin() + static_cast<std::ptrdiff_t>(where), 1);
      range = value(OpKind::TTExpandDims, {range}, Type::tensor(at, Type::i32()),
                    {{"axis", Attribute::integer(static_cast<int64_t>(where), Type::i32())}});
    }
    return value(OpKind::ArithExtSI, {range}, Type::tensor(at, Type::i64()));
  }

 private:
  Block& block_;
  size_t position_;
  LocId loc_;
};

// The shape of the tensor an access loads or stores: the block's, or the block's without its size-1 dimensions
// (Triton 3.6 folds that reshape into the access: a [1, 32, 32] block loads as tensor<32x32>).
std::span<const int64_t> accessShape(const Operation& access) {
  const Value* tensor = access.kind == OpKind::TTDescriptorLoad ? access.result() : access.operand(access.numOperands() - 1);
  return tensor->type.shape();
}

// The result axis of each block dimension (-1: a size-1 dimension the access shape drops); nullopt when the access
// shape is neither the block's nor the block's without its size-1 dimensions.
std::optional<std::vector<int>> resultAxes(std::span<const int64_t> block, std::span<const int64_t> shape) {
  std::vector<int> axes(block.size());
  if (std::ranges::equal(block, shape)) {
    for (size_t d = 0; d < block.size(); ++d) axes[d] = static_cast<int>(d);
    return axes;
  }
  int next = 0;
  for (size_t d = 0; d < block.size(); ++d) {
    if (block[d] == 1) {
      axes[d] = -1;
    } else {
      if (next >= static_cast<int>(shape.size()) || shape[static_cast<size_t>(next)] != block[d]) return std::nullopt;
      axes[d] = next++;
    }
  }
  if (next != static_cast<int>(shape.size())) return std::nullopt;
  return axes;
}

// The pointers and the in-bounds mask, in the access's shape, of the descriptor access `access` (load: desc,
// indices; store: desc, indices, value), built before it. Element i of dimension d is at coordinate start_d + i_d:
// its offset Σ (start_d + i_d) stride_d is built as splat(Σ start_d stride_d) + Σ i_d stride_d, so that the tensor
// part depends on nothing the loop changes (LLVM hoists it; a k loop then pays one scalar sum and one add per
// pointer, as a pointer loop's increments), and its bound 0 <= start_d + i_d < shape_d as one unsigned compare of
// the coordinate (per row or column, not per element) with max(shape_d, 0): the same i64 numbers, the same
// elements in bounds. A size-1 block dimension the access shape drops is a scalar coordinate (its bound splatted).
std::pair<Value*, Value*> pointersAndMask(OpsBefore& at, const Operation& access, const DescriptorSource& source,
                                         Type block) {
  const std::span<const int64_t> shape = accessShape(access);
  const std::vector<int> axes = *resultAxes(block.shape(), shape);
  const size_t rank = axes.size();
  Value *scalarOffset = nullptr, *tensorOffset = nullptr, *mask = nullptr;
  for (size_t d = 0; d < rank; ++d) {
    Value* start = at.toI64(access.operand(1 + d));
    Value* extent = at.toI64(source.shape[d]);
    Value* stride = d + 1 == rank ? nullptr : at.toI64(source.strides[d]);  // the last is 1
    Value* startTerm = stride ? at.value(OpKind::ArithMulI, {start, stride}, Type::i64()) : start;
    scalarOffset = scalarOffset ? at.value(OpKind::ArithAddI, {scalarOffset, startTerm}, Type::i64()) : startTerm;
    Value* inside = nullptr;
    if (axes[d] < 0) {
      inside = at.value(OpKind::ArithAndI, {at.compare("sge", start, at.scalarI64(0)), at.compare("slt", start, extent)},
                        Type::i1());
      inside = at.splat(inside, shape);
    } else {
      Value* positions = at.positions(shape, static_cast<size_t>(axes[d]));
      const std::span<const int64_t> along = positions->type.shape();
      // 0 <= c < extent as one unsigned compare with max(extent, 0): a negative c is above every i64 extent.
      Value* coordinate = at.value(OpKind::ArithAddI, {at.splat(start, along), positions}, positions->type);
      Value* bound = at.value(OpKind::ArithMaxSI, {extent, at.scalarI64(0)}, Type::i64());
      inside = at.broadcast(at.compare("ult", coordinate, at.splat(bound, along)), shape);
      Value* term = stride ? at.value(OpKind::ArithMulI, {positions, at.splat(stride, along)}, positions->type) : positions;
      term = at.broadcast(term, shape);
      tensorOffset = tensorOffset ? at.value(OpKind::ArithAddI, {tensorOffset, term}, term->type) : term;
    }
    mask = mask ? at.value(OpKind::ArithAndI, {mask, inside}, inside->type) : inside;
  }
  Value* offsets = at.splat(scalarOffset, shape);
  if (tensorOffset) offsets = at.value(OpKind::ArithAddI, {offsets, tensorOffset}, tensorOffset->type);
  Value* pointers = at.value(OpKind::TTAddPtr, {at.splat(source.base, shape), offsets},
                             Type::tensor(shape, source.base->type));
  return {pointers, mask};
}

void replaceUses(Operation& root, Value* from, Value* to) {
  walk(root, [&](const Operation& op) {
    for (Value*& operand : const_cast<Operation&>(op).operands)
      if (operand == from) operand = to;
  });
}

// Every use of `descriptor` is operand 0 of a descriptor_load or descriptor_store with a signless or float block;
// those ops, in program order. Empty when some use is anything else (or there is none).
std::vector<Operation*> rewritableAccesses(Operation& function, const Value* descriptor) {
  std::vector<Operation*> accesses;
  bool other = false;
  walk(function, [&](const Operation& op) {
    for (size_t i = 0; i < op.numOperands(); ++i) {
      if (op.operand(i) != descriptor) continue;
      const bool access = (op.kind == OpKind::TTDescriptorLoad || op.kind == OpKind::TTDescriptorStore) && i == 0;
      const Type block = descriptor->type.descBlock();
      const bool shaped = access && resultAxes(block.shape(), accessShape(op)).has_value();
      if (!shaped || block.element().signless() != block.element()) other = true;
      else accesses.push_back(const_cast<Operation*>(&op));
    }
  });
  if (other) accesses.clear();
  return accesses;
}

// `block`: the descriptor's block type (passed: a host descriptor parameter is already retyped to its base).
void rewriteAccesses(Operation& function, const std::vector<Operation*>& accesses, const DescriptorSource& source,
                     Type block) {
  for (Operation* access : accesses) {
    OpsBefore at(*access);
    auto [pointers, mask] = pointersAndMask(at, *access, source, block);
    if (access->kind == OpKind::TTDescriptorLoad) {
      const Type element = block.element();
      const uint64_t padBits = source.padding == 2 && element.isFloat() ? quietNaNBits(element.scalarKind()) : 0;
      Value* other = at.constant(accessShape(*access), element, padBits);
      Value* loaded = at.value(OpKind::TTLoad, {pointers, mask, other}, access->result()->type);
      replaceUses(function, access->result(), loaded);
    } else {
      at.op(OpKind::TTStore, {pointers, access->operand(access->numOperands() - 1), mask}, {});
    }
    Block& block_ = *access->parentBlock;
    block_.operations.erase(block_.operations.begin() + static_cast<std::ptrdiff_t>(analysis::positionInBlock(*access)));
  }
}

bool isConstantOne(const Value* value) {
  const Operation* op = value->definingOp;
  if (!op || op->kind != OpKind::ArithConstant || value->type.isTensor()) return false;
  const ConstantView constant{*op};
  return constant.value() && constant.value()->kind() == Attribute::Kind::Integer && constant.bitsAt(0) == 1;
}

// Descriptors made in the kernel: their fields are the op's operands.
bool rewriteMadeDescriptors(Operation& function) {
  std::vector<Operation*> made;
  walk(function, [&](const Operation& op) {
    if (op.kind == OpKind::TTMakeTensorDescriptor) made.push_back(const_cast<Operation*>(&op));
  });
  bool changed = false;
  for (Operation* op : made) {
    const size_t rank = static_cast<size_t>(op->result()->type.descBlock().rank());
    if (op->numOperands() != 1 + 2 * rank || !isConstantOne(op->operand(2 * rank))) continue;
    std::vector<Operation*> accesses = rewritableAccesses(function, op->result());
    if (accesses.empty()) continue;
    DescriptorSource source{op->operand(0), {}, {}, TensorDescriptorView{*op}.padding()};
    for (size_t d = 0; d < rank; ++d) {
      source.shape.push_back(op->operand(1 + d));
      source.strides.push_back(op->operand(1 + rank + d));
    }
    rewriteAccesses(function, accesses, source, op->result()->type.descBlock());
    changed = true;
  }
  return changed;
}

void setDivisibility(std::vector<Attribute>& argumentAttributes, size_t index, int64_t divisibility) {
  if (divisibility <= 1) return;
  std::vector<NamedAttribute> entries = argumentAttributes[index].entries();
  std::erase_if(entries, [](const NamedAttribute& entry) { return entry.name == "tt.divisibility"; });
  entries.push_back({"tt.divisibility", Attribute::integer(divisibility, Type::i32())});
  argumentAttributes[index] = Attribute::dictionary(std::move(entries));
}

// A host descriptor parameter: its base pointer, then an unused i32 where the padding is passed; the shape and
// strides parameters after it carry the launch's divisibility facts.
bool rewriteHostDescriptor(Operation& function, const HostDescriptorFacts& facts) {
  Block& body = function.region(0).front();
  const size_t p = facts.parameter;
  if (p >= body.arguments.size() || !body.argument(p)->type.isTensorDesc() || !facts.lastStrideIsOne) return false;
  Value* descriptor = body.argument(p);
  const Type block = descriptor->type.descBlock();
  const size_t rank = static_cast<size_t>(block.rank());
  if (p + 2 * rank >= body.arguments.size()) return false;
  std::vector<Operation*> accesses = rewritableAccesses(function, descriptor);
  if (accesses.empty()) return false;

  std::vector<Attribute> argumentAttributes;
  for (size_t i = 0; i < body.arguments.size(); ++i)
    argumentAttributes.push_back(Attribute::dictionary(Function(&function).argumentAttributes(i)));
  descriptor->type = Type::pointer(block.element());  // the base: splat into the pointers below
  DescriptorSource source{descriptor, {}, {}, facts.padding};
  for (size_t d = 0; d < rank; ++d) {
    source.shape.push_back(body.argument(p + 1 + d));
    source.strides.push_back(body.argument(p + 1 + rank + d));
  }
  rewriteAccesses(function, accesses, source, block);
  auto slot = std::make_unique<Value>();
  slot->type = Type::i32();
  slot->name = descriptor->name.empty() ? "" : descriptor->name + "_padding";
  slot->ownerBlock = &body;
  body.arguments.insert(body.arguments.begin() + static_cast<std::ptrdiff_t>(p + 1), std::move(slot));
  for (size_t i = 0; i < body.arguments.size(); ++i) body.arguments[i]->index = static_cast<unsigned>(i);
  argumentAttributes.insert(argumentAttributes.begin() + static_cast<std::ptrdiff_t>(p + 1), Attribute::dictionary({}));
  setDivisibility(argumentAttributes, p, facts.baseDivisibility);
  setDivisibility(argumentAttributes, p + 1 + rank, facts.lastExtentDivisibility);  // shape[rank - 1]
  for (size_t d = 0; d + 1 < rank; ++d) setDivisibility(argumentAttributes, p + 2 + rank + d, facts.strideDivisibility);
  function.setAttr("arg_attrs", Attribute::array(std::move(argumentAttributes)));
  std::vector<Type> inputs;
  for (const auto& argument : body.arguments) inputs.push_back(argument->type);
  function.setAttr("function_type", Attribute::typeAttr(Type::function(inputs, {})));  // a kernel returns nothing
  return true;
}

}  // namespace

std::unique_ptr<Module> descriptorsAsPointers(const Module& module, const std::string& kernelName,
                                              std::span<const HostDescriptorFacts> hostFacts) {
  bool any = !hostFacts.empty();
  if (!any)
    if (std::optional<Function> kernel = module.findFunction(kernelName))
      walk(*kernel->op(), [&](const Operation& op) { any = any || op.kind == OpKind::TTMakeTensorDescriptor; });
  if (!any) return nullptr;
  // The printer keeps every op's position, so the copy's diagnostics point into the user's file. A module whose
  // text does not parse back (a printer bug) is compiled as written.
  ParseResult copy = parseModule(printModule(module), module.sourceName);
  if (!copy.module) return nullptr;
  std::optional<Function> kernel = copy.module->findFunction(kernelName);
  if (!kernel) return nullptr;
  bool changed = rewriteMadeDescriptors(*kernel->op());
  // Later parameters first: inserting a padding slot shifts the ones after it.
  std::vector<HostDescriptorFacts> facts(hostFacts.begin(), hostFacts.end());
  std::ranges::sort(facts, [](const auto& a, const auto& b) { return a.parameter > b.parameter; });
  for (const HostDescriptorFacts& fact : facts) changed = rewriteHostDescriptor(*kernel->op(), fact) || changed;
  if (!changed) return nullptr;
  numberValues(*kernel);
  return std::move(copy.module);
}

}  // namespace tilesim::gpu
