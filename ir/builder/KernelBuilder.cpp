// KernelBuilder's API: the error boundary (every call runs under `guarded`), the kernel signature, program
// ids, ranges, constants, loads/stores/atomics and shape ops. Operators are in Arithmetic.cpp (semantic::),
// reductions, scans and dot in Reduction.cpp.
#include "ir/builder/KernelBuilder.h"

#include "ir/builder/Semantic.h"

namespace tilesim::builder {

KernelBuilder::KernelBuilder(std::string kernelName) : emitter_(std::make_unique<Emitter>(kernelName)) {}
KernelBuilder::~KernelBuilder() = default;

void KernelBuilder::setNameHint(std::string hint) { emitter_->setNameHint(std::move(hint)); }

Tensor KernelBuilder::pointerArg(const std::string& name, DType pointee, bool divisibleBy16) {
  return pointerArgWithDivisibility(name, pointee, divisibleBy16 ? 16 : 0);
}

Tensor KernelBuilder::pointerArgWithDivisibility(const std::string& name, DType pointee, int divisibility) {
  std::vector<NamedAttribute> attributes;
  if (divisibility > 1) attributes.push_back({"tt.divisibility", Attribute::integer(divisibility, Type::i32())});
  Value* value = emitter_->addArgument(Type::pointer(irType(pointee)), name, std::move(attributes));
  return Emitter::tensorOf(value, pointee, true, {});
}

Tensor KernelBuilder::scalarArg(const std::string& name, DType dtype) {
  Value* value = emitter_->addArgument(irType(dtype), name, {});
  return Emitter::tensorOf(value, dtype, false, {});
}

static const char* axisKeyword(int axis) {
  if (axis < 0 || axis > 2)
    throwFrontendError(FrontendError::Kind::ValueError, "program_id axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return axis == 0 ? "x" : axis == 1 ? "y" : "z";
}

Tensor KernelBuilder::programId(int axis) {
  return guarded([&] {
    Value* value = emitter_->createValue(OpKind::TTGetProgramId, {}, Type::i32(), {{"axis", Attribute::keyword(axisKeyword(axis))}});
    return Emitter::tensorOf(value, DType::Int32, false, {});
  });
}

Tensor KernelBuilder::numPrograms(int axis) {
  return guarded([&] {
    Value* value = emitter_->createValue(OpKind::TTGetNumPrograms, {}, Type::i32(), {{"axis", Attribute::keyword(axisKeyword(axis))}});
    return Emitter::tensorOf(value, DType::Int32, false, {});
  });
}

Tensor KernelBuilder::arange(int64_t start, int64_t end) {
  return guarded([&] {
    if ((start >> 32) != 0 || (end >> 32) != 0) throwFrontendError(FrontendError::Kind::ValueError, "arange must fit in int32");
    if (end <= start)
      throwFrontendError(FrontendError::Kind::ValueError, "arange's end argument must be greater than the start argument");
    int64_t range = end - start;
    if ((range & (range - 1)) != 0) throwFrontendError(FrontendError::Kind::ValueError, "arange's range must be a power of 2");
    std::vector<int64_t> shape{range};
    checkBlockShape(shape);
    Value* value = emitter_->createValue(OpKind::TTMakeRange, {}, Emitter::typeOf(DType::Int32, false, shape),
                                         {{"end", Attribute::integer(end, Type::i32())},
                                          {"start", Attribute::integer(start, Type::i32())}});
    return Emitter::tensorOf(value, DType::Int32, false, shape);
  });
}

Tensor KernelBuilder::full(std::vector<int64_t> shape, const Literal& value, DType dtype) {
  return guarded([&] {
    checkBlockShape(shape);
    return emitter_->constant(value, dtype, shape);
  });
}

Tensor KernelBuilder::toTensor(const Operand& operand) {
  return guarded([&] { return semantic::toTensor(*emitter_, operand); });
}

// broadcast_impl_shape: a scalar is splatted; a block must already have the rank and broadcastable dims.
static Tensor broadcastToShape(Emitter& emitter, const Tensor& x, const std::vector<int64_t>& shape) {
  if (!x.isBlock()) return shape.empty() ? x : emitter.splat(x, shape);
  if (x.rank() != static_cast<int>(shape.size()))
    throwFrontendError(FrontendError::Kind::ValueError, "Cannot broadcast, rank mismatch: " + std::to_string(x.rank()) +
                                                            ", " + std::to_string(shape.size()));
  for (size_t i = 0; i < shape.size(); ++i)
    if (x.shape[i] != shape[i] && x.shape[i] != 1)
      throwFrontendError(FrontendError::Kind::ValueError,
                         "Cannot broadcast, the expanded size of the tensor (" + std::to_string(shape[i]) +
                             ") must match the existing size (" + std::to_string(x.shape[i]) +
                             ") at non-singleton dimension " + std::to_string(i));
  return emitter.broadcast(x, shape);
}

Tensor KernelBuilder::load(const Tensor& pointer, std::optional<Operand> mask, std::optional<Operand> other) {
  return guarded([&] {
    if (!pointer.pointer) throwFrontendError(FrontendError::Kind::ValueError, "Unsupported ptr type in `tl.load`");
    if (!mask && other) throwFrontendError(FrontendError::Kind::ValueError, "`other` cannot be provided without `mask`");
    std::vector<Value*> operands{pointer.value};
    if (mask) {
      Tensor maskTensor = semantic::toTensor(*emitter_, *mask);
      if (!pointer.isBlock() && maskTensor.isBlock())
        throwFrontendError(FrontendError::Kind::ValueError, "Mask argument cannot be block type if pointer argument is not a block");
      maskTensor = broadcastToShape(*emitter_, maskTensor, pointer.shape);
      operands.push_back(emitter_->cast(maskTensor, DType::Int1).value);
    }
    if (other) {
      Tensor otherTensor = semantic::toTensor(*emitter_, *other);
      if (!pointer.isBlock() && otherTensor.isBlock())
        throwFrontendError(FrontendError::Kind::ValueError, "Other argument cannot be block type if pointer argument is not a block");
      otherTensor = emitter_->cast(otherTensor, pointer.dtype);
      operands.push_back(broadcastToShape(*emitter_, otherTensor, pointer.shape).value);
    }
    Value* value = emitter_->createValue(OpKind::TTLoad, operands, Emitter::typeOf(pointer.dtype, false, pointer.shape));
    return Emitter::tensorOf(value, pointer.dtype, false, pointer.shape);
  });
}

void KernelBuilder::store(const Tensor& pointer, const Operand& value, std::optional<Operand> mask) {
  guarded([&] {
    if (!pointer.pointer) throwFrontendError(FrontendError::Kind::ValueError, "Unsupported ptr type in `tl.store`");
    Tensor stored = broadcastToShape(*emitter_, semantic::toTensor(*emitter_, value), pointer.shape);
    stored = emitter_->cast(stored, pointer.dtype);
    std::vector<Value*> operands{pointer.value, stored.value};
    if (mask) {
      Tensor maskTensor = broadcastToShape(*emitter_, semantic::toTensor(*emitter_, *mask), pointer.shape);
      operands.push_back(emitter_->cast(maskTensor, DType::Int1).value);
    }
    emitter_->create(OpKind::TTStore, operands, {});
    return 0;
  });
}

Tensor KernelBuilder::atomic(AtomicOp op, const Tensor& pointer, const Operand& value, std::optional<Operand> mask) {
  return guarded([&] {
    if (!pointer.pointer) throwFrontendError(FrontendError::Kind::ValueError, "Unsupported ptr type in atomic");
    DType element = pointer.dtype;
    AtomicRmwKind rmwKind = AtomicRmwKind::Add;
    switch (op) {
      case AtomicOp::Add: rmwKind = isFloating(element) ? AtomicRmwKind::FAdd : AtomicRmwKind::Add; break;
      case AtomicOp::Max: rmwKind = isSignedInt(element) ? AtomicRmwKind::Max : AtomicRmwKind::UMax; break;
      case AtomicOp::Min: rmwKind = isSignedInt(element) ? AtomicRmwKind::Min : AtomicRmwKind::UMin; break;
      case AtomicOp::And: rmwKind = AtomicRmwKind::And; break;
      case AtomicOp::Or: rmwKind = AtomicRmwKind::Or; break;
      case AtomicOp::Xor: rmwKind = AtomicRmwKind::Xor; break;
      case AtomicOp::Xchg: rmwKind = AtomicRmwKind::Exch; break;
    }
    const std::string keyword(keywordName(rmwKind));
    if ((op == AtomicOp::Max || op == AtomicOp::Min) && isFloating(element))
      throwFrontendError(FrontendError::Kind::TypeError, "the builder does not support floating-point atomic max/min yet");
    if ((op == AtomicOp::And || op == AtomicOp::Or || op == AtomicOp::Xor) && !isInt(element))
      throwFrontendError(FrontendError::Kind::ValueError, "atomic_" + keyword + " does not support " + std::string(dtypeName(element)));
    Tensor operand = broadcastToShape(*emitter_, semantic::toTensor(*emitter_, value), pointer.shape);
    operand = emitter_->cast(operand, element);
    std::vector<Value*> operands{pointer.value, operand.value};
    if (mask) {
      Tensor maskTensor = broadcastToShape(*emitter_, semantic::toTensor(*emitter_, *mask), pointer.shape);
      operands.push_back(emitter_->cast(maskTensor, DType::Int1).value);
    }
    Value* result = emitter_->createValue(OpKind::TTAtomicRMW, operands, Emitter::typeOf(element, false, pointer.shape),
                                          {{"atomic_rmw_op", Attribute::keyword(keyword)},
                                           {"sem", keywordAttribute(MemorySemantic::AcqRel)},
                                           {"scope", keywordAttribute(MemoryScope::Gpu)}});
    return Emitter::tensorOf(result, element, false, pointer.shape);
  });
}

Tensor KernelBuilder::atomicCas(const Tensor& pointer, const Operand& compare, const Operand& value) {
  return guarded([&] {
    if (!pointer.pointer) throwFrontendError(FrontendError::Kind::ValueError, "Unsupported ptr type in atomic_cas");
    Tensor cmp = emitter_->cast(broadcastToShape(*emitter_, semantic::toTensor(*emitter_, compare), pointer.shape), pointer.dtype);
    Tensor val = emitter_->cast(broadcastToShape(*emitter_, semantic::toTensor(*emitter_, value), pointer.shape), pointer.dtype);
    Value* result = emitter_->createValue(OpKind::TTAtomicCAS, {pointer.value, cmp.value, val.value},
                                          Emitter::typeOf(pointer.dtype, false, pointer.shape),
                                          {{"sem", keywordAttribute(MemorySemantic::AcqRel)}, {"scope", keywordAttribute(MemoryScope::Gpu)}});
    return Emitter::tensorOf(result, pointer.dtype, false, pointer.shape);
  });
}

// The two-operand methods: `semantic::rule(..., semantic::Family::op, a, b)` under guarded.
#define TILESIM_TWO_OPERANDS(method, rule, family, op) \
  Tensor KernelBuilder::method(const Operand& a, const Operand& b) { \
    return guarded([&] { return semantic::rule(*emitter_, semantic::family::op, a, b); }); \
  }
#define TILESIM_BINARY(method, op) TILESIM_TWO_OPERANDS(method, binary, BinaryOp, op)
#define TILESIM_COMPARE(method, op) TILESIM_TWO_OPERANDS(method, compare, CompareOp, op)
TILESIM_BINARY(add, Add)
TILESIM_BINARY(sub, Sub)
TILESIM_BINARY(mul, Mul)
TILESIM_BINARY(truediv, TrueDiv)
TILESIM_BINARY(floordiv, FloorDiv)
TILESIM_BINARY(mod, Mod)
TILESIM_BINARY(and_, And)
TILESIM_BINARY(or_, Or)
TILESIM_BINARY(xor_, Xor)
TILESIM_BINARY(shl, Shl)
TILESIM_BINARY(shr, Shr)
#undef TILESIM_BINARY

TILESIM_COMPARE(lt, Lt)
TILESIM_COMPARE(le, Le)
TILESIM_COMPARE(gt, Gt)
TILESIM_COMPARE(ge, Ge)
TILESIM_COMPARE(eq, Eq)
TILESIM_COMPARE(ne, Ne)
#undef TILESIM_COMPARE
#undef TILESIM_TWO_OPERANDS

#define TILESIM_MATH(method, op) \
  Tensor KernelBuilder::method(const Tensor& x) { \
    return guarded([&] { return semantic::math(*emitter_, semantic::MathOp::op, x); }); \
  }
TILESIM_MATH(exp, Exp)
TILESIM_MATH(exp2, Exp2)
TILESIM_MATH(log, Log)
TILESIM_MATH(log2, Log2)
TILESIM_MATH(sin, Sin)
TILESIM_MATH(cos, Cos)
TILESIM_MATH(sqrt, Sqrt)
TILESIM_MATH(rsqrt, Rsqrt)
TILESIM_MATH(floor, Floor)
TILESIM_MATH(ceil, Ceil)
#undef TILESIM_MATH

Tensor KernelBuilder::abs(const Tensor& x) { return guarded([&] { return semantic::abs(*emitter_, x); }); }
Tensor KernelBuilder::clamp(const Operand& x, const Operand& lo, const Operand& hi, PropagateNan nan) {
  return guarded([&] { return semantic::clamp(*emitter_, x, lo, hi, nan); });
}
Tensor KernelBuilder::fma(const Operand& x, const Operand& y, const Operand& z) {
  return guarded([&] { return semantic::fma(*emitter_, x, y, z); });
}
Tensor KernelBuilder::umulhi(const Operand& x, const Operand& y) {
  return guarded([&] { return semantic::umulhi(*emitter_, x, y); });
}
Tensor KernelBuilder::neg(const Tensor& x) { return guarded([&] { return semantic::minus(*emitter_, x); }); }
Tensor KernelBuilder::invert(const Tensor& x) { return guarded([&] { return semantic::invert(*emitter_, x); }); }
Tensor KernelBuilder::not_(const Tensor& x) {
  return guarded([&] { return semantic::invert(*emitter_, emitter_->bitcast(x, DType::Int1)); });
}
Tensor KernelBuilder::where(const Operand& condition, const Operand& x, const Operand& y) {
  return guarded([&] { return semantic::where(*emitter_, condition, x, y); });
}
Tensor KernelBuilder::maximum(const Operand& a, const Operand& b, PropagateNan nan) {
  return guarded([&] { return semantic::minMax(*emitter_, true, a, b, nan); });
}
Tensor KernelBuilder::minimum(const Operand& a, const Operand& b, PropagateNan nan) {
  return guarded([&] { return semantic::minMax(*emitter_, false, a, b, nan); });
}

Tensor KernelBuilder::cast(const Tensor& x, DType to, bool bitcast, std::optional<std::string> fpDowncastRounding) {
  return guarded([&] { return bitcast ? emitter_->bitcast(x, to) : emitter_->cast(x, to, fpDowncastRounding); });
}

Tensor KernelBuilder::blockLoad(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                const std::vector<Tensor>& offsets, const std::vector<int64_t>& blockShape,
                                const std::vector<Tensor>& advance, int padding) {
  return guarded([&] {
    if (!base.pointer || base.isBlock()) throwFrontendError(FrontendError::Kind::ValueError, "Expected `base` to be a pointer");
    const size_t rank = blockShape.size();
    if (shape.size() != rank || strides.size() != rank || offsets.size() != rank || (!advance.empty() && advance.size() != rank))
      throwFrontendError(FrontendError::Kind::ValueError, "Expected shape/strides/offsets/block_shape to have the same length");
    checkBlockShape(blockShape);
    std::vector<Value*> operands{base.value};
    for (int64_t extent : shape) operands.push_back(emitter_->constant(Literal(static_cast<long long>(extent)), DType::Int64).value);
    for (int64_t stride : strides) operands.push_back(emitter_->constant(Literal(static_cast<long long>(stride)), DType::Int64).value);
    for (const Tensor& offset : offsets) operands.push_back(emitter_->cast(offset, DType::Int32).value);
    std::vector<int64_t> order;
    for (size_t d = rank; d-- > 0;) order.push_back(static_cast<int64_t>(d));
    const Type pointerType = Type::pointer(Emitter::typeOf(base.dtype, false, blockShape));
    Value* pointer = emitter_->createValue(OpKind::TTMakeTensorPtr, operands, pointerType,
                                           {{"order", Attribute::denseArray(Type::i32(), order)}});
    if (!advance.empty()) {
      std::vector<Value*> steps{pointer};
      for (const Tensor& step : advance) steps.push_back(emitter_->cast(step, DType::Int32).value);
      pointer = emitter_->createValue(OpKind::TTAdvance, steps, pointerType);
    }
    std::vector<int64_t> checked;
    for (size_t d = 0; d < rank; ++d) checked.push_back(static_cast<int64_t>(d));
    std::vector<NamedAttribute> attributes{{"boundaryCheck", Attribute::denseArray(Type::i32(), checked)}};
    if (padding) attributes.push_back({"padding", Attribute::integer(padding, Type::i32())});
    Value* value = emitter_->createValue(OpKind::TTLoad, {pointer}, Emitter::typeOf(base.dtype, false, blockShape), attributes);
    return Emitter::tensorOf(value, base.dtype, false, blockShape);
  });
}

Value* KernelBuilder::makeTensorDescriptor(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                           const std::vector<int64_t>& blockShape, int padding) {
  if (!base.pointer || base.isBlock()) throwFrontendError(FrontendError::Kind::ValueError, "Expected `base` to be a pointer");
  const size_t rank = blockShape.size();
  if (rank == 0 || shape.size() != rank || strides.size() != rank)
    throwFrontendError(FrontendError::Kind::ValueError, "Expected shape/strides/block_shape to have the same length");
  if (strides.back() != 1) throwFrontendError(FrontendError::Kind::ValueError, "Tensor descriptor last dim must be 1");
  checkBlockShape(blockShape);
  std::vector<Value*> operands{base.value};
  for (int64_t extent : shape) operands.push_back(emitter_->constant(Literal(static_cast<long long>(extent)), DType::Int32).value);
  for (int64_t stride : strides) operands.push_back(emitter_->constant(Literal(static_cast<long long>(stride)), DType::Int64).value);
  std::vector<NamedAttribute> attributes;
  if (padding == 2) attributes.push_back({"padding", Attribute::integer(2, Type::i32())});
  const Type block = Emitter::typeOf(base.dtype, false, blockShape);
  return emitter_->createValue(OpKind::TTMakeTensorDescriptor, operands, Type::tensorDesc(block), attributes);
}

Tensor KernelBuilder::descriptorLoad(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                     const std::vector<int64_t>& blockShape, const std::vector<Tensor>& offsets, int padding) {
  return guarded([&] {
    if (offsets.size() != blockShape.size()) throwFrontendError(FrontendError::Kind::ValueError, "Expected one offset per dim");
    std::vector<Value*> operands{makeTensorDescriptor(base, shape, strides, blockShape, padding)};
    for (const Tensor& offset : offsets) operands.push_back(emitter_->cast(offset, DType::Int32).value);
    Value* value = emitter_->createValue(OpKind::TTDescriptorLoad, operands, Emitter::typeOf(base.dtype, false, blockShape));
    return Emitter::tensorOf(value, base.dtype, false, blockShape);
  });
}

void KernelBuilder::descriptorStore(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                    const std::vector<Tensor>& offsets, const Tensor& value) {
  guarded([&] {
    if (!value.isBlock() || value.dtype != base.dtype || offsets.size() != value.shape.size())
      throwFrontendError(FrontendError::Kind::ValueError, "desc.store needs a block of the descriptor's dtype and one offset per dim");
    std::vector<Value*> operands{makeTensorDescriptor(base, shape, strides, value.shape, 1)};
    for (const Tensor& offset : offsets) operands.push_back(emitter_->cast(offset, DType::Int32).value);
    operands.push_back(value.value);
    emitter_->create(OpKind::TTDescriptorStore, operands, {});
    return 0;
  });
}

Tensor KernelBuilder::pointerToInt(const Tensor& pointer) {
  return guarded([&] {
    if (!pointer.pointer || pointer.isBlock()) throwFrontendError(FrontendError::Kind::ValueError, "ptr_to_int needs a scalar pointer");
    Value* value = emitter_->createValue(OpKind::TTPtrToInt, {pointer.value}, Type::i64());
    return Emitter::tensorOf(value, DType::Int64, false, {});
  });
}

Tensor KernelBuilder::intToPointer(const Tensor& address, DType pointee) {
  return guarded([&] {
    if (address.pointer || address.isBlock() || address.dtype != DType::Int64)
      throwFrontendError(FrontendError::Kind::ValueError, "int_to_ptr needs an int64 scalar");
    Value* value = emitter_->createValue(OpKind::TTIntToPtr, {address.value}, Emitter::typeOf(pointee, true, {}));
    return Emitter::tensorOf(value, pointee, true, {});
  });
}

void KernelBuilder::deviceAssert(const Tensor& condition, const std::string& message) {
  guarded([&] {
    Tensor cond = condition;
    if (cond.dtype != DType::Int1) cond = semantic::compare(*emitter_, semantic::CompareOp::Ne, cond, Literal(0));
    emitter_->create(OpKind::TTAssert, {cond.value}, {}, {{"message", Attribute::string(message)}});
    return 0;
  });
}

void KernelBuilder::debugBarrier() {
  guarded([&] {
    emitter_->create(OpKind::GPUBarrier, {}, {});
    return 0;
  });
}

Tensor KernelBuilder::rawOp(OpKind kind, const std::vector<Tensor>& operands, DType dtype, std::vector<int64_t> shape,
                            std::vector<NamedAttribute> attributes) {
  return guarded([&] {
    std::vector<Value*> values;
    for (const Tensor& operand : operands) {
      if (!operand.valid()) throwFrontendError(FrontendError::Kind::ValueError, "rawOp operand is not a tensor");
      values.push_back(operand.value);
    }
    Value* result = emitter_->createValue(kind, values, Emitter::typeOf(dtype, false, shape), std::move(attributes));
    return Emitter::tensorOf(result, dtype, false, std::move(shape));
  });
}

void KernelBuilder::ret() {
  guarded([&] {
    emitter_->create(OpKind::TTReturn, {}, {});
    return 0;
  });
}

BuildResult KernelBuilder::finish() {
  BuildResult result;
  if (error_) {
    result.error = error_;
    return result;
  }
  Block& body = emitter_->function().region(0).front();
  if (!body.terminator() || body.terminator()->kind != OpKind::TTReturn) ret();
  emitter_->removeDeadConstants();
  result.module = emitter_->takeModule();
  return result;
}

}  // namespace tilesim::builder
