// The oracle's float ops (OracleScalar.h), from docs/semantics.md "Floats": every operand is decoded to double
// (exact) and + - * / sqrt are computed in double and rounded once into the lane's format by encodeFloat. For
// f32 and narrower that is the correctly rounded result, because double's 53 bits are at least 2p+2 for p <= 24
// (double rounding is innocuous for these five operations). f64 uses the hardware's double operations. fma on
// f32 and narrower: a*b is exact in double, and a*b + c is added with round-to-odd (the FPU in round-toward-zero
// mode, the inexact flag setting the last bit), which a later nearest-even rounding to <= 51 bits makes correct.
// NaN results: f32 and narrower give the canonical NaN; f64 follows the "NaN bits" rules (which input NaN wins).
#include <cfenv>
#include <cmath>
#include <cstring>

#include "fuzz/programs/OracleScalar.h"

namespace tilesim::fuzz::oracle {
namespace {

constexpr uint64_t kF64QuietBit = 0x0008000000000000ull;
constexpr uint64_t kF64InvalidNaN = 0xFFF8000000000000ull;   // an invalid operation without a NaN input
constexpr uint64_t kF64PositiveNaN = 0x7FF8000000000000ull;  // max.NaN / min.NaN

double asDouble(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
uint64_t asBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// The f64 NaN result: the first NaN among `inOrder`, quieted; none means an invalid operation.
uint64_t f64NaN(std::initializer_list<uint64_t> inOrder) {
  for (uint64_t bits : inOrder)
    if (isNaNBits(bits, ScalarKind::F64)) return bits | kF64QuietBit;
  return kF64InvalidNaN;
}

// An arithmetic result of `kind`: f64 NaNs by `nanOrder`, every other NaN canonical.
uint64_t arithResult(double value, ScalarKind kind, std::initializer_list<uint64_t> nanOrder) {
  if (kind == ScalarKind::F64) return value != value ? f64NaN(nanOrder) : asBits(value);
  return encodeFloat(value, kind);
}

uint64_t signBitOf(ScalarKind kind) { return uint64_t{1} << (bitWidth(kind) - 1); }

// PTX max / min: a NaN operand is ignored, and +0 is larger than -0. Returns which operand wins (0 or 1),
// or -1 when both are NaN.
int maxNumChoice(double a, double b, bool wantMax) {
  if (a != a && b != b) return -1;
  if (a != a) return 1;
  if (b != b) return 0;
  if (a == b) return (std::signbit(a) == wantMax) ? 1 : 0;  // equal zeros: max takes +0, min takes -0
  return (a < b) == wantMax ? 1 : 0;
}

uint64_t maxMinNum(ScalarKind kind, uint64_t a, uint64_t b, bool wantMax) {
  const int choice = maxNumChoice(decodeFloat(a, kind), decodeFloat(b, kind), wantMax);
  if (choice < 0) return kind == ScalarKind::F64 ? f64NaN({b, a}) : canonicalNaN(kind);
  return choice == 0 ? a : b;
}

uint64_t maxMinPropagating(ScalarKind kind, uint64_t a, uint64_t b, bool wantMax) {
  if (isNaNBits(a, kind) || isNaNBits(b, kind)) return kind == ScalarKind::F64 ? kF64PositiveNaN : canonicalNaN(kind);
  return maxMinNum(kind, a, b, wantMax);
}

// NVIDIA's remf lowering in the lane's compute type (f32 for f32 and narrower): isinf(b) ? a : fma(-trunc(a/b), b, a).
uint64_t remainder(ScalarKind kind, uint64_t aBits, uint64_t bBits) {
  const double a = decodeFloat(aBits, kind), b = decodeFloat(bBits, kind);
  if (std::isinf(b)) return kind == ScalarKind::F32 || kind == ScalarKind::F64 ? aBits : encodeFloat(a, kind);
  if (kind == ScalarKind::F64) return arithResult(std::fma(-std::trunc(a / b), b, a), kind, {aBits, bBits});
  const float af = static_cast<float>(a), bf = static_cast<float>(b);  // exact: f32 and narrower
  const float quotient = std::trunc(af / bf);
  return encodeFloat(static_cast<double>(std::fma(-quotient, bf, af)), kind);
}

// x + y rounded to odd: toward zero, then the last bit set if anything was lost.
double addRoundToOdd(double x, double y) {
  const int savedRounding = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile double left = x, right = y;
  double sum = left + right;
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  std::fesetround(savedRounding);
  if (inexact) sum = asDouble(asBits(sum) | 1);
  return sum;
}

uint64_t fusedMultiplyAdd(ScalarKind kind, uint64_t aBits, uint64_t bBits, uint64_t cBits) {
  const double a = decodeFloat(aBits, kind), b = decodeFloat(bBits, kind), c = decodeFloat(cBits, kind);
  if (kind == ScalarKind::F64) return arithResult(std::fma(a, b, c), kind, {cBits, bBits, aBits});
  const double product = a * b;  // exact: at most 2 x 24 significant bits
  if (product != product || std::isinf(product) || std::isinf(c) || c != c) return encodeFloat(product + c, kind);
  return encodeFloat(addRoundToOdd(product, c), kind);
}

}  // namespace

uint64_t floatArith(FloatArithOp op, ScalarKind kind, uint64_t a, uint64_t b, uint64_t c, bool clampPropagatesNan) {
  const double x = decodeFloat(a, kind), y = decodeFloat(b, kind);
  switch (op) {
    case FloatArithOp::ArithAddF: return arithResult(x + y, kind, {b, a});
    case FloatArithOp::ArithSubF: return arithResult(x - y, kind, {b, a});
    case FloatArithOp::ArithMulF: return arithResult(x * y, kind, {b, a});
    case FloatArithOp::ArithDivF:
    case FloatArithOp::TTPreciseDivF: return arithResult(x / y, kind, {a, b});
    case FloatArithOp::ArithRemF: return remainder(kind, a, b);
    case FloatArithOp::ArithMaxNumF: return maxMinNum(kind, a, b, true);
    case FloatArithOp::ArithMinNumF: return maxMinNum(kind, a, b, false);
    case FloatArithOp::ArithMaximumF: return maxMinPropagating(kind, a, b, true);
    case FloatArithOp::ArithMinimumF: return maxMinPropagating(kind, a, b, false);
    case FloatArithOp::ArithNegF: return a ^ signBitOf(kind);
    case FloatArithOp::TTClampF: {
      // min(max(x, lo), hi); the chosen value is re-encoded, so a NaN result is the canonical NaN of every kind.
      const uint64_t low = clampPropagatesNan ? maxMinPropagating(kind, a, b, true) : maxMinNum(kind, a, b, true);
      const uint64_t clamped =
          clampPropagatesNan ? maxMinPropagating(kind, low, c, false) : maxMinNum(kind, low, c, false);
      return isNaNBits(clamped, kind) ? canonicalNaN(kind) : clamped;
    }
  }
  return 0;
}

bool floatCompare(FloatPredicate predicate, ScalarKind kind, uint64_t a, uint64_t b) {
  const double x = decodeFloat(a, kind), y = decodeFloat(b, kind);
  const bool unordered = x != x || y != y;
  switch (predicate) {
    case FloatPredicate::False: return false;
    case FloatPredicate::Oeq: return !unordered && x == y;
    case FloatPredicate::Ogt: return !unordered && x > y;
    case FloatPredicate::Oge: return !unordered && x >= y;
    case FloatPredicate::Olt: return !unordered && x < y;
    case FloatPredicate::Ole: return !unordered && x <= y;
    case FloatPredicate::One: return !unordered && x != y;
    case FloatPredicate::Ord: return !unordered;
    case FloatPredicate::Ueq: return unordered || x == y;
    case FloatPredicate::Ugt: return unordered || x > y;
    case FloatPredicate::Uge: return unordered || x >= y;
    case FloatPredicate::Ult: return unordered || x < y;
    case FloatPredicate::Ule: return unordered || x <= y;
    case FloatPredicate::Une: return unordered || x != y;
    case FloatPredicate::Uno: return unordered;
    case FloatPredicate::True: return true;
  }
  return false;
}

uint64_t floatExactMath(ExactMath function, ScalarKind kind, uint64_t a, uint64_t b, uint64_t c) {
  const double x = decodeFloat(a, kind);
  switch (function) {
    case ExactMath::Sqrt: return arithResult(std::sqrt(x), kind, {a});
    case ExactMath::Floor: return encodeFloat(std::floor(x), kind);
    case ExactMath::Ceil: return encodeFloat(std::ceil(x), kind);
    case ExactMath::Abs: return a & ~signBitOf(kind);
    case ExactMath::Fma: return fusedMultiplyAdd(kind, a, b, c);
  }
  return 0;
}

}  // namespace tilesim::fuzz::oracle
