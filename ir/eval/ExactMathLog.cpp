// log, log2 and log10 of the exact profile (algorithm: ExactMath.h): one reduction to log(1 + f) as a double-word,
// then log_b(x) = k C + log(1 + f) D with (C, D) = (ln 2, 1), (1, 1/ln 2) or (log10 2, 1/ln 10).
#include "ir/eval/ExactMath.h"
#include "ir/eval/ExactMathSupport.h"

namespace tilesim::exactmath {
namespace {

template <typename T> struct Reduced {
  T k;               // the binary exponent, as a T
  DoubleWord<T> y;   // log(1 + f), f = m - 1
};

// x = m 2^k, m in [sqrt(1/2), sqrt 2); x finite and > 0.
template <typename T> Reduced<T> reduce(T x) {
  using C = Constants<T>;
  constexpr int kMantissa = Bits<T>::kMantissaBits;
  int extra = 0;
  if (x < powerOfTwo<T>(1 - Bits<T>::kBias)) {  // subnormal: scale into the normal range (exact)
    x *= powerOfTwo<T>(kMantissa + 2);
    extra = kMantissa + 2;
  }
  Word<T> bits = toBits(x);
  int exponent = static_cast<int>(bits >> kMantissa) - Bits<T>::kBias;
  T m = fromBits<T>((bits & ((Word<T>(1) << kMantissa) - 1)) | (Word<T>(Bits<T>::kBias) << kMantissa));  // [1, 2)
  if (m > C::kSqrt2) {
    m *= T(0.5);
    exponent += 1;
  }
  T f = m - T(1);  // exact (Sterbenz)
  T s = f / (T(2) + f);
  T z = s * s;
  T r = z * horner(C::kLogAtanh, z);  // R(z) = 2z/3 + 2z^2/5 + ...
  T halfSquare = T(0.5) * f * f;
  // log(1+f) = f - (halfSquare - s (halfSquare + R)); hi = f - halfSquare, the rest goes to lo.
  T correction = s * (halfSquare + r);
  DoubleWord<T> hi = twoSum(f, -halfSquare);
  T halfSquareError = fma(T(0.5) * f, f, -halfSquare);  // exact: halfSquare's rounding error
  T lo = hi.lo + (correction - halfSquareError);
  DoubleWord<T> y = fastTwoSum(hi.hi, lo);
  return {static_cast<T>(exponent - extra), y};
}

enum class Base { E, Two, Ten };

template <typename T> T logImpl(T x, Base base) {
  using C = Constants<T>;
  if (isNaN(x)) return x;
  if (x < T(0)) return quietNaN<T>();
  if (x == T(0)) return -infinity<T>();
  if (x == infinity<T>()) return x;
  Reduced<T> red = reduce(x);
  // k C as a double-word
  DoubleWord<T> kc;
  switch (base) {
    case Base::E: kc = twoProduct(red.k, C::kLn2Hi); kc.lo = fma(red.k, C::kLn2Lo, kc.lo); break;
    case Base::Two: kc = {red.k, T(0)}; break;
    case Base::Ten: kc = twoProduct(red.k, C::kLog10Of2Hi); kc.lo = fma(red.k, C::kLog10Of2Lo, kc.lo); break;
  }
  // log(1+f) D as a double-word
  DoubleWord<T> yd = red.y;
  if (base != Base::E) {
    T dHi = base == Base::Two ? C::kInvLn2Hi : C::kInvLn10Hi;
    T dLo = base == Base::Two ? C::kInvLn2Lo : C::kInvLn10Lo;
    yd = twoProduct(red.y.hi, dHi);
    yd.lo = fma(red.y.hi, dLo, fma(red.y.lo, dHi, yd.lo));
  }
  DoubleWord<T> sum = twoSum(kc.hi, yd.hi);
  return sum.hi + (sum.lo + (kc.lo + yd.lo));
}

}  // namespace

TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(log, logImpl, Base::E)
TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(log2, logImpl, Base::Two)
TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(log10, logImpl, Base::Ten)

}  // namespace tilesim::exactmath
