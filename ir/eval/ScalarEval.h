// Per-element semantics of every elementwise TTIR op, written once for the interpreter's whole-tile loops
// (interpreter/Elementwise*.cpp). The fuzzer's lane-by-lane reference does not call these: it has its own scalar
// oracle written again from docs/semantics.md (fuzz/programs/OracleScalar.h; oracle_cross_check_test compares the
// two exhaustively for 8/16-bit types), so a bug here is a disagreement. (tilesim has no constant folder; the builder
// only re-emits a cast literal as a literal of the new type, ir/builder/Cast.cpp.) The long form is docs/semantics.md ("Integers", "Floats", "Casts").
//
// Integers are carried in the unsigned type of their width (uint8_t..uint64_t); signed ops reinterpret.
// i1 is evaluated as an 8-bit value sign-extended from bit 0 (1 -> 0xFF) and masked back to bit 0 after
// the op, which gives exact 1-bit semantics for every integer op (see boolToWide / wideToBool).
// Floats narrower than f32 are computed in float and rounded once (RTNE): for + - * / sqrt this equals
// the correctly rounded narrow result because float has >= 2p+2 bits for f16 (p=11), bf16 (p=8) and fp8.
// NaN results of arithmetic are the canonical NaN NVIDIA writes (ir/FloatBits.h: f32 0x7FFFFFFF).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

#include "ir/FloatBits.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"
#include "ir/Type.h"

namespace tilesim::scalar {

// ---------------------------------------------------------------- integers (docs/semantics.md "Integers")

inline uint8_t boolToWide(uint8_t bit) { return (bit & 1) ? 0xFF : 0x00; }
inline uint8_t wideToBool(uint8_t wide) { return wide & 1; }

template <typename U> using Signed = std::make_signed_t<U>;
template <typename U> constexpr int kWidth = static_cast<int>(sizeof(U) * 8);
template <typename U> constexpr U kAllOnes = static_cast<U>(~U(0));

template <typename U> inline U addWrap(U a, U b) { return static_cast<U>(a + b); }
template <typename U> inline U subWrap(U a, U b) { return static_cast<U>(a - b); }
template <typename U> inline U mulWrap(U a, U b) {
  using Wide = std::conditional_t<(sizeof(U) < 4), uint32_t, U>;  // avoid int promotion UB for u16*u16
  return static_cast<U>(static_cast<Wide>(a) * static_cast<Wide>(b));
}
// Truncating division; b = 0 gives -1 (div.s32 by zero on sm_90, §1.6; i8/i16 run as div.s16 and give the
// same all-ones pattern after truncation); MIN / -1 gives MIN (wraps).
template <typename U> inline U divSigned(U a, U b) {
  if (b == 0) return kAllOnes<U>;
  if (b == kAllOnes<U>) return static_cast<U>(U(0) - a);
  return static_cast<U>(static_cast<Signed<U>>(a) / static_cast<Signed<U>>(b));
}
// arith.ceildivsi: signed a / b rounded toward +infinity; b = 0 gives -1 and MIN / -1 gives MIN, as divSigned.
template <typename U> inline U ceilDivSigned(U a, U b) {
  const U quotient = divSigned(a, b);
  if (b == 0 || b == kAllOnes<U>) return quotient;
  const U remainder = static_cast<U>(static_cast<Signed<U>>(a) % static_cast<Signed<U>>(b));
  const bool sameSign = (static_cast<Signed<U>>(a) < 0) == (static_cast<Signed<U>>(b) < 0);
  return remainder != 0 && sameSign ? static_cast<U>(quotient + 1) : quotient;
}
template <typename U> inline U divUnsigned(U a, U b) { return b == 0 ? kAllOnes<U> : static_cast<U>(a / b); }
// Remainder with the dividend's sign; b = 0 gives -1 (§1.6: 5 % 0 = -5 % 0 = -1); MIN % -1 gives 0.
template <typename U> inline U remSigned(U a, U b) {
  if (b == 0) return kAllOnes<U>;
  if (b == kAllOnes<U>) return 0;
  return static_cast<U>(static_cast<Signed<U>>(a) % static_cast<Signed<U>>(b));
}
template <typename U> inline U remUnsigned(U a, U b) { return b == 0 ? kAllOnes<U> : static_cast<U>(a % b); }
// The shift amount is unsigned; >= width gives 0 or the sign fill (PTX clamps the amount).
template <typename U> inline U shiftLeft(U a, U b) {
  return b >= static_cast<U>(kWidth<U>) ? U(0) : static_cast<U>(a << b);
}
template <typename U> inline U shiftRightUnsigned(U a, U b) {
  return b >= static_cast<U>(kWidth<U>) ? U(0) : static_cast<U>(a >> b);
}
template <typename U> inline U shiftRightSigned(U a, U b) {
  Signed<U> sa = static_cast<Signed<U>>(a);
  U amount = b >= static_cast<U>(kWidth<U>) ? static_cast<U>(kWidth<U> - 1) : b;
  return static_cast<U>(sa >> amount);
}
template <typename U> inline U maxSigned(U a, U b) { return static_cast<Signed<U>>(a) < static_cast<Signed<U>>(b) ? b : a; }
template <typename U> inline U minSigned(U a, U b) { return static_cast<Signed<U>>(b) < static_cast<Signed<U>>(a) ? b : a; }
template <typename U> inline U maxUnsigned(U a, U b) { return a < b ? b : a; }
template <typename U> inline U minUnsigned(U a, U b) { return b < a ? b : a; }
// High half of the unsigned product (mul.hi.u32 even for int32 operands, §1.6 / §3.9).
template <typename U> inline U mulHighUnsigned(U a, U b) {
  if constexpr (sizeof(U) == 8) {
    return static_cast<U>((static_cast<unsigned __int128>(a) * b) >> 64);
  } else {
    return static_cast<U>((static_cast<uint64_t>(a) * b) >> kWidth<U>);
  }
}
template <typename U> inline U absWrap(U a) { return static_cast<Signed<U>>(a) < 0 ? static_cast<U>(U(0) - a) : a; }

// Signed overflow of + - * (only reported when the op carries an nsw flag, see docs/semantics.md).
template <typename U> inline bool addOverflowsSigned(U a, U b) {
  Signed<U> r;
  return __builtin_add_overflow(static_cast<Signed<U>>(a), static_cast<Signed<U>>(b), &r);
}
template <typename U> inline bool subOverflowsSigned(U a, U b) {
  Signed<U> r;
  return __builtin_sub_overflow(static_cast<Signed<U>>(a), static_cast<Signed<U>>(b), &r);
}
template <typename U> inline bool mulOverflowsSigned(U a, U b) {
  Signed<U> r;
  return __builtin_mul_overflow(static_cast<Signed<U>>(a), static_cast<Signed<U>>(b), &r);
}

// Integer comparison predicates (ir/OpAttributes.h; MLIR CmpIPredicate numbering).
using ::tilesim::IntPredicate;
template <typename U> inline bool compareInt(IntPredicate p, U a, U b) {
  Signed<U> sa = static_cast<Signed<U>>(a), sb = static_cast<Signed<U>>(b);
  switch (p) {
    case IntPredicate::Eq: return a == b;
    case IntPredicate::Ne: return a != b;
    case IntPredicate::Slt: return sa < sb;
    case IntPredicate::Sle: return sa <= sb;
    case IntPredicate::Sgt: return sa > sb;
    case IntPredicate::Sge: return sa >= sb;
    case IntPredicate::Ult: return TILESIM_MUTANT(eval_cmpi_ult_i8_signed, a < b, sizeof(U) == 1 ? sa < sb : a < b);
    case IntPredicate::Ule: return a <= b;
    case IntPredicate::Ugt: return a > b;
    case IntPredicate::Uge: return a >= b;
  }
  return false;
}

// ---------------------------------------------------------------- floats (docs/semantics.md "Floats")

// Float comparison predicates (ir/OpAttributes.h; MLIR CmpFPredicate numbering).
using ::tilesim::FloatPredicate;
template <typename C> inline bool compareFloat(FloatPredicate p, C a, C b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
    case FloatPredicate::False: return false;
    case FloatPredicate::Oeq: return !unordered && a == b;
    case FloatPredicate::Ogt: return !unordered && a > b;
    case FloatPredicate::Oge: return !unordered && a >= b;
    case FloatPredicate::Olt: return !unordered && a < b;
    case FloatPredicate::Ole: return !unordered && a <= b;
    case FloatPredicate::One: return !unordered && a != b;
    case FloatPredicate::Ord: return !unordered;
    case FloatPredicate::Ueq: return unordered || a == b;
    case FloatPredicate::Ugt: return unordered || a > b;
    case FloatPredicate::Uge: return unordered || a >= b;
    case FloatPredicate::Ult: return unordered || a < b;
    case FloatPredicate::Ule: return unordered || a <= b;
    case FloatPredicate::Une: return unordered || a != b;
    case FloatPredicate::Uno: return unordered;
    case FloatPredicate::True: return true;
  }
  return false;
}

// PTX max.f32 / min.f32: NaN is ignored (NaN only if both are), and -0 < +0.
template <typename C> inline C maxNum(C a, C b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
template <typename C> inline C minNum(C a, C b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
// max.NaN / min.NaN: NaN propagates.
template <typename C> inline C maximum(C a, C b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  return maxNum(a, b);
}
template <typename C> inline C minimum(C a, C b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  return minNum(a, b);
}
// NVIDIA's arith.remf lowering: div.rn, cvt.rzi (trunc), fma, and testp.infinite on the divisor.
// Not IEEE fmod: inf % inf = inf and 3e38 % 1e-38 = -inf on the GPU (§1.5).
template <typename C> inline C remainderNvidia(C a, C b) {
  if (std::isinf(b)) return a;
  C quotient = std::trunc(a / b);
  return std::fma(-quotient, b, a);
}

// ---------------------------------------------------------------- NaN bits (docs/semantics.md "NaN bits")
// What an NVIDIA GPU writes when a result is NaN, measured on the H200 (every pair of 11 special values through
// each op, conformance/nan-bits/nan_probe.py; the cases in conformance/nan-bits, 2026-12-01 14:41 UTC). f32, f16 and bf16 arithmetic give the canonical NaN
// (FloatCodec::store). f64 arithmetic passes an input NaN through quieted (bit 51 set, sign and payload kept),
// and an invalid operation without a NaN input (0 * inf, inf - inf, 0 / 0, sqrt(-1)) gives 0xFFF8000000000000.
// Which input NaN wins depends on the op:
enum class F64NaN : uint8_t {
  SecondFirst,  // add, sub, mul; maxnumf/minnumf when both are NaN: b, else a
  FirstFirst,   // div (div.rn.f64 is a subroutine that looks at the dividend first), sqrt: a, else b
  FmaOrder,     // fma(a, b, c): c, else b, else a (b before a measured; c before b is assumed, the probe had c = b)
  Positive,     // maximumf/minimumf (max.NaN.f64): 0x7FF8000000000000 whatever the inputs
};
inline bool isNaNBits64(uint64_t bits) { return (bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }
inline uint64_t f64NaNResult(F64NaN rule, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  constexpr uint64_t kQuiet = 0x0008000000000000ull, kInvalid = 0xFFF8000000000000ull;
  switch (rule) {
    case F64NaN::Positive: return 0x7FF8000000000000ull;
    case F64NaN::SecondFirst:
      if (isNaNBits64(b)) return b | kQuiet;
      if (isNaNBits64(a)) return a | kQuiet;
      return kInvalid;
    case F64NaN::FirstFirst:
      if (isNaNBits64(a)) return a | kQuiet;
      if (isNaNBits64(b)) return b | kQuiet;
      return kInvalid;
    case F64NaN::FmaOrder:
      if (isNaNBits64(c)) return c | kQuiet;
      if (isNaNBits64(b)) return b | kQuiet;
      if (isNaNBits64(a)) return a | kQuiet;
      return kInvalid;
  }
  return kInvalid;
}
// A NaN converted between float formats, where the GPU keeps its payload (same probe): f64 -> f32 (cvt.rn and
// cvt.rz) keeps the sign and the payload's top 22 bits, quiet; f32 -> f64 shifts the payload up, quiet; bf16 ->
// f32 is the 16-bit pattern moved up, not even quieted. Other conversions give the target's canonical NaN.
// Empty when `bits` is not NaN or the pair is not one of those.
inline std::optional<uint64_t> convertedNaNBits(uint64_t bits, ScalarKind from, ScalarKind to) {
  if (from == ScalarKind::F64 && to == ScalarKind::F32 && isNaNBits64(bits))
    return ((bits >> 32) & 0x80000000u) | 0x7FC00000u | ((bits >> 29) & 0x3FFFFFu);
  if (from == ScalarKind::F32 && to == ScalarKind::F64 && (bits & 0x7FFFFFFFu) > 0x7F800000u)
    return ((bits & 0x80000000u) << 32) | 0x7FF8000000000000ull | ((bits & 0x3FFFFFu) << 29);
  if (from == ScalarKind::BF16 && to == ScalarKind::F32 && (bits & 0x7FFFu) > 0x7F80u) return (bits & 0xFFFFu) << 16;
  return std::nullopt;
}

// ---------------------------------------------------------------- fast narrow-float codecs

inline float floatFromBits(uint32_t bits) { return std::bit_cast<float>(bits); }
inline uint32_t bitsFromFloat(float value) { return std::bit_cast<uint32_t>(value); }

inline float floatFromHalf(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  if (exponent == 0x1F) return floatFromBits(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return floatFromBits(sign | bitsFromFloat(magnitude));
  }
  return floatFromBits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
// float -> f16, RTNE, overflow to inf, NaN -> 0x7FFF. Relies on the FPU's default RTNE, no FTZ/DAZ.
inline uint16_t halfFromFloat(float value) {
  uint32_t f = bitsFromFloat(value);
  uint32_t sign = f & 0x80000000u;
  f ^= sign;
  uint32_t out;
  if (f > 0x7F800000u) return 0x7FFF;
  if (f >= 0x47800000u) {
    out = 0x7C00;
  } else if (f < 0x38800000u) {  // below 2^-14: subnormal or zero; let the FPU round at 2^-24
    out = bitsFromFloat(floatFromBits(f) + 0.5f) - 0x3F000000u;
  } else {
    uint32_t odd = (f >> 13) & 1;
    f += 0xC8000FFFu + odd;  // rebias (15 - 127) << 23 plus the rounding increment
    out = f >> 13;
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}
inline float floatFromBFloat(uint16_t b) { return floatFromBits(static_cast<uint32_t>(b) << 16); }
// float -> bf16, RTNE (cvt.rn.bf16.f32), NaN -> 0x7FFF (§1.8).
inline uint16_t bfloatFromFloat(float value) {
  uint32_t f = bitsFromFloat(value);
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFF;
  f += 0x7FFFu + ((f >> 16) & 1);
  return static_cast<uint16_t>(f >> 16);
}

// Storage <-> compute type per float kind. Every store of an arithmetic result canonicalises NaN.
template <ScalarKind K> struct FloatCodec;
template <> struct FloatCodec<ScalarKind::F32> {
  using Storage = float;
  using Compute = float;
  static float load(float v) { return v; }
  static float store(float v) { return v != v ? floatFromBits(0x7FFFFFFFu) : v; }
};
template <> struct FloatCodec<ScalarKind::F64> {
  using Storage = double;
  using Compute = double;
  static double load(double v) { return v; }
  static double store(double v) { return v != v ? std::bit_cast<double>(0x7FFFFFFFFFFFFFFFull) : v; }
};
template <> struct FloatCodec<ScalarKind::F16> {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return floatFromHalf(v); }
  static uint16_t store(float v) { return halfFromFloat(v); }
};
template <> struct FloatCodec<ScalarKind::BF16> {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return floatFromBFloat(v); }
  static uint16_t store(float v) { return bfloatFromFloat(v); }
};
// fp8 arithmetic does not lower on NVIDIA (§1.3); tilesim still defines it: compute in float, round once.
template <> struct FloatCodec<ScalarKind::F8E4M3FN> {
  using Storage = uint8_t;
  using Compute = float;
  static float load(uint8_t v) { return static_cast<float>(doubleFromFloatBits(v, ScalarKind::F8E4M3FN)); }
  static uint8_t store(float v) { return static_cast<uint8_t>(floatBitsFromDouble(v, ScalarKind::F8E4M3FN)); }
};
template <> struct FloatCodec<ScalarKind::F8E5M2> {
  using Storage = uint8_t;
  using Compute = float;
  static float load(uint8_t v) { return static_cast<float>(doubleFromFloatBits(v, ScalarKind::F8E5M2)); }
  static uint8_t store(float v) { return static_cast<uint8_t>(floatBitsFromDouble(v, ScalarKind::F8E5M2)); }
};

// a * b + c with one rounding into `kind` (any float kind). f32/f64 use the hardware fma; narrower kinds
// compute a*b exactly in double and add with round-to-odd, so the final rounding to the narrow format is
// correct (no double rounding). Round the returned double straight into `kind` (never via float).
double fusedMultiplyAdd(double a, double b, double c, ScalarKind kind);

// ---------------------------------------------------------------- casts (docs/semantics.md "Casts")

// Integer (given as its value; `isUnsigned` picks the interpretation of `bits`, of `width` bits) to the
// bits of float `kind`, RTNE with a single rounding (int64 -> f32: 2^24+1 -> 2^24).
uint64_t floatBitsFromInteger(uint64_t bits, int width, bool isUnsigned, ScalarKind kind);

// Float value to an integer of `width` bits exactly as PTX cvt.rzi does on sm_90: truncate, saturate;
// 8-bit (and 1-bit) targets convert through 16 bits and then wrap. NaN (probes.json casts): from f64 it
// gives the conversion width's sign bit (s32 INT_MIN, u32 2^31, s16 0x8000, so i8/u8 end as 0); from
// f32 (and narrower, which Triton widens to f32) it gives 0, except 64-bit targets give 2^63.
// `outOfRange` is set when the truncated value does not fit the destination (or is NaN): LLVM's poison.
uint64_t integerFromFloat(double value, ScalarKind sourceKind, int width, bool isUnsigned, bool* outOfRange);

// Rounds a float value into `kind` with `rounding`; fp8 targets use satfinite (inf -> max finite, NaN -> 0x7F).
uint64_t convertFloat(double value, ScalarKind kind, Rounding rounding);

// ---------------------------------------------------------------- math and libdevice

enum class MathFunction : uint8_t {
  Exp, Exp2, Exp10, Expm1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt, Cbrt, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh,
  Tanh, Asinh, Acosh, Atanh, Erf, Erfc, Floor, Ceil, Trunc, Round, Rint, Abs, Pow, Atan2, Hypot, Fmod, Fmin, Fmax,
  CopySign, Fdim, Fma, IsInf, IsNaN, IsFinite, SignBit, Lgamma, Tgamma,
};
constexpr int kNumMathFunctions = static_cast<int>(MathFunction::Tgamma) + 1;

// Evaluates a math function in double with <cmath>. This is the `exact` profile's deterministic CPU
// algorithm: the value is then rounded once to the result type. The GPU backend will need its own
// bit-identical implementation of each function (range reduction + polynomial) before the two engines can
// be compared bit for bit on these ops.
double evalMath(MathFunction function, double a, double b = 0, double c = 0);
// The same function as a plain pointer, so a tile loop can pick it once and call it per lane.
using MathFunctionPointer = double (*)(double, double, double);
MathFunctionPointer mathFunctionPointer(MathFunction function);

struct LibdeviceFunction {
  MathFunction function;
  int arity;
  bool isDouble;       // __nv_exp (f64) vs __nv_expf (f32)
  bool intResult;      // isinf / isnan / signbit / finite: i32 result
};
// The libdevice symbols tl.math uses (`__nv_expf`, `__nv_pow`, ...); null for an unknown symbol.
const LibdeviceFunction* findLibdeviceFunction(std::string_view symbol);

}  // namespace tilesim::scalar
