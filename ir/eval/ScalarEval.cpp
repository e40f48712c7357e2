// Out-of-line parts of ScalarEval.h: single-rounding int -> float, PTX-exact float -> int, float -> float
// conversions with rounding modes and satfinite, fma for narrow formats, and the math / libdevice table.
#include "ir/eval/ScalarEval.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "ir/Assert.h"
#include "ir/Mutation.h"

namespace tilesim::scalar {

namespace {

int precisionBits(ScalarKind kind) { return floatFormat(kind).mantissaBits + 1; }

// Rounds an unsigned magnitude to `precision` significant bits (RTNE); the result is exact in double.
double roundMagnitude(uint64_t magnitude, int precision) {
  if (magnitude == 0) return 0.0;
  int top = 63 - std::countl_zero(magnitude);
  if (top < precision) return static_cast<double>(magnitude);
  int drop = top + 1 - precision;
  uint64_t kept = magnitude >> drop;
  uint64_t rest = magnitude & ((uint64_t{1} << drop) - 1);
  uint64_t half = uint64_t{1} << (drop - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  return std::ldexp(static_cast<double>(kept), drop);
}

// x + y rounded to odd: exact sum rounded toward zero, with the last bit set when inexact. A later RTNE
// rounding to any format with at most 51 significant bits is then the correctly rounded exact sum.
double addRoundToOdd(double x, double y) {
  double sum = x + y;
  if (!std::isfinite(sum)) return sum;
  double virtualY = sum - x;  // TwoSum: error = (x - (sum - virtualY)) + (y - virtualY)
  double error = (x - (sum - virtualY)) + (y - virtualY);
  if (error == 0) return sum;
  uint64_t bits = std::bit_cast<uint64_t>(sum);
  bool towardZero = (error < 0) == (sum > 0);  // the exact value lies between 0 and sum
  if (towardZero) return (bits & 1) ? sum : std::bit_cast<double>(bits - 1);
  return (bits & 1) ? sum : std::bit_cast<double>(bits + 1);
}

}  // namespace

double fusedMultiplyAdd(double a, double b, double c, ScalarKind kind) {
  if (kind == ScalarKind::F32) return std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c));
  if (kind == ScalarKind::F64) return std::fma(a, b, c);
  return addRoundToOdd(a * b, c);  // a * b is exact in double for formats of <= 26 significant bits
}

uint64_t floatBitsFromInteger(uint64_t bits, int width, bool isUnsigned, ScalarKind kind) {
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  bits &= mask;
  bool negative = TILESIM_MUTANT(eval_uitofp_i16_signed, !isUnsigned, !isUnsigned || width == 16) && width > 0 && ((bits >> (width - 1)) & 1);
  uint64_t magnitude = negative ? ((~bits + 1) & mask) : bits;
  if (negative && width == 64 && magnitude == 0) magnitude = uint64_t{1} << 63;  // INT64_MIN
  if (negative && width < 64 && magnitude == 0) magnitude = uint64_t{1} << (width - 1);
  if (kind == ScalarKind::F32) {
    float value = static_cast<float>(magnitude);  // one RTNE rounding (cvtsi2ss / unsigned conversion)
    return bitsFromFloat(negative ? -value : value);
  }
  double rounded = roundMagnitude(magnitude, precisionBits(kind));
  return floatBitsFromDouble(negative ? -rounded : rounded, kind);
}

uint64_t integerFromFloat(double value, ScalarKind sourceKind, int width, bool isUnsigned, bool* outOfRange) {
  double truncated = std::trunc(value);
  bool nan = std::isnan(value);
  // The destination's own range decides UB; PTX saturates to the (possibly 16-bit) conversion width.
  if (outOfRange) {
    double low = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    double highExclusive = isUnsigned ? std::ldexp(1.0, width) : std::ldexp(1.0, width - 1);
    *outOfRange = nan || truncated < low || truncated >= highExclusive;
  }
  // cvt.rzi.s16/u16 then truncate for i8 and i1
  int convertWidth = TILESIM_MUTANT(eval_fptoi_i8_saturates_at_8_bits, width < 16 ? 16 : width, width < 8 ? 16 : width);
  uint64_t result;
  if (nan) {
    bool signBitPattern = sourceKind == ScalarKind::F64 || convertWidth == 64;
    result = signBitPattern ? uint64_t{1} << (convertWidth - 1) : 0;
  } else if (isUnsigned) {
    double high = std::ldexp(1.0, convertWidth);
    if (truncated <= 0) result = 0;
    else if (truncated >= high) result = convertWidth == 64 ? ~uint64_t{0} : (uint64_t{1} << convertWidth) - 1;
    else result = static_cast<uint64_t>(truncated);
  } else {
    double high = std::ldexp(1.0, convertWidth - 1);
    int64_t minValue = convertWidth == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (convertWidth - 1));
    int64_t maxValue = convertWidth == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (convertWidth - 1)) - 1;
    int64_t signedResult;
    if (truncated >= high) signedResult = maxValue;
    else if (truncated < -high) signedResult = minValue;
    else signedResult = static_cast<int64_t>(truncated);
    result = static_cast<uint64_t>(signedResult);
  }
  return width == 64 ? result : result & ((uint64_t{1} << width) - 1);
}

uint64_t convertFloat(double value, ScalarKind kind, Rounding rounding) {
  bool fp8 = kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2;
  if (fp8 && std::isnan(value)) return 0x7F;
  return floatBitsFromDouble(value, kind, rounding, /*saturate=*/fp8);
}

double evalMath(MathFunction function, double a, double b, double c) {
  switch (function) {
    case MathFunction::Exp: return std::exp(a);
    case MathFunction::Exp2: return std::exp2(a);
    case MathFunction::Exp10: return std::pow(10.0, a);
    case MathFunction::Expm1: return std::expm1(a);
    case MathFunction::Log: return std::log(a);
    case MathFunction::Log2: return std::log2(a);
    case MathFunction::Log10: return std::log10(a);
    case MathFunction::Log1p: return std::log1p(a);
    case MathFunction::Sqrt: return std::sqrt(a);
    case MathFunction::Rsqrt: return 1.0 / std::sqrt(a);
    case MathFunction::Cbrt: return std::cbrt(a);
    case MathFunction::Sin: return std::sin(a);
    case MathFunction::Cos: return std::cos(a);
    case MathFunction::Tan: return std::tan(a);
    case MathFunction::Asin: return std::asin(a);
    case MathFunction::Acos: return std::acos(a);
    case MathFunction::Atan: return std::atan(a);
    case MathFunction::Sinh: return std::sinh(a);
    case MathFunction::Cosh: return std::cosh(a);
    case MathFunction::Tanh: return std::tanh(a);
    case MathFunction::Asinh: return std::asinh(a);
    case MathFunction::Acosh: return std::acosh(a);
    case MathFunction::Atanh: return std::atanh(a);
    case MathFunction::Erf: return std::erf(a);
    case MathFunction::Erfc: return std::erfc(a);
    case MathFunction::Floor: return std::floor(a);
    case MathFunction::Ceil: return std::ceil(a);
    case MathFunction::Trunc: return std::trunc(a);
    case MathFunction::Round: return std::round(a);
    case MathFunction::Rint: return std::nearbyint(a);
    case MathFunction::Abs: return std::fabs(a);
    case MathFunction::Pow: return std::pow(a, b);
    case MathFunction::Atan2: return std::atan2(a, b);
    case MathFunction::Hypot: return std::hypot(a, b);
    case MathFunction::Fmod: return std::fmod(a, b);
    case MathFunction::Fmin: return minNum(a, b);
    case MathFunction::Fmax: return maxNum(a, b);
    case MathFunction::CopySign: return std::copysign(a, b);
    case MathFunction::Fdim: return std::fdim(a, b);
    case MathFunction::Fma: return std::fma(a, b, c);
    case MathFunction::IsInf: return std::isinf(a) ? 1.0 : 0.0;
    case MathFunction::IsNaN: return std::isnan(a) ? 1.0 : 0.0;
    case MathFunction::IsFinite: return std::isfinite(a) ? 1.0 : 0.0;
    case MathFunction::SignBit: return std::signbit(a) ? 1.0 : 0.0;
    case MathFunction::Lgamma: return std::lgamma(a);
    case MathFunction::Tgamma: return std::tgamma(a);
  }
  TILESIM_UNREACHABLE("evalMath: bad function");
}

namespace {

template <MathFunction F>
double callMath(double a, double b, double c) { return evalMath(F, a, b, c); }

template <size_t... I>
constexpr std::array<MathFunctionPointer, sizeof...(I)> makeMathTable(std::index_sequence<I...>) {
  return {&callMath<static_cast<MathFunction>(I)>...};
}

}  // namespace

MathFunctionPointer mathFunctionPointer(MathFunction function) {
  static constexpr auto table = makeMathTable(std::make_index_sequence<kNumMathFunctions>{});
  return table[static_cast<size_t>(function)];
}

namespace {

struct LibdeviceEntry {
  const char* name;  // without the __nv_ prefix and without the f suffix
  MathFunction function;
  int arity;
  bool intResult;
};

constexpr std::array kLibdevice = {
    LibdeviceEntry{"exp", MathFunction::Exp, 1, false},      LibdeviceEntry{"exp2", MathFunction::Exp2, 1, false},
    LibdeviceEntry{"exp10", MathFunction::Exp10, 1, false},  LibdeviceEntry{"expm1", MathFunction::Expm1, 1, false},
    LibdeviceEntry{"log", MathFunction::Log, 1, false},      LibdeviceEntry{"log2", MathFunction::Log2, 1, false},
    LibdeviceEntry{"log10", MathFunction::Log10, 1, false},  LibdeviceEntry{"log1p", MathFunction::Log1p, 1, false},
    LibdeviceEntry{"sqrt", MathFunction::Sqrt, 1, false},    LibdeviceEntry{"rsqrt", MathFunction::Rsqrt, 1, false},
    LibdeviceEntry{"cbrt", MathFunction::Cbrt, 1, false},    LibdeviceEntry{"sin", MathFunction::Sin, 1, false},
    LibdeviceEntry{"cos", MathFunction::Cos, 1, false},      LibdeviceEntry{"tan", MathFunction::Tan, 1, false},
    LibdeviceEntry{"asin", MathFunction::Asin, 1, false},    LibdeviceEntry{"acos", MathFunction::Acos, 1, false},
    LibdeviceEntry{"atan", MathFunction::Atan, 1, false},    LibdeviceEntry{"sinh", MathFunction::Sinh, 1, false},
    LibdeviceEntry{"cosh", MathFunction::Cosh, 1, false},    LibdeviceEntry{"tanh", MathFunction::Tanh, 1, false},
    LibdeviceEntry{"asinh", MathFunction::Asinh, 1, false},  LibdeviceEntry{"acosh", MathFunction::Acosh, 1, false},
    LibdeviceEntry{"atanh", MathFunction::Atanh, 1, false},  LibdeviceEntry{"erf", MathFunction::Erf, 1, false},
    LibdeviceEntry{"erfc", MathFunction::Erfc, 1, false},    LibdeviceEntry{"floor", MathFunction::Floor, 1, false},
    LibdeviceEntry{"ceil", MathFunction::Ceil, 1, false},    LibdeviceEntry{"trunc", MathFunction::Trunc, 1, false},
    LibdeviceEntry{"round", MathFunction::Round, 1, false},  LibdeviceEntry{"rint", MathFunction::Rint, 1, false},
    LibdeviceEntry{"nearbyint", MathFunction::Rint, 1, false}, LibdeviceEntry{"fabs", MathFunction::Abs, 1, false},
    LibdeviceEntry{"pow", MathFunction::Pow, 2, false},      LibdeviceEntry{"atan2", MathFunction::Atan2, 2, false},
    LibdeviceEntry{"hypot", MathFunction::Hypot, 2, false},  LibdeviceEntry{"fmod", MathFunction::Fmod, 2, false},
    LibdeviceEntry{"fmin", MathFunction::Fmin, 2, false},    LibdeviceEntry{"fmax", MathFunction::Fmax, 2, false},
    LibdeviceEntry{"copysign", MathFunction::CopySign, 2, false}, LibdeviceEntry{"fdim", MathFunction::Fdim, 2, false},
    LibdeviceEntry{"fma", MathFunction::Fma, 3, false},      LibdeviceEntry{"lgamma", MathFunction::Lgamma, 1, false},
    LibdeviceEntry{"tgamma", MathFunction::Tgamma, 1, false}, LibdeviceEntry{"isinf", MathFunction::IsInf, 1, true},
    LibdeviceEntry{"isnan", MathFunction::IsNaN, 1, true},   LibdeviceEntry{"finite", MathFunction::IsFinite, 1, true},
    LibdeviceEntry{"isfinite", MathFunction::IsFinite, 1, true}, LibdeviceEntry{"signbit", MathFunction::SignBit, 1, true},
};

}  // namespace

const LibdeviceFunction* findLibdeviceFunction(std::string_view symbol) {
  // Built once: every entry as __nv_<name> (f64) and __nv_<name>f (f32); isinf/isnan/finite/signbit use the
  // libdevice spellings __nv_isinff, __nv_isnand, __nv_finitef, __nv_isfinited, __nv_signbitf/d.
  struct Named {
    std::string symbol;
    LibdeviceFunction function;
  };
  static const std::vector<Named> table = [] {
    std::vector<Named> out;
    for (const LibdeviceEntry& entry : kLibdevice) {
      std::string base = std::string("__nv_") + entry.name;
      out.push_back({base + "f", {entry.function, entry.arity, false, entry.intResult}});
      out.push_back({entry.intResult ? base + "d" : base, {entry.function, entry.arity, true, entry.intResult}});
    }
    out.push_back({"__nv_fast_expf", {MathFunction::Exp, 1, false, false}});
    out.push_back({"__nv_fast_logf", {MathFunction::Log, 1, false, false}});
    out.push_back({"__nv_fast_powf", {MathFunction::Pow, 2, false, false}});
    return out;
  }();
  for (const Named& named : table)
    if (named.symbol == symbol) return &named.function;
  return nullptr;
}

}  // namespace tilesim::scalar
