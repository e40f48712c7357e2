// The `triton` float profile's error bounds (BRIEF decision 3; docs/semantics.md "Error bounds"): per lane,
// an absolute bound on |GPU result - our correctly rounded result|, from forward error analysis of the op
// given its operands' bounds plus the op's own error under Triton's NVIDIA lowering (SEMANTICS §1.7 table:
// div.full.f32 2 ulp, ex2.approx, sqrt/rsqrt.approx.ftz, libdevice 1-2 ulp, FMA contraction of mulf).
// +inf means "uncertain": any GPU value is accepted (e.g. a compare whose operands are within their bounds).
// Exact ops on exact operands allocate nothing, so bit-exact comparison stays the common case.
#include <algorithm>
#include <cmath>
#include <limits>

#include "interpreter/ElementwiseInternal.h"

namespace tilesim::elementwise {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Distance between adjacent values of `kind` around `value` (subnormal spacing below the normal range).
double ulpOf(double value, ScalarKind kind) {
  if (!isFloatKind(kind)) return 1.0;
  FloatFormat format = floatFormat(kind);
  double magnitude = std::fabs(value);
  if (!std::isfinite(magnitude)) return kInf;
  int exponent = magnitude == 0 ? 0 : std::ilogb(magnitude);
  int minExponent = 1 - format.bias;
  if (exponent < minExponent) exponent = minExponent;
  return std::ldexp(1.0, exponent - format.mantissaBits);
}

bool isF32Subnormal(double value, ScalarKind kind) {
  return kind == ScalarKind::F32 && value != 0 && std::fabs(value) < 0x1p-126;
}

enum class OpError : uint8_t { Exact, Approximate };

// Bound for one lane. x, y, z: operand values; ex, ey, ez: their bounds; r: our result.
double laneBound(const Operation& op, ScalarKind kind, double x, double y, double z, double ex, double ey, double ez,
                 double r) {
  double ulp = ulpOf(r, kind);
  bool f32 = kind == ScalarKind::F32;
  auto rounded = [&](double propagated) { return propagated > 0 ? propagated + ulp : 0.0; };
  switch (op.kind) {
    case OpKind::ArithAddF:
    case OpKind::ArithSubF: return rounded(ex + ey);
    case OpKind::ArithMulF: {
      double bound = rounded(std::fabs(y) * ex + std::fabs(x) * ey + ex * ey);
      // Triton fuses a mulf into a following addf (fma.rn, enable_fp_fusion): the product then enters the
      // add unrounded, i.e. differs from our rounded product by up to half an ulp.
      return kind == ScalarKind::F64 ? bound : bound + 0.5 * ulp;
    }
    case OpKind::ArithDivF:
    case OpKind::TTPreciseDivF: {
      double denominator = std::fabs(y) - ey;
      if (denominator <= 0) return kInf;
      double propagated = (ex + std::fabs(r) * ey) / denominator;
      bool approximate = op.kind == OpKind::ArithDivF && kind != ScalarKind::F64;  // div.full.f32, <= 2 ulp
      if (!approximate) return rounded(propagated);
      if (isF32Subnormal(y, kind)) return kInf;
      double bound = propagated + 2 * ulp;
      if (isF32Subnormal(x, kind) || isF32Subnormal(r, kind)) bound += std::fabs(r);
      return bound;
    }
    case OpKind::ArithRemF: return ex + ey > 0 ? kInf : 0.0;  // discontinuous in both operands
    case OpKind::ArithNegF:
    case OpKind::MathAbsF:
    case OpKind::ArithExtF: return ex;
    case OpKind::ArithMaxNumF:
    case OpKind::ArithMinNumF:
    case OpKind::ArithMaximumF:
    case OpKind::ArithMinimumF: return std::max(ex, ey);
    case OpKind::TTClampF: return std::max({ex, ey, ez});
    case OpKind::MathFma: return rounded(std::fabs(y) * ex + std::fabs(x) * ey + ex * ey + ez);
    case OpKind::MathExp:
      // exp(-inf) = 0 and exp(+inf) = inf exactly on the GPU too (masked-off softmax lanes load -inf); without
      // this, 0 * inf below would be NaN, i.e. an unconstrained lane that spreads through every later sum.
      if (std::isinf(x)) return ex == 0 || x < 0 ? 0.0 : kInf;
      if (!f32) return ulp + std::fabs(r) * std::expm1(ex);
      return std::fabs(r) * (0x1p-21 + std::fabs(x) * 0x1p-23) + std::fabs(r) * std::expm1(ex) + ulp;
    case OpKind::MathExp2: return 2 * ulp + std::fabs(r) * std::expm1(ex * std::log(2.0)) + (f32 && std::fabs(r) < 0x1p-126 ? std::fabs(r) : 0);
    case OpKind::MathLog:
    case OpKind::MathLog2: {
      if (ex >= std::fabs(x)) return kInf;
      double scale = op.kind == OpKind::MathLog2 ? 1 / std::log(2.0) : 1.0;
      return ulp + scale * -std::log1p(-ex / std::fabs(x)) + (isF32Subnormal(x, kind) ? kInf : 0);
    }
    case OpKind::MathSqrt:
    case OpKind::TTPreciseSqrt: {
      double propagated = std::sqrt(ex);
      if (op.kind == OpKind::TTPreciseSqrt || !f32) return rounded(propagated);
      return ulp + propagated + (isF32Subnormal(x, kind) ? std::fabs(r) : 0);  // sqrt.approx.ftz
    }
    case OpKind::MathRsqrt: {
      if (isF32Subnormal(x, kind) || x - ex <= 0) return kInf;  // rsqrt.approx.ftz(1e-40) = inf
      return 2 * ulp + std::fabs(1 / std::sqrt(x - ex) - r);
    }
    case OpKind::MathSin:
    case OpKind::MathCos: return ulp + ex + (isF32Subnormal(x, kind) ? std::fabs(r) : 0);
    case OpKind::MathErf: return ulp + ex * 1.1283791670955126;  // max |erf'| = 2 / sqrt(pi)
    case OpKind::MathFloor:
    case OpKind::MathCeil:
      if (isF32Subnormal(x, kind)) return 1.0;  // cvt.rmi.ftz: floor(-1e-40) = -0 (we give -1)
      return ex > 0 ? 1 + ex : 0.0;
    case OpKind::TTExternElementwise:
      // libdevice is built with flush-to-zero: a subnormal f32 input is read as zero, which can change the
      // result arbitrarily (floor(-1e-40) is -0.0 on the GPU, not -1); a subnormal result may be flushed.
      if (isF32Subnormal(x, kind) || isF32Subnormal(y, kind) || isF32Subnormal(z, kind)) return kInf;
      if (ex + ey + ez > 0) return kInf;
      return isF32Subnormal(r, kind) ? std::fabs(r) + 2 * ulp : 2 * ulp;
    case OpKind::ArithTruncF:
    case OpKind::TTFpToFp: return rounded(ex);
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI: return ex > 0 ? ex + 1 : 0.0;
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP: return rounded(ex);
    case OpKind::ArithCmpF:
    case OpKind::ArithCmpI: {
      double slack = ex + ey;
      if (slack == 0) return 0.0;
      if (std::isnan(x) || std::isnan(y) || std::fabs(x - y) <= slack) return kInf;  // uncertain outcome
      return 0.0;
    }
    case OpKind::ArithAddI:
    case OpKind::ArithSubI: return ex + ey;
    // LLVM treats these lanes as undefined behaviour and rewrites around them (a % b becomes a - (a / b) * b
    // when the kernel also divides; i64 division takes a 32-bit path when the operands fit), so real Triton
    // output for them varies with the surrounding code: any value is accepted (docs/semantics.md).
    case OpKind::ArithDivSI:
    case OpKind::ArithDivUI:
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI: return y == 0 || ex + ey > 0 ? kInf : 0.0;
    case OpKind::ArithShLI:
    case OpKind::ArithShRSI:
    case OpKind::ArithShRUI: {
      const double width = bitWidth(kind);
      return y < 0 || y >= width || ex + ey > 0 ? kInf : 0.0;
    }
    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI: return ex;
    default: return ex + ey + ez > 0 ? kInf : 0.0;  // other integer ops and bitcasts: no useful bound
  }
}

// Ops whose Triton lowering can differ from the correctly rounded value even on exact operands.
bool isApproximate(const Operation& op, ScalarKind kind) {
  bool narrow = kind != ScalarKind::F64;
  switch (op.kind) {
    case OpKind::ArithMulF:
    case OpKind::ArithDivF:
    case OpKind::MathSqrt: return narrow;
    case OpKind::MathExp:
    case OpKind::MathExp2:
    case OpKind::MathLog:
    case OpKind::MathLog2:
    case OpKind::MathSin:
    case OpKind::MathCos:
    case OpKind::MathRsqrt:
    case OpKind::MathErf:
    case OpKind::TTExternElementwise: return true;
    case OpKind::MathFloor:
    case OpKind::MathCeil: return kind == ScalarKind::F32;  // only subnormal inputs differ; checked per lane
    case OpKind::ArithDivSI:
    case OpKind::ArithDivUI:
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
    case OpKind::ArithShLI:
    case OpKind::ArithShRSI:
    case OpKind::ArithShRUI: return true;  // only lanes with undefined behaviour get a bound; checked per lane
    default: return false;
  }
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
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    double r = laneAsDouble(result, i);
    double bound = laneBound(op, kind, operandValue(0, i), operandValue(1, i), operandValue(2, i), operandBound(0, i),
                             operandBound(1, i), operandBound(2, i), r);
    if (bound > 0 && !std::isfinite(r)) bound = kInf;
    bounds[i] = std::isnan(bound) ? kInf : bound;
  }
}

}  // namespace tilesim::elementwise
