// The `triton` float profile's error bounds (BRIEF decision 3; docs/semantics.md "Error bounds"): per lane,
// an absolute bound on |GPU result - our correctly rounded result|, from forward error analysis of the op
// given its operands' bounds plus the op's own error under Triton's NVIDIA lowering (SEMANTICS §1.7 table:
// div.full.f32 2 ulp, ex2.approx, sqrt/rsqrt.approx.ftz, libdevice 1-2 ulp, FMA contraction of mulf).
// +inf means "uncertain": any GPU value is accepted (e.g. a compare whose operands are within their bounds).
// Exact ops on exact operands allocate nothing, so bit-exact comparison stays the common case.
// An op's own error comes from the measured table (interpreter/MeasuredBounds.h) when the function was
// measured, else from the documented assumptions below. A NaN bound (0 * inf) is +inf, never 0. Integers carry
// bounds too (an approximate float through fptosi, cmpf, then integer ops: findings G9), read modulo 2^w.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "interpreter/ElementwiseInternal.h"
#include "interpreter/MeasuredBounds.h"

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

// What one op's lanes share: the measured rows of its function and, for tt.extern_elementwise, which
// libdevice function it calls.
struct OpBoundContext {
  MeasuredFunction measured;
  const scalar::LibdeviceFunction* libdevice = nullptr;
  std::string symbol;  // tt.extern_elementwise's libdevice symbol
};

// The table's name for an op: the libdevice symbol, or the op's mnemonic (`math.exp`, `arith.divf`).
std::string measuredName(const Operation& op) {
  if (op.kind == OpKind::TTExternElementwise) return std::string(op.keywordAttr("symbol"));
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

// ---- integer lanes. An integer's bound b says: the GPU's bits, read modulo 2^w, are ours + d for some integer
// |d| <= b (wrapping arithmetic keeps that true through addi, subi, muli and trunci). A bound >= 1 on an i1 is
// "uncertain" (+inf, as cmpf/cmpi give it).

uint64_t widthMask(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

// The lane read as a value of `width` bits, signed or unsigned.
__int128 integerValue(uint64_t bits, int width, bool isUnsigned) {
  bits &= widthMask(width);
  if (isUnsigned || width >= 64) return isUnsigned ? static_cast<__int128>(bits) : static_cast<__int128>(static_cast<int64_t>(bits));
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<__int128>(static_cast<int64_t>((bits ^ sign) - sign));
}

// Whether every value within `bound` of the lane stays inside its type's signed (or unsigned) range, so that
// the modular reading above is also the plain one (extsi, extui, sitofp, uitofp and orderings need that).
bool staysInRange(uint64_t bits, int width, bool isUnsigned, double bound) {
  if (!(bound < 0x1p62)) return false;
  const __int128 value = integerValue(bits, width, isUnsigned), reach = static_cast<__int128>(std::floor(bound));
  const __int128 low = isUnsigned ? 0 : -(static_cast<__int128>(1) << (width - 1));
  const __int128 high = isUnsigned ? (static_cast<__int128>(1) << width) - 1 : (static_cast<__int128>(1) << (width - 1)) - 1;
  return value - reach >= low && value + reach <= high;
}

double modularDistance(uint64_t a, uint64_t b, int width) {
  const uint64_t mask = widthMask(width), up = (a - b) & mask, down = (b - a) & mask;
  return static_cast<double>(std::min(up, down));
}

bool isUnsignedPredicate(IntPredicate p) {
  return p == IntPredicate::Ult || p == IntPredicate::Ule || p == IntPredicate::Ugt || p == IntPredicate::Uge;
}

// fptosi/fptoui: the GPU's float lies in [x - ex, x + ex]; cvt.rzi (truncate, saturate) is monotone at 16 bits
// and wider, so the integers it can give lie between the conversions of the two ends. One integer: exact.
// 8- and 1-bit targets wrap after a 16-bit conversion: exact when the 16-bit conversions agree, else +inf.
double floatToIntegerBound(double x, double ex, ScalarKind sourceKind, int width, bool isUnsigned) {
  if (ex == 0) return 0.0;
  if (!std::isfinite(ex) || !std::isfinite(x)) return kInf;
  const int converted = std::max(width, 16);
  bool outOfRange = false;
  const uint64_t low = scalar::integerFromFloat(x - ex, sourceKind, converted, isUnsigned, &outOfRange);
  const uint64_t high = scalar::integerFromFloat(x + ex, sourceKind, converted, isUnsigned, &outOfRange);
  const uint64_t mine = scalar::integerFromFloat(x, sourceKind, converted, isUnsigned, &outOfRange);
  if (low == high) return 0.0;
  if (width < 16) return kInf;
  const __int128 v = integerValue(mine, width, isUnsigned), lo = integerValue(low, width, isUnsigned),
                 hi = integerValue(high, width, isUnsigned);
  const __int128 worst = std::max(v - lo < 0 ? lo - v : v - lo, hi - v < 0 ? v - hi : hi - v);
  return static_cast<double>(worst);
}

// arith.cmpi with bounded operands: certain when the operands cannot meet within their bounds, read the way the
// predicate reads them (signed, unsigned; modular for eq/ne) and, for orderings, without leaving the range.
double compareIntegerBound(IntPredicate p, uint64_t a, uint64_t b, int width, double ea, double eb) {
  const double slack = ea + eb;
  if (slack == 0) return 0.0;
  if (!std::isfinite(slack)) return kInf;
  if (p == IntPredicate::Eq || p == IntPredicate::Ne) return modularDistance(a, b, width) > slack ? 0.0 : kInf;
  const bool isUnsigned = isUnsignedPredicate(p);
  if (!staysInRange(a, width, isUnsigned, ea) || !staysInRange(b, width, isUnsigned, eb)) return kInf;
  const __int128 d = integerValue(a, width, isUnsigned) - integerValue(b, width, isUnsigned);
  return static_cast<double>(d < 0 ? -d : d) > slack ? 0.0 : kInf;
}

// One lane of an integer op on values of width W (the interpreter's ScalarEval templates), for enumeration.
template <typename U>
U integerLane(OpKind kind, U a, U b) {
  using namespace scalar;
  switch (kind) {
    case OpKind::ArithAndI: return static_cast<U>(a & b);
    case OpKind::ArithOrI: return static_cast<U>(a | b);
    case OpKind::ArithXOrI: return static_cast<U>(a ^ b);
    case OpKind::ArithShLI: return shiftLeft<U>(a, b);
    case OpKind::ArithShRSI: return shiftRightSigned<U>(a, b);
    case OpKind::ArithShRUI: return shiftRightUnsigned<U>(a, b);
    case OpKind::ArithMaxSI: return maxSigned<U>(a, b);
    case OpKind::ArithMinSI: return minSigned<U>(a, b);
    case OpKind::ArithMaxUI: return maxUnsigned<U>(a, b);
    case OpKind::ArithMinUI: return minUnsigned<U>(a, b);
    case OpKind::ArithDivSI: return divSigned<U>(a, b);
    case OpKind::ArithDivUI: return divUnsigned<U>(a, b);
    case OpKind::ArithRemSI: return remSigned<U>(a, b);
    case OpKind::ArithRemUI: return remUnsigned<U>(a, b);
    case OpKind::TTMulhiUI: return mulHighUnsigned<U>(a, b);
    case OpKind::MathAbsI: return absWrap<U>(a);
    default: return a;
  }
}

uint64_t integerLaneOfWidth(OpKind kind, uint64_t a, uint64_t b, int width) {
  switch (width) {
    case 8: return integerLane<uint8_t>(kind, static_cast<uint8_t>(a), static_cast<uint8_t>(b));
    case 16: return integerLane<uint16_t>(kind, static_cast<uint16_t>(a), static_cast<uint16_t>(b));
    case 32: return integerLane<uint32_t>(kind, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    default: return integerLane<uint64_t>(kind, a, b);
  }
}

bool isEnumeratedIntegerOp(OpKind kind) {
  switch (kind) {
    case OpKind::ArithAndI: case OpKind::ArithOrI: case OpKind::ArithXOrI: case OpKind::ArithShLI:
    case OpKind::ArithShRSI: case OpKind::ArithShRUI: case OpKind::ArithMaxSI: case OpKind::ArithMinSI:
    case OpKind::ArithMaxUI: case OpKind::ArithMinUI: case OpKind::ArithDivSI: case OpKind::ArithDivUI:
    case OpKind::ArithRemSI: case OpKind::ArithRemUI: case OpKind::TTMulhiUI: case OpKind::MathAbsI: return true;
    default: return false;
  }
}

// Bitwise ops, shifts, min/max, division: every operand value the bounds allow (each operand ours + d,
// |d| <= floor(e), modulo 2^w; at most 64 combinations, else +inf), the largest distance from our result.
// A combination with undefined behaviour (division by zero, a shift by the width or more) is +inf.
double enumeratedIntegerBound(OpKind kind, uint64_t a, uint64_t b, int width, double ea, double eb, uint64_t r) {
  const bool unary = kind == OpKind::MathAbsI;
  if (!(ea < 64) || !(eb < 64) || width < 8) return kInf;
  const int64_t ra = static_cast<int64_t>(std::floor(ea)), rb = unary ? 0 : static_cast<int64_t>(std::floor(eb));
  if ((2 * ra + 1) * (2 * rb + 1) > 64) return kInf;
  const uint64_t mask = widthMask(width);
  const bool divides = kind == OpKind::ArithDivSI || kind == OpKind::ArithDivUI || kind == OpKind::ArithRemSI ||
                       kind == OpKind::ArithRemUI;
  const bool shifts = kind == OpKind::ArithShLI || kind == OpKind::ArithShRSI || kind == OpKind::ArithShRUI;
  double worst = 0;
  for (int64_t da = -ra; da <= ra; ++da)
    for (int64_t db = -rb; db <= rb; ++db) {
      const uint64_t x = (a + static_cast<uint64_t>(da)) & mask, y = (b + static_cast<uint64_t>(db)) & mask;
      if (divides && y == 0) return kInf;
      if (shifts && y >= static_cast<uint64_t>(width)) return kInf;
      worst = std::max(worst, modularDistance(integerLaneOfWidth(kind, x, y, width), r, width));
    }
  return worst;
}

// Integer-valued lanes of integer ops and of the casts into and out of integers; nullopt: not one of those.
std::optional<double> integerLaneBound(const Operation& op, Operands operands, const Tile& result, int64_t lane,
                                       double ea, double eb) {
  const Tile& a = *operands[0];
  const int width = a.elementType().bitWidth();
  const uint64_t bitsA = a.bitsAt(lane);
  switch (op.kind) {
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI:
      return floatToIntegerBound(laneAsDouble(a, lane), ea, a.elementType().scalarKind(), result.elementType().bitWidth(),
                                 op.kind == OpKind::ArithFPToUI);
    case OpKind::ArithCmpI: {
      if (op.operand(0) == op.operand(1) && std::isfinite(ea)) return 0.0;  // x <pred> x: one answer on both
      return compareIntegerBound(intPredicate(op), bitsA, operands[1]->bitsAt(lane), width, ea, eb);
    }
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP:
    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI: {
      if (ea == 0) return std::nullopt;  // the general rules (sitofp: 0 unless approximate)
      const bool isUnsigned = op.kind == OpKind::ArithUIToFP || op.kind == OpKind::ArithExtUI;
      if (!staysInRange(bitsA, width, isUnsigned, ea)) return kInf;  // the GPU's value may wrap to the other end
      return std::nullopt;
    }
    case OpKind::ArithMulI: {
      if (ea + eb == 0) return 0.0;
      const double x = std::fabs(static_cast<double>(a.signedAt(lane))), y = std::fabs(static_cast<double>(operands[1]->signedAt(lane)));
      const double bound = y * ea + x * eb + ea * eb;
      return std::isnan(bound) ? kInf : bound;
    }
    case OpKind::ArithTruncI: return ea;
    default: break;
  }
  if (!isEnumeratedIntegerOp(op.kind)) return std::nullopt;
  if (ea + eb == 0) return std::nullopt;  // the general rules (UB lanes)
  const uint64_t bitsB = operands.size() > 1 ? operands[1]->bitsAt(lane) : 0;
  return enumeratedIntegerBound(op.kind, bitsA, bitsB, width, ea, eb, result.bitsAt(lane));
}

enum class OpError : uint8_t { Exact, Approximate };

// Bound for one lane. x, y, z: operand values; ex, ey, ez: their bounds; r: our result.
double laneBound(const Operation& op, const OpBoundContext& context, ScalarKind kind, double x, double y, double z,
                 double ex, double ey, double ez, double r) {
  double ulp = ulpOf(r, kind);
  bool f32 = kind == ScalarKind::F32;
  // NaN (0 * inf: an exact zero times an unbounded operand) is "any value", as is inf.
  auto rounded = [&](double propagated) { return std::isnan(propagated) ? kInf : propagated > 0 ? propagated + ulp : 0.0; };
  const MeasuredBound* row = context.measured.at(x);
  // An exact infinite operand meeting a finite one (nonzero for mulf) gives that infinity on the GPU too, whatever
  // the finite operand's error and whether the product is contracted into an fma: (-inf - m) * log2e with m
  // uncertain is still -inf (online softmax's first step, masked lanes loaded as -inf).
  auto exactInfinity = [&](bool multiply) {
    if (std::isinf(x) && ex == 0 && std::isfinite(y) && std::isfinite(ey)) return !multiply || std::fabs(y) > ey;
    if (std::isinf(y) && ey == 0 && std::isfinite(x) && std::isfinite(ex)) return !multiply || std::fabs(x) > ex;
    return false;
  };
  switch (op.kind) {
    case OpKind::ArithAddF:
    case OpKind::ArithSubF: return std::isinf(r) && exactInfinity(false) ? 0.0 : rounded(ex + ey);
    case OpKind::ArithMulF: {
      if (std::isinf(r) && exactInfinity(true)) return 0.0;
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
      double bound = propagated + measuredOwnError(row, r, kind, 2 * ulp);
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
      if (!f32) return measuredOwnError(row, r, kind, ulp) + std::fabs(r) * std::expm1(ex);
      return measuredOwnError(row, r, kind, std::fabs(r) * (0x1p-21 + std::fabs(x) * 0x1p-23) + ulp) +
             std::fabs(r) * std::expm1(ex);
    case OpKind::MathExp2:
      return measuredOwnError(row, r, kind, 2 * ulp) + std::fabs(r) * std::expm1(ex * std::log(2.0)) +
             (f32 && std::fabs(r) < 0x1p-126 ? std::fabs(r) : 0);
    case OpKind::MathLog:
    case OpKind::MathLog2: {
      if (ex >= std::fabs(x)) return kInf;
      double scale = op.kind == OpKind::MathLog2 ? 1 / std::log(2.0) : 1.0;
      return measuredOwnError(row, r, kind, ulp) + scale * -std::log1p(-ex / std::fabs(x)) +
             (isF32Subnormal(x, kind) ? kInf : 0);
    }
    case OpKind::MathSqrt:
    case OpKind::TTPreciseSqrt: {
      double propagated = std::sqrt(ex);
      if (op.kind == OpKind::TTPreciseSqrt || !f32) return rounded(propagated);
      return measuredOwnError(row, r, kind, ulp) + propagated + (isF32Subnormal(x, kind) ? std::fabs(r) : 0);  // sqrt.approx.ftz
    }
    case OpKind::MathRsqrt: {
      if (isF32Subnormal(x, kind) || x - ex <= 0) return kInf;  // rsqrt.approx.ftz(1e-40) = inf
      return measuredOwnError(row, r, kind, 2 * ulp) + std::fabs(1 / std::sqrt(x - ex) - r);
    }
    case OpKind::MathSin:
    case OpKind::MathCos: return measuredOwnError(row, r, kind, ulp) + ex + (isF32Subnormal(x, kind) ? std::fabs(r) : 0);
    case OpKind::MathErf:  // max |erf'| = 2 / sqrt(pi); __nv_erff with FTZ: a subnormal input or result may be 0
      return measuredOwnError(row, r, kind, ulp) + ex * 1.1283791670955126 +
             (f32 && (isF32Subnormal(x, kind) || std::fabs(r) < 0x1p-126) ? std::fabs(r) : 0);
    case OpKind::MathFloor:
    case OpKind::MathCeil:
      if (isF32Subnormal(x, kind)) return 1.0;  // cvt.rmi.ftz: floor(-1e-40) = -0 (we give -1)
      return ex > 0 ? 1 + ex : 0.0;
    case OpKind::TTExternElementwise:
      if (!context.libdevice) return kInf;
      return libdeviceBound(context, kind, x, y, z, ex, ey, ez, r);
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
      // x <pred> x of one value: the GPU compares its one value with itself, so only NaN decides, and a finite
      // bound leaves the GPU's value a number when ours is (`x != x`, the fuzz's NaN sanitiser).
      if (op.operand(0) == op.operand(1) && std::isfinite(ex) && !std::isnan(x)) return 0.0;
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
  OpBoundContext context;
  context.measured = findMeasuredFunction(measuredName(op), kind);
  if (op.kind == OpKind::TTExternElementwise) {
    context.symbol = op.keywordAttr("symbol");
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
    double bound = laneBound(op, context, kind, operandValue(0, i), operandValue(1, i), operandValue(2, i), operandBound(0, i),
                             operandBound(1, i), operandBound(2, i), r);
    if (bound > 0 && !std::isfinite(r)) bound = kInf;
    bounds[i] = std::isnan(bound) ? kInf : bound;
  }
}

}  // namespace tilesim::elementwise
