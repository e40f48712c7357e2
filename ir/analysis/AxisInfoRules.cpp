// AxisInfo transfer rules, one function per op family. Each rule states why its claim holds for every lane
// of every launch; integer arithmetic is modulo 2^width, so "contiguous" and "divisible" are ring facts, and
// the rules only combine them in ways that stay true under wrap-around. Any op not listed keeps the
// pessimistic state, except that a deterministic elementwise op keeps the constancy its operands share.
#include <algorithm>
#include <numeric>
#include <span>

#include "ir/OpAttributes.h"
#include "ir/OpFacts.h"
#include "ir/analysis/AxisInfoRules.h"
#include "ir/eval/IntegerLane.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::analysis {
namespace {

using Operands = std::vector<const AxisInfo*>;

std::vector<int64_t> shapeOf(Type type) {
  if (!type.isTensor()) return {1};
  return {type.shape().begin(), type.shape().end()};
}

int widthOf(Type type) { return type.element().isPointer() ? 64 : type.element().bitWidth(); }

// `bits` as the value AxisInfo stores: sign-extended from `width` (i1 zero-extended, 0 or 1).
int64_t wrapToWidth(uint64_t bits, int width) { return width == 1 ? static_cast<int64_t>(bits & 1) : scalar::signExtended(bits, width); }

uint64_t unsignedOf(int64_t value, int width) { return scalar::lowBits(static_cast<uint64_t>(value), width); }

int64_t saturatingProduct(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product) || product > kMaxDivisibility) return kMaxDivisibility;
  return product;
}

// Constancy the operands share (each lane of an elementwise op depends only on that lane of its operands). A
// scalar operand of a tensor op (select's condition) is constant over the whole result.
AxisInfo sharedConstancy(const Operation& op, const Operands& operands, AxisInfo result) {
  std::vector<int64_t> shape = shapeOf(op.result()->type);
  for (int d = 0; d < result.rank(); ++d) {
    int64_t constancy = shape[d];
    for (size_t i = 0; i < operands.size(); ++i)
      if (op.operand(i)->type.isTensor() == op.result()->type.isTensor()) constancy = std::gcd(constancy, operands[i]->constancy[d]);
    result.constancy[d] = constancy;
  }
  return result;
}

// arith.cmpi of a contiguous side against a constant side (the `offs < n` mask): inside an aligned block of k
// elements, where k divides the contiguous side's run and its first element and the constant, the contiguous
// values are m*k ... m*k + k-1 and the constant is a multiple of k, so `x < C` is the same for the whole block
// (m*k < C iff m*k + k-1 < C); so are its negation `x >= C` and, mirrored, `C <= y`, `C > y`. (No block of k
// crosses a wrap-around point: every multiple of k starts one, and both 0 and the signed minimum are multiples.)
// `<=`, `>`, `==`, `!=` of a contiguous side change inside a block. Triton's CmpOpAxisInfoVisitor has this rule.
AxisInfo compareConstancy(const Operation& op, const Operands& operands, AxisInfo result) {
  result = sharedConstancy(op, operands, result);
  if (!op.result()->type.isTensor() || !op.operand(0)->type.isTensor() || !op.operand(1)->type.isTensor()) return result;
  const IntPredicate predicate = CmpIView{op}.predicate();
  const bool lessThan = predicate == IntPredicate::Slt || predicate == IntPredicate::Ult ||
                        predicate == IntPredicate::Sge || predicate == IntPredicate::Uge;  // contiguous lhs
  const bool greaterThan = predicate == IntPredicate::Sgt || predicate == IntPredicate::Ugt ||
                           predicate == IntPredicate::Sle || predicate == IntPredicate::Ule;  // contiguous rhs
  if (!lessThan && !greaterThan) return result;
  const AxisInfo& contiguous = lessThan ? *operands[0] : *operands[1];
  const AxisInfo& constant = lessThan ? *operands[1] : *operands[0];
  for (int d = 0; d < result.rank(); ++d) {
    if (constant.contiguity[d] != 1) continue;
    int64_t block = std::gcd(contiguous.contiguity[d], contiguous.divisibilityAtStride(d, contiguous.contiguity[d]));
    block = std::gcd(block, std::gcd(constant.divisibility[d], constant.constancy[d]));
    result.constancy[d] = std::max(result.constancy[d], block);
  }
  return result;
}

AxisInfo constantOp(const Operation& op) {
  const Attribute* value = op.attr("value");
  Type type = op.result()->type;
  std::vector<int64_t> shape = shapeOf(type);
  if (!value) return AxisInfo::pessimistic(axisRank(type));
  if (value->kind() == Attribute::Kind::Bool) return AxisInfo::constant(value->boolValue() ? 1 : 0, shape);
  if (value->kind() == Attribute::Kind::Integer) return AxisInfo::constant(wrapToWidth(value->bits(), widthOf(type)), shape);
  if (value->kind() == Attribute::Kind::Dense && value->isSplat())
    return AxisInfo::constant(wrapToWidth(value->denseBitsAt(0), widthOf(type)), shape);
  return AxisInfo::pessimistic(axisRank(type));
}

AxisInfo makeRange(const Operation& op) {
  int64_t start = op.intAttr("start"), end = op.intAttr("end");
  if (end - start == 1) return AxisInfo::constant(start, std::vector<int64_t>{1});
  AxisInfo info = AxisInfo::pessimistic(1);
  info.contiguity[0] = end - start;
  info.divisibility[0] = powerOfTwoDivisor(start);
  return info;
}

AxisInfo splat(const Operation& op, const AxisInfo& scalar) {
  std::vector<int64_t> shape = shapeOf(op.result()->type);
  AxisInfo info = AxisInfo::pessimistic(static_cast<int>(shape.size()));
  for (size_t d = 0; d < shape.size(); ++d) {
    info.divisibility[d] = scalar.divisibility[0];
    info.constancy[d] = shape[d];
  }
  info.constantValue = scalar.constantValue;
  return info;
}

AxisInfo broadcast(const Operation& op, const AxisInfo& source) {
  std::vector<int64_t> from = shapeOf(op.operand(0)->type), to = shapeOf(op.result()->type);
  AxisInfo info = source;
  for (size_t d = 0; d < to.size(); ++d)
    if (from[d] == 1 && to[d] > 1) {
      info.contiguity[d] = 1;
      info.constancy[d] = to[d];
    }
  return info;
}

// Divisibility of every element (what a new size-1 dimension claims): only dims whose claim covers every
// element (contiguity 1) count.
int64_t everyElementDivisibility(const AxisInfo& source) {
  if (source.constantValue) return powerOfTwoDivisor(*source.constantValue);
  int64_t divisibility = kMaxDivisibility;
  for (int d = 0; d < source.rank(); ++d)
    divisibility = std::gcd(divisibility, source.contiguity[d] > 1 ? 1 : source.divisibility[d]);
  return divisibility;
}

AxisInfo insertUnitDim(const AxisInfo& source, int axis) {
  AxisInfo info = source;
  info.contiguity.insert(info.contiguity.begin() + axis, 1);
  info.divisibility.insert(info.divisibility.begin() + axis, everyElementDivisibility(source));
  info.constancy.insert(info.constancy.begin() + axis, 1);
  return info;
}

AxisInfo expandDims(const Operation& op, const AxisInfo& source) {
  return insertUnitDim(source, static_cast<int>(op.intAttr("axis")));
}

AxisInfo trans(const Operation& op, const AxisInfo& source) {
  const Attribute* order = op.attr("order");
  AxisInfo info = source;
  if (!order || order->kind() != Attribute::Kind::DenseArray) return AxisInfo::pessimistic(source.rank());
  const std::vector<int64_t>& dims = order->arrayValues();
  for (size_t d = 0; d < dims.size(); ++d) {
    info.contiguity[d] = source.contiguity[dims[d]];
    info.divisibility[d] = source.divisibility[dims[d]];
    info.constancy[d] = source.constancy[dims[d]];
  }
  return info;
}

// Reshape that only adds or drops size-1 dims keeps every other dim's claims; anything else keeps a constant.
AxisInfo reshape(const Operation& op, const AxisInfo& source) {
  std::vector<int64_t> from = shapeOf(op.operand(0)->type), to = shapeOf(op.result()->type);
  if (source.constantValue) return AxisInfo::constant(*source.constantValue, to);
  std::vector<int> fromDims, toDims;
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1) fromDims.push_back(static_cast<int>(d));
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] != 1) toDims.push_back(static_cast<int>(d));
  AxisInfo info = AxisInfo::pessimistic(static_cast<int>(to.size()));
  if (fromDims.size() != toDims.size()) return info;
  for (size_t i = 0; i < fromDims.size(); ++i)
    if (from[fromDims[i]] != to[toDims[i]]) return info;
  int64_t unitDivisibility = everyElementDivisibility(source);
  for (size_t d = 0; d < to.size(); ++d) info.divisibility[d] = unitDivisibility;
  for (size_t i = 0; i < fromDims.size(); ++i) {
    info.contiguity[toDims[i]] = source.contiguity[fromDims[i]];
    info.divisibility[toDims[i]] = source.divisibility[fromDims[i]];
    info.constancy[toDims[i]] = source.constancy[fromDims[i]];
  }
  return info;
}

// Folds an integer op on two known constants with ScalarEval's semantics (the interpreter's).
std::optional<int64_t> foldBinary(OpKind kind, const Operation& op, int64_t a, int64_t b, int width) {
  using namespace scalar;
  uint64_t x = unsignedOf(a, width), y = unsignedOf(b, width);
  auto wrap = [&](uint64_t bits) { return std::optional<int64_t>(wrapToWidth(bits, width)); };
  if (width != 8 && width != 16 && width != 32 && width != 64) return std::nullopt;
  // The binary IntArith ops but ceildivsi and mulhiui, which AxisInfo leaves pessimistic (math.absi is unary).
  const bool folds = opFamily(kind) == OpFamily::IntArith && kind != OpKind::ArithCeilDivSI &&
                     kind != OpKind::TTMulhiUI && kind != OpKind::MathAbsI;
  auto apply = [&](auto typed) -> std::optional<int64_t> {
    using U = decltype(typed);
    U u = static_cast<U>(x), v = static_cast<U>(y);
    if (kind == OpKind::ArithCmpI) return compareInt(CmpIView{op}.predicate(), u, v) ? 1 : 0;
    if (!folds) return std::nullopt;
    return wrap(integerLane(familyOp<IntArithOp>(kind), u, v));
  };
  switch (width) {
    case 8: return apply(uint8_t{});
    case 16: return apply(uint16_t{});
    case 32: return apply(uint32_t{});
    default: return apply(uint64_t{});
  }
}

// arith.addi / arith.subi: inside an aligned run where one side is contiguous and the other constant, the sum
// grows by one (a difference only when the subtrahend is the constant side).
AxisInfo addSub(bool subtract, const AxisInfo& lhs, const AxisInfo& rhs, AxisInfo info) {
  for (int d = 0; d < info.rank(); ++d) {
    int64_t contiguity = std::gcd(lhs.contiguity[d], rhs.constancy[d]);
    if (!subtract) contiguity = std::max(contiguity, std::gcd(lhs.constancy[d], rhs.contiguity[d]));
    info.contiguity[d] = contiguity;
    info.divisibility[d] = std::gcd(lhs.divisibilityAtStride(d, contiguity), rhs.divisibilityAtStride(d, contiguity));
    info.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
  }
  return info;
}

AxisInfo multiply(const AxisInfo& lhs, const AxisInfo& rhs, AxisInfo info) {
  bool lhsIsOne = lhs.constantValue == 1, rhsIsOne = rhs.constantValue == 1;
  if (rhsIsOne) return lhs;
  if (lhsIsOne) return rhs;
  for (int d = 0; d < info.rank(); ++d) {
    info.divisibility[d] = saturatingProduct(lhs.divisibilityAtStride(d, 1), rhs.divisibilityAtStride(d, 1));
    info.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
  }
  return info;
}

// Division and remainder: claims only for a known non-zero divisor (x / 0 = -1 in tilesim, whatever x is).
AxisInfo divideOrRemainder(OpKind kind, int width, const AxisInfo& lhs, const AxisInfo& rhs, AxisInfo info) {
  for (int d = 0; d < info.rank(); ++d) info.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
  if (!rhs.constantValue || *rhs.constantValue == 0) return info;
  const int64_t divisor = *rhs.constantValue;
  const uint64_t unsignedDivisor = unsignedOf(divisor, width);
  const int64_t divisorPower = powerOfTwoDivisor(static_cast<int64_t>(unsignedDivisor));
  for (int d = 0; d < info.rank(); ++d) {
    info.constancy[d] = lhs.constancy[d];
    if (kind == OpKind::ArithDivSI || kind == OpKind::ArithDivUI) {
      // x = m * 2^a divided exactly by a power of two 2^b <= 2^a leaves m * 2^(a-b).
      bool positivePowerOfTwo = (kind == OpKind::ArithDivUI || divisor > 0) && (unsignedDivisor & (unsignedDivisor - 1)) == 0;
      int64_t dividend = lhs.divisibilityAtStride(d, 1);
      if (positivePowerOfTwo && dividend >= static_cast<int64_t>(unsignedDivisor))
        info.divisibility[d] = dividend / static_cast<int64_t>(unsignedDivisor);
      continue;
    }
    // x % r = x - q * r: divisible by what divides both. remui: an aligned sub-run of c values starting at a
    // multiple of c, with c dividing r, stays below the next multiple of r, so it stays contiguous.
    int64_t contiguity = 1;
    if (kind == OpKind::ArithRemUI)
      contiguity = std::min({lhs.contiguity[d], lhs.divisibility[d], divisorPower});
    info.contiguity[d] = contiguity;
    info.divisibility[d] = std::gcd(lhs.divisibilityAtStride(d, contiguity), divisorPower);
  }
  return info;
}

}  // namespace

// A run of c values starting at a multiple of c, with c dividing n, holds no multiple of n but its first value, so
// (x >= 0, n > 0) its remainders grow by one too; n must also stay constant along the run. The first element of
// each run is x - q*n: divisible by what divides both x there and every n.
AxisInfo positiveRemainder(const AxisInfo& lhs, const AxisInfo& rhs, AxisInfo info) {
  for (int d = 0; d < info.rank(); ++d) {
    const int64_t divisor = rhs.divisibilityAtStride(d, 1);
    const int64_t contiguity = std::min({lhs.contiguity[d], lhs.divisibility[d], divisor, rhs.constancy[d]});
    info.contiguity[d] = contiguity;
    info.divisibility[d] = std::gcd(lhs.divisibilityAtStride(d, contiguity), divisor);
    info.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
  }
  return info;
}

namespace {

AxisInfo bitwiseOrShift(OpKind kind, int width, const AxisInfo& lhs, const AxisInfo& rhs, AxisInfo info) {
  for (int d = 0; d < info.rank(); ++d) {
    info.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
    int64_t left = lhs.divisibilityAtStride(d, 1), right = rhs.divisibilityAtStride(d, 1);
    std::optional<uint64_t> amount;
    if (rhs.constantValue) amount = unsignedOf(*rhs.constantValue, width);
    const bool shiftRight = kind == OpKind::ArithShRSI || kind == OpKind::ArithShRUI;
    if (kind == OpKind::ArithAndI) {
      info.divisibility[d] = std::max(left, right);  // the low zero bits of either side
    } else if (kind == OpKind::ArithShLI) {
      // x << s multiplies by 2^s, or gives 0 when s >= width; an unknown s still keeps x's low zero bits.
      info.divisibility[d] = amount && *amount < 63 ? saturatingProduct(left, int64_t{1} << *amount) : left;
    } else if (shiftRight) {
      // Drops s low bits; s >= width gives 0 or the sign fill (-1), so only a known, smaller s says anything.
      if (amount && *amount < static_cast<uint64_t>(width)) info.divisibility[d] = std::max<int64_t>(1, left >> *amount);
    } else {
      info.divisibility[d] = std::gcd(left, right);  // or, xor, min, max: the low zero bits of both sides
    }
  }
  return info;
}

AxisInfo select(const Operation& op, const Operands& operands, AxisInfo info) {
  const AxisInfo &condition = *operands[0], &a = *operands[1], &b = *operands[2];
  if (condition.constantValue) return *condition.constantValue ? a : b;
  bool scalarCondition = !op.operand(0)->type.isTensor() && op.result()->type.isTensor();
  std::vector<int64_t> shape = shapeOf(op.result()->type);
  for (int d = 0; d < info.rank(); ++d) {
    int64_t conditionConstancy = scalarCondition ? shape[d] : condition.constancy[d];
    int64_t contiguity = std::gcd(conditionConstancy, std::gcd(a.contiguity[d], b.contiguity[d]));
    info.contiguity[d] = contiguity;
    info.divisibility[d] = std::gcd(a.divisibilityAtStride(d, contiguity), b.divisibilityAtStride(d, contiguity));
    info.constancy[d] = std::gcd(conditionConstancy, std::gcd(a.constancy[d], b.constancy[d]));
  }
  if (a.constantValue && a.constantValue == b.constantValue) info.constantValue = a.constantValue;
  return info;
}

// A run of c values whose first element is a multiple of c cannot cross 2^(w-1) inside the run, so sign- or
// zero-extending it keeps it contiguous; longer runs are cut to that length.
AxisInfo extend(const Operation& op, const AxisInfo& source) {
  AxisInfo info = source;
  int fromWidth = widthOf(op.operand(0)->type);
  for (int d = 0; d < info.rank(); ++d) {
    info.contiguity[d] = std::min(source.contiguity[d], source.divisibility[d]);
    info.divisibility[d] = source.divisibilityAtStride(d, info.contiguity[d]);
  }
  if (source.constantValue) {
    uint64_t bits = unsignedOf(*source.constantValue, fromWidth);
    bool signExtend = op.kind == OpKind::ArithExtSI;
    int64_t value = static_cast<int64_t>(bits);
    if (signExtend && fromWidth < 64) {
      uint64_t sign = uint64_t{1} << (fromWidth - 1);
      value = static_cast<int64_t>((bits ^ sign) - sign);
    }
    info = AxisInfo::constant(value, shapeOf(op.result()->type));
  }
  return info;
}

AxisInfo truncate(const Operation& op, const AxisInfo& source) {
  int toWidth = widthOf(op.result()->type);
  if (source.constantValue) return AxisInfo::constant(wrapToWidth(unsignedOf(*source.constantValue, 64), toWidth), shapeOf(op.result()->type));
  AxisInfo info = source;
  if (toWidth == 1) info.contiguity.assign(info.rank(), 1);
  for (int d = 0; d < info.rank(); ++d) info.divisibility[d] = source.divisibilityAtStride(d, info.contiguity[d]);
  return info;
}

int pointeeBytes(Type pointerLike) { return storageBytes(pointerLike.element().pointee().scalarKind()); }

// tt.addptr: pointer + offset * sizeof(T), the offset sign-extended to 64 bits first.
AxisInfo addPointer(const Operation& op, const AxisInfo& pointer, const AxisInfo& offset) {
  AxisInfo info = AxisInfo::pessimistic(pointer.rank());
  const int64_t elementBytes = pointeeBytes(op.result()->type);
  const bool extended = widthOf(op.operand(1)->type) < 64;
  for (int d = 0; d < info.rank(); ++d) {
    int64_t offsetContiguity = extended ? std::min(offset.contiguity[d], offset.divisibility[d]) : offset.contiguity[d];
    int64_t contiguity = std::max(std::gcd(pointer.contiguity[d], offset.constancy[d]),
                                  std::gcd(pointer.constancy[d], offsetContiguity));
    info.contiguity[d] = contiguity;
    info.divisibility[d] = std::gcd(pointer.divisibilityAtStride(d, contiguity),
                                    saturatingProduct(offset.divisibilityAtStride(d, contiguity), elementBytes));
    info.constancy[d] = std::gcd(pointer.constancy[d], offset.constancy[d]);
  }
  return info;
}

// Same bits, other type (ptr_to_int, int_to_ptr, bitcast): divisibility and constancy carry over; contiguity
// only when one step is the same number of bytes on both sides.
AxisInfo reinterpret(const Operation& op, const AxisInfo& source) {
  Type from = op.operand(0)->type, to = op.result()->type;
  if (!tracksAxisInfo(from)) return AxisInfo::pessimistic(axisRank(to));
  auto stepBytes = [](Type type) { return type.element().isPointer() ? pointeeBytes(type) : 1; };
  AxisInfo info = source;
  if (stepBytes(from) != stepBytes(to)) info.contiguity.assign(info.rank(), 1);
  for (int d = 0; d < info.rank(); ++d) info.divisibility[d] = source.divisibilityAtStride(d, info.contiguity[d]);
  if (to.element().isPointer() || widthOf(from) != widthOf(to)) info.constantValue.reset();
  if (info.constantValue && from.element().isPointer()) info.constantValue.reset();
  return info;
}

}  // namespace

void transferAxisInfo(const Operation& op, const Operands& operands, std::vector<AxisInfo>& results) {
  if (results.empty() || !tracksAxisInfo(op.result()->type)) return;
  AxisInfo& result = results[0];
  const int width = widthOf(op.result()->type);
  auto binary = [&](auto rule) {
    const AxisInfo &lhs = *operands[0], &rhs = *operands[1];
    if (lhs.constantValue && rhs.constantValue)
      if (std::optional<int64_t> folded = foldBinary(op.kind, op, *lhs.constantValue, *rhs.constantValue, widthOf(op.operand(0)->type))) {
        result = AxisInfo::constant(*folded, shapeOf(op.result()->type));
        return;
      }
    result = rule(lhs, rhs);
  };
  // The op table's AxisInfo column (ir/OpFacts.def) names the rule of each op.
  switch (opFacts(op.kind).axisInfo) {
    case AxisInfoRule::Constant: result = constantOp(op); return;
    case AxisInfoRule::MakeRange: result = makeRange(op); return;
    case AxisInfoRule::Splat: result = splat(op, *operands[0]); return;
    case AxisInfoRule::Broadcast: result = broadcast(op, *operands[0]); return;
    case AxisInfoRule::ExpandDims: result = expandDims(op, *operands[0]); return;
    case AxisInfoRule::Trans: result = trans(op, *operands[0]); return;
    case AxisInfoRule::Reshape: result = reshape(op, *operands[0]); return;
    case AxisInfoRule::AddSub:
      binary([&](const AxisInfo& a, const AxisInfo& b) { return addSub(op.kind == OpKind::ArithSubI, a, b, result); });
      return;
    case AxisInfoRule::Multiply: binary([&](const AxisInfo& a, const AxisInfo& b) { return multiply(a, b, result); }); return;
    case AxisInfoRule::DivideOrRemainder:
      binary([&](const AxisInfo& a, const AxisInfo& b) { return divideOrRemainder(op.kind, width, a, b, result); });
      return;
    case AxisInfoRule::BitwiseOrShift:
      binary([&](const AxisInfo& a, const AxisInfo& b) { return bitwiseOrShift(op.kind, width, a, b, result); });
      return;
    case AxisInfoRule::CompareInt:
      binary([&](const AxisInfo&, const AxisInfo&) { return compareConstancy(op, operands, result); });
      return;
    case AxisInfoRule::Select: result = select(op, operands, result); return;
    case AxisInfoRule::Extend: result = extend(op, *operands[0]); return;
    case AxisInfoRule::Truncate: result = truncate(op, *operands[0]); return;
    case AxisInfoRule::AddPointer: result = addPointer(op, *operands[0], *operands[1]); return;
    case AxisInfoRule::Reinterpret: result = reinterpret(op, *operands[0]); return;
    // Deterministic lane-by-lane ops with an integer or pointer result: equal inputs give equal outputs.
    case AxisInfoRule::SharedConstancy: result = sharedConstancy(op, operands, result); return;
    // Nothing known (memory, program ids, reductions, calls, float results, shape shuffles).
    case AxisInfoRule::Unknown: return;
  }
}

}  // namespace tilesim::analysis
