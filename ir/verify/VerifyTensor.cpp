// Verifier checks for tt ops that make and reshape tensors and for tt.reduce / tt.scan (invariants T1-T3 and
// T7 in Verifier.cpp).
#include <algorithm>
#include <numeric>

#include "ir/OpAttributes.h"
#include "ir/verify/VerifyContext.h"

namespace tilesim::verify {
namespace {

std::vector<int64_t> shapeOf(Type type) { return {type.shape().begin(), type.shape().end()}; }

// An integer attribute, or nullopt when absent or not an integer.
std::optional<int64_t> intAttribute(const Operation& op, std::string_view name) {
  const Attribute* attribute = op.attr(name);
  if (!attribute || attribute->kind() != Attribute::Kind::Integer) return std::nullopt;
  return attribute->intValue();
}

// A dim index in [0, limit): `axis` attribute checked, reported on failure.
bool axisInRange(VerifyContext& ctx, const Operation& op, int64_t limit, int64_t* axis) {
  std::optional<int64_t> value = intAttribute(op, "axis");
  if (!value) return ctx.fail(op, "missing integer attribute 'axis'");
  if (*value < 0 || *value >= limit)
    return ctx.fail(op, "axis " + std::to_string(*value) + " is out of range [0, " + std::to_string(limit) + ")");
  *axis = *value;
  return true;
}

// The same element type in both (a result keeps its operand's element).
bool sameElement(VerifyContext& ctx, const Operation& op, Type from, Type to) {
  if (from.element() == to.element()) return true;
  return ctx.fail(op, "element type changes from " + typeName(from) + " to " + typeName(to));
}

bool verifySplatFamily(VerifyContext& ctx, const Operation& op) {
  Type in = op.operand(0)->type, out = op.result()->type;
  std::string fromTo = typeName(in) + " to " + typeName(out);
  if (op.kind == OpKind::TTSplat) {
    if (in.isTensor() || !out.isTensor()) return ctx.fail(op, "must turn a scalar into a tensor, got " + fromTo);
    return sameElement(ctx, op, in, out);
  }
  if (op.kind == OpKind::TTUnsplat) {
    if (!in.isTensor() || in.numElements() != 1 || out.isTensor())
      return ctx.fail(op, "must turn a one-element tensor into a scalar, got " + fromTo);
    return sameElement(ctx, op, in, out);
  }
  if (!in.isTensor() || !out.isTensor()) return ctx.fail(op, "operand and result must be tensors, got " + fromTo);
  if (!sameElement(ctx, op, in, out)) return false;
  std::vector<int64_t> inShape = shapeOf(in), outShape = shapeOf(out);
  if (op.kind == OpKind::TTBroadcast) {
    if (inShape.size() != outShape.size()) return ctx.fail(op, "cannot change the rank, got " + fromTo);
    for (size_t i = 0; i < inShape.size(); ++i)
      if (inShape[i] != outShape[i] && inShape[i] != 1)
        return ctx.fail(op, "dimension " + std::to_string(i) + " is neither kept nor broadcast from 1 in " + fromTo);
    return true;
  }
  if (op.kind == OpKind::TTExpandDims) {
    int64_t axis = 0;
    if (!axisInRange(ctx, op, static_cast<int64_t>(inShape.size()) + 1, &axis)) return false;
    inShape.insert(inShape.begin() + axis, 1);
    if (inShape != outShape) return ctx.fail(op, "result shape does not insert a size-1 dim at axis " + std::to_string(axis) + " (" + fromTo + ")");
    return true;
  }
  // tt.reshape
  if (in.numElements() != out.numElements()) return ctx.fail(op, "changes the number of elements, " + fromTo);
  return true;
}

bool verifyTrans(VerifyContext& ctx, const Operation& op) {
  Type in = op.operand(0)->type, out = op.result()->type;
  if (!in.isTensor() || !out.isTensor()) return ctx.fail(op, "operand and result must be tensors");
  if (!sameElement(ctx, op, in, out)) return false;
  const Attribute* order = op.attr("order");
  if (!order || order->kind() != Attribute::Kind::DenseArray) return ctx.fail(op, "missing 'order' array");
  std::vector<int64_t> values = order->arrayValues(), sorted = values, identity(values.size());
  std::iota(identity.begin(), identity.end(), 0);
  std::sort(sorted.begin(), sorted.end());
  if (static_cast<int>(values.size()) != in.rank() || sorted != identity)
    return ctx.fail(op, "order is not a permutation of the " + std::to_string(in.rank()) + " dims of " + typeName(in));
  std::vector<int64_t> expected;
  for (int64_t dim : values) expected.push_back(in.shape()[static_cast<size_t>(dim)]);
  if (expected != shapeOf(out)) return ctx.fail(op, "result " + typeName(out) + " is not the operand permuted by order");
  return true;
}

bool verifyJoinSplitCat(VerifyContext& ctx, const Operation& op) {
  Type in = op.operand(0)->type, out = op.result()->type;
  if (op.kind == OpKind::TTJoin) {
    if (op.operand(1)->type != in) return ctx.fail(op, "operand types " + typeName(in) + " and " + typeName(op.operand(1)->type) + " differ");
    std::vector<int64_t> expected = shapeOf(in);
    expected.push_back(2);
    if (!out.isTensor() || shapeOf(out) != expected) return ctx.fail(op, "result " + typeName(out) + " is not the operand shape with a minor dim of 2");
    return sameElement(ctx, op, in, out);
  }
  if (op.kind == OpKind::TTSplit) {
    if (!in.isTensor() || in.rank() == 0 || in.shape().back() != 2) return ctx.fail(op, "operand " + typeName(in) + " does not have a minor dim of 2");
    // Triton's parser requires tensor results: a 1-D tensor is split as tensor<1x2xT> (triton.language
    // expands it first and unsplats the halves)
    if (in.rank() == 1) return ctx.fail(op, "operand " + typeName(in) + " is 1-D: tt.split has tensor results (expand it to rank 2 first)");
    std::vector<int64_t> expected = shapeOf(in);
    expected.pop_back();
    Type half = in.withShape(expected);
    for (size_t i = 0; i < 2; ++i)
      if (op.result(i)->type.withoutEncoding() != half.withoutEncoding())
        return ctx.fail(op, "result #" + std::to_string(i) + " has type " + typeName(op.result(i)->type) + ", expected " + typeName(half));
    return true;
  }
  // tt.cat
  Type other = op.operand(1)->type;
  if (other != in) return ctx.fail(op, "operand types " + typeName(in) + " and " + typeName(other) + " differ");
  if (!in.isTensor() || !out.isTensor() || out.rank() != in.rank() || out.numElements() != 2 * in.numElements())
    return ctx.fail(op, "result " + typeName(out) + " does not hold both operands " + typeName(in));
  return sameElement(ctx, op, in, out);
}

bool verifyGatherHistogram(VerifyContext& ctx, const Operation& op) {
  Type in = op.operand(0)->type, out = op.result()->type;
  if (op.kind == OpKind::TTGather) {
    Type index = op.operand(1)->type;
    if (!in.isTensor() || !index.isTensor() || !index.isInteger() || index.rank() != in.rank())
      return ctx.fail(op, "needs a source tensor and an integer index tensor of the same rank, got " + typeName(in) + " and " + typeName(index));
    int64_t axis = 0;
    if (!axisInRange(ctx, op, in.rank(), &axis)) return false;
    if (out.withoutEncoding() != index.withElement(in.element()).withoutEncoding()) return ctx.fail(op, "result " + typeName(out) + " must have the index shape and the source element type");
    for (int d = 0; d < in.rank(); ++d)  // Triton's rule: only the gather axis may differ
      if (d != axis && index.shape()[d] != in.shape()[d])
        return ctx.fail(op, "index dimension " + std::to_string(d) + " (" + std::to_string(index.shape()[d]) +
                                ") must match the source dimension (" + std::to_string(in.shape()[d]) +
                                "); only the gather axis " + std::to_string(axis) + " may differ");
    return true;
  }
  // tt.histogram
  if (!in.isTensor() || in.rank() != 1 || !in.isInteger()) return ctx.fail(op, "input " + typeName(in) + " must be a 1-d integer tensor");
  if (!out.isTensor() || out.rank() != 1 || out.element() != Type::i32()) return ctx.fail(op, "result " + typeName(out) + " must be a 1-d i32 tensor");
  if (op.numOperands() == 2 && op.operand(1)->type != in.withElement(Type::i1()))
    return ctx.fail(op, "mask " + typeName(op.operand(1)->type) + " must be i1 of the input shape");
  return true;
}

}  // namespace

bool verifyProgramInfoOp(VerifyContext& ctx, const Operation& op) {
  if (op.result()->type != Type::i32()) return ctx.fail(op, "result has type " + typeName(op.result()->type) + ", expected i32");
  if (!programAxisFrom(op.attr("axis"))) return ctx.fail(op, "axis must be x, y or z");
  return true;
}

bool verifyMakeRangeOp(VerifyContext& ctx, const Operation& op) {
  std::optional<int64_t> start = intAttribute(op, "start"), end = intAttribute(op, "end");
  if (!start || !end) return ctx.fail(op, "needs integer attributes 'start' and 'end'");
  if (*start < 0 || *end > (int64_t{1} << 31) - 1)
    return ctx.fail(op, "start " + std::to_string(*start) + " and end " + std::to_string(*end) + " must be non-negative and fit in i32");
  if (*end <= *start) return ctx.fail(op, "end " + std::to_string(*end) + " must be greater than start " + std::to_string(*start));
  if (!isPowerOfTwo(*end - *start)) return ctx.fail(op, "end - start = " + std::to_string(*end - *start) + " is not a power of two");
  Type expected = Type::tensor({*end - *start}, Type::i32());
  if (op.result()->type.withoutEncoding() != expected)  // TTGIR: any layout (ir/Encoding.h); values are layout-transparent
    return ctx.fail(op, "result has type " + typeName(op.result()->type) + ", expected " + typeName(expected));
  return true;
}

bool verifyShapeOp(VerifyContext& ctx, const Operation& op) {
  if (op.kind == OpKind::TTTrans) return verifyTrans(ctx, op);
  if (op.kind == OpKind::TTJoin || op.kind == OpKind::TTSplit || op.kind == OpKind::TTCat) return verifyJoinSplitCat(ctx, op);
  if (op.kind == OpKind::TTGather || op.kind == OpKind::TTHistogram) return verifyGatherHistogram(ctx, op);
  return verifySplatFamily(ctx, op);
}

bool verifyReduceOrScanOp(VerifyContext& ctx, const Operation& op) {
  bool reduce = op.kind == OpKind::TTReduce;
  Type first = op.operand(0)->type;
  if (!first.isTensor()) return ctx.fail(op, "input " + typeName(first) + " is not a tensor");
  for (size_t i = 1; i < op.numOperands(); ++i)
    if (!sameShape(op.operand(i)->type, first))
      return ctx.fail(op, "inputs " + typeList(typesOf(op.operands)) + " do not share one shape");
  int64_t axis = 0;
  if (!axisInRange(ctx, op, first.rank(), &axis)) return false;
  if (op.numResults() != op.numOperands())
    return ctx.fail(op, "has " + std::to_string(op.numResults()) + " results for " + std::to_string(op.numOperands()) + " inputs");
  std::vector<Type> elements;
  for (Type type : typesOf(op.operands)) elements.push_back(type.element());
  for (size_t i = 0; i < op.numOperands(); ++i) {
    Type expected = op.operand(i)->type;
    if (reduce) {
      std::vector<int64_t> shape = shapeOf(expected);
      shape.erase(shape.begin() + axis);
      expected = shape.empty() ? expected.element() : expected.withShape(shape);
    }
    if (op.result(i)->type.withoutEncoding() != expected.withoutEncoding())  // TTGIR: the result has a slice layout
      return ctx.fail(op, "result #" + std::to_string(i) + " has type " + typeName(op.result(i)->type) + ", expected " + typeName(expected));
  }
  const Block& combine = op.region(0).front();
  std::vector<Type> signature = elements;
  signature.insert(signature.end(), elements.begin(), elements.end());
  if (typesOf(combine.arguments) != signature)
    return ctx.fail(op, "combine region takes " + typeList(typesOf(combine.arguments)) + ", expected " + typeList(signature));
  return verifyTerminatorTypes(ctx, op, combine, elements, "combine region");
}

}  // namespace tilesim::verify
