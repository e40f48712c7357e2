// Op creation, naming, constants and broadcasting for the builder (see Emitter.h).
#include "ir/builder/Emitter.h"

#include <algorithm>
#include <functional>

#include "ir/Assert.h"
#include "ir/FloatBits.h"
#include "ir/builder/Promotion.h"

namespace tilesim::builder {

void checkBlockShape(const std::vector<int64_t>& shape) {
  int64_t numel = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0 || (shape[i] & (shape[i] - 1)) != 0)
      throwFrontendError(FrontendError::Kind::ValueError, "Shape element " + std::to_string(i) + " must be a power of 2");
    numel *= shape[i];
  }
  if (numel > (int64_t{1} << 20))
    throwFrontendError(FrontendError::Kind::ValueError,
                       "numel (" + std::to_string(numel) + ") exceeds triton maximum tensor numel (1048576)");
}

Emitter::Emitter(const std::string& kernelName) : module_(std::make_unique<Module>()) {
  auto function = std::make_unique<Operation>(OpKind::TTFunc);
  function->setAttr("sym_name", Attribute::string(kernelName));
  function->setAttr("noinline", Attribute::boolean(false));
  Block& body = function->addRegion().addBlock();
  blocks_.push_back(&body);
  function_ = function.get();
  module_->functions.push_back(std::move(function));
  finishSignature();
}

std::unique_ptr<Module> Emitter::takeModule() {
  finishSignature();
  return std::move(module_);
}

Value* Emitter::addArgument(Type type, const std::string& name, std::vector<NamedAttribute> attributes) {
  Block& body = function_->region(0).front();
  usedNames_.insert(name);
  Value* argument = body.addArgument(type, name);
  std::vector<Attribute> all;
  if (const Attribute* old = function_->attr("arg_attrs")) all = old->elements();
  all.push_back(Attribute::dictionary(std::move(attributes)));
  function_->setAttr("arg_attrs", Attribute::array(std::move(all)));
  finishSignature();
  return argument;
}

void Emitter::finishSignature() {
  std::vector<Type> inputs;
  for (const auto& argument : function_->region(0).front().arguments) inputs.push_back(argument->type);
  function_->setAttr("function_type", Attribute::typeAttr(Type::function(inputs, {})));
}

void Emitter::nameValue(Value* value) {
  if (nameHint_.empty()) return;
  std::string name = nameHint_;
  while (usedNames_.count(name)) name = nameHint_ + "_" + std::to_string(nameCounter_++);
  usedNames_.insert(name);
  value->name = name;
}

void Emitter::nameValue(Value* value, const std::string& hint) {
  std::string saved = std::move(nameHint_);
  nameHint_ = hint;
  nameValue(value);
  nameHint_ = std::move(saved);
}

Operation* Emitter::create(OpKind kind, std::vector<Value*> operands, std::vector<Type> resultTypes,
                           std::vector<NamedAttribute> attributes) {
  auto op = std::make_unique<Operation>(kind);
  op->operands = std::move(operands);
  op->attributes = std::move(attributes);
  for (Type type : resultTypes) nameValue(op->addResult(type));
  return block().append(std::move(op));
}

Type Emitter::typeOf(DType dtype, bool pointer, const std::vector<int64_t>& shape) {
  Type element = irType(dtype);
  if (pointer) element = Type::pointer(element);
  return shape.empty() ? element : Type::tensor(std::span<const int64_t>(shape), element);
}

// The literal's value in `dtype`'s bit format: ints wrap to the width, floats round to nearest even.
static uint64_t literalBits(const Literal& value, DType dtype) {
  if (isFloating(dtype)) return floatBitsFromDouble(value.asDouble(), scalarKindOf(dtype));
  BigInt integer = value.kind == Literal::Kind::Float ? static_cast<BigInt>(value.floatValue) : value.intValue;
  int bits = primitiveBitWidth(dtype);
  uint64_t raw = static_cast<uint64_t>(integer);
  return bits == 64 ? raw : raw & ((uint64_t{1} << bits) - 1);
}

Tensor Emitter::constant(const Literal& value, DType dtype, const std::vector<int64_t>& shape) {
  Type type = typeOf(dtype, false, shape);
  uint64_t bits = literalBits(value, dtype);
  Attribute attribute;
  if (!shape.empty()) {
    attribute = Attribute::dense(type, {bits});
  } else if (isFloating(dtype)) {
    attribute = Attribute::floating(bits, type);
  } else {
    int width = primitiveBitWidth(dtype);
    int64_t signExtended = width == 64 ? static_cast<int64_t>(bits)
                                       : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
    if (width == 1) signExtended = static_cast<int64_t>(bits);
    attribute = Attribute::integer(signExtended, type);
  }
  Value* result = createValue(OpKind::ArithConstant, {}, type, {{"value", attribute}});
  return tensorOf(result, dtype, false, shape);
}

Tensor Emitter::splat(const Tensor& scalar, const std::vector<int64_t>& shape) {
  checkBlockShape(shape);
  Operation* definer = scalar.value->definingOp;
  if (definer && definer->kind == OpKind::ArithConstant) {
    // splat(constant) folds to a dense constant, as Triton's canonicalizer does.
    const Attribute* value = definer->attr("value");
    uint64_t bits = value->kind() == Attribute::Kind::Float ? value->bits() : static_cast<uint64_t>(value->intValue());
    int width = primitiveBitWidth(scalar.dtype);
    if (width < 64) bits &= (uint64_t{1} << width) - 1;
    Type type = typeOf(scalar.dtype, scalar.pointer, shape);
    Value* result = createValue(OpKind::ArithConstant, {}, type, {{"value", Attribute::dense(type, {bits})}});
    return tensorOf(result, scalar.dtype, false, shape);
  }
  Value* result = createValue(OpKind::TTSplat, {scalar.value}, typeOf(scalar.dtype, scalar.pointer, shape));
  return tensorOf(result, scalar.dtype, scalar.pointer, shape);
}

Tensor Emitter::expandDims(const Tensor& x, int axis) {
  std::vector<int64_t> shape = x.shape;
  shape.insert(shape.begin() + axis, 1);
  Value* result = createValue(OpKind::TTExpandDims, {x.value}, typeOf(x.dtype, x.pointer, shape),
                              {{"axis", Attribute::integer(axis, Type::i32())}});
  return tensorOf(result, x.dtype, x.pointer, shape);
}

Tensor Emitter::broadcast(const Tensor& x, const std::vector<int64_t>& shape) {
  if (x.shape == shape) return x;
  if (!x.isBlock()) return splat(x, shape);
  Value* result = createValue(OpKind::TTBroadcast, {x.value}, typeOf(x.dtype, x.pointer, shape));
  return tensorOf(result, x.dtype, x.pointer, shape);
}

std::pair<Tensor, Tensor> Emitter::broadcastPair(const Tensor& a, const Tensor& b) {
  Tensor lhs = a, rhs = b;
  if (lhs.isBlock() && !rhs.isBlock()) return {lhs, splat(rhs, lhs.shape)};
  if (!lhs.isBlock() && rhs.isBlock()) return {splat(lhs, rhs.shape), rhs};
  if (!lhs.isBlock()) return {lhs, rhs};
  while (lhs.rank() < rhs.rank()) lhs = expandDims(lhs, 0);
  while (rhs.rank() < lhs.rank()) rhs = expandDims(rhs, 0);
  std::vector<int64_t> shape;
  for (int i = 0; i < lhs.rank(); ++i) {
    int64_t left = lhs.shape[i], right = rhs.shape[i];
    if (left == 1) shape.push_back(right);
    else if (right == 1 || right == left) shape.push_back(left);
    else
      throwFrontendError(FrontendError::Kind::ValueError,
                         "Cannot make_shape_compatible: incompatible dimensions at index " + std::to_string(i) +
                             ": " + std::to_string(left) + " and " + std::to_string(right));
  }
  return {broadcast(lhs, shape), broadcast(rhs, shape)};
}

void Emitter::removeDeadConstants() {
  std::set<const Value*> used;
  for (const auto& function : module_->functions)
    walk(*function, [&](const Operation& op) { used.insert(op.operands.begin(), op.operands.end()); });
  // Every block, including the regions of scf.for / scf.if bodies.
  std::function<void(Block&)> erase = [&](Block& block) {
    std::erase_if(block.operations, [&](const std::unique_ptr<Operation>& op) {
      return op->kind == OpKind::ArithConstant && !used.count(op->result(0));
    });
    for (const auto& op : block.operations)
      for (const auto& region : op->regions)
        for (const auto& nested : region->blocks) erase(*nested);
  };
  erase(function_->region(0).front());
}

}  // namespace tilesim::builder
