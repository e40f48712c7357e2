// One node of a plan (see KernelWriter.h): the dispatch over NodeOp (no default: a node op added to KernelGen.h
// does not compile until it is built here) and the base ops every program may use: arithmetic, compares,
// select, casts, math, shape ops and reductions. Operands are legalised first where Triton or LLVM would
// otherwise reject the node or give it undefined behaviour (divisors `b | 1`, shift amounts masked to the width,
// floats cast before bitwise ops, math on fp32).
#include <algorithm>

#include "fuzz/programs/KernelWriter.h"

namespace tilesim::fuzz::kernelgen {

Literal KernelWriter::literalOperand(const Node& n, bool floating) const {
  if (!allowUB() && !floating && kIntLiterals[n.literalIndex % std::size(kIntLiterals)] == 0) return Literal(1LL);
  return literalFor(n.literalIndex, floating);
}

Operand KernelWriter::secondOperand(const Node& n, const std::optional<Tensor>& b, bool floating) const {
  return b ? Operand(*b) : Operand(literalOperand(n, floating));
}

Tensor KernelWriter::node(const Node& n) {
  Tensor a = pick(n.a);
  std::optional<Tensor> b;
  if (!n.literalB) {
    b = pick(n.b);
    if (!fitShapes(a, *b)) b.reset();
  }
  auto second = [&](bool floating) { return secondOperand(n, b, floating); };
  auto lit = [&](bool floating) { return literalOperand(n, floating); };
  switch (n.op) {
    case NodeOp::Add: return kb_.add(a, second(isFloat(a)));
    case NodeOp::Sub: return kb_.sub(a, second(isFloat(a)));
    case NodeOp::Mul: return kb_.mul(a, second(isFloat(a)));
    case NodeOp::TrueDiv: return trueDivNode(n, a, b);
    case NodeOp::FloorDiv:
    case NodeOp::Mod: return floorDivOrModNode(n, a, b);
    case NodeOp::And: return kb_.and_(toInt(a), b ? Operand(toInt(*b)) : Operand(lit(false)));
    case NodeOp::Or: return kb_.or_(toInt(a), b ? Operand(toInt(*b)) : Operand(lit(false)));
    case NodeOp::Xor: return kb_.xor_(toInt(a), b ? Operand(toInt(*b)) : Operand(lit(false)));
    case NodeOp::Shl:
    case NodeOp::Shr: return shiftNode(n, a, b);
    case NodeOp::Lt: return kb_.lt(a, second(isFloat(a)));
    case NodeOp::Le: return kb_.le(a, second(isFloat(a)));
    case NodeOp::Gt: return kb_.gt(a, second(isFloat(a)));
    case NodeOp::Ge: return kb_.ge(a, second(isFloat(a)));
    case NodeOp::Eq: return kb_.eq(a, second(isFloat(a)));
    case NodeOp::Ne: return kb_.ne(a, second(isFloat(a)));
    case NodeOp::Maximum:
      return kb_.maximum(a, second(isFloat(a)), n.variant % 2 ? builder::PropagateNan::All : builder::PropagateNan::None);
    case NodeOp::Minimum:
      return kb_.minimum(a, second(isFloat(a)), n.variant % 2 ? builder::PropagateNan::All : builder::PropagateNan::None);
    case NodeOp::Where: return whereNode(n, a, b);
    case NodeOp::Neg: return kb_.neg(a);
    case NodeOp::Invert: return a.dtype == DType::Int1 ? kb_.not_(a) : kb_.invert(toInt(a));
    case NodeOp::Abs: return kb_.abs(a);
    case NodeOp::Cast: return castNode(n, a);
    case NodeOp::Bitcast: return bitcastNode(n, a);
    case NodeOp::Math: return mathNode(n, a);
    case NodeOp::Fma: return fmaNode(n, a, b);
    case NodeOp::Clamp: return clampNode(n, a);
    case NodeOp::Umulhi: return umulhiNode(n, a, b);
    case NodeOp::Gather: return gatherNode(n, a);
    case NodeOp::ReduceProduct: return reduceProductNode(n, a);
    case NodeOp::Join: return joinNode(a, b);
    case NodeOp::Split: return splitNode(n, a);
    case NodeOp::Cat: return catNode(a, b);
    case NodeOp::Trans: return a.rank() == 2 ? kb_.trans(a, {1, 0}) : Tensor{};
    case NodeOp::Reshape: return reshapeNode(a);
    case NodeOp::Sum: return reductionNode(n, a, &KernelBuilder::sum);
    case NodeOp::Max: return reductionNode(n, a, &KernelBuilder::max);
    case NodeOp::Min: return reductionNode(n, a, &KernelBuilder::min);
    case NodeOp::Argmax: return reductionNode(n, a, &KernelBuilder::argmax);
    case NodeOp::Argmin: return reductionNode(n, a, &KernelBuilder::argmin);
    case NodeOp::Cumsum: return reductionNode(n, a, &KernelBuilder::cumsum);  // the variant's bit is `reverse` here
    case NodeOp::ForLoop: return forLoopNode(n, controlFlowOperands(a, b));
    case NodeOp::WhileLoop: return whileLoopNode(n, controlFlowOperands(a, b));
    case NodeOp::IfElse: return ifElseNode(n, controlFlowOperands(a, b));
    case NodeOp::Call: return callNode(n, controlFlowOperands(a, b));
    case NodeOp::AtomicOwn:
    case NodeOp::AtomicShared: return atomicNode(n, a);
    case NodeOp::Dot: return dotNode(n, a);
    case NodeOp::Histogram: return histogramNode(n, a);
    case NodeOp::TileGather: return tileGatherNode(n, a, b);
    case NodeOp::Fp8: return fp8Node(n, a);
    case NodeOp::Library: return libraryNode(n, a, b);
    case NodeOp::Assert: return assertNode(n);
    case NodeOp::Barrier:
      kb_.debugBarrier();
      return Tensor{};
    case NodeOp::NumPrograms: return kb_.numPrograms(0);
    case NodeOp::Unsplat: return unsplatNode(a);
    case NodeOp::BlockLoad: return blockLoadNode(n);
    case NodeOp::PointerRoundTrip: return pointerRoundTripNode(n);
    case NodeOp::DescriptorLoad: return descriptorLoadNode(n);
    case NodeOp::kCount: break;
  }
  return Tensor{};
}

Tensor KernelWriter::trueDivNode(const Node& n, Tensor a, std::optional<Tensor> b) {
  if (b) matchSignedness(a, *b);
  return kb_.truediv(a, secondOperand(n, b, isFloat(a)));
}

// Integers: `a // (b | 1)` avoids division by zero; mixed signedness is a TypeError, so b takes a's dtype.
Tensor KernelWriter::floorDivOrModNode(const Node& n, Tensor a, const std::optional<Tensor>& bTensor) {
  bool floorDiv = n.op == NodeOp::FloorDiv;
  if (floorDiv) a = toInt(a);
  if (!bTensor) return floorDiv ? kb_.floordiv(a, literalOperand(n, false)) : kb_.mod(a, literalOperand(n, isFloat(a)) );
  Tensor b = *bTensor;
  if (floorDiv) b = toInt(b);
  if (!isFloat(a) && !isFloat(b)) {
    matchSignedness(a, b);
    b = kb_.or_(b, 1);
  }
  return floorDiv ? kb_.floordiv(a, b) : kb_.mod(a, b);
}

// In-range amounts: b & (width(a) - 1).
Tensor KernelWriter::shiftNode(const Node& n, Tensor a, const std::optional<Tensor>& bTensor) {
  a = toInt(a);
  if (a.dtype == DType::Int1) a = kb_.cast(a, DType::Int8);
  int width = builder::primitiveBitWidth(a.dtype);
  Operand amount = bTensor ? Operand(kb_.and_(toInt(*bTensor), width - 1)) : Operand(Literal(((kIntLiterals[n.literalIndex % 16] % width) + width) % width));
  return n.op == NodeOp::Shl ? kb_.shl(a, amount) : kb_.shr(a, amount);
}

Tensor KernelWriter::whereNode(const Node& n, const Tensor& a, std::optional<Tensor> bTensor) {
  Tensor condition = pick(n.c);
  Tensor x = a;
  if (condition.dtype != DType::Int1) condition = kb_.ne(condition, 0);
  if (!fitShapes(condition, x)) return Tensor{};
  if (bTensor && !fitShapes(condition, *bTensor)) bTensor.reset();
  if (bTensor && !fitShapes(x, *bTensor)) bTensor.reset();
  return kb_.where(condition, x, secondOperand(n, bTensor, isFloat(x)));
}

Tensor KernelWriter::castNode(const Node& n, const Tensor& a) {
  // Float downcasts sometimes round toward zero (tt.fp_to_fp rtz), as fp_downcast_rounding="rtz" asks.
  if (n.variant % 3 == 0 && isFloat(a) && builder::isFloating(n.castTo) &&
      builder::primitiveBitWidth(n.castTo) < builder::primitiveBitWidth(a.dtype))
    return kb_.cast(a, n.castTo, false, std::string("rtz"));
  if (isFloat(a) && !builder::isFloating(n.castTo)) return floatToInt(a, n.castTo);
  return kb_.cast(a, n.castTo);
}

Tensor KernelWriter::bitcastNode(const Node& n, const Tensor& a) {
  if (builder::primitiveBitWidth(a.dtype) != builder::primitiveBitWidth(n.castTo))
    return isFloat(a) && !builder::isFloating(n.castTo) ? floatToInt(a, n.castTo) : kb_.cast(a, n.castTo);
  return kb_.cast(a, n.castTo, /*bitcast=*/true);
}

Tensor KernelWriter::mathNode(const Node& n, Tensor a) {
  a = toFp32(a);
  switch (n.variant % 12) {
    case 0: return kb_.exp(a);
    case 1: return kb_.exp2(a);
    case 2: return kb_.log(a);
    case 3: return kb_.log2(a);
    case 4: return kb_.sin(a);
    case 5: return kb_.cos(a);
    case 6: return kb_.sqrt(a);
    case 7: return kb_.rsqrt(a);
    case 8: return kb_.floor(a);
    case 9: return kb_.ceil(a);
    case 10: return kb_.abs(a);
    default: return kb_.neg(a);
  }
}

Tensor KernelWriter::fmaNode(const Node& n, Tensor a, const std::optional<Tensor>& bTensor) {
  Tensor c = pick(n.c);
  a = toFp32(a);
  if (!fitShapes(a, c)) return Tensor{};
  c = toFp32(c);
  return kb_.fma(a, bTensor ? Operand(toFp32(*bTensor)) : Operand(literalOperand(n, true)), c);
}

Tensor KernelWriter::clampNode(const Node& n, Tensor a) {
  a = toFp32(a);
  double lo = kFloatLiterals[n.literalIndex % 8], hi = kFloatLiterals[(n.literalIndex + n.variant) % 8];
  return kb_.clamp(a, std::min(lo, hi), std::max(lo, hi),
                   n.variant % 2 ? builder::PropagateNan::All : builder::PropagateNan::None);
}

Tensor KernelWriter::umulhiNode(const Node& n, Tensor a, const std::optional<Tensor>& bTensor) {
  auto fix = [&](Tensor t) {
    t = toInt(t);
    bool ok = t.dtype == DType::Int32 || t.dtype == DType::Int64 || t.dtype == DType::UInt32 || t.dtype == DType::UInt64;
    return ok ? t : kb_.cast(t, DType::Int32);
  };
  a = fix(a);
  return kb_.umulhi(a, bTensor ? Operand(fix(*bTensor)) : Operand(literalOperand(n, false)));
}

// A user combine region: products round differently in every order, so this pins the documented tree.
Tensor KernelWriter::reduceProductNode(const Node& n, Tensor a) {
  if (!a.isBlock()) return Tensor{};
  if (a.dtype == DType::Int1) a = kb_.cast(a, DType::Int32);
  bool useXor = !isFloat(a) && n.variant % 2;
  std::vector<Tensor> reduced = kb_.reduce({a}, n.axis % a.rank(), [useXor](KernelBuilder& kb, const std::vector<Tensor>& l, const std::vector<Tensor>& r) {
    return std::vector<Tensor>{useXor ? kb.xor_(l[0], r[0]) : kb.mul(l[0], r[0])};
  });
  return reduced.empty() ? Tensor{} : reduced[0];
}

Tensor KernelWriter::joinNode(const Tensor& a, const std::optional<Tensor>& bTensor) {
  if (!bTensor || a.rank() > 2) return Tensor{};
  Tensor b = bTensor->dtype == a.dtype ? *bTensor : kb_.cast(*bTensor, a.dtype);
  return kb_.join(a, b);
}

Tensor KernelWriter::splitNode(const Node& n, const Tensor& a) {
  if (!a.isBlock() || a.shape.back() != 2) return Tensor{};
  auto [first, second] = kb_.split(a);
  return n.variant % 2 ? second : first;
}

Tensor KernelWriter::catNode(const Tensor& a, const std::optional<Tensor>& bTensor) {
  if (!bTensor || a.rank() != 1 || bTensor->shape != a.shape) return Tensor{};
  Tensor b = bTensor->dtype == a.dtype ? *bTensor : kb_.cast(*bTensor, a.dtype);
  return kb_.cat(a, b, /*canReorder=*/true);
}

Tensor KernelWriter::reshapeNode(const Tensor& a) {
  if (a.rank() == 2) return kb_.reshape(a, {a.shape[0] * a.shape[1]});
  if (a.rank() == 1 && a.shape[0] >= 2) return kb_.reshape(a, {a.shape[0] / 2, 2});
  return Tensor{};
}

Tensor KernelWriter::reductionNode(const Node& n, const Tensor& a, Reduction reduction) {
  if (!a.isBlock()) return Tensor{};
  int axis = n.axis % a.rank();
  bool keepDims = n.variant % 2;
  return (kb_.*reduction)(a, axis, keepDims);
}

}  // namespace tilesim::fuzz::kernelgen
