// Reductions, scans and dot as triton.language 3.6 builds them: tt.reduce / tt.scan carry a combine region
// built by calling back into the builder; sum/cumsum pick int32/uint32 for narrow ints (fp16/bf16 are NOT
// upcast); max/min promote bf16 and anything narrower than 32 bits to fp32/int32; argmax/argmin reduce
// (value, index) pairs with a tie-break-left combine.
#include "ir/builder/KernelBuilder.h"
#include "ir/builder/Semantic.h"

namespace tilesim::builder {

namespace {

std::optional<DType> pickSumDType(DType in) {
  if (isSignedInt(in) && primitiveBitWidth(in) < 32) return DType::Int32;
  if (isUnsignedInt(in) && primitiveBitWidth(in) < 32) return DType::UInt32;
  return std::nullopt;
}

int wrapAxis(int axis, int rank) {
  int wrapped = axis < 0 ? axis + rank : axis;
  if (wrapped < 0 || wrapped >= rank)
    throwFrontendError(FrontendError::Kind::ValueError, "invalid axis " + std::to_string(axis) + ". Expected 0 <= axis < " + std::to_string(rank));
  return wrapped;
}

}  // namespace

std::vector<Tensor> KernelBuilder::reduce(const std::vector<Tensor>& inputs, int axis, const Combine& combine, bool keepDims) {
  if (error_) return {};
  std::vector<Tensor> results;
  try {
    const Tensor& first = inputs.front();
    int wrapped = wrapAxis(axis, first.rank());
    std::vector<int64_t> shape = first.shape;
    shape.erase(shape.begin() + wrapped);
    std::vector<Value*> operands;
    std::vector<Type> resultTypes;
    for (const Tensor& input : inputs) {
      operands.push_back(input.value);
      resultTypes.push_back(Emitter::typeOf(input.dtype, input.pointer, shape));
    }
    Operation* op = emitter_->create(OpKind::TTReduce, operands, resultTypes, {{"axis", Attribute::integer(wrapped, Type::i32())}});
    Block& body = op->addRegion().addBlock();
    std::vector<Tensor> lhs, rhs;
    for (const Tensor& input : inputs) lhs.push_back(Emitter::tensorOf(body.addArgument(irType(input.dtype)), input.dtype, false, {}));
    for (const Tensor& input : inputs) rhs.push_back(Emitter::tensorOf(body.addArgument(irType(input.dtype)), input.dtype, false, {}));
    emitter_->pushBlock(&body);
    std::vector<Tensor> combined = combine(*this, lhs, rhs);
    if (!error_) {
      std::vector<Value*> yielded;
      for (size_t i = 0; i < combined.size(); ++i) yielded.push_back(emitter_->cast(combined[i], inputs[i].dtype).value);
      emitter_->create(OpKind::TTReduceReturn, yielded, {});
    }
    emitter_->popBlock();
    if (error_) return {};
    for (size_t i = 0; i < inputs.size(); ++i) {
      Tensor result = Emitter::tensorOf(op->result(i), inputs[i].dtype, inputs[i].pointer, shape);
      if (keepDims) result = result.isBlock() ? emitter_->expandDims(result, wrapped) : emitter_->splat(result, {1});
      results.push_back(result);
    }
  } catch (const FrontendException& exception) {
    error_ = exception.error;
    return {};
  }
  return results;
}

Tensor KernelBuilder::sum(const Tensor& x, int axis, bool keepDims) {
  Tensor input = x;
  if (std::optional<DType> out = pickSumDType(x.dtype)) input = cast(x, *out);
  if (error_) return {};
  auto combine = [](KernelBuilder& kb, const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    return std::vector<Tensor>{kb.add(a[0], b[0])};
  };
  std::vector<Tensor> results = reduce({input}, axis, combine, keepDims);
  return results.empty() ? Tensor{} : results[0];
}

static Tensor promoteForMinMax(KernelBuilder& kb, const Tensor& x) {
  Tensor input = x.dtype == DType::BF16 ? kb.cast(x, DType::Fp32) : x;
  if (input.valid() && primitiveBitWidth(input.dtype) < 32)
    input = kb.cast(input, isFloating(input.dtype) ? DType::Fp32 : DType::Int32);
  return input;
}

// tl.max / tl.min: one reduction whose combine is kb.maximum or kb.minimum (narrow types promoted first).
static Tensor minMaxReduce(KernelBuilder& kb, const Tensor& x, int axis, bool keepDims,
                           Tensor (KernelBuilder::*pick)(const Operand&, const Operand&, PropagateNan)) {
  Tensor input = promoteForMinMax(kb, x);
  auto combine = [pick](KernelBuilder& k, const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    return std::vector<Tensor>{(k.*pick)(a[0], b[0], PropagateNan::None)};
  };
  std::vector<Tensor> results = kb.error() ? std::vector<Tensor>{} : kb.reduce({input}, axis, combine, keepDims);
  return results.empty() ? Tensor{} : results[0];
}

Tensor KernelBuilder::max(const Tensor& x, int axis, bool keepDims) {
  return minMaxReduce(*this, x, axis, keepDims, &KernelBuilder::maximum);
}

Tensor KernelBuilder::min(const Tensor& x, int axis, bool keepDims) {
  return minMaxReduce(*this, x, axis, keepDims, &KernelBuilder::minimum);
}

// _reduce_with_indices with _argmax/_argmin_combine_tie_break_left.
static Tensor argReduce(KernelBuilder& kb, const Tensor& x, int axis, bool keepDims, bool isMax) {
  Tensor input = x.dtype == DType::BF16 ? kb.cast(x, DType::Fp32) : x;
  if (!input.valid() || kb.failed()) return {};
  int rank = input.rank();
  int wrapped = axis < 0 ? axis + rank : axis;
  if (wrapped < 0 || wrapped >= rank) return kb.sum(x, axis);  // reports the axis error
  Tensor index = kb.arange(0, input.shape[wrapped]);
  if (rank > 1) {
    for (int d = 0; d < rank; ++d)
      if (d != wrapped) index = kb.expandDims(index, d);
    index = kb.broadcastTo(index, input.shape);
  }
  auto combine = [isMax](KernelBuilder& b, const std::vector<Tensor>& lhs, const std::vector<Tensor>& rhs) {
    Tensor tie = b.and_(b.eq(lhs[0], rhs[0]), b.lt(lhs[1], rhs[1]));
    Tensor better = b.or_(isMax ? b.gt(lhs[0], rhs[0]) : b.lt(lhs[0], rhs[0]), tie);
    return std::vector<Tensor>{b.where(better, lhs[0], rhs[0]), b.where(better, lhs[1], rhs[1])};
  };
  std::vector<Tensor> results = kb.failed() ? std::vector<Tensor>{} : kb.reduce({input, index}, wrapped, combine, keepDims);
  return results.size() == 2 ? results[1] : Tensor{};
}

Tensor KernelBuilder::argmax(const Tensor& x, int axis, bool keepDims) { return argReduce(*this, x, axis, keepDims, true); }
Tensor KernelBuilder::argmin(const Tensor& x, int axis, bool keepDims) { return argReduce(*this, x, axis, keepDims, false); }

Tensor KernelBuilder::cumsum(const Tensor& x, int axis, bool reverse) {
  Tensor input = x;
  if (std::optional<DType> out = pickSumDType(x.dtype)) input = cast(x, *out);
  return guarded([&] {
    int wrapped = wrapAxis(axis, input.rank());
    Operation* op = emitter_->create(OpKind::TTScan, {input.value}, {input.value->type},
                                     {{"axis", Attribute::integer(wrapped, Type::i32())}, {"reverse", Attribute::boolean(reverse)}});
    Block& body = op->addRegion().addBlock();
    Tensor lhs = Emitter::tensorOf(body.addArgument(irType(input.dtype)), input.dtype, false, {});
    Tensor rhs = Emitter::tensorOf(body.addArgument(irType(input.dtype)), input.dtype, false, {});
    emitter_->pushBlock(&body);
    try {
      Tensor combined = semantic::binary(*emitter_, semantic::BinaryOp::Add, lhs, rhs);
      emitter_->create(OpKind::TTScanReturn, {combined.value}, {});
    } catch (...) {
      emitter_->popBlock();
      throw;
    }
    emitter_->popBlock();
    return Emitter::tensorOf(op->result(0), input.dtype, false, input.shape);
  });
}

Tensor KernelBuilder::dot(const Tensor& a, const Tensor& b, std::optional<Tensor> acc, std::string inputPrecision, DType outDType) {
  return guarded([&] {
    if (a.rank() != 2 || b.rank() != 2)
      throwFrontendError(FrontendError::Kind::ValueError, "Both inputs must be either 2D or 3D; (lhs: " + std::to_string(a.rank()) +
                                                              "D vs rhs: " + std::to_string(b.rank()) + "D)");
    if (a.shape[1] != b.shape[0])
      throwFrontendError(FrontendError::Kind::ValueError, "First input shape and second input shape are not compatible for matmul");
    if (a.shape[0] < 16 || a.shape[1] < 16 || b.shape[1] < 16)
      throwFrontendError(FrontendError::Kind::ValueError, "All non-batch values in both first input shape and second input shape must be >= 16!");
    if (a.dtype != b.dtype && !(isFp8(a.dtype) && isFp8(b.dtype)))
      throwFrontendError(FrontendError::Kind::AssertionError, "Both operands must be same dtype. Got " +
                                                                  std::string(dtypeName(a.dtype)) + " and " + std::string(dtypeName(b.dtype)));
    DType resultDType = isInt(a.dtype) ? DType::Int32 : outDType;
    std::vector<int64_t> shape{a.shape[0], b.shape[1]};
    Tensor accumulator = acc ? *acc : emitter_->constant(isInt(resultDType) ? Literal(0) : Literal(0.0), resultDType, shape);
    if (accumulator.shape != shape || accumulator.dtype != resultDType)
      throwFrontendError(FrontendError::Kind::ValueError, "accumulator has the wrong shape or dtype");
    std::vector<NamedAttribute> attributes;
    if (!(a.dtype == DType::Fp32 && b.dtype == DType::Fp32)) inputPrecision = "ieee";
    if (inputPrecision != "tf32" && inputPrecision != "ieee" && inputPrecision != "tf32x3")
      throwFrontendError(FrontendError::Kind::ValueError, "input_precision must be one of tf32, tf32x3, ieee. Got " + inputPrecision);
    attributes.push_back({"inputPrecision", Attribute::keyword(inputPrecision)});
    attributes.push_back({"maxNumImpreciseAcc", Attribute::integer(0, Type::i32())});
    Value* result = emitter_->createValue(OpKind::TTDot, {a.value, b.value, accumulator.value},
                                          Emitter::typeOf(resultDType, false, shape), attributes);
    return Emitter::tensorOf(result, resultDType, false, shape);
  });
}

}  // namespace tilesim::builder
