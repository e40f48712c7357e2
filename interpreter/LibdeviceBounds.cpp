// The `triton` profile's error bounds of tt.extern_elementwise (libdevice) lanes (ElementwiseBoundRules.h): the
// operands' bounds propagated through the function (monotone ones at the interval's ends), plus the function's
// own error, measured on the H200 (MeasuredBounds.h) or the CUDA Programming Guide's documented maximum.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "interpreter/ElementwiseBoundRules.h"
#include "interpreter/ElementwiseInternal.h"

namespace tilesim::elementwise {
namespace {

bool isMonotone(scalar::MathFunction function) {
  using scalar::MathFunction;
  switch (function) {
    case MathFunction::Exp: case MathFunction::Exp2: case MathFunction::Exp10: case MathFunction::Expm1:
    case MathFunction::Log: case MathFunction::Log2: case MathFunction::Log10: case MathFunction::Log1p:
    case MathFunction::Sqrt: case MathFunction::Rsqrt: case MathFunction::Cbrt: case MathFunction::Asin:
    case MathFunction::Acos: case MathFunction::Atan: case MathFunction::Sinh: case MathFunction::Tanh:
    case MathFunction::Asinh: case MathFunction::Acosh: case MathFunction::Atanh: case MathFunction::Erf:
    case MathFunction::Erfc: case MathFunction::Floor: case MathFunction::Ceil: case MathFunction::Trunc:
    case MathFunction::Round: case MathFunction::Rint: return true;
    default: return false;
  }
}

// sup |f(t) - r| over the inputs t the GPU may evaluate: [x - ex, x + ex], and +-0 when it flushes subnormal
// inputs and the interval reaches them. Exact for monotone f (the endpoints); cosh adds its minimum at 0, tan
// checks that no pole lies between the endpoints, sin/cos use |f'| <= 1; anything else with ex > 0 is +inf.
double propagatedThrough(scalar::MathFunction function, double x, double ex, double r, bool flushesInput) {
  using scalar::MathFunction;
  auto f = [&](double t) { return scalar::evalMath(function, t); };
  auto distance = [&](double t) {
    double d = std::fabs(f(t) - r);
    return std::isnan(d) ? kInf : d;
  };
  double worst = 0;
  const double low = x - ex, high = x + ex;
  if (flushesInput && std::min(std::fabs(low), std::fabs(high)) < 0x1p-126)
    worst = std::max({worst, distance(0.0), distance(-0.0)});
  if (ex == 0) return std::max(worst, distance(x));
  if (function == MathFunction::Sin || function == MathFunction::Cos) return std::max(worst, std::min(ex, 2.0) + std::fabs(f(x) - r));
  if (function == MathFunction::Tan) {
    if (!(f(low) <= f(high))) return kInf;  // a pole between the endpoints
    return std::max({worst, distance(low), distance(high)});
  }
  if (function == MathFunction::Cosh) {
    worst = std::max({worst, distance(low), distance(high)});
    return low < 0 && high > 0 ? std::max(worst, distance(0.0)) : worst;
  }
  if (!isMonotone(function)) return kInf;
  return std::max({worst, distance(low), distance(high)});
}

// Functions whose value IEEE defines exactly (no rounding or one correct rounding of an exact result): libdevice
// computes them exactly, so their assumed own error is 0 (FTZ aside).
bool isExactFunction(scalar::MathFunction function) {
  using scalar::MathFunction;
  switch (function) {
    case MathFunction::Floor: case MathFunction::Ceil: case MathFunction::Trunc: case MathFunction::Round:
    case MathFunction::Rint: case MathFunction::Abs: case MathFunction::Fmin: case MathFunction::Fmax:
    case MathFunction::CopySign: case MathFunction::Fdim: case MathFunction::Fmod: return true;
    default: return false;
  }
}

// The documented maximum error of a libdevice function in ulps of the exact value (CUDA C++ Programming Guide,
// "Mathematical Functions": the single- and double-precision tables, full range, no fast-math), used until the
// function is measured. Not listed: 2. lgammaf's error is unbounded near its zeros in (-10.001, -2.264).
double documentedUlps(std::string_view symbol, double x) {
  struct Entry {
    std::string_view symbol;
    double ulps;
  };
  static constexpr Entry kTable[] = {
      {"__nv_expf", 2},    {"__nv_exp2f", 2},   {"__nv_exp10f", 2},  {"__nv_expm1f", 1},  {"__nv_logf", 1},
      {"__nv_log2f", 1},   {"__nv_log10f", 2},  {"__nv_log1pf", 1},  {"__nv_sqrtf", 0},   {"__nv_rsqrtf", 2},
      {"__nv_cbrtf", 1},   {"__nv_sinf", 2},    {"__nv_cosf", 2},    {"__nv_tanf", 4},    {"__nv_asinf", 2},
      {"__nv_acosf", 2},   {"__nv_atanf", 2},   {"__nv_sinhf", 3},   {"__nv_coshf", 2},   {"__nv_tanhf", 2},
      {"__nv_asinhf", 3},  {"__nv_acoshf", 4},  {"__nv_atanhf", 3},  {"__nv_erff", 2},    {"__nv_erfcf", 4},
      {"__nv_tgammaf", 5}, {"__nv_powf", 4},    {"__nv_atan2f", 3},  {"__nv_hypotf", 3},  {"__nv_exp", 1},
      {"__nv_exp2", 1},    {"__nv_exp10", 1},   {"__nv_expm1", 1},   {"__nv_log", 1},     {"__nv_log2", 1},
      {"__nv_log10", 1},   {"__nv_log1p", 1},   {"__nv_sqrt", 0},    {"__nv_rsqrt", 1},   {"__nv_cbrt", 1},
      {"__nv_sin", 2},     {"__nv_cos", 2},     {"__nv_tan", 2},     {"__nv_asin", 2},    {"__nv_acos", 2},
      {"__nv_atan", 2},    {"__nv_sinh", 2},    {"__nv_cosh", 1},    {"__nv_tanh", 1},    {"__nv_asinh", 3},
      {"__nv_acosh", 3},   {"__nv_atanh", 2},   {"__nv_erf", 2},     {"__nv_erfc", 5},    {"__nv_lgamma", 4},
      {"__nv_tgamma", 10}, {"__nv_pow", 2},     {"__nv_atan2", 2},   {"__nv_hypot", 2},
  };
  if (symbol == "__nv_lgammaf") return x > -10.001 && x < -2.264 ? kInf : 6.0;
  if (symbol == "__nv_fast_expf") return 2 + std::floor(std::fabs(1.173 * x));  // ex2.approx(x log2 e)
  if (symbol == "__nv_fast_logf") return x >= 0.5 && x <= 2 ? kInf : 3.0;  // absolute 2^-21.41 inside: below
  if (symbol == "__nv_fast_powf") return kInf;  // exp2(y log2 x): the error grows with |y log2 x|
  for (const Entry& entry : kTable)
    if (entry.symbol == symbol) return entry.ulps;
  return 2.0;
}

}  // namespace

// tt.extern_elementwise (libdevice). Unary float functions: the propagated interval (above) plus the function's
// own error (measured, or the assumed 2 ulp from the exact value); libdevice is linked with FTZ on, so by
// assumption (or as measured) subnormal f32 inputs read as zero and subnormal results may be zero. Binary and
// ternary functions: exact operands get the own error; bounded operands +inf except the Lipschitz ones.
double libdeviceBound(const OpBoundContext& context, ScalarKind kind, double x, double y, double z, double ex,
                      double ey, double ez, double r) {
  using scalar::MathFunction;
  const scalar::LibdeviceFunction& function = *context.libdevice;
  const bool f32 = kind == ScalarKind::F32;
  const bool flushesInput = f32 && (context.measured.measured() ? context.measured.flushesInput() : true);
  const bool flushesResult = f32 && (context.measured.measured() ? context.measured.flushesResult() : true);
  if (function.intResult) {  // isinf, isnan, finite, signbit: exact unless the operand is uncertain
    return ex > 0 ? kInf : 0.0;  // flushing keeps the sign, and no class changes
  }
  const double ulp = ulpOf(r, kind);
  double propagated;
  if (function.arity == 1) {
    propagated = propagatedThrough(function.function, x, ex, r, flushesInput);
  } else {
    bool subnormalOperand = flushesInput && (isF32Subnormal(x, kind) || isF32Subnormal(y, kind) || isF32Subnormal(z, kind));
    if (subnormalOperand && ex + ey + ez > 0) return kInf;
    if (subnormalOperand) {
      // Exact operands: the GPU evaluates f at each operand or its flushed zero (fmod(1e-40, 3) is 0 there).
      auto flushed = [&](double v) { return isF32Subnormal(v, kind) ? std::copysign(0.0, v) : v; };
      double worst = 0;
      for (double a : {x, flushed(x)})
        for (double b : {y, flushed(y)})
          for (double c : {z, flushed(z)}) {
            double d = std::fabs(scalar::evalMath(function.function, a, b, c) - r);
            worst = std::max(worst, std::isnan(d) ? (std::isnan(r) ? 0.0 : kInf) : d);
          }
      if (!std::isfinite(worst)) return kInf;
      const double documented = documentedUlps(context.symbol, x);
      return worst + (isExactFunction(function.function) ? 0.0 : (documented + 0.5) * spacingAround(r, worst + (documented + 4) * ulp, kind));
    }
    switch (function.function) {
      case MathFunction::Fmin: case MathFunction::Fmax: propagated = std::max(ex, ey); break;
      case MathFunction::Hypot: case MathFunction::Fdim: propagated = ex + ey; break;
      case MathFunction::CopySign: propagated = ey >= std::fabs(y) && ey > 0 ? 2 * std::fabs(x) + ex : ex; break;
      case MathFunction::Fma: propagated = std::fabs(y) * ex + std::fabs(x) * ey + ex * ey + ez; break;
      default: propagated = ex + ey + ez > 0 ? kInf : 0.0; break;
    }
    if (std::isnan(propagated)) propagated = kInf;
  }
  if (!std::isfinite(propagated)) return kInf;
  const MeasuredBound* row = context.measured.at(x);
  const double reach = propagated + 4 * ulp;
  // Assumed: the documented maximum from the exact value (documentedUlps), plus ours' half ulp.
  double own = 0;
  if (row) {
    own = measuredOwnError(row, r, kind, 0);
  } else if (!isExactFunction(function.function)) {
    const double documented = documentedUlps(context.symbol, x);
    own = (documented + 0.5) * spacingAround(r, reach + documented * ulp, kind);
    if (context.symbol == "__nv_fast_logf" && x >= 0.5 && x <= 2) own = 0x1p-21 + 0.5 * ulp;  // absolute there
  }
  // Operand bounds: the GPU's input differs from ours, so its exact value is another rounding away from r.
  double bound = propagated + own + (propagated > 0 ? spacingAround(r, reach, kind) : 0.0);
  if (flushesResult && std::fabs(r) < 0x1p-126 + bound) bound = std::max(bound, std::fabs(r) + bound);
  return bound;
}

}  // namespace tilesim::elementwise
