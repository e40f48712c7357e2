// The `triton` float profile's error bounds (docs/semantics.md "Error bounds"): per lane,
// an absolute bound on |GPU result - our correctly rounded result|, from forward error analysis of the op
// given its operands' bounds plus the op's own error under Triton's NVIDIA lowering (docs/semantics.md "Floats" table:
// div.full.f32 2 ulp, ex2.approx, sqrt/rsqrt.approx.ftz, libdevice 1-2 ulp, FMA contraction of mulf).
// +inf means "uncertain": any GPU value is accepted (e.g. a compare whose operands are within their bounds).
// Exact ops on exact operands allocate nothing, so bit-exact comparison stays the common case.
// An op's own error comes from the measured table (interpreter/MeasuredBounds.h) when the function was
// measured, else from the documented assumptions below. A NaN bound (0 * inf) is +inf, never 0. libdevice's
// bounds are LibdeviceBounds.cpp. Integers carry bounds too (an approximate float through fptosi, cmpf, then
// integer ops: findings G9), read modulo 2^w: ElementwiseIntegerBounds.cpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "interpreter/ElementwiseBoundRules.h"
#include "interpreter/ElementwiseInternal.h"
#include "ir/OpFacts.h"

namespace tilesim::elementwise {

// Distance between adjacent values of `kind` around `value` (subnormal spacing below the normal range).
double ulpOf(double value, ScalarKind kind) {
  if (!isFloatKind(kind)) return 1.0;
  // Read off the double's bits (this runs for every lane of every float op under the triton profile): what
  // ilogb and ldexp would give, without the calls.
  const uint64_t bits = std::bit_cast<uint64_t>(value) & ~(uint64_t{1} << 63);
  if (bits >= 0x7FF0000000000000ull) return kInf;  // inf or NaN
  int mantissaBits = 52, minExponent = -1022;
  if (kind == ScalarKind::F32) {
    mantissaBits = 23;
    minExponent = -126;
  } else if (kind != ScalarKind::F64) {
    const FloatFormat format = floatFormat(kind);
    mantissaBits = format.mantissaBits;
    minExponent = 1 - format.bias;
  }
  // ilogb of a normal double; a subnormal double (below every format's minimum exponent) is clamped below anyway.
  int exponent = bits == 0 ? 0 : static_cast<int>(bits >> 52) - 1023;
  if (exponent < minExponent) exponent = minExponent;
  const int scale = exponent - mantissaBits;
  return scale >= -1022 ? std::bit_cast<double>(static_cast<uint64_t>(scale + 1023) << 52) : std::ldexp(1.0, scale);
}

bool isF32Subnormal(double value, ScalarKind kind) {
  return kind == ScalarKind::F32 && value != 0 && std::fabs(value) < 0x1p-126;
}

// The table's name for an op: the libdevice symbol, or the op's mnemonic (`math.exp`, `arith.divf`).
std::string measuredName(const Operation& op) {
  if (op.kind == OpKind::TTExternElementwise) return ExternElementwiseView{op}.symbol();
  return std::string(op.name());
}

// Spacing of `kind` at the largest magnitude within `reach` of r, so that k spacings cover k steps of the
// format even when they cross into the next binade.
double spacingAround(double r, double reach, ScalarKind kind) {
  return ulpOf(std::fabs(r) + reach, kind);
}

// |GPU - r| for a measured function on exact operands: the GPU is within maxUlp spacings of the exact value,
// r within half a spacing of it (0 when maxUlp < 0.5: both are then the correctly rounded value). Null row (a range the sweep did not cover): the assumed bound.
double measuredOwnError(const MeasuredBound* row, double r, ScalarKind kind, double assumed) {
  if (!row) return assumed;
  if (!std::isfinite(row->maxUlp)) return kInf;
  // Below half an ulp the GPU returned the correctly rounded value in every lane of the range: ours.
  if (row->maxUlp < 0.5) return 0.0;
  return (row->maxUlp + 0.5) * spacingAround(r, (row->maxUlp + 1) * ulpOf(r, kind), kind);
}

namespace {

// One lane of an op: x, y, z the operand values, ex, ey, ez their bounds, r our result, and the rules every op's
// bound shares.
struct Lane {
  const OpBoundContext& context;
  ScalarKind kind;
  double x, y, z, ex, ey, ez, r;
  double ulp = ulpOf(r, kind);
  const MeasuredBound* row = context.measured.at(x);

  bool f32() const { return kind == ScalarKind::F32; }
  // A propagated error plus our rounding; NaN (0 * inf: an exact zero times an unbounded operand) is "any value",
  // as is inf.
  double rounded(double propagated) const { return std::isnan(propagated) ? kInf : propagated > 0 ? propagated + ulp : 0.0; }
  // An exact infinite operand meeting a finite one (nonzero for mulf) gives that infinity on the GPU too, whatever
  // the finite operand's error and whether the product is contracted into an fma: (-inf - m) * log2e with m
  // uncertain is still -inf (online softmax's first step, masked lanes loaded as -inf).
  bool exactInfinity(bool multiply) const {
    if (std::isinf(x) && ex == 0 && std::isfinite(y) && std::isfinite(ey)) return !multiply || std::fabs(y) > ey;
    if (std::isinf(y) && ey == 0 && std::isfinite(x) && std::isfinite(ex)) return !multiply || std::fabs(x) > ex;
    return false;
  }
  // No useful bound (integer ops without a rule, bitcasts, selects): exact on exact operands, else uncertain.
  double noUsefulBound() const { return ex + ey + ez > 0 ? kInf : 0.0; }
};

double floatArithBound(FloatArithOp op, const Lane& l) {
  switch (op) {
    case FloatArithOp::ArithAddF:
    case FloatArithOp::ArithSubF: return std::isinf(l.r) && l.exactInfinity(false) ? 0.0 : l.rounded(l.ex + l.ey);
    case FloatArithOp::ArithMulF: {
      if (std::isinf(l.r) && l.exactInfinity(true)) return 0.0;
      double bound = l.rounded(std::fabs(l.y) * l.ex + std::fabs(l.x) * l.ey + l.ex * l.ey);
      // Triton fuses a mulf into a following addf (fma.rn, enable_fp_fusion): the product then enters the
      // add unrounded, i.e. differs from our rounded product by up to half an ulp.
      return l.kind == ScalarKind::F64 ? bound : bound + 0.5 * l.ulp;
    }
    case FloatArithOp::ArithDivF:
    case FloatArithOp::TTPreciseDivF: {
      double denominator = std::fabs(l.y) - l.ey;
      if (denominator <= 0) return kInf;
      double propagated = (l.ex + std::fabs(l.r) * l.ey) / denominator;
      bool approximate = op == FloatArithOp::ArithDivF && l.kind != ScalarKind::F64;  // div.full.f32, <= 2 ulp
      if (!approximate) return l.rounded(propagated);
      if (isF32Subnormal(l.y, l.kind)) return kInf;
      double bound = propagated + measuredOwnError(l.row, l.r, l.kind, 2 * l.ulp);
      if (isF32Subnormal(l.x, l.kind) || isF32Subnormal(l.r, l.kind)) bound += std::fabs(l.r);
      return bound;
    }
    case FloatArithOp::ArithRemF: return l.ex + l.ey > 0 ? kInf : 0.0;  // discontinuous in both operands
    case FloatArithOp::ArithNegF: return l.ex;
    case FloatArithOp::ArithMaxNumF:
    case FloatArithOp::ArithMinNumF:
    case FloatArithOp::ArithMaximumF:
    case FloatArithOp::ArithMinimumF: return std::max(l.ex, l.ey);
    case FloatArithOp::TTClampF: return std::max({l.ex, l.ey, l.ez});
  }
  TILESIM_UNREACHABLE("floatArithBound: not a FloatArith op");
}

double mathBound(MathOp op, const Lane& l) {
  const double x = l.x, ex = l.ex, r = l.r, ulp = l.ulp;
  const ScalarKind kind = l.kind;
  switch (op) {
    case MathOp::MathAbsF: return ex;
    case MathOp::MathFma: return l.rounded(std::fabs(l.y) * ex + std::fabs(x) * l.ey + ex * l.ey + l.ez);
    case MathOp::MathExp:
      // exp(-inf) = 0 and exp(+inf) = inf exactly on the GPU too (masked-off softmax lanes load -inf); without
      // this, 0 * inf below would be NaN, i.e. an unconstrained lane that spreads through every later sum.
      if (std::isinf(x)) return ex == 0 || x < 0 ? 0.0 : kInf;
      if (!l.f32()) return measuredOwnError(l.row, r, kind, ulp) + std::fabs(r) * std::expm1(ex);
      return measuredOwnError(l.row, r, kind, std::fabs(r) * (0x1p-21 + std::fabs(x) * 0x1p-23) + ulp) +
             std::fabs(r) * std::expm1(ex);
    case MathOp::MathExp2:
      return measuredOwnError(l.row, r, kind, 2 * ulp) + std::fabs(r) * std::expm1(ex * std::log(2.0)) +
             (l.f32() && std::fabs(r) < 0x1p-126 ? std::fabs(r) : 0);
    case MathOp::MathLog:
    case MathOp::MathLog2: {
      if (ex >= std::fabs(x)) return kInf;
      double scale = op == MathOp::MathLog2 ? 1 / std::log(2.0) : 1.0;
      return measuredOwnError(l.row, r, kind, ulp) + scale * -std::log1p(-ex / std::fabs(x)) +
             (isF32Subnormal(x, kind) ? kInf : 0);
    }
    case MathOp::MathSqrt:
    case MathOp::TTPreciseSqrt: {
      double propagated = std::sqrt(ex);
      if (op == MathOp::TTPreciseSqrt || !l.f32()) return l.rounded(propagated);
      return measuredOwnError(l.row, r, kind, ulp) + propagated + (isF32Subnormal(x, kind) ? std::fabs(r) : 0);  // sqrt.approx.ftz
    }
    case MathOp::MathRsqrt: {
      if (isF32Subnormal(x, kind) || x - ex <= 0) return kInf;  // rsqrt.approx.ftz(1e-40) = inf
      return measuredOwnError(l.row, r, kind, 2 * ulp) + std::fabs(1 / std::sqrt(x - ex) - r);
    }
    case MathOp::MathSin:
    case MathOp::MathCos: return measuredOwnError(l.row, r, kind, ulp) + ex + (isF32Subnormal(x, kind) ? std::fabs(r) : 0);
    case MathOp::MathErf:  // max |erf'| = 2 / sqrt(pi); __nv_erff with FTZ: a subnormal input or result may be 0
      return measuredOwnError(l.row, r, kind, ulp) + ex * 1.1283791670955126 +
             (l.f32() && (isF32Subnormal(x, kind) || std::fabs(r) < 0x1p-126) ? std::fabs(r) : 0);
    case MathOp::MathFloor:
    case MathOp::MathCeil:
      if (isF32Subnormal(x, kind)) return 1.0;  // cvt.rmi.ftz: floor(-1e-40) = -0 (we give -1)
      return ex > 0 ? 1 + ex : 0.0;
  }
  TILESIM_UNREACHABLE("mathBound: not a Math op");
}

double castBound(CastOp op, const Lane& l) {
  switch (op) {
    case CastOp::ArithExtF:
    case CastOp::ArithExtSI:
    case CastOp::ArithExtUI: return l.ex;
    case CastOp::ArithTruncF:
    case CastOp::TTFpToFp:
    case CastOp::ArithSIToFP:
    case CastOp::ArithUIToFP: return l.rounded(l.ex);
    case CastOp::ArithFPToSI:
    case CastOp::ArithFPToUI: return l.ex > 0 ? l.ex + 1 : 0.0;
    case CastOp::ArithTruncI:
    case CastOp::ArithBitcast:
    case CastOp::TTBitcast: return l.noUsefulBound();
  }
  TILESIM_UNREACHABLE("castBound: not a Cast op");
}

double compareBound(const Operation& op, CompareOp kind, const Lane& l) {
  switch (kind) {
    case CompareOp::ArithCmpF:
    case CompareOp::ArithCmpI: {
      double slack = l.ex + l.ey;
      if (slack == 0) return 0.0;
      // x <pred> x of one value: the GPU compares its one value with itself, so only NaN decides, and a finite
      // bound leaves the GPU's value a number when ours is (`x != x`, the fuzz's NaN sanitiser).
      if (op.operand(0) == op.operand(1) && std::isfinite(l.ex) && !std::isnan(l.x)) return 0.0;
      if (std::isnan(l.x) || std::isnan(l.y) || std::fabs(l.x - l.y) <= slack) return kInf;  // uncertain outcome
      return 0.0;
    }
    case CompareOp::ArithSelect: return l.noUsefulBound();
  }
  TILESIM_UNREACHABLE("compareBound: not a Compare op");
}

double intArithBound(IntArithOp op, const Lane& l) {
  switch (op) {
    case IntArithOp::ArithAddI:
    case IntArithOp::ArithSubI: return l.ex + l.ey;
    // LLVM treats these lanes as undefined behaviour and rewrites around them (a % b becomes a - (a / b) * b
    // when the kernel also divides; i64 division takes a 32-bit path when the operands fit), so real Triton
    // output for them varies with the surrounding code: any value is accepted (docs/semantics.md).
    case IntArithOp::ArithDivSI:
    case IntArithOp::ArithCeilDivSI:
    case IntArithOp::ArithDivUI:
    case IntArithOp::ArithRemSI:
    case IntArithOp::ArithRemUI: return l.y == 0 || l.ex + l.ey > 0 ? kInf : 0.0;
    case IntArithOp::ArithShLI:
    case IntArithOp::ArithShRSI:
    case IntArithOp::ArithShRUI: {
      const double width = bitWidth(l.kind);
      return l.y < 0 || l.y >= width || l.ex + l.ey > 0 ? kInf : 0.0;
    }
    case IntArithOp::ArithMulI:
    case IntArithOp::ArithAndI:
    case IntArithOp::ArithOrI:
    case IntArithOp::ArithXOrI:
    case IntArithOp::ArithMaxSI:
    case IntArithOp::ArithMinSI:
    case IntArithOp::ArithMaxUI:
    case IntArithOp::ArithMinUI:
    case IntArithOp::MathAbsI:
    case IntArithOp::TTMulhiUI: return l.noUsefulBound();
  }
  TILESIM_UNREACHABLE("intArithBound: not an IntArith op");
}

double externalBound(ExternalOp op, const Lane& l) {
  switch (op) {
    case ExternalOp::TTExternElementwise:
      if (!l.context.libdevice) return kInf;
      return libdeviceBound(l.context, l.kind, l.x, l.y, l.z, l.ex, l.ey, l.ez, l.r);
    case ExternalOp::TTElementwiseInlineAsm: return l.noUsefulBound();
  }
  TILESIM_UNREACHABLE("externalBound: not an External op");
}

// Bound for one lane of an elementwise op, by family.
double laneBound(const Operation& op, const Lane& lane) {
  return visitElementwiseFamily(op.kind, Overloaded{
      [&](IntArithOp kind) { return intArithBound(kind, lane); },
      [&](FloatArithOp kind) { return floatArithBound(kind, lane); },
      [&](MathOp kind) { return mathBound(kind, lane); },
      [&](CompareOp kind) { return compareBound(op, kind, lane); },
      [&](CastOp kind) { return castBound(kind, lane); },
      [&](ExternalOp kind) { return externalBound(kind, lane); },
  });
}

// Ops whose Triton lowering can differ from the correctly rounded value even on exact operands, by family.
bool isApproximate(FloatArithOp op, ScalarKind kind) {
  switch (op) {
    case FloatArithOp::ArithMulF:
    case FloatArithOp::ArithDivF: return kind != ScalarKind::F64;
    case FloatArithOp::ArithAddF:
    case FloatArithOp::ArithSubF:
    case FloatArithOp::ArithRemF:
    case FloatArithOp::ArithNegF:
    case FloatArithOp::ArithMaxNumF:
    case FloatArithOp::ArithMinNumF:
    case FloatArithOp::ArithMaximumF:
    case FloatArithOp::ArithMinimumF:
    case FloatArithOp::TTPreciseDivF:
    case FloatArithOp::TTClampF: return false;
  }
  return false;
}

// The op table's precision column (ir/OpFacts.def: exp, exp2, log, log2, sin, cos, sqrt, rsqrt, erf), but for
// two kinds: f64 sqrt is sqrt.rn (exact), and the table's exact floor and ceil differ on f32 subnormal inputs.
bool isApproximate(MathOp op, ScalarKind kind) {
  if (op == MathOp::MathFloor || op == MathOp::MathCeil) return kind == ScalarKind::F32;  // checked per lane
  if (op == MathOp::MathSqrt && kind == ScalarKind::F64) return false;
  return opFacts(static_cast<OpKind>(op)).precision == TritonPrecision::Approximate;
}

// Integer ops are exact; only the lanes the op table marks as possible undefined behaviour (a zero divisor, a shift
// past the width) get a bound, checked per lane.
bool isApproximate(IntArithOp, ScalarKind) { return false; }

bool isApproximate(ExternalOp op, ScalarKind) { return op == ExternalOp::TTExternElementwise; }
bool isApproximate(CompareOp, ScalarKind) { return false; }
bool isApproximate(CastOp, ScalarKind) { return false; }

bool isApproximate(const Operation& op, ScalarKind kind) {
  if (opFamily(op.kind) == OpFamily::IntArith && canBeUndefinedBehaviour(op.kind)) return true;
  return visitElementwiseFamily(op.kind, [&](auto family) { return isApproximate(family, kind); });
}

}  // namespace

void propagateErrorBounds(const Operation& op, Operands operands, Tile& result) {
  bool anyOperandBound = false;
  for (const Tile* operand : operands) anyOperandBound |= operand->errorBounds() != nullptr;
  ScalarKind operandKind = operands.empty() ? result.elementType().scalarKind() : operands[0]->elementType().scalarKind();
  ScalarKind resultKind = result.elementType().scalarKind();
  ScalarKind kind = isFloatKind(resultKind) ? resultKind : operandKind;
  if (!anyOperandBound && !isApproximate(op, kind)) return;

  double* bounds = result.mutableErrorBounds();
  auto operandValue = [&](size_t k, int64_t lane) {
    return k < operands.size() ? laneAsDouble(*operands[k], lane) : 0.0;
  };
  auto operandBound = [&](size_t k, int64_t lane) {
    return k < operands.size() && operands[k]->errorBounds() ? operands[k]->errorBounds()[lane] : 0.0;
  };
  OpBoundContext context;
  context.measured = findMeasuredFunction(measuredName(op), kind);
  if (op.kind == OpKind::TTExternElementwise) {
    context.symbol = ExternElementwiseView{op}.symbol();
    context.libdevice = scalar::findLibdeviceFunction(context.symbol);
  }
  const bool integerOperand = !operands.empty() && isIntegerKind(operandKind);
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    if (integerOperand || op.kind == OpKind::ArithFPToSI || op.kind == OpKind::ArithFPToUI)
      if (std::optional<double> bound = integerLaneBound(op, operands, result, i, operandBound(0, i), operandBound(1, i))) {
        bounds[i] = std::isnan(*bound) ? kInf : *bound;
        continue;
      }
    double r = laneAsDouble(result, i);
    const Lane lane{context,       kind,           operandValue(0, i), operandValue(1, i), operandValue(2, i),
                    operandBound(0, i), operandBound(1, i), operandBound(2, i), r};
    double bound = laneBound(op, lane);
    if (bound > 0 && !std::isfinite(r)) bound = kInf;
    bounds[i] = std::isnan(bound) ? kInf : bound;
  }
}

}  // namespace tilesim::elementwise
